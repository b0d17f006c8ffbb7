//! One error-code table in every view: what the CLI names a failure, the web API names it too.
//! The CLI half of each is in `crates/mcpscope/tests/` (`demo_interaction::` for
//! `input_refused`).

use crate::support::{Options, TempDir, demo, http_entry, start};
use serde_json::{Value, json};

/// A modern `input_required` round the user refuses (Reject Request on the web UI's sampling
/// card: a decline) stops the request as `input_refused` — the CLI's code for the same
/// refusal — not `protocol_error`, with its history entry saying the same; the request is not
/// retried without the answer.
#[tokio::test]
async fn an_input_required_round_refused_is_input_refused_as_in_the_cli() {
    let dir = TempDir::new("input-refused");
    let d = demo().await;
    let b = start(
        dir.path(),
        vec![("modern".to_string(), http_entry(&d.url, "modern"))],
        Options::default(),
    )
    .await;
    let info = b.ok("/api/servers/modern/connect", json!({})).await;
    assert_eq!(info["era"], "modern", "{info}");
    let events = b.events(None).await;
    let call = b.spawn_post(
        "/api/servers/modern/request",
        json!({"method": "tools/call",
               "params": {"name": "sample", "arguments": {"prompt": "Capital of France?"}}}),
    );
    // The web UI's policy leaves sampling for its card; the view rejects it.
    let asked = events
        .wait("sampling opened", |e| {
            e.name == "interactionOpened" && e.data["kind"] == "sampling"
        })
        .await;
    let id = asked.data["id"].as_u64().expect("interaction id");
    b.ok(
        &format!("/api/interactions/{id}"),
        json!({"action": "decline"}),
    )
    .await;
    let (status, text) = call.await.expect("call task");
    let body: Value = serde_json::from_str(&text).expect("JSON body");
    let error = &body["error"];
    assert_eq!(error["code"], "input_refused", "{text}");
    assert_eq!(status, 502, "{text}");
    let message = error["message"].as_str().expect("message");
    assert!(message.contains("sampling/createMessage"), "{message}");
    let hist = error["historyId"].as_i64().expect("historyId in the error");
    let entry = b.get(&format!("/api/history/{hist}")).await.body;
    assert_eq!(entry["status"], "error", "{entry}");
    assert_eq!(entry["error"]["code"], "input_refused", "{entry}");
    let frames = b
        .get("/api/servers/modern/frames?limit=2000&source=jsonrpc")
        .await
        .body;
    let calls: Vec<&Value> = frames["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter(|f| f["direction"] == "out" && f["method"] == "tools/call")
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "sent once, never retried without the answer"
    );
    b.stop().await;
}

/// Every error code's troubleshooting page (the error card's and the toast's "View
/// Troubleshooting Guide →") is served by the backend itself, so it opens offline: HTML with its
/// heading, no script allowed, reachable without the token (a plain link opens it); an unknown
/// code is a 404 that lists the pages.
#[tokio::test]
async fn every_error_code_has_its_troubleshooting_page_served_offline() {
    use mcpscope_proto::error_code::ErrorCode;
    let dir = TempDir::new("troubleshooting");
    let b = start(dir.path(), vec![], Options::default()).await;
    for code in ErrorCode::ALL {
        let r = b
            .http
            .get(b.url(&format!("/troubleshooting/{}", code.code())))
            .send()
            .await
            .expect("GET");
        assert_eq!(r.status(), 200, "{code:?}");
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(csp.starts_with("default-src 'none'"), "{csp}");
        assert!(!csp.contains("script-src"), "{csp}");
        let html = r.text().await.unwrap();
        assert!(
            html.contains(&format!("<h1>{}: ", code.code())),
            "{code:?}: {html:.200}"
        );
        assert!(!html.contains("<script"), "{code:?}");
    }
    let r = b
        .http
        .get(b.url("/troubleshooting/no_such_code"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert!(r.text().await.unwrap().contains("/troubleshooting/timeout"));
}
