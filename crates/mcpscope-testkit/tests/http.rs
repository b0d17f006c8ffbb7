//! The HTTP modes over a real loopback socket with a raw HTTP/1.1 client: statuses, headers and
//! body bytes exactly as each mode documents them.

use crate::support::{DEADLINE, http, post_json, read_until_contains, request_bytes};
use mcpscope_testkit::{HttpFixture, HttpMode};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn initialize(id: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcpscope-testkit-tests", "version": "0"}}})
}

fn ping(id: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

#[tokio::test]
async fn status500_answers_boom() {
    let server = HttpFixture::spawn(HttpMode::Status500)
        .await
        .expect("spawn");
    let response = post_json(server.addr(), "/mcp", &[], &initialize(1)).await;
    assert_eq!(response.status, 500);
    assert_eq!(response.header("content-type"), Some("text/plain"));
    assert_eq!(response.body, b"boom");
    assert_eq!(server.stats().requests(), 1);
}

#[tokio::test]
async fn html_body_answers_200_html() {
    let server = HttpFixture::spawn(HttpMode::HtmlBody).await.expect("spawn");
    let response = post_json(server.addr(), "/mcp", &[], &initialize(1)).await;
    assert_eq!(response.status, 200);
    assert!(
        response
            .header("content-type")
            .is_some_and(|v| v.starts_with("text/html"))
    );
    assert!(response.text().starts_with("<!DOCTYPE html>"));
}

#[tokio::test]
async fn session_expiring_forces_a_reinitialize() {
    let server = HttpFixture::spawn(HttpMode::SessionExpiring {
        requests_per_session: 2,
    })
    .await
    .expect("spawn");
    let addr = server.addr();

    let init = post_json(addr, "/mcp", &[], &initialize(1)).await;
    assert_eq!(init.status, 200);
    let session = init
        .header("mcp-session-id")
        .expect("session id")
        .to_owned();
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");

    let without = post_json(addr, "/mcp", &[], &ping(2)).await;
    assert_eq!(without.status, 400, "a request without the session id");

    let with = [("Mcp-Session-Id", session.as_str())];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post_json(addr, "/mcp", &with, &initialized).await.status,
        202
    );
    for id in [3, 4] {
        let answer = post_json(addr, "/mcp", &with, &ping(id)).await;
        assert_eq!(answer.status, 200);
        assert_eq!(
            answer.json(),
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
    }
    let expired = post_json(addr, "/mcp", &with, &ping(5)).await;
    assert_eq!(expired.status, 404);
    assert_eq!(expired.json()["error"]["code"], -32001);
    assert_eq!(server.stats().expired_session_rejections(), 1);

    let again = post_json(addr, "/mcp", &[], &initialize(6)).await;
    let fresh = again.header("mcp-session-id").expect("new session id");
    assert_ne!(fresh, session);
    assert_eq!(server.stats().initializations(), 2);
}

#[tokio::test]
async fn redirect_sends_307_to_a_working_server() {
    let server = HttpFixture::spawn(HttpMode::Redirect).await.expect("spawn");
    let hop = post_json(server.addr(), "/mcp", &[], &initialize(1)).await;
    assert_eq!(hop.status, 307);
    assert_eq!(hop.header("location"), Some("/real/mcp"));
    let real = post_json(server.addr(), "/real/mcp", &[], &initialize(1)).await;
    assert_eq!(real.status, 200);
    assert_eq!(real.json()["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn sse_drop_then_resume_delivers_on_the_get() {
    let server = HttpFixture::spawn(HttpMode::SseDropThenResume)
        .await
        .expect("spawn");
    let addr = server.addr();

    let init = post_json(addr, "/mcp", &[], &initialize(1)).await;
    assert_eq!(init.header("content-type"), Some("text/event-stream"));
    let text = init.text();
    assert!(
        text.starts_with("id: s0-0\nretry: 500\ndata:\n\nid: s0-1\ndata: {"),
        "{text}"
    );

    let dropped = post_json(addr, "/mcp", &[], &ping(2)).await;
    assert_eq!(dropped.status, 200);
    assert_eq!(
        dropped.body, b"id: s1-0\nretry: 500\ndata:\n\n",
        "priming only"
    );

    let resume = [("Accept", "text/event-stream"), ("Last-Event-ID", "s1-0")];
    let resumed = http(addr, "GET", "/mcp", &resume, b"").await;
    assert_eq!(resumed.status, 200);
    assert_eq!(
        resumed.text(),
        "id: s1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
    );
    assert_eq!(server.stats().resumptions(), 1);
    assert_eq!(server.stats().resume_delays().len(), 1);

    // Delivered once: the same Last-Event-ID has nothing more to give.
    assert_eq!(http(addr, "GET", "/mcp", &resume, b"").await.status, 404);
}

#[tokio::test]
async fn auth_required_points_at_protected_resource_metadata() {
    let server = HttpFixture::spawn(HttpMode::AuthRequired)
        .await
        .expect("spawn");
    let addr = server.addr();
    // The test client sends `Host: 127.0.0.1`; the challenge is built from it.
    let metadata = "http://127.0.0.1/.well-known/oauth-protected-resource";

    let denied = post_json(addr, "/mcp", &[], &initialize(1)).await;
    assert_eq!(denied.status, 401);
    assert_eq!(
        denied.header("www-authenticate"),
        Some(format!(r#"Bearer resource_metadata="{metadata}""#).as_str())
    );

    let with_token = post_json(addr, "/mcp", &[("Authorization", "Bearer x")], &ping(2)).await;
    assert_eq!(with_token.status, 401);
    assert!(
        with_token
            .header("www-authenticate")
            .is_some_and(|v| v.contains(r#"error="invalid_token""#))
    );

    let prm = http(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        b"",
    )
    .await;
    assert_eq!(prm.status, 200);
    assert_eq!(prm.json()["resource"], "http://127.0.0.1/mcp");
    let asm = http(
        addr,
        "GET",
        "/.well-known/oauth-authorization-server",
        &[],
        b"",
    )
    .await;
    assert_eq!(asm.status, 404);
}

#[tokio::test]
async fn legacy_sse_only_answers_on_the_stream() {
    let server = HttpFixture::spawn(HttpMode::LegacySseOnly)
        .await
        .expect("spawn");
    let addr = server.addr();
    assert!(server.entry_url().ends_with("/sse"));

    assert_eq!(
        post_json(addr, "/mcp", &[], &initialize(1)).await.status,
        404
    );
    assert_eq!(
        post_json(addr, "/sse", &[], &initialize(1)).await.status,
        405
    );

    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let get = request_bytes("GET", "/sse", &[("Accept", "text/event-stream")], b"");
    stream.write_all(&get).await.expect("send GET");
    let mut seen = Vec::new();
    read_until_contains(&mut stream, &mut seen, b"\n\n").await;
    read_until_contains(
        &mut stream,
        &mut seen,
        b"event: endpoint\ndata: /message?sessionId=sse-session-1\n\n",
    )
    .await;

    let accepted = post_json(addr, "/message?sessionId=sse-session-1", &[], &ping(7)).await;
    assert_eq!(accepted.status, 202);
    read_until_contains(
        &mut stream,
        &mut seen,
        b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
    )
    .await;

    let unknown = post_json(addr, "/message?sessionId=nope", &[], &ping(8)).await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn slow_headers_never_sends_a_status_line() {
    let server = HttpFixture::spawn(HttpMode::SlowHeaders)
        .await
        .expect("spawn");
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    let body = initialize(1).to_string();
    let post = request_bytes(
        "POST",
        "/mcp",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    stream.write_all(&post).await.expect("send");
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut byte)).await;
    assert!(read.is_err(), "got a response byte: {read:?}");
    // The request did arrive; it is the answer that never comes.
    tokio::time::timeout(DEADLINE, async {
        while server.stats().requests() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("request counted");
}
