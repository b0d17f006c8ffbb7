//! A server not built by us in the Subscriptions panel's legacy form:
//! `@modelcontextprotocol/server-everything` over stdio (2025-11-25), driven by the inspector core
//! as the web UI drives it. `resources/subscribe` to one of its resources is answered `{}`, its
//! `toggle-subscriber-updates` tool starts `notifications/resources/updated` for the session's
//! subscriptions, which mark the URI updated (none rejected); `resources/unsubscribe` ends it.

use crate::peers_support::Peers;
use mcpscope_inspect::subscriptions::TransitionKind;
use mcpscope_inspect::{Call, Inspector};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

async fn call(app: &Arc<Inspector>, method: &str, params: Value) -> Value {
    let c = Call {
        method: method.into(),
        params: Some(params),
        ..Default::default()
    };
    let out = app.call("everything", c).await.expect("call");
    out.result.unwrap_or_else(|e| panic!("{method}: {e:?}"))
}

#[tokio::test]
async fn server_everything_subscribe_update_unsubscribe() {
    let Some(peers) = Peers::get("server_everything_subscribe_update_unsubscribe") else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("peers-everything-subs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let app = peers.everything_in_core(&dir).await;

    let listed = call(&app, "resources/list", json!({})).await;
    let uri = listed["resources"][0]["uri"]
        .as_str()
        .expect("a resource")
        .to_string();
    let out = app
        .subscribe_resource("everything", &uri)
        .await
        .expect("subscribe");
    assert_eq!(out["result"], json!({}), "{out}");
    call(
        &app,
        "tools/call",
        json!({"name": "toggle-subscriber-updates", "arguments": {}}),
    )
    .await;
    // It sends one update at once, then one every 5 s.
    let deadline = Instant::now() + Duration::from_secs(20);
    let v = loop {
        let v = app.subscriptions("everything");
        if v.uris.iter().any(|u| u.uri == uri && u.updated) {
            break v;
        }
        assert!(Instant::now() < deadline, "no update for {uri}: {v:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(v.rejected, 0, "{:?}", v.history);
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::Subscribed && t.uri.as_deref() == Some(&uri))
    );

    app.unsubscribe_resource("everything", &uri)
        .await
        .expect("unsubscribe");
    let v = app.subscriptions("everything");
    let row = v.uris.iter().find(|u| u.uri == uri).expect("still shown");
    assert!(!row.subscribed, "{v:?}");
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::Unsubscribed)
    );
    app.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
