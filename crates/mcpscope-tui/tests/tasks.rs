//! The Tasks tab: the core's tasks drawn with status, progress, created and updated; one in
//! detail; cancel, tasks/get, tasks/list; re-read on `tasks` events.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use serde_json::{Value, json};

fn task(id: &str, status: &str, tool: &str, history: i64) -> Value {
    json!({
        "taskId": id, "status": status, "knownStatus": true,
        "terminal": (["completed", "failed", "cancelled"].contains(&status)),
        "statusMessage": if status == "working" { json!("step 2 of 5") } else { Value::Null },
        "createdAt": "2026-05-28T20:26:30Z", "lastUpdatedAt": "2026-05-28T20:26:38Z",
        "ttlMs": 60000, "pollIntervalMs": 500,
        "polling": {"state": if status == "working" { "polling" } else { "done" },
            "everyMs": if status == "working" { json!(500) } else { Value::Null }, "reason": null, "polls": 4},
        "source": "created", "tool": tool, "historyId": history, "requestId": "r-1",
        "hasResult": status == "completed", "hasError": status == "failed", "resultBytes": 40,
        "inputRequests": [], "updatedUs": NOW_US, "stale": false, "problems": [],
    })
}

fn page() -> Value {
    json!({
        "server": "demo",
        "support": {"era": "legacy", "tasks": true, "list": true, "cancel": true, "toolCall": true, "ttl": true},
        "version": 3, "unchanged": false, "delta": false, "omitted": 0, "minPollMs": 100, "maxPollMs": 30000,
        "tasks": [task("t-1", "completed", "slow", 10), task("t-2", "working", "research", 11)],
    })
}

fn route_of(e: &[Effect]) -> Route {
    match e {
        [Effect::Run { route, .. }, ..] => route.clone(),
        other => panic!("{other:?}"),
    }
}

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

fn opened(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], size);
    let e = press(&mut s, KeyCode::Char('k'));
    let r = route_of(&e);
    assert_eq!(r.tag, "page");
    answer(&mut s, r, page());
    core(
        &mut s,
        "progress",
        json!({"server": "demo", "requestId": "r-1", "historyId": 11,
        "method": "tools/call", "progress": 2, "total": 5, "message": null}),
    );
    s
}

#[test]
fn the_list_with_progress() {
    for size in SIZES {
        let s = opened(size);
        assert_eq!(s.tabs["demo"].tasks.rows().len(), 2);
        insta::assert_snapshot!(format!("tasks_list_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn a_task_in_detail_and_cancelled() {
    for size in SIZES {
        let mut s = opened(size);
        press(&mut s, KeyCode::Down);
        let e = press(&mut s, KeyCode::Enter);
        let r = route_of(&e);
        assert_eq!((r.tag, r.key.as_str()), ("detail", "t-2"));
        let raw = task("t-2", "working", "research", 11);
        answer(
            &mut s,
            r,
            json!({"task": raw, "raw": {"taskId": "t-2", "status": "working"},
            "result": null, "resultPreview": null, "error": null}),
        );
        insta::assert_snapshot!(format!("tasks_detail_{}x{}", size.0, size.1), draw(&s));
        let e = press(&mut s, KeyCode::Char('x'));
        let r = route_of(&e);
        assert_eq!((r.tag, r.key.as_str()), ("cancel", "t-2"));
        let mut cancelled = task("t-2", "cancelled", "research", 11);
        cancelled["statusMessage"] = json!("cancelled by the user");
        let e = answer(
            &mut s,
            r,
            json!({"task": cancelled, "raw": {}, "result": null,
            "resultPreview": null, "error": null}),
        );
        assert_eq!(route_of(&e).tag, "page", "the list is read again");
        assert!(
            s.toast
                .as_ref()
                .is_some_and(|t| t.text.contains("cancelled"))
        );
        press(&mut s, KeyCode::Esc);
        assert!(draw(&s).contains("Tasks of demo"));
    }
}

#[test]
fn a_tasks_event_reads_again_and_f_asks_the_server() {
    let mut s = opened((80, 24));
    let e = core(&mut s, "tasks", json!({"server": "demo", "version": 4}));
    assert_eq!(route_of(&e).tag, "page");
    let e = press(&mut s, KeyCode::Char('f'));
    assert_eq!(route_of(&e).tag, "list");
    let e = press(&mut s, KeyCode::Char('w'));
    assert_eq!(route_of(&e).tag, "get");
}

#[test]
fn no_tasks_says_how_to_make_one() {
    let mut s = state(&[card("demo", "connected", Some("modern"))], (80, 24));
    let e = press(&mut s, KeyCode::Char('k'));
    let mut p = page();
    p["tasks"] = json!([]);
    p["support"] = json!({"era": "modern", "tasks": false, "list": false, "cancel": true, "toolCall": false, "ttl": false});
    answer(&mut s, route_of(&e), p);
    insta::assert_snapshot!("tasks_empty_80x24", draw(&s));
}

/// Against the real demo server: a tool run as a task through the core shows in the tab, and
/// after the core's follower saw it end, a `tasks` event brings its final status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_task_is_listed_and_followed_to_its_end() {
    use mcpscope_inspect::tasks::RunTask;
    let (dir, i) = crate::real_core::inspector("tasks");
    i.connect("demo", None).await.expect("connect");
    let run = RunTask {
        tool: "research".into(),
        arguments: json!({"topic": "otters"}),
        ttl_ms: Some(60_000),
        request_id: None,
    };
    let out = i.run_task("demo", run).await.expect("tools/call");
    let id = out
        .task
        .expect("the demo answers research with a task")
        .task
        .task_id;
    let mut s = AppState::new(&i.servers().await, (120, 35), false);
    let e = press(&mut s, KeyCode::Char('k'));
    crate::real_core::pump(&mut s, &i, e).await;
    let rows = s.tabs["demo"].tasks.rows();
    assert!(
        rows.iter().any(|r| r.id == id && r.tool == "research"),
        "{rows:?}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !i.task("demo", &id).is_ok_and(|d| d.task.terminal) {
        assert!(std::time::Instant::now() < deadline, "the task ends");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let e = core(&mut s, "tasks", json!({"server": "demo", "version": 99}));
    crate::real_core::pump(&mut s, &i, e).await;
    let row = s.tabs["demo"]
        .tasks
        .rows()
        .iter()
        .find(|r| r.id == id)
        .cloned();
    assert_eq!(row.map(|r| r.status), Some("completed".to_string()));
    let e = press(&mut s, KeyCode::Enter);
    crate::real_core::pump(&mut s, &i, e).await;
    assert!(draw(&s).contains("Research on otters"), "{}", draw(&s));
    i.shutdown().await;
    drop(dir);
}

#[test]
fn a_click_selects_a_task_and_a_second_opens_it() {
    for size in SIZES {
        let mut s = opened(size);
        // Title, support, column heads, then t-1 and t-2.
        assert!(click(&mut s, 5, 4).is_empty());
        assert!(draw(&s).contains("t-2"));
        let e = click(&mut s, 5, 4);
        let r = route_of(&e);
        assert_eq!((r.tag, r.key.as_str()), ("detail", "t-2"));
        // A click under the last row selects nothing.
        assert!(click(&mut s, 5, 9).is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_k_runs_a_tool_as_a_task_and_the_tasks_tab_lists_it() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    for era in ["legacy", "modern"] {
        let (_dir, i) = crate::real_core::inspector("tasks-ctrl-k");
        i.connect("demo", Some(era.into())).await.expect("connect");
        let mut s = AppState::new(&i.servers().await, (120, 35), false);
        let e = press(&mut s, KeyCode::Char('t'));
        crate::real_core::pump(&mut s, &i, e).await;
        press(&mut s, KeyCode::Char('/'));
        type_text(&mut s, "research");
        press(&mut s, KeyCode::Enter);
        press(&mut s, KeyCode::Enter);
        press(&mut s, KeyCode::Enter);
        type_text(&mut s, "otters");
        press(&mut s, KeyCode::Enter);
        let k = KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL);
        let e = send(&mut s, Msg::Key(k));
        assert!(
            matches!(&e[..], [Effect::Run { route, .. }] if route.tag == "task"),
            "{era}: {e:?}"
        );
        crate::real_core::pump(&mut s, &i, e).await;
        let toast = s.toast.clone().map(|t| t.text).unwrap_or_default();
        assert!(
            toast.starts_with("task ") && toast.ends_with("started: Esc, then k shows it"),
            "{era}: {toast}"
        );
        // The form's text field takes letters: Esc leaves it, then `k` is the Tasks tab.
        press(&mut s, KeyCode::Esc);
        let e = press(&mut s, KeyCode::Char('k'));
        crate::real_core::pump(&mut s, &i, e).await;
        let rows = s.tabs["demo"].tasks.rows();
        assert!(rows.iter().any(|r| r.tool == "research"), "{era}: {rows:?}");
        assert!(draw(&s).contains("research"), "{}", draw(&s));
        i.shutdown().await;
    }
}
