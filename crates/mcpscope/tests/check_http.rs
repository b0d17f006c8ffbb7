//! `mcpscope check` on Streamable HTTP servers: the `http` checks (issue 26) as the real binary
//! reports them in `--format json`. The demo server (`mcpscope demo-server --http 0`) and the
//! Python SDK pass every one; FastMCP 4.2.3 fails `dns-rebinding-protection` (a true finding:
//! docs/checks.md); the TypeScript SDK's stateless server skips the two session checks. The
//! testkit's conforming server passes them all, and each `HttpFlaw` fails its own check and
//! changes no other verdict. A stdio server skips them all.

use crate::demo_harness::run_binary;
use crate::misbehaving_support::MCPSCOPE;
use crate::peers_support::Peers;
use mcpscope_testkit::{HttpFixture, HttpFlaw, HttpMode};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// The `http` checks and the eras each applies to.
const HTTP_CHECKS: &[(&str, &[&str])] = &[
    ("dns-rebinding-protection", &[LEGACY, MODERN]),
    ("session-id-visible-ascii", &[LEGACY]),
    ("notification-post-accepted", &[LEGACY]),
    ("get-stream-or-405", &[LEGACY]),
    ("protocol-version-header-invalid", &[LEGACY]),
    ("server-session-lifecycle", &[LEGACY]),
    ("no-session-id", &[MODERN]),
    ("method-header-mismatch", &[MODERN]),
    ("name-header-mismatch", &[MODERN]),
    ("missing-method-header-rejected", &[MODERN]),
];
const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// `mcpscope check ARGS --format json`, bounded (the harness's `run_binary`): (exit code, the
/// report).
async fn check(args: &[&str]) -> (i32, Value) {
    let all: Vec<String> = std::iter::once("check")
        .chain(args.iter().copied())
        .chain(["--format", "json", "--timeout", "60"])
        .map(str::to_owned)
        .collect();
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &all, &[]).await;
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("mcpscope check {args:?}: stdout is not JSON ({e}): {stdout}\n{stderr}")
    });
    (code, report)
}

/// Every verdict as `(id, era, outcome)`, sorted.
fn outcomes(report: &Value) -> Vec<(String, String, String)> {
    let mut all: Vec<(String, String, String)> = report["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            (s("id"), s("era"), s("outcome"))
        })
        .collect();
    all.sort();
    all
}

/// The one verdict of `id` in `era`.
fn verdict<'a>(report: &'a Value, id: &str, era: &str) -> &'a Value {
    let found: Vec<&Value> = report["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .filter(|v| v["id"] == id && v["era"] == era)
        .collect();
    assert_eq!(found.len(), 1, "{id} [{era}]: {found:?}");
    found[0]
}

/// Each `http` check's outcome, `(id, era, outcome)`, in table order.
fn http_outcomes(report: &Value) -> Vec<(String, String, String)> {
    HTTP_CHECKS
        .iter()
        .flat_map(|(id, eras)| eras.iter().map(move |era| (*id, *era)))
        .map(|(id, era)| {
            let v = verdict(report, id, era);
            (
                id.to_string(),
                era.to_string(),
                v["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The table of `http` outcomes a server should get: `pass` but where `except` says otherwise.
fn expected(except: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    HTTP_CHECKS
        .iter()
        .flat_map(|(id, eras)| eras.iter().map(move |era| (*id, *era)))
        .map(|(id, era)| {
            let outcome = except
                .iter()
                .find(|(i, e, _)| *i == id && *e == era)
                .map_or("pass", |(_, _, o)| *o);
            (id.to_string(), era.to_string(), outcome.to_string())
        })
        .collect()
}

/// `mcpscope demo-server --http 0`, its URL read from its stderr; killed when dropped.
async fn demo_server() -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(MCPSCOPE)
        .args(["demo-server", "--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn mcpscope demo-server");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.trim().to_string();
            }
        }
        panic!("demo-server exited without saying where it listens");
    })
    .await
    .expect("demo-server started");
    // Keep reading: a closed pipe would fail the server's next line on stderr (and the server).
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

#[tokio::test]
async fn the_demo_server_passes_every_http_check() {
    let (_demo, url) = demo_server().await;
    let (_, report) = check(&[&url]).await;
    assert_eq!(http_outcomes(&report), expected(&[]), "{report:#}");
    let v = verdict(&report, "server-session-lifecycle", LEGACY);
    assert!(
        v["message"].as_str().unwrap().contains("then got 404"),
        "{v}"
    );
}

#[tokio::test]
async fn a_stdio_server_skips_every_http_check_saying_why() {
    let (_, report) = check(&["--demo"]).await;
    for (id, eras) in HTTP_CHECKS {
        for era in *eras {
            let v = verdict(&report, id, era);
            assert_eq!(v["outcome"], "skipped", "{v}");
            assert_eq!(v["message"], "not an HTTP server", "{v}");
        }
    }
}

#[tokio::test]
async fn the_conforming_fixture_passes_and_each_flaw_fails_its_check_alone() {
    let clean = HttpFixture::spawn(HttpMode::Conforming { flaw: None })
        .await
        .expect("fixture");
    let (_, report) = check(&[&clean.entry_url()]).await;
    assert_eq!(http_outcomes(&report), expected(&[]), "{report:#}");
    let baseline = outcomes(&report);
    let flaws = [
        (HttpFlaw::ForeignOriginAccepted, "dns-rebinding-protection"),
        (
            HttpFlaw::SessionIdNotVisibleAscii,
            "session-id-visible-ascii",
        ),
        (
            HttpFlaw::NotificationAnswered200,
            "notification-post-accepted",
        ),
        (HttpFlaw::GetAnsweredJson, "get-stream-or-405"),
        (
            HttpFlaw::InvalidProtocolVersionAccepted,
            "protocol-version-header-invalid",
        ),
        (HttpFlaw::SessionOutlivesDelete, "server-session-lifecycle"),
        (HttpFlaw::SessionIdEchoed, "no-session-id"),
        (HttpFlaw::MethodHeaderUnchecked, "method-header-mismatch"),
        (HttpFlaw::NameHeaderUnchecked, "name-header-mismatch"),
        (
            HttpFlaw::MissingMethodHeaderAccepted,
            "missing-method-header-rejected",
        ),
    ];
    for (flaw, id) in flaws {
        let server = HttpFixture::spawn(HttpMode::Conforming { flaw: Some(flaw) })
            .await
            .expect("fixture");
        let (_, report) = check(&[&server.entry_url()]).await;
        // A SHOULD broken warns, a MUST fails.
        let broken = if id == "no-session-id" {
            "warn"
        } else {
            "fail"
        };
        let eras = HTTP_CHECKS.iter().find(|(i, _)| *i == id).unwrap().1;
        let mut want = baseline.clone();
        for w in &mut want {
            if w.0 == id {
                w.2 = broken.to_string();
            }
        }
        let got = outcomes(&report);
        let differ: Vec<_> = got
            .iter()
            .filter(|g| !want.contains(g))
            .chain(want.iter().filter(|w| !got.contains(w)))
            .collect();
        assert!(
            got == want,
            "{flaw:?} must change {id} only; these differ: {differ:?}\n{report:#}"
        );
        for era in eras {
            let v = verdict(&report, id, era);
            let evidence = v["evidence"].as_array().expect("evidence on a failure");
            assert!(
                evidence.iter().any(|e| e["direction"] == "out")
                    && evidence.iter().any(|e| e["direction"] == "in"),
                "{flaw:?}: the request and the answer: {v:#}"
            );
            assert!(
                v["reproduce"].as_str().unwrap().starts_with("curl -si -X "),
                "{v:#}"
            );
        }
    }
}

#[tokio::test]
async fn the_failing_dns_check_shows_the_foreign_origin_it_sent() {
    let server = HttpFixture::spawn(HttpMode::Conforming {
        flaw: Some(HttpFlaw::ForeignOriginAccepted),
    })
    .await
    .expect("fixture");
    let (code, report) = check(&[&server.entry_url()]).await;
    assert_eq!(code, 6, "a failed check exits 6");
    let v = verdict(&report, "dns-rebinding-protection", MODERN);
    assert_eq!(v["level"], "MUST");
    assert!(v["sentence"].as_str().unwrap().contains("403 Forbidden"));
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("got HTTP 200, a JSON-RPC result, not 403"),
        "{v:#}"
    );
    let sent = &v["evidence"][0];
    assert_eq!(sent["direction"], "out");
    assert!(
        sent["excerpt"]
            .as_str()
            .unwrap()
            .contains("Origin: http://evil.example"),
        "{sent}"
    );
    assert!(
        v["reproduce"]
            .as_str()
            .unwrap()
            .contains("-H 'Origin: http://evil.example'"),
        "{v:#}"
    );
}

/// A peer's HTTP server, checked; `None` without `.peers/` on purpose.
async fn peer(script: &str, test: &str) -> Option<Value> {
    let peers = Peers::get(test)?;
    let server = peers.serve(script, "http").await;
    let (_, report) = check(&[&format!("{}/mcp", server.base)]).await;
    Some(report)
}

#[tokio::test]
async fn the_python_sdk_passes_every_http_check() {
    let Some(report) = peer("python-sdk-server.sh", "python sdk").await else {
        return;
    };
    assert_eq!(http_outcomes(&report), expected(&[]), "{report:#}");
}

#[tokio::test]
async fn fastmcp_fails_dns_rebinding_protection_and_passes_the_rest() {
    let Some(report) = peer("fastmcp-server.sh", "fastmcp").await else {
        return;
    };
    let want = expected(&[
        ("dns-rebinding-protection", LEGACY, "fail"),
        ("dns-rebinding-protection", MODERN, "fail"),
    ]);
    assert_eq!(http_outcomes(&report), want, "{report:#}");
}

#[tokio::test]
async fn the_stateless_typescript_sdk_skips_the_session_checks() {
    let Some(report) = peer("ts-sdk-server.sh", "ts sdk").await else {
        return;
    };
    let want = expected(&[
        ("session-id-visible-ascii", LEGACY, "skipped"),
        ("server-session-lifecycle", LEGACY, "skipped"),
    ]);
    assert_eq!(http_outcomes(&report), want, "{report:#}");
    let v = verdict(&report, "server-session-lifecycle", LEGACY);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("issued no Mcp-Session-Id"),
        "{v}"
    );
}

#[tokio::test]
async fn the_stateless_python_sdk_skips_the_session_checks() {
    let Some(peers) = Peers::get("python sdk stateless") else {
        return;
    };
    let server = peers.serve("python-sdk-server.sh", "http-stateless").await;
    let (_, report) = check(&[&format!("{}/mcp", server.base)]).await;
    let want = expected(&[
        ("session-id-visible-ascii", LEGACY, "skipped"),
        ("server-session-lifecycle", LEGACY, "skipped"),
    ]);
    assert_eq!(http_outcomes(&report), want, "{report:#}");
}

/// server-everything speaks 2025-11-25 only: its five legacy http verdicts, two of them true
/// findings — no Origin check, and a 400 (not 404) for the session it just ended.
#[tokio::test]
async fn server_everything_fails_dns_rebinding_and_the_session_lifecycle() {
    let Some(peers) = Peers::get("server-everything") else {
        return;
    };
    let server = peers.serve("everything.sh", "http").await;
    let (code, report) = check(&[&format!("{}/mcp", server.base)]).await;
    assert_eq!(code, 6, "{report:#}");
    let outcome = |id: &str| verdict(&report, id, LEGACY)["outcome"].clone();
    assert_eq!(outcome("dns-rebinding-protection"), "fail");
    assert_eq!(outcome("session-id-visible-ascii"), "pass");
    assert_eq!(outcome("notification-post-accepted"), "pass");
    assert_eq!(outcome("protocol-version-header-invalid"), "pass");
    let lifecycle = verdict(&report, "server-session-lifecycle", LEGACY);
    assert_eq!(lifecycle["outcome"], "fail", "{lifecycle:#}");
    assert!(
        lifecycle["message"]
            .as_str()
            .unwrap()
            .contains("then got HTTP 400"),
        "{lifecycle:#}"
    );
    // Two exchanges as evidence: the DELETE and the request after it.
    let methods: Vec<&str> = lifecycle["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "http-request DELETE",
            "http-response 200",
            "http-request POST",
            "http-response 400"
        ],
        "{lifecycle:#}"
    );
    assert!(
        report["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["era"] == LEGACY),
        "server-everything offers no 2026-07-28"
    );
}

/// A root URL that reaches an HTTP+SSE server through the fallback (its POST answers 405): the
/// http checks are not judged — skipped, saying why — rather than failed for a 405.
#[tokio::test]
async fn an_http_sse_server_behind_the_fallback_is_not_judged() {
    let server = HttpFixture::spawn(HttpMode::LegacySseOnly)
        .await
        .expect("fixture");
    let (_, report) = check(&[&server.url("/")]).await;
    let (id, _) = HTTP_CHECKS[0];
    let v = verdict(&report, id, LEGACY);
    assert_eq!(v["outcome"], "skipped", "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 405, no body even without an Origin"),
        "{v:#}"
    );
    for (id, eras) in &HTTP_CHECKS[1..] {
        if eras.contains(&LEGACY) {
            let v = verdict(&report, id, LEGACY);
            assert_eq!(v["outcome"], "skipped", "{v:#}");
            assert!(
                v["message"].as_str().unwrap().contains("got HTTP 405"),
                "{v:#}"
            );
        }
    }
}

/// A server minting a session id on 2026-07-28 answers: `no-session-id` warns (a SHOULD), naming
/// the id it minted.
#[tokio::test]
async fn a_minted_session_id_warns() {
    let server = HttpFixture::spawn(HttpMode::Conforming {
        flaw: Some(HttpFlaw::SessionIdMinted),
    })
    .await
    .expect("fixture");
    let (_, report) = check(&[&server.entry_url()]).await;
    let v = verdict(&report, "no-session-id", MODERN);
    assert_eq!(v["outcome"], "warn", "{v:#}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("the answer mints an Mcp-Session-Id (minted-"),
        "{v:#}"
    );
    let answer = &v["evidence"][1];
    assert!(
        answer["excerpt"]
            .as_str()
            .unwrap()
            .contains("mcp-session-id: minted-"),
        "{v:#}"
    );
    // The client adopts a session id only from the answer to `initialize`: a minted one did
    // not turn the server's own 404 + -32601 for an undeclared list into "session expired".
    let u = verdict(&report, "undeclared-capability-error", MODERN);
    assert!(
        matches!(u["outcome"].as_str(), Some("pass" | "skipped")),
        "{u:#}"
    );
}
