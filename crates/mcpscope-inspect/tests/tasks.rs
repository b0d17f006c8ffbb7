//! Tasks against the real demo (Streamable HTTP), both eras: `research` run as a task and
//! followed to `completed` with its result, one cancelled while it works, a task id the server
//! does not know, and the list (legacy `tasks/list`; modern, which has none, the inspector's own
//! tasks re-read with `tasks/get`).

use crate::inspector::{eventually, setup};
use mcpscope_inspect::Inspector;
use mcpscope_inspect::tasks::{RunTask, TaskDetail};
use serde_json::{Value, json};
use std::sync::Arc;

async fn run(app: &Arc<Inspector>, name: &str, topic: &str) -> TaskDetail {
    let run = RunTask {
        tool: "research".into(),
        arguments: json!({"topic": topic}),
        ttl_ms: Some(60_000),
        request_id: None,
    };
    let out = app.run_task(name, run).await.expect("tools/call");
    let result = out.result.expect("a result");
    out.task
        .unwrap_or_else(|| panic!("{name}: the demo answers research with a task: {result}"))
}

/// The task once the inspector has seen it end and has its result or error.
async fn ended(app: &Arc<Inspector>, name: &str, id: &str) -> TaskDetail {
    eventually("the task to end", || async {
        let d = app.task(name, id).ok()?;
        (d.task.terminal && d.task.polling.state != "polling").then_some(d)
    })
    .await
}

#[tokio::test]
async fn a_task_is_followed_to_completed_with_its_result() {
    let s = setup("tasks-complete", 10_000).await;
    let app = &s.inspector;
    for name in ["legacy", "modern"] {
        app.connect(name, None).await.expect("connect");
        let support = app.task_support(name);
        assert!(support.tasks && support.cancel, "{name}: {support:?}");
        assert_eq!(support.list, name == "legacy", "{name}: {support:?}");
        let t = run(app, name, "otters").await;
        assert_eq!(t.task.status, "working", "{name}: {t:?}");
        assert_eq!(t.task.source, "created");
        assert_eq!(t.task.tool.as_deref(), Some("research"));
        assert!(t.task.history_id.is_some());
        // The demo asks for 500 ms; the poller takes it (within its bounds).
        assert_eq!(t.task.poll_interval_ms, Some(json!(500)), "{name}: {t:?}");
        if name == "legacy" {
            // The TTL asked for travelled in params.task and the server kept it.
            assert_eq!(t.task.ttl_ms, Some(json!(60_000)), "{t:?}");
        }
        let id = t.task.task_id.clone();
        let done = ended(app, name, &id).await;
        assert_eq!(done.task.status, "completed", "{name}: {done:?}");
        assert_eq!(done.task.polling.state, "done", "{name}: {done:?}");
        assert!(done.task.polling.polls >= 1, "{name}: {done:?}");
        let text = done
            .result
            .as_ref()
            .and_then(|r| r.pointer("/content/0/text"));
        assert!(
            text.and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("Research on otters")),
            "{name}: {done:?}"
        );
        assert!(app.task_result_text(name, &id).unwrap().contains("otters"));
        // Listing: legacy asks the server (tasks/list); modern re-reads ours. Either way ours is
        // there, completed.
        let page = app.list_tasks(name).await.expect("list");
        let row = page.tasks.iter().find(|t| t.task_id == id).expect("listed");
        assert_eq!(row.status, "completed", "{name}: {row:?}");
        assert!(!page.unchanged);
        assert!(app.tasks(name, Some(page.version)).unchanged);
    }
}

#[tokio::test]
async fn a_task_cancelled_while_it_works_ends_cancelled() {
    let s = setup("tasks-cancel", 10_000).await;
    let app = &s.inspector;
    for name in ["legacy", "modern"] {
        app.connect(name, None).await.expect("connect");
        let t = run(app, name, "the void").await;
        let id = t.task.task_id.clone();
        let after = app.cancel_task(name, &id).await.expect("tasks/cancel");
        assert!(
            ["cancelled", "working"].contains(&after.task.status.as_str()),
            "{name}: {after:?}"
        );
        let done = ended(app, name, &id).await;
        assert_eq!(done.task.status, "cancelled", "{name}: {done:?}");
        assert!(done.result.is_none(), "{name}: {done:?}");
        // Cancelling it again: the server says it has ended (-32602 on legacy; the extension's
        // cancel is cooperative and may answer nothing).
        if name == "legacy" {
            let e = app
                .cancel_task(name, &id)
                .await
                .expect_err("already terminal");
            assert_eq!(e.extra.get("rpcCode"), Some(&json!(-32602)), "{e:?}");
        }
    }
}

#[tokio::test]
async fn a_task_id_the_server_does_not_know_is_its_error() {
    let s = setup("tasks-unknown", 10_000).await;
    let app = &s.inspector;
    for name in ["legacy", "modern"] {
        app.connect(name, None).await.expect("connect");
        let e = app
            .get_task(name, "no-such-task")
            .await
            .expect_err("unknown task");
        assert_eq!(e.code.code(), "rpc_error", "{name}: {e:?}");
        assert_eq!(
            e.extra.get("rpcCode"),
            Some(&json!(-32602)),
            "{name}: {e:?}"
        );
        // Not remembered as a task: the inspector knows none by that id.
        assert!(app.task(name, "no-such-task").is_err());
        assert!(app.tasks(name, None).tasks.is_empty(), "{name}");
    }
}
