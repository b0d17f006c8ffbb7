//! The core on its own, as any view drives it: connect the demo server, make a call with
//! progress, watch it on the event bus, and read its history entry back — from the running
//! inspector and from a new one over the same database after a restart, frames included.

use crate::inspector::{demo, eventually, seqs};
use mcpscope_inspect::{Call, Catalog, CatalogEntry, FramePage, Inspector, Options};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A directory of this test's own, removed when dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An inspector over the history database in `dir`, with the demo (legacy, Streamable HTTP) as
/// its one server.
fn open(dir: &Path, url: &str) -> Arc<Inspector> {
    let store = HistoryStore::open(&dir.join("history.sqlite"), Retention::default())
        .expect("history database");
    let entry =
        CatalogEntry::from_value(json!({"type": "http", "url": url, "protocolEra": "legacy"}))
            .expect("entry");
    let options = Options {
        ping_interval: None,
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.join("secrets.enc"),
            None,
        )),
        ..Options::default()
    };
    Inspector::new(
        Catalog::in_memory(vec![("demo".into(), entry)]),
        store,
        options,
    )
}

/// Every event published so far, as `(name, data)`.
fn events(app: &Inspector) -> Vec<(&'static str, Value)> {
    let (events, lost) = app.events().since(1, usize::MAX);
    assert_eq!(lost, 0, "the ring dropped events");
    events
        .iter()
        .map(|e| (e.name, serde_json::from_str(&e.data).expect("event JSON")))
        .collect()
}

/// The `status` of every `status` event so far, in order.
fn statuses(app: &Inspector) -> Vec<Value> {
    events(app)
        .into_iter()
        .filter(|(n, _)| *n == "status")
        .map(|(_, d)| d["status"].clone())
        .collect()
}

#[tokio::test]
async fn a_connection_a_call_with_progress_and_its_history_read_back_after_a_restart() {
    let dir = Dir(std::env::temp_dir().join(format!(
        "mcpscope-inspect-lifecycle-{}-{}",
        std::process::id(),
        mcpscope_proto::now_us()
    )));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    let d = demo().await;
    let app = open(&dir.0, &d.url);

    let info = app.connect("demo", None).await.expect("connect");
    assert_eq!(info["era"], "legacy");
    assert_eq!(info["connectionKind"], "session");
    assert_eq!(statuses(&app), [json!("connecting"), json!("connected")]);

    let out = app
        .call(
            "demo",
            Call {
                method: "tools/call".into(),
                params: Some(json!({"name": "slow", "arguments": {"durationMs": 300, "steps": 3}})),
                request_id: Some("lifecycle-1".into()),
                progress: true,
                ..Call::default()
            },
        )
        .await
        .expect("call");
    let result = out.result.expect("the slow tool answers");
    assert!(result["content"].is_array(), "{result}");
    let hist = out.history_id;
    let progress: Vec<Value> = events(&app)
        .into_iter()
        .filter(|(n, _)| *n == "progress")
        .map(|(_, d)| d)
        .collect();
    assert!(!progress.is_empty(), "no progress event");
    for p in &progress {
        assert_eq!(p["historyId"], hist, "{p}");
        assert_eq!(p["requestId"], "lifecycle-1", "{p}");
    }
    // The entry is complete when the call returns: its progress children and frames are in.
    let entry = app.history_entry(hist).await.expect("entry");
    assert_eq!(entry["status"], "ok", "{entry}");
    assert_eq!(entry["method"], "tools/call");
    let progress_children = entry["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter(|c| c["kind"] == "progress")
        .count();
    assert_eq!(progress_children, progress.len(), "{entry}");
    let frames: Vec<u64> = entry["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(
        frames.len() >= 2,
        "the request and its answer at least: {entry}"
    );

    app.shutdown().await;
    assert_eq!(statuses(&app).last(), Some(&json!("disconnected")));
    // The frame writer runs behind the window: wait until SQLite has the entry's frames.
    let whole = FramePage {
        after: Some(0),
        limit: Some(10_000),
        ..FramePage::default()
    };
    eventually("the entry's frames in SQLite", || async {
        let fresh = open(&dir.0, &d.url);
        let stored = seqs(&fresh.frames("demo", whole.clone()).await.expect("frames"));
        frames.iter().all(|f| stored.contains(f)).then_some(())
    })
    .await;
    drop(app);

    // A new inspector over the same database: the entry and its frames, as they were.
    let again = open(&dir.0, &d.url);
    let back = again
        .history_entry(hist)
        .await
        .expect("entry after a restart");
    for key in [
        "status",
        "method",
        "params",
        "result",
        "children",
        "frames",
        "requestId",
    ] {
        assert_eq!(back[key], entry[key], "{key} after a restart");
    }
    let listed = again
        .history(mcpscope_store::HistoryQuery {
            server: Some("demo".into()),
            limit: 10,
            ..Default::default()
        })
        .await
        .expect("history");
    assert!(listed.entries.iter().any(|e| e["id"] == hist));
    let stored = seqs(&again.frames("demo", whole).await.expect("frames"));
    assert!(frames.iter().all(|f| stored.contains(f)), "{stored:?}");
}

/// A tool's `isError: true` is an error in History and its status filter (issue 24 item 15):
/// the demo's `fail` answers with a result, not a JSON-RPC error, and the call still returns it.
#[tokio::test]
async fn a_tool_error_result_is_an_error_in_history_and_its_filter() {
    let s = crate::inspector::setup("tool-error", 1000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    let call = |name: &str, arguments: Value| Call {
        method: "tools/call".into(),
        params: Some(json!({"name": name, "arguments": arguments})),
        ..Call::default()
    };
    let failed = app
        .call("legacy", call("fail", json!({})))
        .await
        .expect("call");
    let result = failed.result.expect("a tool error is a result");
    assert_eq!(result["isError"], true, "{result}");
    let fine = app
        .call("legacy", call("echo", json!({"message": "hi"})))
        .await
        .expect("call");
    assert!(fine.result.is_ok());

    let entry = app.history_entry(failed.history_id).await.expect("entry");
    assert_eq!(entry["status"], "error", "{entry}");
    assert_eq!(
        entry["result"]["isError"], true,
        "the result is kept: {entry}"
    );
    let ok = app.history_entry(fine.history_id).await.expect("entry");
    assert_eq!(ok["status"], "ok", "{ok}");
    let errors = app
        .history(mcpscope_store::HistoryQuery {
            status: Some("error".into()),
            limit: 10,
            ..Default::default()
        })
        .await
        .expect("history");
    let ids: Vec<&Value> = errors.entries.iter().map(|e| &e["id"]).collect();
    assert_eq!(
        ids,
        [&json!(failed.history_id)],
        "the error filter finds it alone"
    );
}

/// Every connect is a new connection with its own number and no tools known (issue 24 item 14):
/// a view lists afresh when the number moves, so what it shows is what the core validates against.
#[tokio::test]
async fn a_reconnect_is_a_new_connection_number_and_forgets_the_tools() {
    let s = crate::inspector::setup("reconnect", 1000).await;
    let app = &s.inspector;
    let number = |app: &Inspector| {
        events(app)
            .into_iter()
            .filter(|(n, d)| *n == "status" && d["status"] == "connected")
            .map(|(_, d)| d["connection"].as_u64().expect("a connection number"))
            .collect::<Vec<u64>>()
    };
    app.connect("legacy", None).await.expect("connect");
    let list = Call {
        method: "tools/list".into(),
        ..Call::default()
    };
    app.call("legacy", list.clone()).await.expect("tools/list");
    assert!(app.tool_schema("legacy", "echo").is_ok());
    app.disconnect("legacy").await.expect("disconnect");
    app.connect("legacy", None).await.expect("connect again");
    let numbers = number(app);
    assert_eq!(numbers.len(), 2, "{numbers:?}");
    assert!(numbers[1] > numbers[0], "{numbers:?}");
    assert!(
        app.tool_schema("legacy", "echo").is_err(),
        "listed before this connection"
    );
    app.call("legacy", list).await.expect("tools/list");
    assert!(app.tool_schema("legacy", "echo").is_ok());
}

/// A call's `structuredContent` is checked against an `outputSchema` from its stored result, so
/// a view posts only the schema (issue 24 item 18: a 3 MB result posted back hit the body limit).
#[tokio::test]
async fn the_output_check_reads_the_result_where_it_is_stored() {
    let s = crate::inspector::setup("output-check", 1000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    let call = |name: &str, arguments: Value| Call {
        method: "tools/call".into(),
        params: Some(json!({"name": name, "arguments": arguments})),
        ..Call::default()
    };
    let weather = app
        .call("legacy", call("get-weather", json!({"city": "Paris"})))
        .await
        .expect("call");
    let structured = weather.result.expect("a result")["structuredContent"].clone();
    let key = structured
        .as_object()
        .and_then(|o| o.keys().next().cloned())
        .expect("structured content with a key");
    let holds = json!({"type": "object", "required": [key]});
    let ok = app.check_output(weather.history_id, holds).await.unwrap();
    assert_eq!(ok["errors"], json!([]), "{ok}");
    let lacks = json!({"type": "object", "required": ["no-such-key"]});
    let bad = app.check_output(weather.history_id, lacks).await.unwrap();
    assert_eq!(bad["errors"].as_array().map(Vec::len), Some(1), "{bad}");

    let failed = app
        .call("legacy", call("fail", json!({})))
        .await
        .expect("call");
    let missing = app
        .check_output(failed.history_id, json!({"type": "object"}))
        .await
        .unwrap();
    assert!(
        missing["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("structuredContent is missing")),
        "{missing}"
    );
    assert!(app.check_output(999_999, json!({})).await.is_err());
}
