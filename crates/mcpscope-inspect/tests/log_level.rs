//! The log level in both eras, against the demo: the legacy era sends `logging/setLevel` (with
//! a history entry), the modern era sends no request and carries the level in the `_meta` of
//! every request after it.

use crate::inspector::{eventually, parsed, setup};
use mcpscope_inspect::{Call, FramePage, Inspector};
use mcpscope_proto::era::META_LOG_LEVEL;
use serde_json::{Value, json};
use std::sync::Arc;

/// The JSON-RPC messages `name` sent, as parsed from the frames' text.
async fn sent(app: &Arc<Inspector>, name: &str) -> Vec<Value> {
    let q = FramePage {
        after: Some(0),
        limit: Some(10_000),
        sources: vec!["jsonrpc".into()],
        ..Default::default()
    };
    parsed(&app.frames(name, q).await.expect("frames"))
        .into_iter()
        .filter(|f| f["direction"] == "out")
        .filter_map(|f| serde_json::from_str(f["text"].as_str()?).ok())
        .collect()
}

async fn tools_list(app: &Arc<Inspector>, name: &str) {
    let c = Call {
        method: "tools/list".into(),
        ..Default::default()
    };
    app.call(name, c)
        .await
        .expect("call")
        .result
        .expect("tools/list");
}

#[tokio::test]
async fn legacy_sends_logging_set_level_with_a_history_entry() {
    let s = setup("log-legacy", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    let v = app
        .set_log_level("legacy", "debug")
        .await
        .expect("set level");
    assert_eq!(v["level"], "debug", "{v}");
    assert_eq!(v["applied"], "logging/setLevel", "{v}");
    assert_eq!(v["result"], json!({}), "{v}");
    let hist = v["historyId"].as_i64().expect("a history entry");
    let entry = app.history_entry(hist).await.expect("entry");
    assert_eq!(entry["method"], "logging/setLevel", "{entry}");
    let set = eventually("the setLevel frame", || async {
        sent(app, "legacy")
            .await
            .into_iter()
            .find(|m| m["method"] == "logging/setLevel")
    })
    .await;
    assert_eq!(set["params"], json!({"level": "debug"}), "{set}");
    // The legacy era has no per-request level: later requests carry none.
    tools_list(app, "legacy").await;
    let list = sent(app, "legacy").await;
    let list = list.iter().rfind(|m| m["method"] == "tools/list").unwrap();
    assert!(
        list["params"]["_meta"].get(META_LOG_LEVEL).is_none(),
        "{list}"
    );
    app.shutdown().await;
}

#[tokio::test]
async fn modern_carries_the_level_in_meta_and_sends_no_request() {
    let s = setup("log-modern", 10_000).await;
    let app = &s.inspector;
    app.connect("modern", None).await.expect("connect");
    let v = app
        .set_log_level("modern", "warning")
        .await
        .expect("set level");
    assert_eq!(v, json!({"level": "warning", "applied": "meta"}));
    tools_list(app, "modern").await;
    let sent = sent(app, "modern").await;
    assert!(
        sent.iter().all(|m| m["method"] != "logging/setLevel"),
        "no setLevel in the modern era: {sent:?}"
    );
    let list = sent.iter().rfind(|m| m["method"] == "tools/list").unwrap();
    assert_eq!(list["params"]["_meta"][META_LOG_LEVEL], "warning", "{list}");
    app.shutdown().await;
}
