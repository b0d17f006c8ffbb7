//! The tools' quality findings over the API: `/api/servers/:name/list` for `tools/list` answers a
//! `lint` beside the result, against a real stdio server whose tools are wrong in every way the
//! lint names (`tests/fixtures/bad_tools.mjs`, Node), and against the demo in both eras, whose
//! own tools must get no error.

use crate::support::{Options, TempDir, demo, http_entry, start};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn fixture_entry() -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bad_tools.mjs");
    json!({"type": "stdio", "command": "node", "args": [script], "protocolEra": "legacy"})
}

/// `{position: [(severity, code)]}` of a lint answer.
fn by_tool(lint: &Value) -> BTreeMap<u64, Vec<(String, String)>> {
    let mut out: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for f in lint["findings"].as_array().expect("findings") {
        out.entry(f["index"].as_u64().expect("index"))
            .or_default()
            .push((
                f["severity"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
            ));
    }
    out
}

fn has(found: &[(String, String)], severity: &str, code: &str) -> bool {
    found.iter().any(|(s, c)| s == severity && c == code)
}

#[tokio::test]
async fn every_bad_definition_is_named_and_the_good_one_is_clean() {
    let dir = TempDir::new("tool-lint");
    let b = start(
        dir.path(),
        vec![("bad".into(), fixture_entry())],
        Options::default(),
    )
    .await;
    b.ok("/api/servers/bad/connect", json!({})).await;
    let listed = b
        .ok("/api/servers/bad/list", json!({"method": "tools/list"}))
        .await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap() as u64;
    let lint = &listed["lint"];
    let found = by_tool(lint);
    let of = |name: &str| found.get(&at(name)).cloned().unwrap_or_default();

    assert!(of("good_tool").is_empty(), "{:?}", of("good_tool"));
    assert!(has(&of("bad name!"), "error", "name-characters"));
    // The second `twice` is the duplicate; the first is clean.
    let second_twice = names.iter().rposition(|n| *n == "twice").unwrap() as u64;
    assert!(!found.contains_key(&at("twice")));
    assert!(has(&found[&second_twice], "error", "duplicate-name"));
    assert!(has(&of("array_input"), "error", "invalid-input-schema"));
    assert!(has(&of("not_json_schema"), "error", "invalid-input-schema"));
    assert_eq!(
        of("undocumented"),
        vec![("warning".to_string(), "missing-description".to_string())]
    );
    assert!(has(
        &of("contradicts"),
        "warning",
        "contradicting-annotations"
    ));
    let unportable = of("unportable");
    assert!(
        has(&unportable, "warning", "boolean-schema"),
        "{unportable:?}"
    );
    assert!(has(&unportable, "warning", "type-union"), "{unportable:?}");
    // 2025-11-25's Tool types each property as an object: the bare `true` is a spec error
    // there too (2026-07-28 allows any schema, and only the portability warning remains).
    assert!(
        has(&unportable, "error", "invalid-input-schema"),
        "{unportable:?}"
    );
    // A legacy connection: the modern rule is a warning here.
    assert!(has(
        &of("header_on_number"),
        "warning",
        "invalid-x-mcp-header"
    ));

    // Server text is quoted in the message, as text; the pointer names the construct.
    let hostile = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["index"] == at("hostile_text"))
        .expect("hostile_text finding");
    assert_eq!(hostile["code"], "remote-ref");
    assert_eq!(hostile["pointer"], "/inputSchema/properties/x/$ref");
    assert!(
        hostile["message"].as_str().unwrap().contains("<img src=x"),
        "{hostile}"
    );
    let findings = lint["findings"].as_array().unwrap();
    let errors = findings.iter().filter(|f| f["severity"] == "error").count();
    assert_eq!(lint["errors"], errors as u64);
    assert_eq!(lint["warnings"], (findings.len() - errors) as u64);
    assert!(lint.get("incomplete").is_none(), "{lint}");
    b.stop().await;
}

/// The demo's own tools, in both eras: no error (a warning is a quality note, printed).
#[tokio::test]
async fn the_demo_tools_have_no_errors_in_either_era() {
    let dir = TempDir::new("tool-lint-demo");
    let d = demo().await;
    let b = start(
        dir.path(),
        vec![
            ("legacy".to_string(), http_entry(&d.url, "legacy")),
            ("modern".to_string(), http_entry(&d.url, "modern")),
        ],
        Options::default(),
    )
    .await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        let listed = b
            .ok(
                &format!("/api/servers/{server}/list"),
                json!({"method": "tools/list"}),
            )
            .await;
        let lint = &listed["lint"];
        assert!(lint["findings"].is_array(), "{server}: {listed}");
        let errors: Vec<&Value> = lint["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{server}: {errors:#?}");
        eprintln!("{server}: {} warnings", lint["warnings"]);
        for f in lint["findings"].as_array().unwrap() {
            eprintln!(
                "  {} {}: {} ({})",
                f["tool"], f["code"], f["message"], f["pointer"]
            );
        }
    }
    // Other methods carry no lint.
    let prompts = b
        .ok(
            "/api/servers/legacy/list",
            json!({"method": "prompts/list"}),
        )
        .await;
    assert!(prompts.get("lint").is_none(), "{prompts}");
    b.stop().await;
}
