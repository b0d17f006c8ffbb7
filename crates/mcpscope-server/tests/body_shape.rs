//! A JSON body of the wrong shape — valid JSON, wrong fields or types — is the client's mistake
//! like any other: 400 `usage` with serde's words for what is wrong (and where), on every route
//! that takes a required body, not axum's 422 (which is `rpc_error`'s status here). Malformed
//! JSON stays 400, a missing body 400, a wrong Content-Type the guard's 415; nothing refused
//! changes the catalog or the saved requests.

use crate::support::{Backend, Options, TempDir, demo, http_entry, start};
use mcpscope_server::TOKEN_HEADER;
use serde_json::{Value, json};

/// `POST path` with `body` as raw text (so it need not be JSON), typed JSON or not.
async fn post_text(
    b: &Backend,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut rb = b
        .http
        .post(b.url(path))
        .header(TOKEN_HEADER, format!("Bearer {}", b.token))
        .body(body.to_string());
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    let r = b.send(rb).await;
    (r.status, r.body)
}

/// The error object of a 400 `usage` answer, its message containing each of `words`.
fn usage_naming(status: u16, body: &Value, words: &[&str]) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "usage", "{body}");
    let message = body["error"]["message"].as_str().expect("a message");
    for w in words {
        assert!(message.contains(w), "{w:?} not in {message:?}");
    }
}

#[tokio::test]
async fn a_body_of_the_wrong_shape_is_400_usage_naming_the_field() {
    let dir = TempDir::new("body-shape");
    let d = demo().await;
    let b = start(
        dir.path(),
        vec![("demo".into(), http_entry(&d.url, "legacy"))],
        Options::default(),
    )
    .await;

    // POST /api/servers: the entry's `url` is a number.
    let r = b
        .post(
            "/api/servers",
            json!({"name": "x", "entry": {"type": "http", "url": 5}}),
        )
        .await;
    usage_naming(
        r.status,
        &r.body,
        &["entry.url", "invalid type: integer `5`"],
    );
    // POST /api/saved: `method` is missing.
    let r = b
        .post("/api/saved", json!({"name": "n", "server": "demo"}))
        .await;
    usage_naming(r.status, &r.body, &["missing field `method`"]);
    // POST /api/servers/:name/request: an array where an object is expected.
    let r = b.post("/api/servers/demo/request", json!([1, 2])).await;
    usage_naming(r.status, &r.body, &["invalid type: sequence"]);

    // Nothing refused was kept.
    let servers = b.get("/api/servers").await.body;
    let names: Vec<&str> = servers["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["demo"], "{servers}");
    let saved = b.get("/api/saved").await;
    assert_eq!(saved.status, 200, "{}", saved.text);
    assert!(!saved.text.contains("\"n\""), "{}", saved.text);

    // Positive controls: the same routes take a body of the right shape.
    let entry = http_entry(&d.url, "modern");
    b.ok("/api/servers", json!({"name": "x", "entry": entry}))
        .await;
    b.ok(
        "/api/saved",
        json!({"name": "n", "server": "demo", "method": "tools/list"}),
    )
    .await;
    b.stop().await;
}

#[tokio::test]
async fn malformed_json_and_a_missing_body_are_400_a_wrong_content_type_415() {
    let dir = TempDir::new("body-syntax");
    let b = start(dir.path(), vec![], Options::default()).await;
    let json = Some("application/json");
    let (status, body) = post_text(&b, "/api/servers", json, r#"{"name": "x", "#).await;
    usage_naming(status, &body, &["not valid JSON", "EOF"]);
    let (status, body) = post_text(&b, "/api/saved", json, "{name: 1}").await;
    usage_naming(status, &body, &["not valid JSON", "key must be a string"]);
    // No body and no Content-Type passes the guard; the route still needs its body.
    let (status, body) = post_text(&b, "/api/servers", None, "").await;
    usage_naming(status, &body, &["body is missing"]);
    // A body that is not declared JSON never reaches the route.
    let (status, body) = post_text(&b, "/api/servers", Some("text/plain"), "{}").await;
    assert_eq!(status, 415, "{body}");
    assert_eq!(body["error"]["code"], "usage", "{body}");
    b.stop().await;
}
