//! Tasks from a hostile server (the testkit's `hostile-tasks`, 2025-11-25 over stdio): a task
//! that never ends, one whose status goes back after `completed`, a `pollInterval` of 0 and of
//! 10^12 ms, a result larger than what a view is sent, an invented status, and a `tasks/list` of
//! 10,000 — each shown as what it is, nothing waits on the server's word, and the registry and
//! the event stream stay bounded.

use crate::inspector::{TempDir, eventually, inspector_over};
use mcpscope_inspect::Inspector;
use mcpscope_inspect::tasks::{INLINE_RESULT, MAX_POLL, MIN_POLL, RunTask, TaskDetail};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SERVER: &str = "hostile";
const RESULT_BYTES: usize = 1 << 20;
const LISTED: usize = 10_000;

async fn hostile(name: &str) -> (TempDir, Arc<Inspector>) {
    let dir = TempDir::new(name);
    let bin = mcpscope_testkit::bin_path().expect("testkit binary");
    let mode = StdioMode::HostileTasks {
        listed: LISTED,
        result_bytes: RESULT_BYTES,
    };
    let entry = json!({"type": "stdio", "command": bin, "args": mode.args()});
    let app = inspector_over(&dir, vec![(SERVER, entry)], 1000);
    app.connect(SERVER, None).await.expect("connect");
    (dir, app)
}

/// Run `tool` as a task; the task it created.
async fn run(app: &Arc<Inspector>, tool: &str) -> TaskDetail {
    let run = RunTask {
        tool: tool.into(),
        arguments: json!({}),
        ttl_ms: Some(60_000),
        request_id: None,
    };
    let out = app.run_task(SERVER, run).await.expect("tools/call");
    out.task
        .unwrap_or_else(|| panic!("{tool}: a task, got {:?}", out.result))
}

/// The task once `check` holds for it.
async fn until(
    app: &Arc<Inspector>,
    id: &str,
    what: &str,
    check: impl Fn(&TaskDetail) -> bool,
) -> TaskDetail {
    eventually(what, || async {
        let d = app.task(SERVER, id).ok()?;
        check(&d).then_some(d)
    })
    .await
}

#[tokio::test]
async fn absurd_poll_intervals_are_bounded_and_named() {
    let (_dir, app) = hostile("hostile-tasks-poll").await;
    let started = Instant::now();
    let zero = run(&app, "poll-zero").await;
    assert_eq!(zero.task.poll_interval_ms, Some(json!(0)));
    let id = zero.task.task_id.clone();
    let polling = until(&app, &id, "poll-zero to be polled", |d| {
        d.task.polling.polls > 0
    })
    .await;
    assert_eq!(
        polling.task.polling.every_ms,
        Some(MIN_POLL.as_millis() as u64)
    );
    let why = polling.task.polling.reason.clone().unwrap_or_default();
    assert!(why.contains("never faster"), "{why}");
    let done = until(&app, &id, "poll-zero to complete", |d| {
        d.task.polling.state == "done"
    })
    .await;
    assert_eq!(done.task.status, "completed");
    // Six gets at the floor, not six gets as fast as the server asked (0 ms).
    assert!(done.task.polling.polls >= 6, "{done:?}");
    assert!(started.elapsed() >= MIN_POLL * 5, "{:?}", started.elapsed());
    // Its progress came on the tools/call's token after the call was answered (2025-11-25 keeps
    // the token alive until the task ends): the task's own, not a "progress for unknown token".
    let p = done
        .task
        .progress
        .clone()
        .unwrap_or_else(|| panic!("no progress kept: {done:?}"));
    assert_eq!((p.progress, p.total), (6.0, Some(6.0)), "{p:?}");
    assert_eq!(p.message.as_deref(), Some("get 6 of 6"));

    // 10^12 ms would be never: the poller waits at most MAX_POLL, and says so.
    let huge = run(&app, "poll-huge").await;
    let id = huge.task.task_id.clone();
    let waiting = until(&app, &id, "poll-huge to be followed", |d| {
        d.task.polling.state == "polling"
    })
    .await;
    assert_eq!(
        waiting.task.polling.every_ms,
        Some(MAX_POLL.as_millis() as u64)
    );
    let why = waiting.task.polling.reason.clone().unwrap_or_default();
    assert!(why.contains("never slower"), "{why}");
    // Cancel does not wait for that poll: the answer is the task, cancelled.
    let t = Instant::now();
    let cancelled = app.cancel_task(SERVER, &id).await.expect("tasks/cancel");
    assert_eq!(cancelled.task.status, "cancelled");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    app.disconnect(SERVER).await.expect("disconnect");
}

#[tokio::test]
async fn a_task_that_never_ends_a_status_that_goes_back_and_an_invented_one() {
    let (_dir, app) = hostile("hostile-tasks-status").await;
    // Never ends: followed at its interval, the polls counted, until it is cancelled.
    let never = run(&app, "never").await;
    let id = never.task.task_id.clone();
    let going = until(&app, &id, "never to be polled a few times", |d| {
        d.task.polling.polls >= 3
    })
    .await;
    assert_eq!(going.task.status, "working");
    assert_eq!(going.task.polling.every_ms, Some(300));
    assert!(
        going
            .task
            .status_message
            .as_deref()
            .is_some_and(|m| m.starts_with("tasks/get number")),
        "{going:?}"
    );
    app.cancel_task(SERVER, &id).await.expect("tasks/cancel");
    until(&app, &id, "never to stop being followed", |d| {
        d.task.terminal && d.task.polling.state != "polling"
    })
    .await;

    // Completed, then working again: the task says what happened and is not followed again.
    let back = run(&app, "backwards").await;
    let id = back.task.task_id.clone();
    let done = until(&app, &id, "backwards to complete", |d| {
        d.task.polling.state == "done"
    })
    .await;
    assert_eq!(done.task.status, "completed");
    assert!(done.task.problems.is_empty(), "{done:?}");
    let again = app.get_task(SERVER, &id).await.expect("tasks/get");
    assert_eq!(again.task.status, "working", "shown as sent: {again:?}");
    let named = again.task.problems.join(" ");
    assert!(
        named.contains("from \"completed\" back to \"working\""),
        "{named}"
    );
    let polls = again.task.polling.polls;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let later = app.task(SERVER, &id).unwrap();
    assert_eq!(
        later.task.polling.polls, polls,
        "not followed again: {later:?}"
    );

    // A status no revision has: kept as sent, marked, never taken for an end.
    let invented = run(&app, "invented").await;
    let id = invented.task.task_id.clone();
    let seen = until(&app, &id, "invented to be polled", |d| {
        d.task.polling.polls >= 1
    })
    .await;
    assert_eq!(seen.task.status, "pondering");
    assert!(!seen.task.known_status && !seen.task.terminal, "{seen:?}");
    assert_eq!(seen.task.polling.state, "polling");
    app.disconnect(SERVER).await.expect("disconnect");
}

#[tokio::test]
async fn a_result_larger_than_a_view_is_sent_is_previewed_and_kept_whole() {
    let (_dir, app) = hostile("hostile-tasks-big").await;
    let big = run(&app, "big-result").await;
    let id = big.task.task_id.clone();
    let done = until(&app, &id, "big-result's result", |d| d.task.has_result).await;
    assert!(done.result.is_none(), "not inlined");
    let preview = done.result_preview.as_deref().expect("a preview");
    assert_eq!(preview.len(), INLINE_RESULT);
    assert!(
        done.task.result_bytes.unwrap() > RESULT_BYTES,
        "{:?}",
        done.task
    );
    let whole = app.task_result_text(SERVER, &id).expect("the download");
    let v: Value = serde_json::from_str(&whole).expect("JSON");
    let text = v
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap();
    assert_eq!(text.len(), RESULT_BYTES);
    app.disconnect(SERVER).await.expect("disconnect");
}

#[tokio::test]
async fn ten_thousand_listed_tasks_are_kept_once_and_pushed_as_few_events() {
    let (_dir, app) = hostile("hostile-tasks-list").await;
    let tasks_events = || {
        let (events, _) = app.events().since(0, usize::MAX);
        events.iter().filter(|e| e.name == "tasks").count()
    };
    let before = tasks_events();
    let page = app.list_tasks(SERVER).await.expect("tasks/list");
    assert_eq!(page.tasks.len(), LISTED);
    assert_eq!(page.omitted, 0);
    let odd: Vec<_> = page.tasks.iter().filter(|t| !t.known_status).collect();
    assert_eq!(odd.len(), (0..LISTED).filter(|i| i % 6 == 5).count());
    assert!(odd.iter().all(|t| t.status == "on-vacation" && !t.terminal));
    // Listed again: the same 10,000, not 20,000.
    let again = app.list_tasks(SERVER).await.expect("tasks/list");
    assert_eq!(again.tasks.len(), LISTED);
    // 20,000 changes, a handful of events (at most one per 100 ms).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pushed = tasks_events() - before;
    assert!((1..=40).contains(&pushed), "{pushed} tasks events");
    // A view that heard one reads only what changed since its version.
    let v = app.tasks(SERVER, None).version;
    run(&app, "invented").await;
    let delta = app.tasks_changed(SERVER, v);
    assert!(delta.delta);
    assert_eq!(delta.tasks.len(), 1, "{:?}", delta.tasks);
    assert!(delta.tasks[0].task_id.starts_with("invented-"));
    app.disconnect(SERVER).await.expect("disconnect");
}
