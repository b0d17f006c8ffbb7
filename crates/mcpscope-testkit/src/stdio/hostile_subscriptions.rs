//! The `hostile-subscriptions` stdio fixture: a 2026-07-28 server whose `subscriptions/listen`
//! streams break the rules a client must notice. After acknowledging exactly what was asked for
//! it sends, on the same stream: `prompts/list_changed` (never asked for), a
//! `resources/updated` for `hostile://not-watched` (a URI not in the filter), a
//! `tools/list_changed` tagged with subscription id 999999 (nobody's), a `resources/updated`
//! without any subscription id, and then `--updates` well-formed updates of distinct
//! sub-resources of the first watched URI (`<uri>/0`, `<uri>/1`, … — a flood of URIs). The
//! stream then stays open until the client ends it.

use super::{Lines, MODERN_PROTOCOL_VERSION, Sink};
use crate::jsonrpc::{self, Incoming, METHOD_NOT_FOUND};
use serde_json::{Value, json};
use tokio::io::AsyncRead;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Serve until stdin closes.
pub(super) async fn serve<R: AsyncRead + Unpin>(
    mut lines: Lines<R>,
    out: Sink,
    updates: usize,
) -> i32 {
    while let Some(bytes) = lines.next().await {
        let (id, method, params) = match jsonrpc::classify(bytes) {
            Incoming::Request { id, method, params } => (id, method, params),
            _ => continue,
        };
        let sent = match method.as_str() {
            "server/discover" => out.send(&discover(&id)).await,
            "subscriptions/listen" => listen(&out, &id, &params, updates).await,
            _ => {
                let text = format!("Method not found: {method}");
                out.send(&jsonrpc::error(&id, METHOD_NOT_FOUND, &text, None))
                    .await
            }
        };
        if sent.is_err() {
            return 1;
        }
    }
    0
}

fn discover(id: &Value) -> Value {
    jsonrpc::result(
        id,
        json!({
            "resultType": "complete",
            "supportedVersions": [MODERN_PROTOCOL_VERSION],
            // No listChanged anywhere: a client's own list-changed listener stays away, so
            // every listen here is the one under test.
            "capabilities": {"resources": {"subscribe": true}},
            "serverInfo": {"name": "mcpscope-testkit-hostile-subscriptions", "version": "1"},
            "ttlMs": 0,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo":
                {"name": "mcpscope-testkit-hostile-subscriptions", "version": "1"}}
        }),
    )
}

/// Acknowledge, misbehave, flood, and leave the stream open.
async fn listen(out: &Sink, id: &Value, params: &Value, updates: usize) -> std::io::Result<()> {
    let asked = params["notifications"].clone();
    let tag = json!({SUBSCRIPTION_ID: id});
    let watched = asked["resourceSubscriptions"][0]
        .as_str()
        .unwrap_or("hostile://watched")
        .to_string();
    let n = jsonrpc::notification;
    let messages = [
        n(
            "notifications/subscriptions/acknowledged",
            json!({"_meta": tag, "notifications": asked}),
        ),
        n("notifications/prompts/list_changed", json!({"_meta": tag})),
        n(
            "notifications/resources/updated",
            json!({"_meta": tag, "uri": "hostile://not-watched"}),
        ),
        n(
            "notifications/tools/list_changed",
            json!({"_meta": {SUBSCRIPTION_ID: 999999}}),
        ),
        n("notifications/resources/updated", json!({"uri": watched})),
    ];
    for m in &messages {
        out.send(m).await?;
    }
    for i in 0..updates {
        let uri = format!("{watched}/{i}");
        let m = n(
            "notifications/resources/updated",
            json!({"_meta": tag, "uri": uri}),
        );
        out.send(&m).await?;
    }
    Ok(())
}
