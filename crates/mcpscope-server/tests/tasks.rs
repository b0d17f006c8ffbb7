//! The task routes against the real demo (Streamable HTTP), both eras: `research` run as a task
//! (`POST /api/servers/:name/tasks`) and followed by the core until `GET …/tasks` shows it
//! completed, its result in `GET …/tasks/:id` and whole in the download; one cancelled
//! (`POST …/tasks/:id/cancel`); an id the server does not know (`rpc_error`, -32602) and one
//! the core does not know (`not_found`); bodies of the wrong shape (`usage`).

use crate::support::{Backend, Options, TempDir, both_eras, demo, start};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn backend(dir: &TempDir, url: &str) -> Backend {
    let b = start(dir.path(), both_eras(url), Options::default()).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
    }
    b
}

/// Run `research` as a task on `server`; the task's id.
async fn run(b: &Backend, server: &str, topic: &str) -> String {
    let body = json!({"tool": "research", "arguments": {"topic": topic}, "ttlMs": 30_000});
    let r = b.ok(&format!("/api/servers/{server}/tasks"), body).await;
    assert!(r["historyId"].is_number(), "{r}");
    assert_eq!(r["task"]["task"]["status"], "working", "{server}: {r}");
    r["task"]["task"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_string()
}

/// `GET …/tasks` until the row of `id` is terminal and no longer polled.
async fn ended(b: &Backend, server: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = b.get(&format!("/api/servers/{server}/tasks")).await;
        assert_eq!(page.status, 200, "{}", page.text);
        let row = page.body["tasks"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["taskId"] == id).cloned());
        if let Some(row) = row
            && row["terminal"] == true
            && row["polling"]["state"] != "polling"
        {
            return row;
        }
        assert!(
            Instant::now() < deadline,
            "{server}: task {id} never ended: {}",
            page.text
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_task_runs_to_completion_and_its_result_is_shown() {
    let dir = TempDir::new("api-tasks-complete");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    for server in ["legacy", "modern"] {
        let id = run(&b, server, "badgers").await;
        let row = ended(&b, server, &id).await;
        assert_eq!(row["status"], "completed", "{server}: {row}");
        assert_eq!(row["hasResult"], true, "{server}: {row}");
        let detail = b.get(&format!("/api/servers/{server}/tasks/{id}")).await;
        assert_eq!(detail.status, 200, "{}", detail.text);
        let text = &detail.body["result"]["content"][0]["text"];
        assert!(
            text.as_str()
                .is_some_and(|t| t.starts_with("Research on badgers")),
            "{server}: {}",
            detail.text
        );
        let whole = b
            .get(&format!("/api/servers/{server}/tasks/{id}/result"))
            .await;
        assert_eq!(whole.status, 200);
        assert!(whole.text.contains("Research on badgers"), "{}", whole.text);
        // Asking again with the version it answered: nothing changed, no tasks sent.
        let page = b.get(&format!("/api/servers/{server}/tasks")).await.body;
        let again = b
            .get(&format!(
                "/api/servers/{server}/tasks?since={}",
                page["version"]
            ))
            .await
            .body;
        assert_eq!(again["unchanged"], true, "{again}");
        assert_eq!(again["tasks"], json!([]));
        assert_eq!(page["support"]["list"], server == "legacy", "{page}");
        let listed = b
            .ok(&format!("/api/servers/{server}/tasks/list"), json!({}))
            .await;
        assert!(
            listed["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["taskId"] == id),
            "{listed}"
        );
    }
}

#[tokio::test]
async fn a_task_is_cancelled() {
    let dir = TempDir::new("api-tasks-cancel");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    for server in ["legacy", "modern"] {
        let id = run(&b, server, "entropy").await;
        b.ok(
            &format!("/api/servers/{server}/tasks/{id}/cancel"),
            json!({}),
        )
        .await;
        let row = ended(&b, server, &id).await;
        assert_eq!(row["status"], "cancelled", "{server}: {row}");
        assert_eq!(row["hasResult"], false, "{server}: {row}");
    }
}

#[tokio::test]
async fn unknown_ids_and_bad_bodies_are_named() {
    let dir = TempDir::new("api-tasks-unknown");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    for server in ["legacy", "modern"] {
        let r = b
            .post(&format!("/api/servers/{server}/tasks/nope/get"), json!({}))
            .await;
        assert_eq!(r.body["error"]["code"], "rpc_error", "{server}: {}", r.text);
        assert_eq!(r.body["error"]["rpcCode"], -32602, "{server}: {}", r.text);
        let r = b.get(&format!("/api/servers/{server}/tasks/nope")).await;
        assert_eq!(r.status, 404, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "not_found");
        let r = b
            .post(
                &format!("/api/servers/{server}/tasks"),
                json!({"tool": "research", "ttlMs": "soon"}),
            )
            .await;
        assert_eq!(r.status, 400, "{}", r.text);
        assert!(r.text.contains("ttlMs"), "{}", r.text);
    }
}
