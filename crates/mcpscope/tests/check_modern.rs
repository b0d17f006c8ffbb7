//! `mcpscope check`'s 2026-07-28 specifics and conduct checks (issue 26; `checks/modern.rs`,
//! `checks/conduct.rs`), as a CI job runs them: the JSON document read back.
//!
//! - **The demo** (both eras, stdio and Streamable HTTP) passes each of them — with
//!   `--call-tools` its own `input_required` tool (`elicit-form`) is judged for the rounds, its
//!   `log-every-level` for the legacy level filter and its `slow` for cancellation; without it
//!   the rounds are skipped, saying which tools were called.
//! - **Servers we did not write** — the Python SDK (mcp 2.3.0) over stdio and HTTP, FastMCP 4.2.3
//!   over stdio — pass the ones that apply to any server.
//! - **Servers built to fail**: the testkit's `flawed-modern` (2026-07-28 only) and `flawed`
//!   (2025-11-25) servers with one flaw each fail or warn exactly the check they should (and
//!   `wire-schema-valid` where the flaw also breaks the schema), and are clean without one.

use crate::demo_harness::{MCPSCOPE, run_binary};
use crate::misbehaving_support::testkit;
use crate::peers_support::Peers;
use mcpscope_testkit::{Flaw, ModernFlaw, StdioMode};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

/// The 2026-07-28 checks this module is about.
const MODERN: [&str; 10] = [
    "result-type-present",
    "missing-request-meta-rejected",
    "cache-hint-coverage",
    "cache-hint-values-valid",
    "cache-scope-stable-across-pages",
    "removed-methods-not-found",
    "logs-require-log-level",
    "input-required-result-request-state",
    "input-required-result-tampered-state",
    "input-required-result-missing-input-response",
];

/// The conduct checks of both eras (and the legacy level filter).
const CONDUCT: [&str; 6] = [
    "requests-before-initialized",
    "notification-not-answered",
    "progress-only-with-token",
    "cancellation-honoured",
    "stderr-not-protocol",
    "logging-levels-filtered",
];

/// One `mcpscope check --format json …` run.
struct Checked {
    label: String,
    code: i32,
    stdout: String,
    stderr: String,
    doc: Value,
}

impl Checked {
    fn dump(&self) -> String {
        format!(
            "{}: exit {}\nstdout: {}\nstderr: {}",
            self.label,
            self.code,
            self.stdout.chars().take(8000).collect::<String>(),
            self.stderr.chars().take(2000).collect::<String>()
        )
    }

    /// The verdict of `id` in `era`.
    fn verdict(&self, id: &str, era: &str) -> &Value {
        self.doc["verdicts"]
            .as_array()
            .unwrap_or_else(|| panic!("no verdicts\n{}", self.dump()))
            .iter()
            .find(|v| v["id"] == id && v["era"] == era)
            .unwrap_or_else(|| panic!("no verdict of {id} [{era}]\n{}", self.dump()))
    }

    fn outcome(&self, id: &str, era: &str) -> String {
        self.verdict(id, era)["outcome"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn message(&self, id: &str, era: &str) -> String {
        self.verdict(id, era)["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The ids with this outcome.
    fn ids(&self, outcome: &str) -> BTreeSet<String> {
        self.doc["verdicts"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|v| v["outcome"] == outcome)
                    .map(|v| v["id"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `id` [`era`] has `outcome`.
    fn expect(&self, id: &str, era: &str, outcome: &str) {
        assert_eq!(
            self.outcome(id, era),
            outcome,
            "{id} [{era}]: {}\n{}",
            self.message(id, era),
            self.dump()
        );
    }
}

async fn check(label: &str, args: Vec<String>) -> Checked {
    let mut all = vec!["check".to_owned(), "--format".to_owned(), "json".to_owned()];
    all.extend(args);
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &all, &[]).await;
    Checked {
        label: format!("{label}: mcpscope {}", all.join(" ")),
        code,
        doc: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr,
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

const LEGACY: &str = "2025-11-25";
const MODERN_ERA: &str = "2026-07-28";

/// `mcpscope demo-server --http 0`, its stderr drained; killed when dropped.
struct DemoServer {
    url: String,
    _child: tokio::process::Child,
}

async fn demo_server() -> DemoServer {
    use tokio::io::AsyncBufReadExt as _;
    let mut child = tokio::process::Command::new(MCPSCOPE)
        .args(["demo-server", "--http", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpscope demo-server");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("demo-server says where it listens")
        .expect("read its stderr")
        .expect("a first line");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    DemoServer { url, _child: child }
}

/// The checks every 2026-07-28 server we know passes, whatever its tools.
fn modern_basics_pass(c: &Checked) {
    for id in [
        "result-type-present",
        "missing-request-meta-rejected",
        "cache-hint-coverage",
        "cache-hint-values-valid",
        "cache-scope-stable-across-pages",
        "removed-methods-not-found",
        "logs-require-log-level",
    ] {
        c.expect(id, MODERN_ERA, "pass");
    }
    for era in [LEGACY, MODERN_ERA] {
        c.expect("notification-not-answered", era, "pass");
        c.expect("progress-only-with-token", era, "pass");
    }
}

// ---- the demo --------------------------------------------------------------------------------

#[tokio::test]
async fn the_demo_passes_with_its_own_rounds_logs_and_slow_tool() {
    let server = demo_server().await;
    let (stdio, http) = tokio::join!(
        check("demo stdio", strings(&["--call-tools", "--demo"])),
        check(
            "demo http",
            vec!["--call-tools".to_owned(), server.url.clone()]
        ),
    );
    for c in [&stdio, &http] {
        assert_eq!(c.code, 0, "{}", c.dump());
        modern_basics_pass(c);
        for id in &MODERN[7..] {
            c.expect(id, MODERN_ERA, "pass");
            assert!(
                c.message(id, MODERN_ERA).starts_with("elicit-form: "),
                "{}",
                c.dump()
            );
        }
        // log-every-level logs at every level; after setLevel error only error and above came.
        c.expect("logging-levels-filtered", LEGACY, "pass");
        c.expect("requests-before-initialized", LEGACY, "pass");
        c.expect("cancellation-honoured", LEGACY, "pass");
        assert!(
            c.message("cancellation-honoured", LEGACY)
                .starts_with("slow: "),
            "{}",
            c.dump()
        );
        assert!(
            c.ids("fail").is_empty()
                && c.ids("warn") == BTreeSet::from(["tools-input-schemas-valid".to_owned()]),
            "{}",
            c.dump()
        );
    }
    stdio.expect("cancellation-honoured", MODERN_ERA, "pass");
    stdio.expect("stderr-not-protocol", LEGACY, "pass");
    // 2026-07-28 over HTTP cancels by closing the stream: nothing to watch for.
    http.expect("cancellation-honoured", MODERN_ERA, "skipped");
    http.expect("stderr-not-protocol", LEGACY, "skipped");
}

#[tokio::test]
async fn without_call_tools_the_demo_skips_the_rounds_naming_what_it_called() {
    let c = check("demo stdio", strings(&["--demo"])).await;
    assert_eq!(c.code, 0, "{}", c.dump());
    modern_basics_pass(&c);
    for id in &MODERN[7..] {
        c.expect(id, MODERN_ERA, "skipped");
        assert!(
            c.message(id, MODERN_ERA).contains(
                "no tool the check called used input_required rounds (called: annotated-read)"
            ),
            "{}",
            c.dump()
        );
    }
}

// ---- servers we did not write ----------------------------------------------------------------

#[tokio::test]
async fn the_python_sdk_and_fastmcp_pass_what_applies_to_them() {
    let Some(peers) = Peers::get("check_modern python") else {
        return;
    };
    let server = peers.serve("python-sdk-server.sh", "http").await;
    let (sdk_stdio, sdk_http, fastmcp) = tokio::join!(
        check("python sdk stdio", peers.stdio("python-sdk-server.sh")),
        check("python sdk http", vec![format!("{}/mcp", server.base)]),
        check("fastmcp stdio", peers.stdio("fastmcp-server.sh")),
    );
    for c in [&sdk_stdio, &sdk_http, &fastmcp] {
        assert_eq!(c.code, 0, "{}", c.dump());
        modern_basics_pass(c);
        // Without --call-tools (their tools are not annotated read-only) nothing is called.
        for id in &MODERN[7..] {
            c.expect(id, MODERN_ERA, "skipped");
            assert!(
                c.message(id, MODERN_ERA).contains("--call-tools"),
                "{}",
                c.dump()
            );
        }
        for id in CONDUCT {
            assert!(
                !["fail", "warn"].contains(&c.outcome(id, LEGACY).as_str()),
                "{}",
                c.dump()
            );
        }
    }
    // A request without a protocol version is not plainly a modern one: mcp 2.3.0 answers it as
    // a legacy request before initialize (-32601), which the check accepts.
    assert!(
        sdk_stdio
            .message("missing-request-meta-rejected", MODERN_ERA)
            .contains("without io.modelcontextprotocol/protocolVersion: refused with -32601"),
        "{}",
        sdk_stdio.dump()
    );
    sdk_stdio.expect("stderr-not-protocol", LEGACY, "pass");
}

#[tokio::test]
async fn the_python_sdk_and_fastmcp_rounds_are_judged_on_their_own_tool_with_call_tools() {
    let Some(peers) = Peers::get("check_modern python --call-tools") else {
        return;
    };
    let with_calls = |script| {
        let mut args = vec!["--call-tools".to_owned()];
        args.extend(peers.stdio(script));
        args
    };
    // Their `slow` tool sleeps 60 s by default: each call is cut at 10 s, not the run.
    let (sdk, fastmcp) = tokio::join!(
        check(
            "python sdk --call-tools",
            with_calls("python-sdk-server.sh")
        ),
        check("fastmcp --call-tools", with_calls("fastmcp-server.sh")),
    );
    for c in [&sdk, &fastmcp] {
        assert_eq!(c.code, 0, "{}", c.dump());
        assert_eq!(c.doc["timedOut"], false, "{}", c.dump());
        for id in &MODERN[7..] {
            c.expect(id, MODERN_ERA, "pass");
            assert!(
                c.message(id, MODERN_ERA).starts_with("ask_name: "),
                "{}",
                c.dump()
            );
        }
        // An input_required round is not the tool's result: not judged against its outputSchema.
        assert_ne!(
            c.outcome("tool-output-schema-conformant", MODERN_ERA),
            "fail",
            "{}",
            c.dump()
        );
    }
    // The SDK peer's logging/setLevel handler accepts a level and filters nothing (MCPServer has
    // none of its own): `slow` logs at info after setLevel error — a true finding, a SHOULD.
    sdk.expect("logging-levels-filtered", LEGACY, "warn");
    // FastMCP's tools log nothing during these calls: nothing to judge, and it says so.
    fastmcp.expect("logging-levels-filtered", LEGACY, "skipped");
}

// ---- servers built to fail -------------------------------------------------------------------

fn flawed_modern(flaw: ModernFlaw) -> Vec<String> {
    let mut args = vec!["--".to_owned(), testkit()];
    args.extend(StdioMode::FlawedModern { flaw }.args());
    args
}

fn flawed(flaw: Flaw) -> Vec<String> {
    let mut args = vec!["--".to_owned(), testkit()];
    args.extend(StdioMode::Flawed { flaw }.args());
    args
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

/// A run fails exactly `fails` and warns exactly `warns`, in `era`, and exits as that says.
fn exactly(c: &Checked, era: &str, fails: &[&str], warns: &[&str]) {
    assert_eq!(c.ids("fail"), set(fails), "{}", c.dump());
    assert_eq!(c.ids("warn"), set(warns), "{}", c.dump());
    assert_eq!(c.code, if fails.is_empty() { 0 } else { 6 }, "{}", c.dump());
    for id in fails.iter().chain(warns) {
        let v = c.verdict(id, era);
        assert!(v["sentence"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
        if *id != "wire-schema-valid" {
            assert!(
                v["evidence"].as_array().is_some_and(|e| !e.is_empty()),
                "{id}: no frames as evidence\n{}",
                c.dump()
            );
        }
    }
}

#[tokio::test]
async fn the_flawed_modern_server_whole_passes_and_each_flaw_fails_its_check() {
    let whole = check("flawed-modern none", flawed_modern(ModernFlaw::None)).await;
    exactly(&whole, MODERN_ERA, &[], &[]);
    for id in MODERN {
        whole.expect(id, MODERN_ERA, "pass");
    }
    let cases: [(ModernFlaw, &[&str], &[&str]); 10] = [
        (
            ModernFlaw::NoResultType,
            &["result-type-present", "wire-schema-valid"],
            &[],
        ),
        (
            ModernFlaw::NoCacheHints,
            &["cache-hint-coverage", "wire-schema-valid"],
            &[],
        ),
        (
            ModernFlaw::NegativeTtl,
            &["cache-hint-values-valid", "wire-schema-valid"],
            &[],
        ),
        (
            ModernFlaw::ScopeFlip,
            &["cache-scope-stable-across-pages"],
            &[],
        ),
        (ModernFlaw::AnswersPing, &["removed-methods-not-found"], &[]),
        (
            ModernFlaw::MetaUnchecked,
            &["missing-request-meta-rejected"],
            &[],
        ),
        (
            ModernFlaw::LogsWithoutLevel,
            &["logs-require-log-level"],
            &[],
        ),
        (
            ModernFlaw::AcceptsTamperedState,
            &[],
            &["input-required-result-tampered-state"],
        ),
        // A server refusing its own state refuses the retry without answers too.
        (
            ModernFlaw::RefusesOwnState,
            &["input-required-result-request-state"],
            &["input-required-result-missing-input-response"],
        ),
        (
            ModernFlaw::MissingInputError,
            &[],
            &["input-required-result-missing-input-response"],
        ),
    ];
    let runs = futures::future::join_all(
        cases
            .iter()
            .map(|(flaw, _, _)| check(flaw.name(), flawed_modern(*flaw))),
    )
    .await;
    for ((_, fails, warns), c) in cases.iter().zip(&runs) {
        exactly(c, MODERN_ERA, fails, warns);
    }
}

#[tokio::test]
async fn the_flawed_servers_conduct_flaws_each_break_their_check() {
    let cases: [(Flaw, &[&str], &[&str]); 6] = [
        (
            Flaw::AnswersNotifications,
            &["notification-not-answered"],
            &[],
        ),
        (
            Flaw::ProgressWithoutToken,
            &["progress-only-with-token"],
            &[],
        ),
        (Flaw::StderrMessages, &[], &["stderr-not-protocol"]),
        (Flaw::LogsBelowLevel, &[], &["logging-levels-filtered"]),
        (Flaw::IgnoresCancel, &[], &["cancellation-honoured"]),
        (
            Flaw::RootsBeforeInitialized,
            &[],
            &["requests-before-initialized"],
        ),
    ];
    let runs = futures::future::join_all(
        cases
            .iter()
            .map(|(flaw, _, _)| check(flaw.name(), flawed(*flaw))),
    )
    .await;
    for ((_, fails, warns), c) in cases.iter().zip(&runs) {
        exactly(c, LEGACY, fails, warns);
    }
    // Whole, the same server passes each of them or says why not.
    let whole = check("flawed none", flawed(Flaw::None)).await;
    exactly(&whole, LEGACY, &[], &[]);
    whole.expect("notification-not-answered", LEGACY, "pass");
    whole.expect("progress-only-with-token", LEGACY, "pass");
    whole.expect("stderr-not-protocol", LEGACY, "pass");
    whole.expect("requests-before-initialized", LEGACY, "pass");
    assert!(
        whole
            .message("cancellation-honoured", LEGACY)
            .contains("took 500 ms or more"),
        "{}",
        whole.dump()
    );
}
