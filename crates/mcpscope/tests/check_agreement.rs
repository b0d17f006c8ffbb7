//! `mcpscope check` against the official conformance suite on one requirement both make (issue 26,
//! "Agreement with the official suite"; bench/agreement.py compares every such pair on the peers).
//!
//! Two rules where a SHOULD check of ours held a MUST the suite fails, so a CI run passed a server
//! the suite rightly fails; each now fails both, on a testenv peer with that one flaw (the Python
//! SDK's low-level server), and the Python SDK's own server passes both:
//!
//! - SEP-2164 (2026-07-28): servers MUST NOT return an empty `contents` array for a resource that
//!   does not exist (`resource-not-found`, whose error code is a SHOULD; the suite's
//!   `sep-2164-no-empty-contents`). Fails in 2026-07-28 only.
//! - Servers that support prompts MUST declare the prompts capability (`undeclared-capability-error`,
//!   whose -32601 is a SHOULD; the suite's `sep-2575-server-declares-prompts-in-discover`).

use crate::demo_harness::{MCPSCOPE, run_binary};
use crate::misbehaving_support::Scratch;
use crate::peers_support::Peers;
use serde_json::Value;
use std::path::PathBuf;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// `mcpscope check URL --format json`: the exit code and the document.
async fn check(url: &str) -> (i32, Value) {
    let args = vec![
        "check".to_owned(),
        url.to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
    ];
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &args, &[]).await;
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: exit {code}\nstdout: {stdout}\nstderr: {stderr}"));
    (code, doc)
}

/// The verdict of `id` in `era`.
fn verdict<'a>(doc: &'a Value, id: &str, era: &str) -> &'a Value {
    doc["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .find(|v| v["id"] == id && v["era"] == era)
        .unwrap_or_else(|| panic!("no {id} [{era}] in {doc:#}"))
}

/// Every (id, era) with this outcome.
fn with_outcome(doc: &Value, outcome: &str) -> Vec<(String, String)> {
    doc["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .filter(|v| v["outcome"] == outcome)
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_owned(),
                v["era"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The official suite's `scenario` at 2026-07-28 against `url`: each check's id and status, from
/// the checks.json it writes.
async fn suite(peers: &Peers, url: &str, scenario: &str) -> Vec<(String, String)> {
    // .peers/python/bin/python → .peers
    let peers_dir: PathBuf = peers.python().ancestors().nth(3).expect(".peers").into();
    let node = peers_dir.join("node22/node_modules/.bin/node");
    let suite =
        peers_dir.join("peers/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        suite.exists(),
        "the conformance suite is a peer: {}",
        suite.display()
    );
    let scratch = Scratch::new("agreement");
    let out = scratch.path("suite");
    let args: Vec<String> = [
        suite.to_str().unwrap(),
        "server",
        "--url",
        url,
        "--scenario",
        scenario,
        "--spec-version",
        MODERN,
        "-o",
        out.to_str().unwrap(),
    ]
    .map(str::to_owned)
    .to_vec();
    let (code, stdout, stderr) = run_binary(node.to_str().unwrap(), &args, &[]).await;
    let run = std::fs::read_dir(&out)
        .unwrap_or_else(|e| panic!("{e}: exit {code}\n{stdout}\n{stderr}"))
        .next()
        .expect("one scenario directory")
        .expect("readable");
    let checks: Value = serde_json::from_slice(
        &std::fs::read(run.path().join("checks.json")).expect("checks.json"),
    )
    .expect("JSON");
    checks
        .as_array()
        .expect("an array")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_empty_contents_for_a_missing_resource_fails_in_2026_here_as_in_the_official_suite() {
    let Some(peers) = Peers::get("empty contents") else {
        return;
    };
    let server = peers.serve("python-empty-contents-server.sh", "http").await;
    let url = format!("{}/mcp", server.base);

    let (code, doc) = check(&url).await;
    assert_eq!(code, 6, "{doc:#}");
    assert_eq!(
        with_outcome(&doc, "fail"),
        [("resource-not-found".to_owned(), MODERN.to_owned())],
        "the flaw fails one check, in 2026-07-28 only: {doc:#}"
    );
    let v = verdict(&doc, "resource-not-found", MODERN);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("MUST NOT return an empty contents array"),
        "{v:#}"
    );
    assert!(
        v["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["direction"] == "in"
                && e["excerpt"].as_str().unwrap().contains("\"contents\":[]")),
        "the answer is shown: {v:#}"
    );
    // 2025-11-25 only recommends -32002: the same answer breaks a SHOULD there.
    assert_eq!(
        verdict(&doc, "resource-not-found", LEGACY)["outcome"],
        "warn",
        "{doc:#}"
    );

    let suite = suite(&peers, &url, "sep-2164-resource-not-found").await;
    assert!(
        suite.contains(&(
            "sep-2164-no-empty-contents".to_owned(),
            "FAILURE".to_owned()
        )),
        "the suite fails it too: {suite:?}"
    );
}

#[tokio::test]
async fn a_missing_resource_refused_with_invalid_params_passes_here_and_in_the_official_suite() {
    let Some(peers) = Peers::get("sdk resource-not-found") else {
        return;
    };
    let server = peers.serve("python-sdk-server.sh", "http").await;
    let url = format!("{}/mcp", server.base);

    let (_, doc) = check(&url).await;
    assert_eq!(
        verdict(&doc, "resource-not-found", MODERN)["outcome"],
        "pass",
        "{doc:#}"
    );
    let suite = suite(&peers, &url, "sep-2164-resource-not-found").await;
    assert!(
        suite.contains(&(
            "sep-2164-no-empty-contents".to_owned(),
            "SUCCESS".to_owned()
        )),
        "{suite:?}"
    );
}

#[tokio::test]
async fn prompts_served_but_not_declared_fail_here_as_in_the_official_suite() {
    let Some(peers) = Peers::get("undeclared prompts") else {
        return;
    };
    let server = peers
        .serve("python-undeclared-prompts-server.sh", "http")
        .await;
    let url = format!("{}/mcp", server.base);

    let (code, doc) = check(&url).await;
    assert_eq!(code, 6, "{doc:#}");
    assert_eq!(
        with_outcome(&doc, "fail"),
        [
            ("undeclared-capability-error".to_owned(), LEGACY.to_owned()),
            ("undeclared-capability-error".to_owned(), MODERN.to_owned()),
        ],
        "the flaw fails one check, in both eras: {doc:#}"
    );
    for era in [LEGACY, MODERN] {
        let v = verdict(&doc, "undeclared-capability-error", era);
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("MUST declare the prompts capability"),
            "{v:#}"
        );
        assert!(
            v["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["direction"] == "in"
                    && e["excerpt"].as_str().unwrap().contains("\"prompts\":[")),
            "the served list is shown: {v:#}"
        );
    }

    let suite = suite(&peers, &url, "server-stateless").await;
    assert!(
        suite.contains(&(
            "sep-2575-server-declares-prompts-in-discover".to_owned(),
            "FAILURE".to_owned()
        )),
        "the suite fails it too: {suite:?}"
    );
}
