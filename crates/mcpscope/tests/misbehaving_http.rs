//! The CLI against the testkit's misbehaving HTTP servers (in-process, on loopback): error
//! statuses, a web page where MCP belongs, expiring sessions, redirects, a dropped SSE stream,
//! a 401, a server that only speaks the deprecated HTTP+SSE, and one that never sends headers.

use crate::misbehaving_support::{Run, cli_async};
use mcpscope_testkit::{HttpFixture, HttpMode};
use serde_json::Value;
use std::time::Duration;

async fn fixture(mode: HttpMode) -> HttpFixture {
    HttpFixture::spawn(mode)
        .await
        .expect("start the HTTP fixture")
}

/// `tools/call echo text=hi --format json` against `url`, plus `extra` flags; `--no-validate`:
/// these servers misbehave on a count of exchanges, and the `tools/list` that checks the
/// arguments first would be one more.
async fn echo(name: &str, url: &str, extra: &[&str]) -> Run {
    let mut args: Vec<String> = vec![url.to_owned()];
    args.extend(
        [
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
            "--no-validate",
            "--format",
            "json",
        ]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned()),
    );
    cli_async(name, args).await
}

fn said_hi(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
}

/// HTTP request frames as (method, url, note).
fn requests(run: &Run) -> Vec<(String, String, Option<String>)> {
    run.frames("http-request")
        .iter()
        .map(|f| {
            let m = &f["meta"];
            (
                m["method"].as_str().unwrap_or_default().to_owned(),
                m["url"].as_str().unwrap_or_default().to_owned(),
                m["note"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn header<'a>(frame: &'a Value, name: &str) -> Option<&'a str> {
    frame["meta"]["headers"]
        .as_array()?
        .iter()
        .find(|h| h[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
        .and_then(|h| h[1].as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_500_exits_4_with_the_status() {
    let server = fixture(HttpMode::Status500).await;
    let run = echo("http-500", &server.entry_url(), &[]).await;
    assert_eq!(run.code, 4, "{}", run.dump());
    let error = run.error();
    assert_eq!(error["status"], 500);
    assert_eq!(error["url"], server.entry_url());
    let message = run.message();
    assert!(
        message.contains("HTTP 500") && message.contains("boom"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_html_page_is_reported_as_not_an_mcp_endpoint() {
    let server = fixture(HttpMode::HtmlBody).await;
    let run = echo("html", &server.entry_url(), &[]).await;
    assert_eq!(run.code, 4, "{}", run.dump());
    let message = run.message();
    for part in [
        "text/html",
        "is this URL an MCP endpoint?",
        "Welcome to nginx!",
    ] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
    // The page itself is in the trace, as received.
    let page = run.frames("http-response")[0];
    assert!(
        page["text"]
            .as_str()
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_is_replaced_and_the_request_retried() {
    let server = fixture(HttpMode::SessionExpiring {
        requests_per_session: 1,
    })
    .await;
    // --log-level makes the CLI send logging/setLevel first: that request uses up the session,
    // so the call meets the 404.
    let run = echo(
        "session-expiring",
        &server.entry_url(),
        &["--log-level", "debug"],
    )
    .await;
    said_hi(&run);
    assert_eq!(server.stats().initializations(), 2);
    assert_eq!(server.stats().expired_session_rejections(), 1);
    assert_eq!(run.sent("initialize").len(), 2);
    assert_eq!(run.sent("tools/call").len(), 2, "the call is retried once");
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("expired (HTTP 404)")),
        "{:#?}",
        run.warnings()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_followed_and_every_hop_is_recorded() {
    let server = fixture(HttpMode::Redirect).await;
    let run = echo("redirect", &server.entry_url(), &[]).await;
    said_hi(&run);
    let real = server.url("/real/mcp");
    // Both the handshake and the call: a 307 from /mcp, then the same POST re-sent to /real/mcp.
    for method in ["initialize", "tools/call"] {
        let first = run
            .trace
            .iter()
            .find(|f| f["direction"] == "out" && f["method"] == method)
            .expect("request frame");
        let exchange = &first["meta"]["exchange"];
        let hops: Vec<&Value> = run
            .trace
            .iter()
            .filter(|f| &f["meta"]["exchange"] == exchange && f["kind"] != "lifecycle")
            .collect();
        let redirect = hops
            .iter()
            .find(|f| f["meta"]["status"] == 307)
            .expect("the 307 is recorded");
        assert_eq!(header(redirect, "location"), Some("/real/mcp"));
        let resent = hops
            .iter()
            .find(|f| f["kind"] == "http-request" && f["meta"]["url"] == real.as_str())
            .expect("the re-sent POST is recorded");
        assert_eq!(resent["text"], first["text"], "same body on every hop");
        assert!(
            resent["meta"]["note"]
                .as_str()
                .is_some_and(|n| n.contains("redirect")),
            "{resent}"
        );
    }
    // The standalone GET stream follows the redirect too, instead of giving up at the 307.
    let gets: Vec<&str> = run
        .frames("http-request")
        .into_iter()
        .filter(|f| f["meta"]["method"] == "GET")
        .map(|f| f["meta"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(gets, [server.entry_url().as_str(), real.as_str()]);
}

/// The request frames of exchange `ex` and the responses to them, lifecycle notes left out.
fn exchange<'a>(run: &'a Run, ex: &Value) -> Vec<&'a Value> {
    run.trace
        .iter()
        .filter(|f| &f["meta"]["exchange"] == ex && f["kind"] != "lifecycle")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_follows_a_redirect_the_get_stream_resumption_and_delete_too() {
    let server = fixture(HttpMode::RedirectSession).await;
    let run = echo("redirect-session", &server.entry_url(), &[]).await;
    said_hi(&run);
    let stats = server.stats();
    assert_eq!(stats.initializations(), 1, "{}", run.dump());
    assert_eq!(
        stats.standalone_streams(),
        1,
        "the GET stream reached /real/mcp"
    );
    assert_eq!(stats.resumptions(), 1, "the resuming GET reached /real/mcp");
    assert_eq!(stats.sessions_ended(), 1, "the DELETE reached /real/mcp");
    let (entry, real) = (server.entry_url(), server.url("/real/mcp"));
    for (method, note) in [
        ("POST", None),
        ("GET", Some("standalone stream")),
        ("GET", Some("resuming the stream")),
        ("DELETE", Some("ending the session")),
    ] {
        let first = run
            .frames("http-request")
            .into_iter()
            .find(|f| {
                f["meta"]["method"] == method
                    && f["meta"]["url"] == entry.as_str()
                    && note
                        .is_none_or(|n| f["meta"]["note"].as_str().is_some_and(|t| t.contains(n)))
            })
            .unwrap_or_else(|| panic!("no {method} {note:?} to {entry}:\n{}", run.dump()));
        let hops = exchange(&run, &first["meta"]["exchange"]);
        let redirect = hops
            .iter()
            .find(|f| f["meta"]["status"] == 307)
            .unwrap_or_else(|| panic!("{method} {note:?}: the 307 is not recorded"));
        assert_eq!(header(redirect, "location"), Some("/real/mcp"));
        let resent = hops
            .iter()
            .find(|f| f["kind"] == "http-request" && f["meta"]["url"] == real.as_str())
            .unwrap_or_else(|| panic!("{method} {note:?}: no hop to {real} in its exchange"));
        assert_eq!(resent["meta"]["method"], method);
        assert_eq!(resent["text"], first["text"], "same body on every hop");
        assert!(
            hops.iter()
                .any(|f| f["kind"] == "http-response" && f["meta"]["url"] == real.as_str()),
            "{method} {note:?}: the answer at {real} is recorded in the same exchange"
        );
    }
    // What came on the redirected standalone stream reached the trace.
    assert!(
        run.frames("sse-event").iter().any(|f| f["text"]
            .as_str()
            .is_some_and(|t| t.contains("hello on the standalone stream"))),
        "{}",
        run.dump()
    );
    // One counter: every request has its own exchange number, and only its redirect hops
    // share it.
    let mut numbers: Vec<u64> = run
        .frames("http-request")
        .iter()
        .filter(|f| {
            !f["meta"]["note"]
                .as_str()
                .is_some_and(|n| n.starts_with("re-sent after redirect"))
        })
        .map(|f| f["meta"]["exchange"].as_u64().expect("exchange number"))
        .collect();
    let all = numbers.len();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), all, "exchange numbers repeat: {numbers:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_shot_list_opens_no_standalone_stream() {
    let server = fixture(HttpMode::RedirectSession).await;
    let args = [
        &server.entry_url(),
        "--method",
        "tools/list",
        "--format",
        "json",
    ];
    let run = cli_async(
        "one-shot-list",
        args.iter().map(|s| (*s).to_owned()).collect(),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["tools"][0]["name"], "echo");
    // The list's answer needs no GET stream (it comes on its own POST's stream, here resumed),
    // so the one-shot never opens one; the trace says so. A call opens it (test above).
    assert_eq!(server.stats().standalone_streams(), 0, "{}", run.dump());
    assert!(
        !requests(&run)
            .iter()
            .any(|(_, _, note)| note.as_deref().is_some_and(|n| n.contains("standalone"))),
        "{}",
        run.dump()
    );
    assert!(
        run.trace.iter().any(|f| f["kind"] == "lifecycle"
            && f["meta"]["note"]
                .as_str()
                .is_some_and(|n| n.contains("standalone GET stream not opened"))),
        "{}",
        run.dump()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_sse_stream_is_resumed_after_the_retry_delay() {
    let server = fixture(HttpMode::SseDropThenResume).await;
    let run = echo("sse-resume", &server.entry_url(), &[]).await;
    said_hi(&run);
    assert_eq!(server.stats().resumptions(), 1);
    for delay in server.stats().resume_delays() {
        assert!(
            delay >= Duration::from_millis(500),
            "resumed after {delay:?}, before the server's retry: 500"
        );
    }
    // The resuming GET carries the id of the last event the dropped stream delivered.
    let priming = run
        .frames("sse-event")
        .into_iter()
        .rev()
        .find(|f| f["meta"]["sse_retry"] == 500)
        .expect("the call's priming event");
    let get = run
        .frames("http-request")
        .into_iter()
        .find(|f| f["meta"]["method"] == "GET" && header(f, "last-event-id").is_some())
        .expect("a GET with Last-Event-ID");
    assert_eq!(
        header(get, "last-event-id"),
        priming["meta"]["sse_id"].as_str()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_exits_3_auth_required() {
    let server = fixture(HttpMode::AuthRequired).await;
    let run = echo("auth", &server.entry_url(), &[]).await;
    assert_eq!(run.code, 3, "{}", run.dump());
    let error = run.error();
    assert_eq!(error["code"], "auth_required");
    assert_eq!(error["status"], 401);
    assert!(
        run.message().contains("resource_metadata="),
        "{}",
        run.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sse_server_is_reached_by_fallback_and_directly() {
    let server = fixture(HttpMode::LegacySseOnly).await;
    // A URL that names neither /mcp nor /sse: Streamable HTTP first, then HTTP+SSE.
    let root = server.url("/");
    let run = echo("sse-fallback", &root, &[]).await;
    said_hi(&run);
    let sent = requests(&run);
    assert_eq!(
        (sent[0].0.as_str(), sent[0].1.as_str()),
        ("POST", root.as_str())
    );
    assert_eq!(run.frames("http-response")[0]["meta"]["status"], 405);
    assert_eq!(
        (sent[1].0.as_str(), sent[1].1.as_str()),
        ("GET", root.as_str())
    );
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("falling back to the deprecated HTTP+SSE")),
        "{:#?}",
        run.warnings()
    );
    // The HTTP+SSE connection goes on numbering exchanges after the refused Streamable HTTP
    // one: every request in the trace has its own number.
    let mut numbers: Vec<u64> = run
        .frames("http-request")
        .iter()
        .map(|f| f["meta"]["exchange"].as_u64().expect("exchange number"))
        .collect();
    let all = numbers.len();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), all, "exchange numbers repeat: {numbers:?}");

    // Forced: straight to the GET, no Streamable HTTP attempt.
    let run = echo("sse-direct", &server.entry_url(), &["--transport", "sse"]).await;
    said_hi(&run);
    let sent = requests(&run);
    assert_eq!(
        (sent[0].0.as_str(), sent[0].1.as_str()),
        ("GET", server.entry_url().as_str())
    );
    assert!(
        sent.iter()
            .all(|(m, u, _)| m != "POST" || u.contains("/message?"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_sends_headers_times_out() {
    let server = fixture(HttpMode::SlowHeaders).await;
    let run = echo(
        "slow-headers",
        &server.entry_url(),
        &["--connect-timeout", "1000"],
    )
    .await;
    assert_eq!(run.code, 4, "{}", run.dump());
    assert!(run.elapsed < Duration::from_secs(3), "{}", run.dump());
    assert_eq!(run.error()["code"], "timeout");
    assert!(run.message().contains("initialize"), "{}", run.message());
    assert_eq!(server.stats().requests(), 1, "the POST did arrive");
}
