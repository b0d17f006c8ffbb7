//! Era handling against the testkit's servers: the minimal modern (2026-07-28) server pinned and
//! auto-detected, `input_required` rounds answered and bounded, and legacy servers recognised by
//! the Auto probe (an error answer, or silence on stdio) with the probe visible in the trace.

use crate::misbehaving_support::{Run, cli, server};
use mcpscope_testkit::StdioMode;
use serde_json::json;

fn run(name: &str, args: &[&str], mode: &StdioMode) -> Run {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.extend(server(mode));
    cli(name, &all)
}

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

#[test]
fn modern_era_pinned_speaks_server_discover_and_stamps_every_request() {
    let run = run(
        "modern-pinned",
        &[
            "--protocol-era",
            "modern",
            "--method",
            "tools/list",
            "--format",
            "json",
        ],
        &StdioMode::Modern,
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    let doc = run.json();
    let names: Vec<&str> = doc["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "ask", "ask-forever", "empty-round"]);
    assert!(run.sent("initialize").is_empty());
    for method in ["server/discover", "tools/list"] {
        let sent = run.sent(method);
        assert_eq!(sent.len(), 1, "{method}");
        assert_eq!(
            sent[0]["params"]["_meta"][VERSION_KEY], "2026-07-28",
            "{method}"
        );
    }
}

#[test]
fn auto_picks_modern_for_a_modern_server() {
    let run = run(
        "modern-auto",
        &[
            "--protocol-era",
            "auto",
            "--method",
            "initialize",
            "--format",
            "json",
        ],
        &StdioMode::Modern,
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    let info = &run.json()["result"];
    assert_eq!(info["era"], "modern");
    assert_eq!(info["protocolVersion"], "2026-07-28");
    assert_eq!(run.sent("server/discover").len(), 1);
    assert!(run.sent("initialize").is_empty());
}

#[test]
fn input_required_rounds_are_answered_with_elicitation_json() {
    let run = run(
        "modern-ask",
        &[
            "--protocol-era",
            "modern",
            "--method",
            "tools/call",
            "--tool-name",
            "ask",
            "--elicitation-json",
            r#"{"name":"Ada"}"#,
            "--format",
            "json",
        ],
        &StdioMode::Modern,
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(
        run.json()["result"]["content"][0]["text"],
        "Hello, Ada! (after 1 input round(s))"
    );
    let calls = run.sent("tools/call");
    assert_eq!(calls.len(), 2);
    assert_ne!(
        calls[0]["id"], calls[1]["id"],
        "each round is a new request"
    );
    assert_eq!(calls[1]["params"]["requestState"], "state-1");
    assert_eq!(
        calls[1]["params"]["inputResponses"]["name"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
}

#[test]
fn endless_input_rounds_stop_at_max_input_rounds() {
    let run = run(
        "modern-ask-forever",
        &[
            "--protocol-era",
            "modern",
            "--method",
            "tools/call",
            "--tool-name",
            "ask-forever",
            "--elicitation-json",
            r#"{"name":"Ada"}"#,
            "--max-input-rounds",
            "3",
        ],
        &StdioMode::Modern,
    );
    assert_ne!(run.code, 0, "{}", run.dump());
    assert_eq!(run.error()["code"], "input_rounds_exceeded");
    let message = run.message();
    assert!(
        message.contains("3 times") && message.contains("--max-input-rounds"),
        "{message}"
    );
    // The first try and three answered rounds, each echoing the state it was handed.
    let states: Vec<_> = run
        .sent("tools/call")
        .iter()
        .map(|c| c["params"]["requestState"].clone())
        .collect();
    assert_eq!(
        states,
        [
            json!(null),
            json!("state-1"),
            json!("state-2"),
            json!("state-3")
        ]
    );
}

#[test]
fn auto_falls_back_to_legacy_when_the_probe_is_refused() {
    let run = run(
        "auto-legacy",
        &[
            "--protocol-era",
            "auto",
            "--method",
            "tools/list",
            "--format",
            "json",
        ],
        &StdioMode::ManyTools {
            count: 3,
            page_size: 10,
        },
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["tools"].as_array().unwrap().len(), 3);
    // The probe and its refusal are in the trace, before the legacy handshake.
    let probe = &run.sent("server/discover")[0];
    let refusal = run
        .trace
        .iter()
        .find(|f| f["direction"] == "in" && f["method"] == "server/discover")
        .expect("the probe's answer");
    assert_eq!(refusal["message"], "error");
    let init_seq = run
        .trace
        .iter()
        .find(|f| f["direction"] == "out" && f["method"] == "initialize")
        .expect("initialize after the probe")["seq"]
        .as_u64();
    assert!(refusal["seq"].as_u64() < init_seq);
    assert_eq!(probe["params"]["_meta"][VERSION_KEY], "2026-07-28");
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("Auto: legacy server")),
        "{:#?}",
        run.warnings()
    );
}

#[test]
fn auto_treats_a_silent_stdio_server_as_legacy_after_the_probe_timeout() {
    // The server reads nothing for 600 ms: the 200 ms probe gets no answer, which on stdio means
    // legacy; the late refusal then arrives as an answer to nobody, and is said to be one.
    let run = run(
        "auto-slow",
        &[
            "--protocol-era",
            "auto",
            "--probe-timeout",
            "200",
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
            "--format",
            "json",
        ],
        &StdioMode::SlowStart { delay_ms: 600 },
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
    let warnings = run.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("--probe-timeout")),
        "{warnings:#?}"
    );
    let probe_id = &run.sent("server/discover")[0]["id"];
    assert!(
        warnings.iter().any(|w| w.contains(&format!(
            "late answer to server/discover (request {probe_id})"
        ))),
        "{warnings:#?}"
    );
}

/// A modern-only server that starts slowly (as one launched through npx does): the probe times
/// out, so Auto falls back to initialize — which the server refuses, after answering the probe
/// late as a modern server. The verdict is corrected and the call goes through in the modern era.
#[test]
fn auto_corrects_itself_for_a_slow_starting_modern_server() {
    // Two seconds against a 200 ms probe: late by a wide margin even on a loaded machine.
    let started = format!(
        "sleep 2; exec {} modern",
        crate::misbehaving_support::testkit()
    );
    let run = cli(
        "auto-slow-modern",
        &[
            "--protocol-era",
            "auto",
            "--probe-timeout",
            "200",
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            &started,
        ],
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
    assert!(
        run.warnings().iter().any(|w| w.contains("speaking modern")),
        "{:#?}",
        run.warnings()
    );
    assert_eq!(run.sent("initialize").len(), 1);
    let call = &run.sent("tools/call")[0];
    assert_eq!(
        call["params"]["_meta"][VERSION_KEY], "2026-07-28",
        "the call went out in the modern era: {call}"
    );
}

/// A modern server on stdio ends a `subscriptions/listen` with `notifications/cancelled` naming
/// it: the CLI reports a normal end with what arrived, at once, instead of waiting out
/// `--duration`.
#[test]
fn a_subscription_the_server_cancels_ends_at_once_with_its_notifications() {
    let run = run(
        "modern-listen-cancelled",
        &[
            "--protocol-era",
            "modern",
            "--method",
            "subscriptions/listen",
            "--listen",
            "tools",
            "--duration",
            "60000",
            "--format",
            "json",
        ],
        &StdioMode::Modern,
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert!(
        run.elapsed < std::time::Duration::from_secs(30),
        "{}",
        run.dump()
    );
    let doc = run.json();
    let ended = doc["result"]["ended"].as_str().unwrap_or_default();
    assert!(
        ended.contains("the server ended the subscription: this fixture ends"),
        "{}",
        run.dump()
    );
    let methods: Vec<&str> = doc["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["method"].as_str())
        .collect();
    assert!(
        methods.contains(&"notifications/tools/list_changed"),
        "{methods:?}"
    );
    assert_eq!(run.sent("subscriptions/listen").len(), 1);
    // Nothing is cancelled back: the server already ended it.
    assert!(
        run.sent("notifications/cancelled").is_empty(),
        "{}",
        run.dump()
    );
}

/// A modern-only server spoken to in the legacy era refuses `initialize`: a failed connection
/// (exit 4, `handshake_refused`), not a tool error, whatever method was asked for.
#[test]
fn a_refused_handshake_is_a_failed_connection() {
    let run = run(
        "legacy-to-modern-only",
        &["--method", "tools/call", "--tool-name", "echo"],
        &StdioMode::Modern,
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert_eq!(run.error()["code"], "handshake_refused", "{}", run.dump());
    assert!(run.message().contains("server/discover"), "{}", run.dump());
}
