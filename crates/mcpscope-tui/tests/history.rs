//! The History tab: the list and the detail drawn, search, this server / all, pin with a
//! label, replay, live `history` events, paging past the bottom; and against the real demo
//! server (an Inspector with a temp history): a tool call found by search and replayed.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::TabId;
use serde_json::{Value, json};

/// A `HistoryEntry` view as the core sends it.
fn entry(id: i64, method: &str, params: Value, status: &str) -> Value {
    json!({
        "id": id, "server": "demo", "method": method, "params": params, "status": status,
        "result": {"content": [{"type": "text", "text": "hello"}]}, "error": null,
        "startedAt": "2026-05-28T20:26:40Z", "startedAtUs": NOW_US - (10 - id as u64) * 1_000_000,
        "durationMs": if status == "pending" { Value::Null } else { json!(12 + id) },
        "pinned": false, "label": null, "era": "modern", "parentId": null, "requestId": null,
        "truncated": false, "resultSize": 40,
    })
}

fn page() -> Value {
    let mut pinned = entry(3, "resources/read", json!({"uri": "demo://readme"}), "ok");
    pinned["pinned"] = json!(true);
    pinned["label"] = json!("the readme");
    json!({
        "entries": [
            entry(5, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"},
                "_meta": {"progressToken": "p-1"}}), "ok"),
            entry(4, "prompts/get", json!({"name": "greet"}), "pending"),
            pinned,
            entry(2, "tools/call", json!({"name": "fail"}), "error"),
        ],
        "nextBefore": 2,
    })
}

/// Answer the effect routed `route` with `v`.
fn answer(s: &mut AppState, route: Route, v: Value) -> Vec<Effect> {
    send(
        s,
        Msg::Done(Done {
            route,
            result: Ok(v),
            was_call: false,
        }),
    )
}

fn route_of(e: &Effect) -> Route {
    match e {
        Effect::History { route, .. }
        | Effect::HistoryEntry { route, .. }
        | Effect::Pin { route, .. }
        | Effect::Call { route, .. }
        | Effect::Run { route, .. } => route.clone(),
        other => panic!("no route: {other:?}"),
    }
}

/// The History tab of `demo`, its first page answered.
fn opened(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("modern"))], size);
    let e = press(&mut s, KeyCode::Char('h'));
    let [Effect::History { route, query }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(query.server.as_deref(), Some("demo"));
    assert_eq!(query.text, None);
    answer(&mut s, route.clone(), page());
    s
}

fn history(s: &AppState) -> &mcpscope_tui::tabs::history::History {
    &s.tabs["demo"].history
}

#[test]
fn the_list_newest_first() {
    for size in SIZES {
        let s = opened(size);
        assert_eq!(history(&s).rows().len(), 4);
        insta::assert_snapshot!(format!("history_list_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn the_detail_nests_questions_by_round() {
    for size in SIZES {
        let mut s = opened(size);
        let e = press(&mut s, KeyCode::Enter);
        let [Effect::HistoryEntry { route, id: 5 }] = &e[..] else {
            panic!("{e:?}")
        };
        let mut d = entry(
            5,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hi"}}),
            "ok",
        );
        d["children"] = json!([
            {"kind": "progress", "offsetMs": 3.0, "data": {"progress": 1, "total": 2, "message": "half"}},
            {"kind": "serverRequest", "offsetMs": 5.0, "data": {"method": "elicitation/create", "round": 1,
                "answer": {"result": {"action": "accept"}}}},
            {"kind": "serverRequest", "offsetMs": 6.0, "data": {"method": "sampling/createMessage", "round": 1,
                "answer": {"error": {"message": "User rejected sampling request"}}}},
            {"kind": "log", "offsetMs": 8.0, "data": {"level": "info", "logger": "demo", "data": "done"}},
        ]);
        d["frames"] = json!([7, 8, 9]);
        answer(&mut s, route.clone(), d);
        insta::assert_snapshot!(format!("history_detail_{}x{}", size.0, size.1), draw(&s));
        // Esc closes the detail, not the tab.
        press(&mut s, KeyCode::Esc);
        assert!(draw(&s).contains("History of demo"));
    }
}

#[test]
fn search_filter_and_paging_ask_the_core() {
    let mut s = opened((80, 24));
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "echo h");
    // The filter is asked for as it is typed; Enter keeps it (nothing more to ask).
    let e = press(&mut s, KeyCode::Char('i'));
    insta::assert_snapshot!("history_search_80x24", draw(&s));
    let [Effect::History { query, route }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(query.text.as_deref(), Some("echo hi"));
    assert!(press(&mut s, KeyCode::Enter).is_empty());
    // An answer to the older query is dropped.
    answer(
        &mut s,
        Route::new("demo", TabId::History, "page", "1"),
        json!({"entries": [], "nextBefore": null}),
    );
    assert_eq!(history(&s).rows().len(), 4);
    answer(&mut s, route.clone(), page());
    let e = press(&mut s, KeyCode::Char('f'));
    let [Effect::History { query, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(query.server, None, "f: every server");
    answer(&mut s, route_of(&e[0]), page());
    // Going past the last row asks for the page before the oldest id.
    let e = press(&mut s, KeyCode::End);
    let [Effect::History { query, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(query.before, Some(2));
    answer(
        &mut s,
        route_of(&e[0]),
        json!({"entries": [entry(1, "ping", json!({}), "ok")], "nextBefore": null}),
    );
    assert_eq!(history(&s).rows().len(), 5);
    assert!(
        press(&mut s, KeyCode::Down).is_empty(),
        "no older page left"
    );
}

#[test]
fn pin_with_a_label_and_unpin() {
    let mut s = opened((80, 24));
    press(&mut s, KeyCode::Char('b'));
    type_text(&mut s, "keep me");
    insta::assert_snapshot!("history_pin_label_80x24", draw(&s));
    let e = press(&mut s, KeyCode::Enter);
    let [Effect::Pin { id: 5, pin, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(pin.as_deref(), Some("keep me"));
    press(&mut s, KeyCode::Down);
    press(&mut s, KeyCode::Down);
    let e = press(&mut s, KeyCode::Char('b'));
    assert!(
        matches!(
            &e[..],
            [Effect::Pin {
                id: 3,
                pin: None,
                ..
            }]
        ),
        "a pinned entry is unpinned: {e:?}"
    );
}

#[test]
fn replay_sends_the_same_method_and_params() {
    let mut s = opened((80, 24));
    let e = press(&mut s, KeyCode::Char('x'));
    let [Effect::HistoryEntry { route, id: 5 }] = &e[..] else {
        panic!("{e:?}")
    };
    let full = page()["entries"][0].clone();
    let e = answer(&mut s, route.clone(), full);
    let [Effect::Call { route, call }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(route.server, "demo");
    assert_eq!(call.method, "tools/call");
    assert_eq!(
        call.params,
        Some(json!({"name": "echo", "arguments": {"message": "hi"}})),
        "the original's progress token is not sent again"
    );
    assert!(call.progress);
}

#[test]
fn a_history_event_puts_the_row_in_place() {
    let mut s = opened((80, 24));
    press(&mut s, KeyCode::Down);
    core(
        &mut s,
        "history",
        entry(6, "tools/call", json!({"name": "add"}), "pending"),
    );
    let rows = history(&s).rows();
    assert_eq!(rows[0].id, 6);
    assert_eq!(rows[0].status, "pending");
    core(
        &mut s,
        "history",
        entry(6, "tools/call", json!({"name": "add"}), "ok"),
    );
    let rows = history(&s).rows();
    assert_eq!((rows.len(), rows[0].status.as_str()), (5, "ok"));
    // The cursor stayed on the entry it was on.
    let e = press(&mut s, KeyCode::Enter);
    assert!(
        matches!(&e[..], [Effect::HistoryEntry { id: 4, .. }]),
        "{e:?}"
    );
}

#[test]
fn hostile_fields_are_cut() {
    let mut s = opened((80, 24));
    let mut e = entry(
        7,
        &"m".repeat(100_000),
        json!({"name": "x\u{1b}[31m".repeat(10_000)}),
        "ok",
    );
    e["label"] = json!("l".repeat(100_000));
    core(&mut s, "history", e);
    let r = &history(&s).rows()[0];
    assert!(r.method.chars().count() <= 201 && r.target.chars().count() <= 201);
    assert!(!r.target.contains('\u{1b}'));
    draw(&s);
}

/// Against the real demo server: a call made through the core is found by the tab's search and
/// replayed through the engine (a second entry of the same call).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finds_a_real_call_by_search_and_replays_it() {
    use mcpscope_inspect::Call;
    let (dir, inspector) = crate::real_core::inspector("history");
    inspector.connect("demo", None).await.expect("connect");
    let call = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "echo", "arguments": {"message": "needle-4711"}})),
        ..Call::default()
    };
    inspector
        .call("demo", call)
        .await
        .expect("call")
        .result
        .expect("echo");
    let mut s = AppState::new(&inspector.servers().await, (120, 35), false);
    let e = press(&mut s, KeyCode::Char('h'));
    crate::real_core::pump(&mut s, &inspector, e).await;
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "needle-4711");
    let e = press(&mut s, KeyCode::Enter);
    crate::real_core::pump(&mut s, &inspector, e).await;
    let rows = history(&s).rows();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (rows[0].method.as_str(), rows[0].target.as_str()),
        ("tools/call", "echo")
    );
    let e = press(&mut s, KeyCode::Char('x'));
    crate::real_core::pump(&mut s, &inspector, e).await;
    let q = mcpscope_store::HistoryQuery {
        text: Some("needle-4711".into()),
        ..Default::default()
    };
    let page = inspector.history(q).await.expect("history");
    assert_eq!(page.entries.len(), 2, "the replay is a history entry too");
    assert_eq!(page.entries[0]["status"], "ok");
    assert_eq!(
        page.entries[0]["params"]["arguments"]["message"],
        "needle-4711"
    );
    inspector.shutdown().await;
    drop(dir);
}

#[test]
fn another_servers_entry_shows_only_when_all_are_shown() {
    let mut s = state(
        &[
            card("demo", "connected", Some("modern")),
            card("other", "connected", Some("legacy")),
        ],
        (80, 24),
    );
    let e = press(&mut s, KeyCode::Char('h'));
    answer(&mut s, route_of(&e[0]), page());
    let mut theirs = entry(9, "tools/call", json!({"name": "add"}), "ok");
    theirs["server"] = json!("other");
    core(&mut s, "history", theirs.clone());
    assert!(history(&s).rows().iter().all(|r| r.server == "demo"));
    let e = press(&mut s, KeyCode::Char('f'));
    answer(&mut s, route_of(&e[0]), page());
    theirs["id"] = json!(10);
    core(&mut s, "history", theirs);
    assert_eq!(history(&s).rows()[0].server, "other");
}

#[test]
fn a_click_selects_a_row_a_second_opens_it_and_the_wheel_pages() {
    for size in SIZES {
        let mut s = opened(size);
        // Title, search, column heads, then the entries newest first (5, 4, 3, 2).
        assert!(click(&mut s, 10, 4).is_empty());
        match &press(&mut s, KeyCode::Enter)[..] {
            [Effect::HistoryEntry { id, .. }] => assert_eq!(*id, 4),
            other => panic!("{other:?}"),
        }
        // The column heads are not a row; the selected row clicked again opens it.
        assert!(click(&mut s, 10, 2).is_empty());
        assert!(click(&mut s, 10, 6).is_empty());
        match &click(&mut s, 10, 6)[..] {
            [Effect::HistoryEntry { id, .. }] => assert_eq!(*id, 2),
            other => panic!("{other:?}"),
        }
    }
    // The wheel past the last row asks for the next older page, once.
    let mut s = opened((80, 24));
    let down = crossterm::event::MouseEventKind::ScrollDown;
    let mut asked = Vec::new();
    for _ in 0..5 {
        asked.extend(mouse_at(&mut s, down, 10, 5));
    }
    match &asked[..] {
        [Effect::History { query, .. }] => assert_eq!(query.before, Some(2)),
        other => panic!("one older page, got {other:?}"),
    }
}

#[test]
fn the_filter_takes_method_and_status_words_as_they_are_typed() {
    let mut s = opened((80, 24));
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "m:tools/ s:erro");
    let e = press(&mut s, KeyCode::Char('r'));
    let [Effect::History { query, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(query.method.as_deref(), Some("tools/"));
    assert_eq!(query.status.as_deref(), Some("error"));
    assert_eq!(query.text, None);
    let f = mcpscope_tui::tabs::history::Filter::of("method:tools/call echo status:ok hi");
    assert_eq!(f.method.as_deref(), Some("tools/call"));
    assert_eq!(f.status.as_deref(), Some("ok"));
    assert_eq!(f.text.as_deref(), Some("echo hi"));
    // Esc clears the filter the box was applying: the whole history again.
    let e = press(&mut s, KeyCode::Esc);
    let [Effect::History { query, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    assert_eq!(
        (query.method.as_deref(), query.status.as_deref()),
        (None, None)
    );
}
