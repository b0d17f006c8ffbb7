//! The Resources tab: the lists on entering (both with every page), the two sections and their
//! search, a template's form with completion suggestions, a read (text, a blob saved with `w`),
//! subscribe / unsubscribe and the updated mark, `goto`; and against the real demo server, a
//! read through a template in both eras. Also the real core's builder the Prompts tests share.

use crate::real_core::{TempDir, pump};
use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_inspect::Inspector;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::resources::Item;
use mcpscope_tui::tabs::{Ctx, Tab, TabId};
use serde_json::{Value, json};
use std::sync::Arc;

/// The answer of a call, as `effects::call_value` makes it.
pub(crate) fn answer(tab: TabId, tag: &'static str, key: &str, result: Value) -> Msg {
    Msg::Done(Done {
        route: Route::new("demo", tab, tag, key),
        result: Ok(json!({"historyId": 1, "result": result})),
        was_call: true,
    })
}

/// The demo server's lists, as it answers them.
fn lists() -> (Value, Value) {
    let r = json!({"resources": [
        {"uri": "demo://readme", "name": "readme", "title": "README", "description": "What this server offers", "mimeType": "text/markdown"},
        {"uri": "demo://logo.png", "name": "logo.png", "title": "Logo", "description": "A 16x16 PNG (blob contents)", "mimeType": "image/png"},
        {"uri": "demo://counter", "name": "counter", "title": "Counter", "description": "Seconds since the server started", "mimeType": "text/plain",
         "annotations": {"audience": ["user"], "priority": 0.5}},
    ]});
    let t = json!({"resourceTemplates": [
        {"uriTemplate": "demo://greeting/{name}", "name": "greeting", "description": "A greeting for {name}", "mimeType": "text/plain"},
        {"uriTemplate": "demo://files/{path}", "name": "files", "description": "A made-up file at {path}", "mimeType": "text/plain"},
    ]});
    (r, t)
}

/// A state at `size` on the Resources tab of a connected demo, its lists loaded.
fn loaded(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("modern"))], size);
    let e = press(&mut s, KeyCode::Char('r'));
    let pages: Vec<Option<String>> = e
        .iter()
        .filter_map(|e| match e {
            Effect::Call { call, .. } => Some(call.pages.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        pages,
        [Some("resources".into()), Some("resourceTemplates".into())]
    );
    assert!(
        e.iter().any(|e| matches!(e, Effect::Run { .. })),
        "syncs the panel"
    );
    let (r, t) = lists();
    send(&mut s, answer(TabId::Resources, "list", "", r));
    send(&mut s, answer(TabId::Resources, "templates", "", t));
    s
}

fn call_of(e: &[Effect]) -> (&str, Value) {
    match e {
        [Effect::Call { call, .. }] => (
            call.method.as_str(),
            call.params.clone().unwrap_or_default(),
        ),
        other => panic!("one call expected, got {other:?}"),
    }
}

fn tab(s: &AppState) -> &mcpscope_tui::tabs::resources::Resources {
    &s.tabs["demo"].resources
}

#[test]
fn lists_in_two_sections() {
    for size in SIZES {
        let s = loaded(size);
        assert_eq!(tab(&s).items().len(), 5);
        insta::assert_snapshot!(format!("resources_list_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn not_connected_says_so_and_asks_nothing() {
    let mut s = state(&[card("demo", "disconnected", None)], (80, 24));
    assert!(press(&mut s, KeyCode::Char('r')).is_empty());
    assert!(draw(&s).contains(mcpscope_tui::strings::NOT_CONNECTED));
}

#[test]
fn search_filters_both_sections() {
    for size in SIZES {
        let mut s = loaded(size);
        press(&mut s, KeyCode::Char('/'));
        type_text(&mut s, "gre");
        assert_eq!(tab(&s).items().len(), 1, "the greeting template only");
        insta::assert_snapshot!(format!("resources_search_{}x{}", size.0, size.1), draw(&s));
        press(&mut s, KeyCode::Esc);
        assert_eq!(tab(&s).items().len(), 5);
    }
}

#[test]
fn a_template_form_completes_and_reads_the_expanded_uri() {
    for size in SIZES {
        let mut s = loaded(size);
        for _ in 0..3 {
            press(&mut s, KeyCode::Down);
        }
        let e = press(&mut s, KeyCode::Enter);
        let (method, params) = call_of(&e);
        assert_eq!(method, "completion/complete");
        assert_eq!(
            params["ref"],
            json!({"type": "ref/resource", "uri": "demo://greeting/{name}"})
        );
        assert!(
            s.tabs["demo"].resources.captures(),
            "the form takes the letters"
        );
        type_text(&mut s, "A");
        let values = json!({"completion": {"values": ["Ada", "Alan", "Alice"]}});
        // The first answer is for "": the form asks again for "A".
        let e = send(
            &mut s,
            answer(TabId::Resources, "complete", "1", values.clone()),
        );
        assert_eq!(
            call_of(&e).1["argument"],
            json!({"name": "name", "value": "A"})
        );
        assert!(send(&mut s, answer(TabId::Resources, "complete", "1", values)).is_empty());
        press(&mut s, KeyCode::Tab);
        press(&mut s, KeyCode::Down);
        insta::assert_snapshot!(
            format!("resources_template_{}x{}", size.0, size.1),
            draw(&s)
        );
        press(&mut s, KeyCode::Enter);
        assert_eq!(tab(&s).expanded().as_deref(), Some("demo://greeting/Alan"));
        let e = press(&mut s, KeyCode::Enter);
        let (method, params) = call_of(&e);
        assert_eq!(
            (method, params),
            ("resources/read", json!({"uri": "demo://greeting/Alan"}))
        );
    }
}

#[test]
fn a_read_shows_text_and_saves_a_blob() {
    for size in SIZES {
        let mut s = loaded(size);
        let e = press(&mut s, KeyCode::Enter);
        let (method, params) = call_of(&e);
        assert_eq!(
            (method, params),
            ("resources/read", json!({"uri": "demo://readme"}))
        );
        let text = "# mcpscope demo\n\nTools, prompts, resources and templates.\n\x1b[31mred\x1b[0m is not drawn";
        let c = json!({"contents": [{"uri": "demo://readme", "mimeType": "text/markdown", "text": text}]});
        send(&mut s, answer(TabId::Resources, "read", "demo://readme", c));
        let screen = draw(&s);
        assert!(!screen.contains('\x1b'));
        insta::assert_snapshot!(format!("resources_read_{}x{}", size.0, size.1), screen);
    }
    let mut s = loaded((160, 45));
    press(&mut s, KeyCode::Down);
    press(&mut s, KeyCode::Enter);
    let png = json!({"contents": [{"uri": "demo://logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]});
    send(
        &mut s,
        answer(TabId::Resources, "read", "demo://logo.png", png),
    );
    assert!(draw(&s).contains("image/png · blob, 8 bytes"));
    assert!(press(&mut s, KeyCode::Char('w')).is_empty());
    assert!(draw(&s).contains("Save to: logo.png"));
    match &press(&mut s, KeyCode::Enter)[..] {
        [Effect::SaveFile { path, bytes, .. }] => {
            assert_eq!(path, "logo.png");
            assert_eq!(&bytes[..4], b"\x89PNG");
        }
        other => panic!("a save, got {other:?}"),
    }
}

#[test]
fn an_error_answer_is_shown_in_the_tab() {
    let mut s = loaded((80, 24));
    press(&mut s, KeyCode::Enter);
    let err = Msg::Done(Done {
        route: Route::new("demo", TabId::Resources, "read", "demo://readme"),
        result: Ok(
            json!({"historyId": 2, "error": {"code": "rpc", "rpcCode": -32002, "message": "Resource not found"}}),
        ),
        was_call: true,
    });
    send(&mut s, err);
    assert!(draw(&s).contains("error: Resource not found (-32002)"));
}

#[test]
fn subscribe_marks_the_resource_and_updates_show_their_time() {
    let mut s = loaded((160, 45));
    press(&mut s, KeyCode::Down);
    press(&mut s, KeyCode::Down);
    match &press(&mut s, KeyCode::Char('b'))[..] {
        [Effect::Run { route, .. }] => assert_eq!(
            (route.tag, route.key.as_str()),
            ("subscribe", "demo://counter")
        ),
        other => panic!("a job, got {other:?}"),
    }
    let view = json!({"subscriptions": {"server": "demo", "desired": {"resourceSubscriptions": ["demo://counter"]}, "uris": []}});
    send(
        &mut s,
        Msg::Done(Done {
            route: Route::new("demo", TabId::Resources, "subscribe", "demo://counter"),
            result: Ok(view),
            was_call: false,
        }),
    );
    assert!(tab(&s).subscribed.contains("demo://counter"));
    core(
        &mut s,
        "notification",
        json!({"server": "demo", "method": "notifications/resources/updated", "params": {"uri": "demo://counter"}}),
    );
    let screen = draw(&s);
    assert!(screen.contains("↻ Counter"), "{screen}");
    assert!(
        screen.contains("● subscribed (u unsubscribes) · ↻ updated"),
        "{screen}"
    );
    insta::assert_snapshot!("resources_subscribed_160x45", screen);
    // The Subscriptions panel changed elsewhere: the marks follow the core.
    core(
        &mut s,
        "subscriptions",
        json!({"server": "demo", "desired": {"resourceSubscriptions": []}, "uris": []}),
    );
    assert!(tab(&s).subscribed.is_empty());
}

#[test]
fn goto_selects_a_listed_resource_and_reads_any_uri() {
    let mut s = loaded((80, 24));
    let row = s.servers[0].clone();
    let ctx = Ctx {
        server: &row,
        now_us: NOW_US,
        color: false,
        focused: true,
        area: ratatui::layout::Rect::new(21, 3, 58, 19),
    };
    let t = &mut s.tabs.get_mut("demo").expect("tabs").resources;
    let e = t.goto(&ctx, "demo://counter");
    assert_eq!(t.cursor.selected, 2);
    assert!(
        matches!(&e[..], [Effect::Call { call, .. }] if call.params == Some(json!({"uri": "demo://counter"})))
    );
    let e = t.goto(&ctx, "demo://elsewhere");
    assert!(
        matches!(&e[..], [Effect::Call { call, .. }] if call.params == Some(json!({"uri": "demo://elsewhere"})))
    );
    t.reset();
    assert!(t.resources.is_none());
}

// --- the real demo server ---

/// An inspector over `mcpscope demo-server` (`real_core::inspector`) connected in `era`, and
/// the state of a TUI that sees it.
pub(crate) async fn demo(era: &str, size: (u16, u16)) -> (TempDir, Arc<Inspector>, AppState) {
    let (dir, i) = crate::real_core::inspector("resources");
    i.connect("demo", Some(era.to_string()))
        .await
        .expect("connect");
    let mut s = AppState::new(&i.servers().await, size, false);
    assert!(s.servers[0].connected(), "{:?}", s.servers[0]);
    // As the loop does first: what the server declared.
    let first = mcpscope_tui::update::started(&s);
    pump(&mut s, &i, first).await;
    assert!(s.servers[0].declares("/completions"), "{:?}", s.servers[0]);
    (dir, i, s)
}

/// Press `code` and perform what it asks.
pub(crate) async fn press_real(s: &mut AppState, i: &Arc<Inspector>, code: KeyCode) {
    let e = press(s, code);
    pump(s, i, e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_server_reads_through_a_template_in_both_eras() {
    for era in ["legacy", "modern"] {
        let (_dir, i, mut s) = demo(era, (160, 45)).await;
        press_real(&mut s, &i, KeyCode::Char('r')).await;
        let t = tab(&s);
        assert_eq!(
            t.templates.as_ref().map(Vec::len),
            Some(2),
            "{era}: {:?}",
            t.list_errors
        );
        assert!(t.resources.as_ref().is_some_and(|r| r.len() >= 3));
        let greeting = t.items().iter().position(|it| {
            matches!(it, mcpscope_tui::tabs::resources::Item::Template(n) if t.templates.as_ref().unwrap()[*n].name == "greeting")
        });
        for _ in 0..greeting.expect("the greeting template") {
            press(&mut s, KeyCode::Down);
        }
        press_real(&mut s, &i, KeyCode::Enter).await;
        let form = &tab(&s).form.as_ref().expect("the form").1;
        assert!(
            form.suggestions().contains(&"Ada".to_string()),
            "{era}: {:?}",
            form.suggestions()
        );
        for c in "Gr".chars() {
            press_real(&mut s, &i, KeyCode::Char(c)).await;
        }
        let form = &tab(&s).form.as_ref().expect("the form").1;
        assert_eq!(form.suggestions(), ["Grace"], "{era}");
        press(&mut s, KeyCode::Down);
        press(&mut s, KeyCode::Enter);
        press_real(&mut s, &i, KeyCode::Enter).await;
        let read = tab(&s).read.as_ref().expect("a read");
        assert_eq!(read.uri, "demo://greeting/Grace");
        assert!(read.error.is_none(), "{era}: {:?}", read.error);
        assert!(
            read.pager.text().contains("Hello, Grace!"),
            "{era}: {}",
            read.pager.text()
        );
        // Subscribe through the core in this era: the mark comes from the core's answer. Esc
        // leaves the read for the list (not for the form).
        press(&mut s, KeyCode::Esc);
        let counter = tab(&s).items().iter().position(|it| {
            matches!(it, mcpscope_tui::tabs::resources::Item::Resource(n) if tab(&s).resources.as_ref().unwrap()[*n].uri == "demo://counter")
        });
        s.tabs.get_mut("demo").unwrap().resources.cursor.selected = counter.expect("the counter");
        press_real(&mut s, &i, KeyCode::Char('b')).await;
        let t = tab(&s);
        assert!(
            t.subscribed.contains("demo://counter"),
            "{era}: {:?} {:?}",
            t.sub_error,
            t.subscribed
        );
        press_real(&mut s, &i, KeyCode::Char('u')).await;
        assert!(!tab(&s).subscribed.contains("demo://counter"), "{era}");
        i.shutdown().await;
    }
}

#[test]
fn what_a_hostile_server_sends_is_bounded() {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], (80, 24));
    press(&mut s, KeyCode::Char('r'));
    let many: Vec<Value> = (0..20_000)
        .map(|i| json!({"uri": format!("demo://r/{i}\x1b[2J{}", "x".repeat(5_000)), "name": "n"}))
        .collect();
    send(
        &mut s,
        answer(TabId::Resources, "list", "", json!({"resources": many})),
    );
    let t = tab(&s);
    let rows = t.resources.as_ref().expect("listed");
    assert_eq!(rows.len(), mcpscope_tui::tabs::resources::MAX_ROWS);
    assert!(rows[0].uri.chars().count() <= mcpscope_tui::widgets::completion::MAX_TEXT + 1);
    assert!(!rows[0].uri.contains('\x1b'));
    core(
        &mut s,
        "notification",
        json!({"server": "demo", "method": "notifications/resources/list_changed"}),
    );
    assert!(draw(&s).contains("The list changed: f reloads"));
    press(&mut s, KeyCode::Enter);
    let huge = "line\n".repeat(1_000_000);
    let c = json!({"contents": [{"uri": "demo://r/0", "text": huge}]});
    send(&mut s, answer(TabId::Resources, "read", "demo://r/0", c));
    let read = tab(&s).read.as_ref().expect("read");
    assert!(read.pager.lines.len() <= mcpscope_tui::widgets::pager::MAX_LINES);
    assert!(
        read.heads[0].contains("(only the first 2097152 bytes kept)"),
        "{:?}",
        read.heads
    );
}

/// The two lists answer in either order: the cursor moved onto a template before the resources
/// arrive stays on that template (it followed its index once, and Enter read a resource).
#[test]
fn the_cursor_keeps_its_item_when_the_other_list_arrives() {
    let mut s = state(&[card("demo", "connected", Some("modern"))], (120, 35));
    press(&mut s, KeyCode::Char('r'));
    let (r, t) = lists();
    send(&mut s, answer(TabId::Resources, "templates", "", t));
    press(&mut s, KeyCode::Down);
    let before = tab(&s).selected();
    assert!(matches!(before, Some(Item::Template(1))), "{before:?}");
    send(&mut s, answer(TabId::Resources, "list", "", r));
    let n = tab(&s).resources.as_ref().map_or(0, Vec::len);
    assert_eq!(tab(&s).selected(), Some(Item::Template(1)));
    assert_eq!(tab(&s).cursor.selected, n + 1);
}

#[test]
fn a_click_selects_the_row_drawn_there_and_a_second_opens_it() {
    for size in SIZES {
        let mut s = loaded(size);
        // Resources (3) on the first line, then readme, logo, counter; Templates (2) after.
        assert!(click(&mut s, 2, 2).is_empty());
        assert_eq!(tab(&s).cursor.selected, 1);
        let line = body_line(&s, 2);
        assert!(line.contains('▸') && line.contains("Logo"), "{line}");
        // A section's title is not a row.
        click(&mut s, 2, 4);
        assert_eq!(tab(&s).cursor.selected, 1);
        click(&mut s, 2, 5);
        assert_eq!(tab(&s).cursor.selected, 3);
        // The selected row clicked again opens it, as Enter: the template's form.
        click(&mut s, 2, 5);
        assert!(
            draw(&s).contains("Template demo://greeting/{name}"),
            "{}",
            draw(&s)
        );
    }
}

#[test]
fn a_click_in_a_scrolled_list_selects_the_row_drawn_there() {
    let mut s = state(&[card("demo", "connected", Some("modern"))], (80, 24));
    press(&mut s, KeyCode::Char('r'));
    let many: Vec<Value> = (0..60)
        .map(|i| json!({"uri": format!("demo://r/{i}"), "name": format!("res-{i:02}")}))
        .collect();
    send(
        &mut s,
        answer(TabId::Resources, "list", "", json!({"resources": many})),
    );
    send(
        &mut s,
        answer(
            TabId::Resources,
            "templates",
            "",
            json!({"resourceTemplates": []}),
        ),
    );
    press(&mut s, KeyCode::End);
    press(&mut s, KeyCode::PageUp);
    for row in [0u16, 3, 10] {
        let before = body_line(&s, row);
        let name = before
            .split_whitespace()
            .find(|w| w.starts_with("res-"))
            .unwrap_or_else(|| panic!("a row at {row}: {before}"))
            .to_string();
        click(&mut s, 3, row);
        let after = body_line(&s, row);
        assert!(
            after.contains('▸') && after.contains(&name),
            "{before} → {after}"
        );
        let n: usize = name[4..].parse().expect("a number");
        assert_eq!(tab(&s).cursor.selected, n);
    }
}
