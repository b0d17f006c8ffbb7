//! One test per finding (each with a clean counterpart, so it can fail) and the bounds: a
//! 10 MB schema, 10,000 tools, a tool with hundreds of faults.

use super::*;
use serde_json::{Value, json};
use std::time::Instant;

fn lint(era: Era, tools: &[Value]) -> ToolLint {
    lint_tools(&Linter::new(), era, tools)
}

/// A tool with nothing to report, in both eras.
fn good() -> Value {
    json!({
        "name": "get_weather",
        "description": "The weather at a place.",
        "inputSchema": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"}
        }, "required": ["city"]},
        "annotations": {"readOnlyHint": true}
    })
}

/// `good()` with `patch` merged in at the top (a `null` removes a member).
fn with(patch: Value) -> Value {
    let mut t = good();
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            t.as_object_mut().unwrap().remove(k);
        } else {
            t[k] = v.clone();
        }
    }
    t
}

fn codes(l: &ToolLint) -> Vec<&str> {
    l.findings.iter().map(|f| f.code.as_str()).collect()
}

fn only(era: Era, tool: Value) -> ToolLint {
    lint(era, &[tool])
}

fn assert_one(era: Era, tool: Value, code: &str, severity: Severity, pointer: &str) {
    let l = only(era, tool);
    let f = l
        .findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", l.findings));
    assert_eq!(f.severity, severity, "{f:?}");
    assert_eq!(f.pointer, pointer, "{f:?}");
    assert_eq!(f.index, 0);
}

#[test]
fn a_good_tool_has_no_findings_in_either_era() {
    for era in [Era::Legacy, Era::Modern] {
        let l = only(era, good());
        assert!(l.findings.is_empty(), "{era}: {:?}", l.findings);
        assert_eq!((l.errors, l.warnings, l.incomplete), (0, 0, None));
    }
}

#[test]
fn input_schema_missing_or_not_an_object_schema() {
    for era in [Era::Legacy, Era::Modern] {
        assert_one(
            era,
            with(json!({"inputSchema": null})),
            "invalid-tool",
            Severity::Error,
            "",
        );
        assert_one(
            era,
            with(json!({"inputSchema": {"type": "array"}})),
            "invalid-input-schema",
            Severity::Error,
            "/inputSchema/type",
        );
    }
}

#[test]
fn schemas_that_are_not_json_schema() {
    let tool = with(json!({"inputSchema": {"type": "object", "properties": {
        "n": {"type": "integr", "description": "count"}
    }}}));
    let l = only(Era::Modern, tool);
    let f = l
        .findings
        .iter()
        .find(|f| f.code == "invalid-input-schema")
        .unwrap();
    assert_eq!(f.severity, Severity::Error);
    assert!(f.pointer.starts_with("/inputSchema/properties/n"), "{f:?}");
    let out = with(json!({"outputSchema": {"type": "object", "minProperties": -1}}));
    assert_one(
        Era::Modern,
        out,
        "invalid-output-schema",
        Severity::Error,
        "/outputSchema/minProperties",
    );
}

/// 2025-11-25 asks for an object `outputSchema`; 2026-07-28 allows any 2020-12 schema.
#[test]
fn output_schema_root_follows_the_era() {
    let tool = with(json!({"outputSchema": {"type": "string"}}));
    assert_one(
        Era::Legacy,
        tool.clone(),
        "invalid-output-schema",
        Severity::Error,
        "/outputSchema/type",
    );
    assert!(only(Era::Modern, tool).findings.is_empty());
}

#[test]
fn an_unknown_dialect_is_not_checked_and_said_so() {
    let tool = with(
        json!({"inputSchema": {"$schema": "https://example.com/my-dialect", "type": "object"}}),
    );
    assert_one(
        Era::Modern,
        tool,
        "unknown-dialect",
        Severity::Warning,
        "/inputSchema/$schema",
    );
    let draft7 = with(
        json!({"inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}),
    );
    assert!(only(Era::Modern, draft7).findings.is_empty());
}

#[test]
fn name_rules_of_2025_11_25() {
    for era in [Era::Legacy, Era::Modern] {
        assert_one(
            era,
            with(json!({"name": "get weather/now"})),
            "name-characters",
            Severity::Error,
            "/name",
        );
        assert_one(
            era,
            with(json!({"name": ""})),
            "name-length",
            Severity::Error,
            "/name",
        );
        assert_one(
            era,
            with(json!({"name": "x".repeat(129)})),
            "name-length",
            Severity::Error,
            "/name",
        );
        assert!(
            only(
                era,
                with(json!({"name": "a.b-c_D9".to_string() + &"x".repeat(120)}))
            )
            .findings
            .is_empty()
        );
        assert_one(
            era,
            with(json!({"name": 7})),
            "invalid-name",
            Severity::Error,
            "/name",
        );
    }
    let l = only(Era::Legacy, with(json!({"name": "café tool"})));
    let f = l
        .findings
        .iter()
        .find(|f| f.code == "name-characters")
        .unwrap();
    assert!(
        f.message.contains("'é'") && f.message.contains("' '"),
        "{}",
        f.message
    );
}

#[test]
fn duplicate_names_name_the_first() {
    let l = lint(
        Era::Legacy,
        &[good(), with(json!({"name": "other"})), good()],
    );
    assert_eq!(codes(&l), vec!["duplicate-name"]);
    let f = &l.findings[0];
    assert_eq!(
        (f.index, f.severity, f.pointer.as_str()),
        (2, Severity::Error, "/name")
    );
    assert!(f.message.contains("position 0"), "{}", f.message);
}

#[test]
fn x_mcp_header_is_an_error_in_the_modern_era_only() {
    let tool = with(json!({"inputSchema": {"type": "object", "properties": {
        "n": {"type": "number", "description": "n", "x-mcp-header": "N"}
    }}}));
    assert_one(
        Era::Modern,
        tool.clone(),
        "invalid-x-mcp-header",
        Severity::Error,
        "/inputSchema",
    );
    assert_one(
        Era::Legacy,
        tool,
        "invalid-x-mcp-header",
        Severity::Warning,
        "/inputSchema",
    );
    let ok = with(json!({"inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "description": "r", "x-mcp-header": "Region"}
    }}}));
    assert!(only(Era::Modern, ok).findings.is_empty());
}

#[test]
fn missing_description() {
    assert_one(
        Era::Legacy,
        with(json!({"description": null})),
        "missing-description",
        Severity::Warning,
        "",
    );
    assert_one(
        Era::Legacy,
        with(json!({"description": "  "})),
        "missing-description",
        Severity::Warning,
        "/description",
    );
}

#[test]
fn contradicting_annotations() {
    let destructive = with(json!({"annotations": {"readOnlyHint": true, "destructiveHint": true}}));
    assert_one(
        Era::Legacy,
        destructive,
        "contradicting-annotations",
        Severity::Warning,
        "/annotations/destructiveHint",
    );
    let repeat = with(json!({"annotations": {"readOnlyHint": true, "idempotentHint": false}}));
    assert_one(
        Era::Legacy,
        repeat,
        "contradicting-annotations",
        Severity::Warning,
        "/annotations/idempotentHint",
    );
    let fine = with(
        json!({"annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false}}),
    );
    assert!(only(Era::Legacy, fine).findings.is_empty());
    assert_one(
        Era::Legacy,
        with(json!({"annotations": {"readOnlyHint": "yes"}})),
        "invalid-annotations",
        Severity::Error,
        "/annotations/readOnlyHint",
    );
}

#[test]
fn an_oversized_schema_names_the_bound() {
    let props: serde_json::Map<String, Value> = (0..800)
        .map(|i| {
            (
                format!("field_{i}"),
                json!({"type": "string", "description": "a field of a big form"}),
            )
        })
        .collect();
    let l = only(
        Era::Legacy,
        with(json!({"inputSchema": {"type": "object", "properties": props}})),
    );
    let f = l
        .findings
        .iter()
        .find(|f| f.code == "oversized-schema")
        .unwrap();
    assert_eq!(
        (f.severity, f.pointer.as_str()),
        (Severity::Warning, "/inputSchema")
    );
    assert!(f.message.contains("32 KiB"), "{}", f.message);
}

/// One schema per portability rule, each at the pointer of the construct.
#[test]
fn portability_rules() {
    let cases = [
        (
            json!({"type": "object", "properties": {"x": true}}),
            "boolean-schema",
            "/inputSchema/properties/x",
        ),
        (
            json!({"type": "object", "properties": {"x": {"type": ["string", "null"], "description": "x"}}}),
            "type-union",
            "/inputSchema/properties/x/type",
        ),
        (
            json!({"type": "object", "properties": {"x": {"description": "anything"}}}),
            "untyped-schema",
            "/inputSchema/properties/x",
        ),
        (
            json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json", "description": "x"}}}),
            "remote-ref",
            "/inputSchema/properties/x/$ref",
        ),
        (
            json!({"type": "object", "$defs": {"c": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/c", "description": "x"}}}),
            "local-ref",
            "/inputSchema/properties/x/$ref",
        ),
        (
            json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {"type": "string", "description": "a"}, "b": {"type": "string", "description": "b"}}}),
            "top-level-composition",
            "/inputSchema/anyOf",
        ),
        (
            json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}}),
            "pattern-properties",
            "/inputSchema/patternProperties",
        ),
        (
            json!({"type": "object", "properties": {"m": {"type": "array", "description": "m", "items": {"type": "array", "items": {"type": "object"}}}}}),
            "nested-array",
            "/inputSchema/properties/m/items",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            "undocumented-parameter",
            "/inputSchema/properties",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "description": "a"}}, "required": ["a", "b"]}),
            "required-not-in-properties",
            "/inputSchema/required",
        ),
    ];
    for (schema, code, at) in cases {
        assert_one(
            Era::Modern,
            with(json!({"inputSchema": schema})),
            code,
            Severity::Warning,
            at,
        );
    }
    // The idiomatic booleans and `not: {}` are not findings.
    let idioms = json!({"type": "object", "additionalProperties": false, "properties": {
        "x": {"type": "object", "description": "x", "additionalProperties": true, "not": {}}
    }});
    assert!(
        only(Era::Modern, with(json!({"inputSchema": idioms})))
            .findings
            .is_empty()
    );
    // An `$id` may make a URL local: no remote-ref.
    let with_id = json!({"$id": "https://example.com/root", "type": "object", "properties": {
        "x": {"$ref": "https://example.com/root#/$defs/c", "description": "x"}}, "$defs": {"c": {"type": "string"}}});
    assert!(
        !codes(&only(Era::Modern, with(json!({"inputSchema": with_id})))).contains(&"remote-ref")
    );
}

#[test]
fn a_pointer_to_nothing_is_an_error() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/missing", "description": "x"}}});
    assert_one(
        Era::Modern,
        with(json!({"inputSchema": schema})),
        "unresolvable-ref",
        Severity::Error,
        "/inputSchema/properties/x/$ref",
    );
}

#[test]
fn pointers_escape_member_names() {
    let schema = json!({"type": "object", "properties": {"a/b~c": {"type": ["string", "null"], "description": "x"}}});
    assert_one(
        Era::Modern,
        with(json!({"inputSchema": schema})),
        "type-union",
        Severity::Warning,
        "/inputSchema/properties/a~1b~0c/type",
    );
}

/// Hundreds of faults in one tool: 32 listed, one more counts the rest, and an error among the
/// rest keeps the tool red.
#[test]
fn a_tool_lists_at_most_its_bound() {
    let mut props: serde_json::Map<String, Value> =
        (0..300).map(|i| (format!("p{i}"), json!(true))).collect();
    props.insert(
        "zz".into(),
        json!({"$ref": "#/nowhere", "description": "z"}),
    );
    let l = only(
        Era::Modern,
        with(json!({"inputSchema": {"type": "object", "properties": props}})),
    );
    assert_eq!(l.findings.len(), MAX_TOOL_FINDINGS + 1);
    let last = l.findings.last().unwrap();
    assert_eq!(
        (last.code.as_str(), last.severity),
        ("more-findings", Severity::Error)
    );
    assert_eq!(l.errors + l.warnings, l.findings.len());
}

/// A hostile 10 MB schema is measured, reported as oversized and not walked further.
#[test]
fn a_ten_megabyte_schema_is_bounded() {
    let props: serde_json::Map<String, Value> = (0..200_000)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": ["string", "null"], "description": "d", "$ref": "#/nowhere"}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": props});
    assert!(serde_json::to_string(&schema).unwrap().len() > 10_000_000);
    let started = Instant::now();
    let l = only(Era::Modern, with(json!({"inputSchema": schema})));
    let took = started.elapsed();
    assert_eq!(codes(&l), vec!["oversized-schema"], "{:?}", l.findings);
    assert!(l.findings[0].message.contains("not checked further"));
    // Not a timing assertion on the code under test's speed, a bound on its work: the walk
    // stopped at MAX_SCHEMA_NODES instead of visiting 800,000 values.
    eprintln!("10 MB schema linted in {took:?}");
}

/// 10,000 tools: every one is checked for its definition, name and description; the deep
/// checks stop at the list's bound and say so.
#[test]
fn ten_thousand_tools_are_bounded() {
    let props: serde_json::Map<String, Value> = (0..40)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "description": "d"}),
            )
        })
        .collect();
    let tools: Vec<Value> = (0..10_000)
        .map(|i| json!({"name": format!("tool {i}"), "inputSchema": {"type": "object", "properties": props}}))
        .collect();
    let started = Instant::now();
    let l = lint(Era::Modern, &tools);
    eprintln!("10,000 tools linted in {:?}", started.elapsed());
    // Each: a bad name and no description.
    assert_eq!(l.errors, 10_000);
    assert_eq!(l.warnings, 10_000);
    assert!(
        l.findings
            .iter()
            .all(|f| f.code == "name-characters" || f.code == "missing-description")
    );
    let why = l.incomplete.expect("the deep checks stopped");
    assert!(why.contains(&MAX_LIST_NODES.to_string()), "{why}");
}

#[test]
fn the_list_stops_at_its_finding_bound() {
    let bad = json!({"name": "a b", "inputSchema": {"type": "object"}});
    let tools = vec![bad; MAX_FINDINGS + 10];
    let l = lint(Era::Legacy, &tools);
    assert!(l.findings.len() <= MAX_FINDINGS + MAX_TOOL_FINDINGS + 1);
    assert!(l.incomplete.unwrap().contains("stopped after"));
}

#[test]
fn server_text_is_quoted_short() {
    let name = "ü".repeat(10_000);
    let l = only(Era::Legacy, with(json!({"name": name})));
    for f in &l.findings {
        assert!(f.tool.len() <= MAX_QUOTE + 3, "{}", f.tool.len());
        assert!(f.message.len() < 1_000, "{}", f.message.len());
    }
}

#[test]
fn a_result_without_tools_has_nothing_to_lint() {
    let l = lint_list_result(&Linter::new(), Era::Legacy, &json!({"tools": "no"}));
    assert_eq!(l, ToolLint::default());
    let l = lint_list_result(&Linter::new(), Era::Legacy, &json!({"tools": [good(), 5]}));
    assert_eq!(codes(&l), vec!["invalid-tool"]);
    assert_eq!(l.findings[0].index, 1);
}
