//! `mcpscope check` as a CI job runs it (issue 26): the exit code, the JSON document and the
//! JUnit file it writes, read back.
//!
//! - **Clean servers** nobody on this project wrote — server-everything, the Python SDK, FastMCP,
//!   both TypeScript SDKs — and the demo, over stdio and Streamable HTTP: exit 0, every check
//!   counted, and exactly the warnings docs/checks.md lists for that server (a new warning, or one
//!   that goes away, fails the test, so the page stays true). The true failures some of them have
//!   are excused by a baseline here, each saying why it is the server's fault.
//! - **Servers built to fail**: the testkit's `flawed` server with one flaw each fails exactly the
//!   check it should and no other.
//! - **The run's edges**: a stale baseline, a baseline excusing a failure, `--strict`, an
//!   unreachable URL (4), a server that needs a login (3, never a browser in CI), `--timeout`.

use crate::demo_harness::{MCPSCOPE, run_binary};
use crate::misbehaving_support::{Scratch, testkit};
use crate::peers_support::{EVERYTHING, Peers};
use mcpscope_testkit::{Flaw, OAuthFixture, OAuthOptions, StdioMode};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// One `mcpscope check … --format json --junit FILE` run, read back.
struct Checked {
    label: String,
    code: i32,
    stdout: String,
    stderr: String,
    /// The JSON document (`Null` when stdout was not one, e.g. exit 3 or 4).
    doc: Value,
    /// The JUnit file as python3's `xml.etree` read it (`Null` when none was written).
    junit: Value,
}

impl Checked {
    fn dump(&self) -> String {
        format!(
            "{}: exit {}\nstdout: {}\nstderr: {}",
            self.label,
            self.code,
            self.stdout.chars().take(6000).collect::<String>(),
            self.stderr.chars().take(3000).collect::<String>()
        )
    }

    fn verdicts(&self) -> &Vec<Value> {
        self.doc["verdicts"]
            .as_array()
            .unwrap_or_else(|| panic!("no verdicts\n{}", self.dump()))
    }

    /// The ids of the verdicts with this outcome and not expected by the baseline.
    fn ids(&self, outcome: &str) -> BTreeSet<String> {
        self.verdicts()
            .iter()
            .filter(|v| v["outcome"] == outcome && v["expected"] != true)
            .map(|v| v["id"].as_str().expect("an id").to_owned())
            .collect()
    }

    /// The verdicts of check `id` (one per era, or more for a check of several lists).
    fn of(&self, id: &str) -> Vec<&Value> {
        self.verdicts().iter().filter(|v| v["id"] == id).collect()
    }

    fn count(&self, key: &str) -> usize {
        self.doc["counts"][key].as_u64().expect("a count") as usize
    }
}

/// `mcpscope check --format json --junit <scratch>/check.xml <args…>`, with `env` set.
async fn check_env(label: impl Into<String>, args: Vec<String>, env: &[(&str, &str)]) -> Checked {
    let label = label.into();
    let scratch = Scratch::new("check");
    let junit_file = scratch.path("check.xml");
    let mut all = vec![
        "check".to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
        "--junit".to_owned(),
        junit_file.display().to_string(),
    ];
    all.extend(args);
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &all, env).await;
    let doc = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    let junit = if junit_file.exists() {
        read_junit(&junit_file)
    } else {
        Value::Null
    };
    Checked {
        label: format!("{label}: mcpscope {}", all.join(" ")),
        code,
        stdout,
        stderr,
        doc,
        junit,
    }
}

async fn check(label: impl Into<String>, args: Vec<String>) -> Checked {
    check_env(label, args, &[]).await
}

/// The JUnit file parsed by a real XML parser (python3's `xml.etree`: a file it cannot parse
/// fails the test) and summed up: the root's counts, and each testcase's name and what it holds.
fn read_junit(path: &std::path::Path) -> Value {
    const READ: &str = r#"
import json, sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
cases = [{"name": c.get("name"), "suite": s.get("name"),
          "failure": c.find("failure") is not None and c.find("failure").get("type"),
          "skipped": c.find("skipped") is not None,
          "out": (c.findtext("system-out") or "")[:40]}
         for s in root.findall("testsuite") for c in s.findall("testcase")]
suites = [{k: int(s.get(k)) for k in ("tests", "failures", "skipped")} for s in root.findall("testsuite")]
print(json.dumps({"root": root.tag, "tests": int(root.get("tests")),
                  "failures": int(root.get("failures")), "suites": suites, "cases": cases}))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", READ])
        .arg(path)
        .output()
        .expect("python3 reads the JUnit file");
    assert!(
        out.status.success(),
        "the JUnit file does not parse as XML: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(path).unwrap_or_default()
    );
    serde_json::from_slice(&out.stdout).expect("the reader prints JSON")
}

/// The JSON document and the JUnit file tell the same story: one testcase per verdict (named
/// `id [era]`), the counts equal, and the root's totals the sums of its suites.
fn junit_agrees(c: &Checked, strict: bool) {
    let j = &c.junit;
    assert_eq!(j["root"], "testsuites", "{}", c.dump());
    let verdicts = c.verdicts();
    let cases = j["cases"].as_array().expect("cases");
    assert_eq!(
        j["tests"].as_u64(),
        Some(verdicts.len() as u64),
        "{}",
        c.dump()
    );
    // (name, suite, failed, skipped) of each, sorted: the two lists must be the same multiset.
    let mut from_json: Vec<(String, String, bool, bool)> = verdicts
        .iter()
        .map(|v| {
            let failed = v["expected"] != true
                && (v["outcome"] == "fail" || (strict && v["outcome"] == "warn"));
            let name = format!(
                "{} [{}]",
                v["id"].as_str().unwrap(),
                v["era"].as_str().unwrap()
            );
            let area = v["area"].as_str().unwrap().to_owned();
            (name, area, failed, v["outcome"] == "skipped")
        })
        .collect();
    let mut from_xml: Vec<(String, String, bool, bool)> = cases
        .iter()
        .map(|k| {
            let name = k["name"].as_str().unwrap().to_owned();
            let suite = k["suite"].as_str().unwrap().to_owned();
            (name, suite, k["failure"] != false, k["skipped"] == true)
        })
        .collect();
    from_json.sort();
    from_xml.sort();
    assert_eq!(from_xml, from_json, "{}", c.dump());
    let failures = if strict {
        c.count("failed") + c.count("warnings")
    } else {
        c.count("failed")
    };
    assert_eq!(
        j["failures"].as_u64(),
        Some(failures as u64),
        "{}",
        c.dump()
    );
    let sum = |k: &str| -> u64 {
        j["suites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[k].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("tests"), verdicts.len() as u64);
    assert_eq!(sum("failures"), failures as u64);
    assert_eq!(sum("skipped"), c.count("skipped") as u64);
}

/// A clean run: exit 0, every verdict counted once, no failure but those the baseline expects,
/// exactly these warnings, every skip saying why, and a JUnit file that agrees.
fn assert_clean(c: &Checked, warnings: &[&str], expected: &[&str]) {
    assert_eq!(c.code, 0, "{}", c.dump());
    let counts = ["passed", "warnings", "failed", "skipped", "expected"]
        .iter()
        .map(|k| c.count(k))
        .sum::<usize>();
    assert_eq!(counts, c.verdicts().len(), "{}", c.dump());
    assert!(
        c.count("passed") >= 10,
        "too few checks passed\n{}",
        c.dump()
    );
    assert_eq!(c.ids("fail"), BTreeSet::new(), "{}", c.dump());
    let want: BTreeSet<String> = warnings.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(
        c.ids("warn"),
        want,
        "the warnings docs/checks.md lists\n{}",
        c.dump()
    );
    let excused: BTreeSet<String> = c
        .verdicts()
        .iter()
        .filter(|v| v["expected"] == true)
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    let want: BTreeSet<String> = expected.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(excused, want, "{}", c.dump());
    assert_eq!(c.doc["staleBaseline"], serde_json::json!([]));
    for v in c.verdicts() {
        assert!(
            v["message"].as_str().is_some_and(|m| !m.is_empty()),
            "a verdict without a message: {v}"
        );
    }
    junit_agrees(c, false);
}

/// A baseline file (a YAML list of ids) in `scratch`.
fn baseline(scratch: &Scratch, ids: &[&str]) -> String {
    let path = scratch.path("expected-failures.yaml");
    let text: String = ids.iter().map(|id| format!("- {id}\n")).collect();
    std::fs::write(&path, text).expect("write the baseline");
    path.display().to_string()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// A peer's Streamable HTTP endpoint.
fn mcp_url(base: &str) -> String {
    format!("{base}/mcp")
}

// ---- clean servers -------------------------------------------------------------------------

/// `mcpscope demo-server --http 0` as a user starts it; killed when dropped.
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
    // It says where it listens on stderr (stdout is the MCP channel of its stdio mode).
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    // `listening on http://127.0.0.1:PORT/mcp`
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

#[tokio::test]
async fn the_demo_is_clean_over_stdio_and_http() {
    let server = demo_server().await;
    let (stdio, http) = tokio::join!(
        check("demo stdio", strings(&["--demo"])),
        check("demo http", vec![server.url.clone()]),
    );
    // The demo's `slow` and `end-subscriptions` tools leave arguments undocumented.
    for c in [&stdio, &http] {
        assert_clean(c, &["tools-input-schemas-valid"], &[]);
        assert_eq!(
            c.doc["eras"].as_array().map(Vec::len),
            Some(2),
            "{}",
            c.dump()
        );
        assert!(
            c.doc["eras"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["offered"] == true)
        );
    }
    // Over HTTP the Streamable HTTP checks ran (and passed); over stdio they are skipped.
    assert!(
        http.of("dns-rebinding-protection")
            .iter()
            .all(|v| v["outcome"] == "pass"),
        "{}",
        http.dump()
    );
    assert!(
        stdio
            .of("stdout-only-mcp")
            .iter()
            .all(|v| v["outcome"] == "pass")
    );
    assert!(
        http.of("stdout-only-mcp")
            .iter()
            .all(|v| v["outcome"] == "skipped")
    );
}

#[tokio::test]
async fn server_everything_is_clean_over_stdio_and_http() {
    let Some(peers) = Peers::get("check server-everything") else {
        return;
    };
    let scratch = Scratch::new("check-everything");
    // True findings about server-everything 2026.8.31 over HTTP: it checks no Origin (an Express
    // app on every interface, no DNS-rebinding guard), and an ended session's id gets 400, where
    // the spec says 404 (testing-peers.md notes the same quirk).
    let excused = ["dns-rebinding-protection", "server-session-lifecycle"];
    let server = peers.serve("everything.sh", "http").await;
    let mut http_args = vec!["--baseline".to_owned(), baseline(&scratch, &excused)];
    http_args.push(mcp_url(&server.base));
    let (stdio, http) = tokio::join!(
        check(
            "everything stdio",
            peers.node_stdio(EVERYTHING, &[], &["stdio"])
        ),
        check("everything http", http_args),
    );
    let warnings = [
        "tools-input-schemas-valid",
        "tools-unknown-tool-error",
        "pagination-invalid-cursor",
    ];
    assert_clean(&stdio, &warnings, &[]);
    assert_clean(&http, &warnings, &excused);
    // A legacy-only server: the 2026-07-28 era is noted as not offered, not failed.
    for c in [&stdio, &http] {
        assert_eq!(c.doc["eras"][1]["offered"], false, "{}", c.dump());
    }
}

/// The stdio and HTTP runs of one testenv peer script.
async fn peer_pair(peers: &Peers, script: &str, http_args: &[String]) -> (Checked, Checked) {
    let server = peers.serve(script, "http").await;
    let mut args = http_args.to_vec();
    args.push(mcp_url(&server.base));
    tokio::join!(
        check(format!("{script} stdio"), peers.stdio(script)),
        check(format!("{script} http"), args),
    )
}

#[tokio::test]
async fn the_python_sdk_is_clean_over_stdio_and_http() {
    let Some(peers) = Peers::get("check python sdk") else {
        return;
    };
    let (stdio, http) = peer_pair(&peers, "python-sdk-server.sh", &[]).await;
    // mcp 2.3.0 answers an unknown tool with an isError result and an unknown prompt with error
    // code 0 (2025-11-25) or -32603 (2026-07-28), not -32602; it ignores a cursor on tools/list.
    let warnings = [
        "tools-unknown-tool-error",
        "prompts-unknown-prompt-error",
        "pagination-invalid-cursor",
    ];
    assert_clean(&stdio, &warnings, &[]);
    assert_clean(&http, &warnings, &[]);
}

#[tokio::test]
async fn fastmcp_is_clean_over_stdio_and_http() {
    let Some(peers) = Peers::get("check fastmcp") else {
        return;
    };
    let scratch = Scratch::new("check-fastmcp");
    // True finding: FastMCP 4.2.3 turns the SDK's Origin check off and its own guard
    // (http_host_origin_protection) defaults to off (docs/checks.md, the HTTP notes).
    let excused = ["dns-rebinding-protection"];
    let args = vec!["--baseline".to_owned(), baseline(&scratch, &excused)];
    let (stdio, http) = peer_pair(&peers, "fastmcp-server.sh", &args).await;
    let warnings = [
        "tools-input-schemas-valid",
        "tools-unknown-tool-error",
        "pagination-invalid-cursor",
    ];
    assert_clean(&stdio, &warnings, &[]);
    assert_clean(&http, &warnings, &excused);
}

#[tokio::test]
async fn the_typescript_sdk_v2_is_clean_over_stdio_and_http() {
    let Some(peers) = Peers::get("check ts sdk v2") else {
        return;
    };
    let (stdio, http) = peer_pair(&peers, "ts-sdk-server.sh", &[]).await;
    let warnings = ["tools-input-schemas-valid", "pagination-invalid-cursor"];
    assert_clean(&stdio, &warnings, &[]);
    assert_clean(&http, &warnings, &[]);
    // A stateless server: the session checks say why they did not run.
    let session = http.of("server-session-lifecycle");
    assert!(
        session.iter().all(|v| v["outcome"] == "skipped"
            && v["message"].as_str().unwrap().contains("no Mcp-Session-Id")),
        "{}",
        http.dump()
    );
}

#[tokio::test]
async fn the_typescript_sdk_v1_is_clean_over_stdio_and_http() {
    let Some(peers) = Peers::get("check ts sdk v1") else {
        return;
    };
    let scratch = Scratch::new("check-ts-v1");
    // True finding: SDK v1's Streamable HTTP transport validates no Origin unless
    // enableDnsRebindingProtection is set, and the peer (as most servers) does not set it.
    let excused = ["dns-rebinding-protection"];
    let args = vec!["--baseline".to_owned(), baseline(&scratch, &excused)];
    let (stdio, http) = peer_pair(&peers, "ts-sdk-v1-server.sh", &args).await;
    let warnings = [
        "tools-input-schemas-valid",
        "tools-unknown-tool-error",
        "pagination-invalid-cursor",
    ];
    assert_clean(&stdio, &warnings, &[]);
    assert_clean(&http, &warnings, &excused);
}

// ---- servers built to fail -----------------------------------------------------------------

/// The testkit's `flawed` server with `flaw`, as a stdio target.
fn flawed(flaw: Flaw) -> Vec<String> {
    let mut args = vec!["--".to_owned(), testkit()];
    args.extend(StdioMode::Flawed { flaw }.args());
    args
}

/// `flaw` fails `id` (exit 6, in the one era the server speaks) and nothing else fails or warns.
async fn fails_only(flaw: Flaw, id: &str) -> Checked {
    let c = check(flaw.name(), flawed(flaw)).await;
    assert_eq!(c.code, 6, "{}", c.dump());
    assert_eq!(
        c.ids("fail"),
        BTreeSet::from([id.to_owned()]),
        "{}",
        c.dump()
    );
    assert_eq!(c.ids("warn"), BTreeSet::new(), "{}", c.dump());
    let failed = c.of(id);
    assert_eq!(failed.len(), 1, "{}", c.dump());
    let v = failed[0];
    assert_eq!(v["era"], "2025-11-25");
    assert_eq!(v["level"], "MUST");
    assert!(v["sentence"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    assert_eq!(c.count("failed"), 1);
    junit_agrees(&c, false);
    c
}

#[tokio::test]
async fn the_flawed_server_whole_passes() {
    let c = check("flawed none", flawed(Flaw::None)).await;
    assert_clean(&c, &[], &[]);
    // The one read-only tool was called and its structuredContent matched.
    let v = c.of("tool-output-schema-conformant");
    assert_eq!(v[0]["outcome"], "pass", "{}", c.dump());
}

#[tokio::test]
async fn lying_capabilities_fail_capabilities_served_and_reproduce() {
    let c = fails_only(Flaw::LyingCapabilities, "capabilities-served").await;
    let v = c.of("capabilities-served")[0];
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("prompts/list is not served"),
        "{v}"
    );
    // The frames prove it: the request and the -32601 that answered it.
    let evidence = v["evidence"].as_array().expect("evidence");
    assert!(
        evidence
            .iter()
            .any(|e| e["direction"] == "in" && e["excerpt"].as_str().unwrap().contains("-32601"))
    );
    // The list check and the prompt checks say where the finding went, instead of repeating it.
    for id in [
        "prompts-list",
        "prompts-get",
        "prompts-unknown-prompt-error",
    ] {
        let skip = c.of(id)[0];
        assert_eq!(skip["outcome"], "skipped", "{skip}");
        assert!(
            skip["message"]
                .as_str()
                .unwrap()
                .contains("capabilities-served"),
            "{skip}"
        );
    }
    // The one command the verdict names sends the same request again and gets the same -32601.
    let command = v["reproduce"].as_str().expect("a reproduce command");
    let command = command
        .strip_prefix("mcpscope ")
        .unwrap_or_else(|| panic!("{command}"));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("'{MCPSCOPE}' {command}"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the reproduce command");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{command}\n{stderr}");
    assert!(stderr.contains("\"rpcCode\":-32601"), "{command}\n{stderr}");
    // The text report a person reads at 2 a.m. leads with the failure, its rule and the command.
    let (code, text, _) = run_binary(
        MCPSCOPE,
        &[vec!["check".to_owned()], flawed(Flaw::LyingCapabilities)].concat(),
        &[],
    )
    .await;
    assert_eq!(code, 6);
    let first = text
        .lines()
        .find(|l| l.starts_with("FAIL"))
        .unwrap_or_default();
    assert!(
        first.starts_with("FAIL  capabilities-served [2025-11-25]"),
        "{text}"
    );
    assert!(
        text.contains("a declared capability's methods are served"),
        "{text}"
    );
    assert!(
        text.contains("reproduce: mcpscope --cli --protocol-era legacy --method prompts/list"),
        "{text}"
    );
}

#[tokio::test]
async fn junk_on_stdout_fails_stdout_only_mcp() {
    let c = fails_only(Flaw::StdoutJunk, "stdout-only-mcp").await;
    let v = c.of("stdout-only-mcp")[0];
    let evidence = v["evidence"].as_array().expect("evidence");
    assert!(
        evidence[0]["excerpt"]
            .as_str()
            .unwrap()
            .contains(mcpscope_testkit::JUNK_LINE),
        "{v}"
    );
}

#[tokio::test]
async fn an_echoed_version_fails_version_negotiation() {
    let c = fails_only(Flaw::EchoVersion, "version-negotiation").await;
    let v = c.of("version-negotiation")[0];
    assert!(v["message"].as_str().unwrap().contains("1900-01-01"), "{v}");
}

#[tokio::test]
async fn a_repeating_cursor_fails_pagination_terminates() {
    let c = fails_only(Flaw::RepeatingCursor, "pagination-terminates").await;
    let v = c.of("pagination-terminates")[0];
    assert!(
        v["message"].as_str().unwrap().contains("repeated cursor"),
        "{v}"
    );
    // The walk kept what it had: both pages' tools were listed.
    assert!(
        c.of("tools-list")[0]["message"]
            .as_str()
            .unwrap()
            .contains("2 items in 2 pages"),
        "{}",
        c.dump()
    );
}

#[tokio::test]
async fn a_broken_output_schema_fails_tool_output_schema_conformant() {
    let c = fails_only(Flaw::OutputSchema, "tool-output-schema-conformant").await;
    let v = c.of("tool-output-schema-conformant")[0];
    assert!(v["message"].as_str().unwrap().contains("/ok"), "{v}");
}

#[tokio::test]
async fn a_stray_response_id_fails_response_ids_correlated() {
    let c = fails_only(Flaw::StrayId, "response-ids-correlated").await;
    let v = c.of("response-ids-correlated")[0];
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains(mcpscope_testkit::STRAY_ID),
        "{v}"
    );
}

#[tokio::test]
async fn a_schema_invalid_result_fails_wire_schema_valid() {
    let c = fails_only(Flaw::SchemaInvalid, "wire-schema-valid").await;
    let v = c.of("wire-schema-valid")[0];
    assert!(v["message"].as_str().unwrap().contains("tools/call"), "{v}");
}

// ---- the run's edges -----------------------------------------------------------------------

#[tokio::test]
async fn a_stale_baseline_fails() {
    let scratch = Scratch::new("check-stale");
    let mut args = vec!["--baseline".to_owned(), baseline(&scratch, &["ping"])];
    args.extend(flawed(Flaw::None));
    let c = check("stale", args.clone()).await;
    assert_eq!(c.code, 6, "{}", c.dump());
    assert_eq!(c.doc["staleBaseline"], serde_json::json!(["ping"]));
    assert_eq!(c.count("failed"), 0);
    let (code, text, _) =
        run_binary(MCPSCOPE, &[vec!["check".to_owned()], args].concat(), &[]).await;
    assert_eq!(code, 6);
    assert!(
        text.contains("STALE baseline entry ping now passes: remove it from the baseline"),
        "{text}"
    );
}

#[tokio::test]
async fn a_baseline_excuses_a_failure() {
    let scratch = Scratch::new("check-excused");
    let listed = "tool-output-schema-conformant@2025-11-25";
    let mut args = vec!["--baseline".to_owned(), baseline(&scratch, &[listed])];
    args.extend(flawed(Flaw::OutputSchema));
    let c = check("excused", args).await;
    assert_clean(&c, &[], &["tool-output-schema-conformant"]);
    assert_eq!(c.count("expected"), 1);
    // In JUnit it is no failure, but says the baseline expects it.
    let case = c.junit["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "tool-output-schema-conformant [2025-11-25]")
        .cloned()
        .expect("the testcase");
    assert!(
        case["out"]
            .as_str()
            .unwrap()
            .starts_with("expected by the baseline"),
        "{case}"
    );
}

#[tokio::test]
async fn strict_fails_on_a_warning() {
    let mut args = strings(&["--strict", "--demo"]);
    let c = check("strict", args.clone()).await;
    assert_eq!(c.code, 6, "{}", c.dump());
    assert_eq!(c.count("failed"), 0);
    assert!(c.count("warnings") > 0);
    junit_agrees(&c, true);
    args.remove(0);
    assert_eq!(check("not strict", args).await.code, 0);
}

#[tokio::test]
async fn an_unreachable_server_exits_4() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let c = check("unreachable", vec![format!("http://127.0.0.1:{port}/mcp")]).await;
    assert_eq!(c.code, 4, "{}", c.dump());
    assert!(
        c.stderr.contains("\"code\":\"unreachable\""),
        "{}",
        c.dump()
    );
    assert!(
        c.junit.is_null(),
        "no JUnit file for a run that checked nothing"
    );
}

#[tokio::test]
async fn a_server_that_needs_a_login_exits_3_without_one_and_is_checked_with_login() {
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let scratch = Scratch::new("check-oauth");
    let data = scratch.path("data").display().to_string();
    // The secret store in the scratch directory: no tokens from anyone's earlier login.
    let env = [
        ("MCPSCOPE_SECRET_STORE", "file"),
        ("MCPSCOPE_DATA_DIR", data.as_str()),
    ];
    let started = Instant::now();
    let c = check_env("no login", vec![f.mcp_url()], &env).await;
    // At once: a CI job has no browser to wait for.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(c.code, 3, "{}", c.dump());
    assert!(
        c.stderr.contains("\"code\":\"auth_required\""),
        "{}",
        c.dump()
    );
    assert!(c.stderr.contains("--login"), "{}", c.dump());
    // With --login (headless: the fixture approves at once) the same server is checked.
    let args = vec![
        "--login".to_owned(),
        "--headless-auth".to_owned(),
        f.mcp_url(),
    ];
    let c = check_env("login", args, &env).await;
    assert!(c.code == 0 || c.code == 6, "{}", c.dump());
    assert_eq!(c.doc["eras"][0]["offered"], true, "{}", c.dump());
    assert!(c.count("passed") >= 10, "{}", c.dump());
}

#[tokio::test]
async fn the_timeout_ends_the_run_and_names_what_it_cut() {
    let mut args = strings(&["--timeout", "2"]);
    args.extend(flawed(Flaw::HangingList));
    let started = Instant::now();
    let c = check("timeout", args).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "took {took:?}\n{}",
        c.dump()
    );
    assert_eq!(c.doc["timedOut"], true, "{}", c.dump());
    // Nothing failed before the cut, but the run did not see everything: not a green CI run.
    assert_eq!(c.code, 4, "{}", c.dump());
    // What ran before the hang kept its verdict; the rest says why it has none.
    assert_eq!(c.of("ping")[0]["outcome"], "pass", "{}", c.dump());
    for id in ["tools-list", "pagination-terminates", "wire-schema-valid"] {
        let v = c.of(id)[0];
        assert_eq!(v["outcome"], "skipped", "{v}");
        assert_eq!(
            v["message"], "not reached: the run's --timeout (2 s) ended first",
            "{v}"
        );
    }
    junit_agrees(&c, false);
}

#[tokio::test]
async fn a_server_that_never_answers_exits_4_within_the_timeout() {
    let mut args = strings(&["--timeout", "2", "--"]);
    args.push(testkit());
    args.extend(StdioMode::Silent.args());
    let started = Instant::now();
    let c = check("silent", args).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(c.code, 4, "{}", c.dump());
    assert!(
        c.stderr
            .contains("answered the handshake in no era within the run's --timeout (2 s)"),
        "{}",
        c.dump()
    );
}
