//! The subscription routes against the real demo (Streamable HTTP), both eras, through the web
//! backend: `PUT …/subscriptions/filter` opens a stream whose acknowledgement and updates arrive
//! as `subscriptions` events, `POST …/cancel` ends it locally; legacy `subscribe` / `unsubscribe`
//! with the server's answer; each era's command refused on the other (409 `conflict`); bodies of
//! the wrong shape named (400 `usage`).

use crate::support::{Options, TempDir, both_eras, demo, start};
use serde_json::json;

const COUNTER: &str = "demo://counter";

#[tokio::test]
async fn a_modern_stream_over_the_api_and_its_events() {
    let dir = TempDir::new("api-subs-modern");
    let d = demo().await;
    let b = start(dir.path(), both_eras(&d.url), Options::default()).await;
    b.ok("/api/servers/modern/connect", json!({})).await;
    let events = b.events(None).await;
    let r = b
        .put(
            "/api/servers/modern/subscriptions/filter",
            json!({"resourceSubscriptions": [COUNTER]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["desired"]["resourceSubscriptions"], json!([COUNTER]));
    let active = events
        .wait("an active stream", |e| {
            e.name == "subscriptions" && e.data["stream"]["status"] == "active"
        })
        .await;
    assert_eq!(
        active.data["stream"]["idSource"], "reported",
        "{}",
        active.data
    );
    events
        .wait("an update", |e| {
            e.name == "subscriptions"
                && e.data["uris"].as_array().is_some_and(|u| {
                    u.iter()
                        .any(|u| u["uri"] == COUNTER && u["updated"] == true)
                })
        })
        .await;
    let r = b
        .post("/api/servers/modern/subscriptions/cancel", json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["stream"]["status"], "cancelledLocally", "{}", r.text);
    // Nothing left to cancel; the legacy route is refused on modern.
    let again = b
        .post("/api/servers/modern/subscriptions/cancel", json!({}))
        .await;
    assert_eq!(again.status, 404, "{}", again.text);
    let r = b
        .post(
            "/api/servers/modern/subscriptions/subscribe",
            json!({"uri": COUNTER}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert!(r.text.contains("subscriptions/listen"), "{}", r.text);
    // A field of the wrong type is named.
    let r = b
        .put(
            "/api/servers/modern/subscriptions/filter",
            json!({"toolsListChanged": "yes"}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("toolsListChanged"), "{}", r.text);
    let got = b.get("/api/servers/modern/subscriptions").await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body["era"], "modern");
    b.stop().await;
}

#[tokio::test]
async fn legacy_subscribe_and_unsubscribe_over_the_api() {
    let dir = TempDir::new("api-subs-legacy");
    let d = demo().await;
    let b = start(dir.path(), both_eras(&d.url), Options::default()).await;
    b.ok("/api/servers/legacy/connect", json!({})).await;
    let r = b
        .post(
            "/api/servers/legacy/subscriptions/subscribe",
            json!({"uri": COUNTER}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["result"], json!({}));
    assert!(r.body["historyId"].is_number());
    let r = b
        .post("/api/servers/legacy/subscriptions/subscribe", json!({}))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("uri"), "{}", r.text);
    let r = b
        .post(
            "/api/servers/legacy/subscriptions/unsubscribe",
            json!({"uri": COUNTER}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let row = r.body["subscriptions"]["uris"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["uri"] == COUNTER).cloned());
    assert!(row.is_none_or(|u| u["subscribed"] == false), "{}", r.text);
    let r = b
        .put(
            "/api/servers/legacy/subscriptions/filter",
            json!({"toolsListChanged": true}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    b.stop().await;
}
