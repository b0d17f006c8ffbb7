//! The Tools tab: the list with annotation and quality badges, search, a tool's form, the run
//! with its progress gauge and cancel, and the outcomes (text, JSON folding, structuredContent
//! valid and invalid, an image described and saved, isError, a protocol error, a resource link
//! followed), through the real reducer at 80×24 and 160×45; and against the demo server.

use crate::support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::TabId;
use mcpscope_tui::update::update;
use serde_json::{Value, json};

fn tools() -> Value {
    json!([
        {"name": "echo", "title": "Echo", "description": "Returns \"Echo: <message>\".",
         "inputSchema": {"type": "object", "properties": {"message": {"type": "string", "description": "Text to echo back"}}, "required": ["message"]}},
        {"name": "get-weather", "description": "Made-up weather for a city.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
         "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}}, "required": ["temperature", "conditions"]}},
        {"name": "annotated-read", "description": "A read-only, closed-world tool.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"title": "Read a demo value", "readOnlyHint": true, "openWorldHint": false}},
        {"name": "delete-everything", "description": "Annotated as destructive.",
         "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"destructiveHint": true, "idempotentHint": true, "openWorldHint": true}},
        {"name": "slow", "description": "Takes a while, reporting progress.",
         "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer", "minimum": 1}}}},
        {"name": "bad tool", "inputSchema": {"type": "object", "properties": {"x": {}}}},
        {"name": "kinds", "description": "Every field kind.", "inputSchema": crate::form::every_kind()}
    ])
}

fn lint() -> Value {
    json!({"findings": [
        {"tool": "bad tool", "index": 5, "severity": "error", "code": "name-chars", "message": "the name has a space", "pointer": "/name"},
        {"tool": "bad tool", "index": 5, "severity": "warning", "code": "no-description", "message": "no description", "pointer": ""},
        {"tool": "slow", "index": 4, "severity": "warning", "code": "undocumented-parameter", "message": "steps has no description", "pointer": "/inputSchema/properties/steps"}
    ], "errors": 1, "warnings": 2})
}

fn done(s: &mut AppState, tag: &'static str, key: &str, result: Value) -> Vec<Effect> {
    send(
        s,
        Msg::Done(Done {
            route: Route::new("demo", TabId::Tools, tag, key),
            result: Ok(result),
            was_call: true,
        }),
    )
}

fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    send(
        s,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    )
}

/// The Tools tab of a connected server, its list answered.
fn listed(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("modern"))], size);
    let e = press(&mut s, KeyCode::Char('t'));
    assert!(
        matches!(&e[..], [Effect::Call { call, .. }] if call.method == "tools/list" && call.pages.as_deref() == Some("tools")),
        "{e:?}"
    );
    done(
        &mut s,
        "list",
        "",
        json!({"historyId": 1, "result": {"tools": tools()}, "lint": lint()}),
    );
    s
}

/// Open the tool called `name` (a new search, Enter, Enter).
fn open(s: &mut AppState, name: &str) {
    press(s, KeyCode::Char('/'));
    ctrl(s, 'u');
    type_text(s, name);
    press(s, KeyCode::Enter);
    press(s, KeyCode::Enter);
}

/// Run the open tool; the request id of its call.
fn run(s: &mut AppState) -> String {
    let e = ctrl(s, 'r');
    match &e[..] {
        [Effect::Call { call, route }] => {
            assert_eq!(call.method, "tools/call");
            assert!(call.progress);
            assert_eq!(call.request_id.as_deref(), Some(route.key.as_str()));
            route.key.clone()
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_list_with_its_badges() {
    for size in SIZES {
        let s = listed(size);
        let screen = draw(&s);
        assert!(screen.contains("RO CLOSED"), "{screen}");
        assert!(screen.contains("DESTR IDEM OPEN"), "{screen}");
        assert!(screen.contains("bad tool ✗1 !1"), "{screen}");
        insta::assert_snapshot!(format!("tools_list_{}x{}", size.0, size.1), screen);
    }
    // The detail box names the selected tool's findings.
    let mut s = listed((160, 45));
    for _ in 0..5 {
        press(&mut s, KeyCode::Down);
    }
    let screen = draw(&s);
    assert!(
        screen.contains("✗ name-chars: the name has a space"),
        "{screen}"
    );
}

#[test]
fn search_filters_and_esc_clears() {
    for size in SIZES {
        let mut s = listed(size);
        press(&mut s, KeyCode::Char('/'));
        // Letters are the search's while it is typed into (t, q are app keys otherwise).
        type_text(&mut s, "destruct");
        assert_eq!(s.tab, TabId::Tools);
        let screen = draw(&s);
        assert!(screen.contains("delete-everything"), "{screen}");
        assert!(!screen.contains("echo"), "{screen}");
        insta::assert_snapshot!(format!("tools_search_{}x{}", size.0, size.1), screen);
        press(&mut s, KeyCode::Esc);
        assert!(draw(&s).contains("echo"));
    }
}

#[test]
fn the_form_of_every_kind_with_a_validation_error() {
    for size in SIZES {
        let mut s = listed(size);
        open(&mut s, "kinds");
        // name: one letter where two are the minimum.
        press(&mut s, KeyCode::Enter);
        type_text(&mut s, "A");
        press(&mut s, KeyCode::Enter);
        let screen = draw(&s);
        assert!(screen.contains("✗"), "{screen}");
        insta::assert_snapshot!(format!("tools_form_{}x{}", size.0, size.1), screen);
        ctrl(&mut s, 't');
        insta::assert_snapshot!(format!("tools_form_json_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn a_run_shows_its_progress_and_x_cancels_it() {
    for size in SIZES {
        let mut s = listed(size);
        open(&mut s, "slow");
        let id = run(&mut s);
        core(
            &mut s,
            "progress",
            json!({"server": "demo", "requestId": id, "method": "tools/call", "progress": 2, "total": 5, "message": "step 2 of 5"}),
        );
        update(&mut s, Msg::Tick, NOW_US + 2_500_000);
        let screen = draw(&s);
        assert!(screen.contains("2.5 s"), "{screen}");
        assert!(screen.contains("step 2 of 5"), "{screen}");
        assert!(screen.contains("40%"), "{screen}");
        insta::assert_snapshot!(format!("tools_running_{}x{}", size.0, size.1), screen);
        // A second run waits; x cancels this one by the id it was sent with.
        assert!(ctrl(&mut s, 'r').is_empty());
        assert!(
            s.toast
                .as_ref()
                .is_some_and(|t| t.text.contains("x cancels"))
        );
        let e = press(&mut s, KeyCode::Char('x'));
        assert!(
            matches!(&e[..], [Effect::Cancel { request_id }] if *request_id == id),
            "{e:?}"
        );
        done(
            &mut s,
            "call",
            &id,
            json!({"historyId": 9, "error": {"code": "cancelled", "message": "cancelled"}}),
        );
        assert!(draw(&s).contains("Cancelled after"));
    }
}

#[test]
fn a_text_result_and_a_json_result_that_folds() {
    for size in SIZES {
        let mut s = listed(size);
        open(&mut s, "echo");
        press(&mut s, KeyCode::Enter);
        type_text(&mut s, "hi");
        let id = run(&mut s);
        done(
            &mut s,
            "call",
            &id,
            json!({"historyId": 7, "result": {"content": [
                {"type": "text", "text": "Echo: hi"},
                {"type": "text", "text": "{\"a\": {\"b\": [1, 2, 3]}, \"c\": \"d\"}"}
            ]}}),
        );
        let screen = draw(&s);
        assert!(screen.contains("✓ success"), "{screen}");
        assert!(screen.contains("Echo: hi"), "{screen}");
        assert!(screen.contains("▾ a: {"), "{screen}");
        insta::assert_snapshot!(format!("tools_result_text_{}x{}", size.0, size.1), screen);
        // The cursor onto `a` and Enter folds it.
        for _ in 0..5 {
            press(&mut s, KeyCode::Down);
        }
        press(&mut s, KeyCode::Enter);
        let screen = draw(&s);
        assert!(screen.contains("▸ a: {…} 1 keys"), "{screen}");
        // `y` copies the whole result; `f` shows it in the pager.
        assert!(
            matches!(&press(&mut s, KeyCode::Char('y'))[..], [Effect::Copy(t)] if t.contains("Echo: hi"))
        );
        // `w` saves a result without data blocks as its text.
        let e = press(&mut s, KeyCode::Char('w'));
        let [Effect::SaveFile { path, bytes, .. }] = &e[..] else {
            panic!("{e:?}")
        };
        assert_eq!(path, "echo-7.txt");
        assert!(
            String::from_utf8_lossy(bytes).starts_with("Echo: hi\n{"),
            "{bytes:?}"
        );
        press(&mut s, KeyCode::Char('f'));
        let Some(mcpscope_tui::modals::Modal::Pager(p)) = &s.modal else {
            panic!("the pager")
        };
        // JSON: it scrolls sideways (→), `z` wraps it instead.
        assert!(!p.wrap);
        press(&mut s, KeyCode::Right);
        let Some(mcpscope_tui::modals::Modal::Pager(p)) = &s.modal else {
            panic!("the pager")
        };
        assert!(p.left > 0, "→ scrolls the whole result sideways");
    }
}

#[test]
fn structured_content_checked_against_the_output_schema() {
    for (valid, structured) in [
        (true, json!({"temperature": 21.5, "conditions": "sunny"})),
        (false, json!({"temperature": "warm"})),
    ] {
        for size in SIZES {
            let mut s = listed(size);
            open(&mut s, "get-weather");
            press(&mut s, KeyCode::Enter);
            type_text(&mut s, "Paris");
            let id = run(&mut s);
            done(
                &mut s,
                "call",
                &id,
                json!({"historyId": 8, "result": {
                    "content": [{"type": "text", "text": structured.to_string()}],
                    "structuredContent": structured
                }}),
            );
            let screen = draw(&s);
            let want = if valid {
                "✓ structuredContent matches outputSchema"
            } else {
                "✗ structuredContent does not match outputSchema"
            };
            assert!(screen.contains(want), "{screen}");
            let name = if valid { "valid" } else { "invalid" };
            insta::assert_snapshot!(
                format!("tools_result_structured_{name}_{}x{}", size.0, size.1),
                screen
            );
        }
    }
}

#[test]
fn an_image_is_described_and_saved_with_w() {
    let png = [0x89u8, b'P', b'N', b'G', 1, 2, 3];
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, png);
    for size in SIZES {
        let mut s = listed(size);
        open(&mut s, "annotated-read");
        let id = run(&mut s);
        done(
            &mut s,
            "call",
            &id,
            json!({"historyId": 12, "result": {"content": [
                {"type": "image", "mimeType": "image/png", "data": data},
                {"type": "resource_link", "uri": "demo://readme", "name": "readme"}
            ]}}),
        );
        let screen = draw(&s);
        assert!(screen.contains("[image] image/png"), "{screen}");
        assert!(screen.contains("w: save to file"), "{screen}");
        insta::assert_snapshot!(format!("tools_result_image_{}x{}", size.0, size.1), screen);
        let e = press(&mut s, KeyCode::Char('w'));
        match &e[..] {
            [Effect::SaveFile { path, bytes, .. }] => {
                assert_eq!(path, "annotated-read-12-0.png");
                assert_eq!(bytes, &png);
            }
            other => panic!("{other:?}"),
        }
        // Enter on the link opens it in Resources.
        for _ in 0..3 {
            press(&mut s, KeyCode::Down);
        }
        press(&mut s, KeyCode::Enter);
        assert_eq!(s.tab, TabId::Resources);
    }
}

#[test]
fn is_error_and_protocol_errors_are_told_apart() {
    for size in SIZES {
        let mut s = listed(size);
        open(&mut s, "delete-everything");
        let id = run(&mut s);
        done(
            &mut s,
            "call",
            &id,
            json!({"historyId": 3, "result": {"isError": true, "content": [{"type": "text", "text": "nothing to delete"}]}}),
        );
        let screen = draw(&s);
        assert!(
            screen.contains("✗ isError: the tool reported a failure"),
            "{screen}"
        );
        insta::assert_snapshot!(
            format!("tools_result_is_error_{}x{}", size.0, size.1),
            screen
        );
        let id = run(&mut s);
        done(
            &mut s,
            "call",
            &id,
            json!({"historyId": 4, "error": {"code": "rpc_error", "rpcCode": -32602, "message": "Unknown tool"}}),
        );
        let screen = draw(&s);
        assert!(
            screen.contains("✗ Protocol error (JSON-RPC -32602)"),
            "{screen}"
        );
        assert!(screen.contains("Unknown tool"), "{screen}");
    }
}

#[test]
fn the_list_is_forgotten_on_reset_and_arguments_are_kept() {
    let mut s = listed((80, 24));
    open(&mut s, "echo");
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "kept");
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Esc);
    core(&mut s, "reset", json!({"server": "demo"}));
    let screen = draw(&s);
    assert!(!screen.contains("get-weather"), "{screen}");
    // Opened again (list answered again): the arguments typed before are still there.
    let e = press(&mut s, KeyCode::Char('t'));
    assert!(matches!(&e[..], [Effect::Call { .. }]));
    done(&mut s, "list", "", json!({"result": {"tools": tools()}}));
    press(&mut s, KeyCode::Enter);
    assert!(draw(&s).contains("message *: kept"));
}

/// The real demo server in both eras: the list through the core, a form filled by keys, the
/// call performed on the inspector and its result drawn.
mod demo {
    use super::*;
    use mcpscope_inspect::{Catalog, CatalogEntry, Inspector, Options};
    use mcpscope_tui::effects;
    use std::sync::Arc;
    use std::time::Duration;

    fn inspector(dir: &std::path::Path) -> Arc<Inspector> {
        let bin =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/mcpscope");
        assert!(
            bin.exists(),
            "build the demo first: cargo build -p mcpscope"
        );
        let entries = ["legacy", "modern"]
            .into_iter()
            .map(|era| {
                let e: CatalogEntry = serde_json::from_value(json!({
                    "command": bin.display().to_string(),
                    "args": ["demo-server"],
                    "protocolEra": era
                }))
                .expect("entry");
                (era.to_string(), e.normalized())
            })
            .collect();
        let store = mcpscope_store::HistoryStore::open(
            &dir.join("history.sqlite"),
            mcpscope_store::Retention::default(),
        )
        .expect("history");
        let options = Options {
            ping_interval: None,
            secrets: Some(mcpscope_store::SecretStoreConfig::file(
                dir.join("secrets.enc"),
                None,
            )),
            ..Options::default()
        };
        Inspector::new(Catalog::in_memory(entries), store, options)
    }

    /// Perform `effects` on the core and feed every answer back through the reducer until the
    /// screen shows `want`.
    async fn until(
        i: &Arc<Inspector>,
        s: &mut AppState,
        effects: Vec<Effect>,
        want: &str,
    ) -> String {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for e in effects {
            effects::perform(i, e, &tx);
        }
        loop {
            let screen = draw(s);
            if screen.contains(want) {
                return screen;
            }
            let m = tokio::time::timeout(Duration::from_secs(30), rx.recv())
                .await
                .unwrap_or_else(|_| panic!("no answer within 30 s; the screen:\n{screen}"))
                .expect("an answer");
            for e in send(s, m) {
                effects::perform(i, e, &tx);
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lists_fills_a_form_and_calls_a_tool_in_both_eras() {
        let dir = std::env::temp_dir().join(format!("mcpscope-tui-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let i = inspector(&dir);
        for era in ["modern", "legacy"] {
            i.connect(era, None).await.expect("connect");
            let cards = i.servers().await;
            let mut s = AppState::new(&cards, (160, 45), false);
            s.selected = s.servers.iter().position(|r| r.name == era).expect("row");
            let e = press(&mut s, KeyCode::Char('t'));
            until(&i, &mut s, e, "get-weather").await;
            open(&mut s, "echo");
            press(&mut s, KeyCode::Enter);
            type_text(&mut s, "hello from the tui");
            press(&mut s, KeyCode::Enter);
            let e = ctrl(&mut s, 'r');
            let screen = until(&i, &mut s, e, "Echo: hello from the tui").await;
            assert!(screen.contains("✓ success"), "{era}: {screen}");
            // A tool with an outputSchema: its structuredContent checked.
            press(&mut s, KeyCode::Esc);
            press(&mut s, KeyCode::Esc);
            open(&mut s, "get-weather");
            press(&mut s, KeyCode::Enter);
            type_text(&mut s, "Paris");
            let e = ctrl(&mut s, 'r');
            let screen = until(&i, &mut s, e, "structuredContent matches outputSchema").await;
            assert!(screen.contains("✓ success"), "{era}: {screen}");
        }
        i.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_click_selects_a_tool_and_the_wheel_moves() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut s = listed((80, 24));
    let body = mcpscope_tui::render::layout(s.size).body;
    let at = |kind, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column: body.x + 4,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    // The list's title is the body's first line; the third tool is on its fourth.
    send(
        &mut s,
        at(MouseEventKind::Down(MouseButton::Left), body.y + 3),
    );
    press(&mut s, KeyCode::Enter);
    assert!(draw(&s).contains("annotated-read ✓ valid"), "{}", draw(&s));
    press(&mut s, KeyCode::Esc);
    send(&mut s, at(MouseEventKind::ScrollDown, body.y + 3));
    press(&mut s, KeyCode::Enter);
    assert!(
        draw(&s).contains("delete-everything ✓ valid"),
        "{}",
        draw(&s)
    );
}

#[test]
fn goto_opens_a_tool_with_arguments_and_list_changes_are_said() {
    let mut s = listed((80, 24));
    // History's replay sends the user here with a tool and its arguments, as JSON.
    let mut tools_tab = std::mem::take(&mut s.tabs.get_mut("demo").expect("tabs").tools);
    let row = s.servers[0].clone();
    let ctx = mcpscope_tui::tabs::Ctx {
        server: &row,
        now_us: NOW_US,
        color: false,
        focused: true,
        area: mcpscope_tui::render::layout(s.size).body,
    };
    use mcpscope_tui::tabs::Tab;
    let item = json!({"name": "echo", "arguments": {"message": "again"}}).to_string();
    assert!(tools_tab.goto(&ctx, &item).is_empty());
    s.tabs.get_mut("demo").expect("tabs").tools = tools_tab;
    assert!(draw(&s).contains("message *: again"), "{}", draw(&s));
    // The server says its tools changed: the tab says how to list them again.
    core(
        &mut s,
        "notification",
        json!({"server": "demo", "method": "notifications/tools/list_changed"}),
    );
    assert!(draw(&s).contains("f reloads"));
}

#[test]
fn an_excluded_tool_is_marked_and_not_called() {
    let mut s = state(&[card("demo", "connected", Some("modern"))], (80, 24));
    press(&mut s, KeyCode::Char('t'));
    done(
        &mut s,
        "list",
        "",
        json!({"result": {"tools": tools()}, "excludedTools": [["echo", "its inputSchema is not an object"]]}),
    );
    let screen = draw(&s);
    assert!(screen.contains("echo (excluded)"), "{screen}");
    assert!(screen.contains("excluded: its inputSchema"), "{screen}");
    press(&mut s, KeyCode::Enter);
    assert!(ctrl(&mut s, 'r').is_empty());
    assert!(
        s.toast
            .as_ref()
            .is_some_and(|t| t.error && t.text.contains("excluded"))
    );
}

#[test]
fn audio_and_embedded_blobs_are_saved_too() {
    let wav = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b"RIFFwav");
    let pdf = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b"%PDF-1");
    let mut s = listed((160, 45));
    open(&mut s, "annotated-read");
    let id = run(&mut s);
    done(
        &mut s,
        "call",
        &id,
        json!({"historyId": 5, "result": {"content": [
            {"type": "audio", "mimeType": "audio/wav", "data": wav},
            {"type": "resource", "resource": {"uri": "demo://doc", "mimeType": "application/pdf", "blob": pdf}}
        ]}}),
    );
    let screen = draw(&s);
    assert!(screen.contains("[audio] audio/wav"), "{screen}");
    assert!(screen.contains("[resource] demo://doc"), "{screen}");
    assert!(screen.contains("[blob]"), "{screen}");
    let saved = |e: Vec<Effect>| match &e[..] {
        [Effect::SaveFile { path, bytes, .. }] => (path.clone(), bytes.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        saved(press(&mut s, KeyCode::Char('w'))),
        ("annotated-read-5-0.wav".to_string(), b"RIFFwav".to_vec())
    );
    // The cursor onto the blob's line (status, header, audio, resource, blob) and Enter.
    for _ in 0..4 {
        press(&mut s, KeyCode::Down);
    }
    assert_eq!(
        saved(press(&mut s, KeyCode::Enter)),
        ("annotated-read-5-1.pdf".to_string(), b"%PDF-1".to_vec())
    );
}

#[test]
fn slash_searches_the_list_again_once_off_the_text_field() {
    let mut s = listed((80, 24));
    open(&mut s, "echo");
    // On echo's text field `/` is typed (fields take typing at once); Esc leaves the form.
    press(&mut s, KeyCode::Char('/'));
    assert!(draw(&s).contains("message *: /"), "{}", draw(&s));
    press(&mut s, KeyCode::Esc);
    press(&mut s, KeyCode::Esc);
    press(&mut s, KeyCode::Char('/'));
    ctrl(&mut s, 'u');
    type_text(&mut s, "slow");
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Enter);
    assert!(draw(&s).contains("slow ✓ valid"), "{}", draw(&s));
}

#[test]
fn a_long_search_scrolls_inside_its_box_and_keeps_the_cursor() {
    for size in SIZES {
        let mut s = listed(size);
        press(&mut s, KeyCode::Char('/'));
        let long = format!("{}-the-end", "a-long-query".repeat(8));
        type_text(&mut s, &long);
        let screen = draw(&s);
        let line = screen
            .lines()
            .find(|l| l.contains("Tools ("))
            .expect("the title line");
        // The end of the query (where the cursor is) and the count are on screen, the start
        // has scrolled out.
        assert!(line.contains("-the-end"), "{size:?}: {line}");
        assert!(line.contains("0 shown"), "{size:?}: {line}");
        assert!(!line.contains(&long), "{size:?}: {line}");
        // Home: the start is back in view.
        press(&mut s, KeyCode::Home);
        let screen = draw(&s);
        let line = screen
            .lines()
            .find(|l| l.contains("Tools ("))
            .expect("title");
        assert!(line.contains("/a-long-querya-long"), "{size:?}: {line}");
        assert!(!line.contains("-the-end"), "{size:?}: {line}");
    }
}
