//! Schema lint: check each message against the official `schema.json` of its revision.
//!
//! Conformance is judged here, separately from parsing: a message that fails the schema is still
//! delivered and shown, with findings attached. The schemas are the spec's own files, vendored
//! byte-for-byte under `spec/` at the workspace root and compiled lazily, one validator per
//! definition. `$ref`s are resolved inside the document only; nothing is fetched.

use crate::jsonrpc::Classified;
use crate::method::{Method, Modern};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

static SCHEMA_2025_11_25: &str = include_str!("../../../spec/2025-11-25/schema.json");
static SCHEMA_2026_07_28: &str = include_str!("../../../spec/2026-07-28/schema.json");
static SCHEMA_TASKS_EXT: &str =
    include_str!("../../../spec/extensions/io.modelcontextprotocol-tasks/draft/schema.json");

/// A schema document we can lint against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Revision {
    /// The legacy revision (also used for older legacy versions, which it supersedes).
    #[serde(rename = "2025-11-25")]
    Legacy20251125,
    /// The modern revision.
    #[serde(rename = "2026-07-28")]
    Modern20260728,
    /// The `io.modelcontextprotocol/tasks` extension (draft).
    #[serde(rename = "tasks-extension")]
    TasksExtension,
}

impl Revision {
    /// The revision for a negotiated protocol version string.
    pub fn for_version(version: &str) -> Revision {
        if version >= crate::era::MODERN_VERSION {
            Revision::Modern20260728
        } else {
            Revision::Legacy20251125
        }
    }

    fn source(self) -> &'static str {
        match self {
            Revision::Legacy20251125 => SCHEMA_2025_11_25,
            Revision::Modern20260728 => SCHEMA_2026_07_28,
            Revision::TasksExtension => SCHEMA_TASKS_EXT,
        }
    }
}

/// One schema violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// JSON pointer into the message.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The lint result for one message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LintReport {
    /// Schema revision used.
    pub revision: Revision,
    /// The `$defs` name the message was checked against (plus the result definition for responses).
    pub definition: String,
    /// Violations; empty means valid.
    pub findings: Vec<Finding>,
}

/// What the linter needs to know beyond the message itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintContext<'a> {
    /// For a response: the method of the request it answers.
    pub request_method: Option<&'a str>,
}

/// Largest number of findings reported per message.
const MAX_FINDINGS: usize = 20;

/// Longest finding message. The validator quotes the offending value, which for a wrong 100 MB
/// result would be a copy of it in every finding (and in every view and history row).
const MAX_MESSAGE: usize = 1024;

/// A compiled definition, or `None` when the schema has no such definition.
type CachedValidator = Option<Arc<jsonschema::Validator>>;

/// Lints messages; cheap to share, compiles validators on first use.
#[derive(Default)]
pub struct Linter {
    docs: OnceLock<HashMap<Revision, Value>>,
    cache: Mutex<HashMap<(Revision, String), CachedValidator>>,
}

impl Linter {
    /// A new linter.
    pub fn new() -> Linter {
        Linter::default()
    }

    fn docs(&self) -> &HashMap<Revision, Value> {
        self.docs.get_or_init(|| {
            [
                Revision::Legacy20251125,
                Revision::Modern20260728,
                Revision::TasksExtension,
            ]
            .into_iter()
            .map(|r| {
                let mut doc: Value =
                    serde_json::from_str(r.source()).expect("vendored schema is valid JSON");
                correct_generated_schema(&mut doc);
                (r, doc)
            })
            .collect()
        })
    }

    fn has_def(&self, rev: Revision, name: &str) -> bool {
        self.docs()[&rev]["$defs"].get(name).is_some()
    }

    fn validator(&self, rev: Revision, name: &str) -> Option<Arc<jsonschema::Validator>> {
        let key = (rev, name.to_string());
        if let Some(v) = self.cache.lock().expect("lint cache").get(&key) {
            return v.clone();
        }
        let doc = &self.docs()[&rev];
        let built = doc["$defs"].get(name).and_then(|_| {
            let schema = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$defs": doc["$defs"].clone(),
                "$ref": format!("#/$defs/{name}"),
            });
            jsonschema::draft202012::options()
                .build(&schema)
                .ok()
                .map(Arc::new)
        });
        self.cache
            .lock()
            .expect("lint cache")
            .insert(key, built.clone());
        built
    }

    fn check(
        &self,
        rev: Revision,
        def: &str,
        instance: &Value,
        prefix: &str,
        out: &mut Vec<Finding>,
    ) {
        let Some(v) = self.validator(rev, def) else {
            return;
        };
        for e in v.iter_errors(instance) {
            if out.len() >= MAX_FINDINGS {
                break;
            }
            out.push(Finding {
                path: format!("{prefix}{}", e.instance_path()),
                message: crate::form::shorten(&e.to_string(), MAX_MESSAGE),
            });
        }
    }

    /// Check any value against one `$defs` definition of a revision (unknown names give nothing).
    pub fn check_definition(
        &self,
        revision: Revision,
        definition: &str,
        instance: &Value,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        self.check(revision, definition, instance, "", &mut out);
        out
    }

    /// Lint one message (any direction) under `revision`.
    pub fn lint(&self, revision: Revision, message: &Value, ctx: LintContext<'_>) -> LintReport {
        let mut findings = Vec::new();
        let classified = crate::jsonrpc::classify(message);
        let definition = match &classified {
            Classified::Request { method, .. } | Classified::Notification { method, .. } => {
                let is_request = matches!(classified, Classified::Request { .. });
                let (rev, def) = match message_def(revision, method, is_request) {
                    Some(d) if self.has_def(d.0, d.1) => (d.0, d.1.to_string()),
                    _ => (
                        revision,
                        if is_request {
                            "JSONRPCRequest"
                        } else {
                            "JSONRPCNotification"
                        }
                        .to_string(),
                    ),
                };
                self.check(rev, &def, message, "", &mut findings);
                def
            }
            Classified::Response { .. } => {
                let result = &message["result"];
                self.check(
                    revision,
                    "JSONRPCResultResponse",
                    message,
                    "",
                    &mut findings,
                );
                match ctx
                    .request_method
                    .and_then(|m| result_def(revision, m, result))
                {
                    Some((rev, def)) if self.has_def(rev, def) => {
                        self.check(rev, def, result, "/result", &mut findings);
                        format!("JSONRPCResultResponse + {def}")
                    }
                    _ => "JSONRPCResultResponse".to_string(),
                }
            }
            Classified::ErrorResponse { .. } => {
                self.check(revision, "JSONRPCErrorResponse", message, "", &mut findings);
                "JSONRPCErrorResponse".to_string()
            }
            Classified::Batch(_) => {
                findings.push(Finding {
                    path: String::new(),
                    message: "JSON-RPC batches are not allowed in MCP".into(),
                });
                "(batch)".to_string()
            }
            Classified::Invalid(reason) => {
                findings.push(Finding {
                    path: String::new(),
                    message: reason.clone(),
                });
                "(invalid)".to_string()
            }
        };
        // The envelope and the result definition both check `result`, so one fault (say, a
        // missing `resultType`) would otherwise be reported twice.
        let mut seen = std::collections::HashSet::new();
        findings.retain(|f| seen.insert((f.path.clone(), f.message.clone())));
        LintReport {
            revision,
            definition,
            findings,
        }
    }
}

/// Undoes a known slip of the generator that turns the normative `schema.ts` into `schema.json`.
///
/// `schema.ts` (the source of truth) types `ElicitResult.content` values as
/// `string | number | boolean | string[]`, and `NumberSchema` lets a form ask for a `number`
/// with a default such as `4.5`; the generated JSON says `integer`, so a client that answers such
/// a form correctly would be reported as invalid. Both revisions carry the slip.
fn correct_generated_schema(doc: &mut Value) {
    let Some(branches) = doc
        .pointer_mut("/$defs/ElicitResult/properties/content/additionalProperties/anyOf")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for branch in branches {
        if let Some(types) = branch.get_mut("type").and_then(Value::as_array_mut)
            && let Some(integer) = types.iter_mut().find(|t| *t == "integer")
        {
            *integer = json!("number");
        }
    }
}

/// The method `method` names, if it exists in `rev` (the lint's own tasks-extension document
/// counts as the modern revision's), with the document holding its definitions.
fn method_in(rev: Revision, method: &str) -> Option<(Revision, Method)> {
    let m = Method::from_name(method)?;
    let row = m.row();
    match rev {
        Revision::Modern20260728 if row.modern == Modern::TasksExtension => {
            Some((Revision::TasksExtension, m))
        }
        Revision::Modern20260728 | Revision::TasksExtension => {
            matches!(row.modern, Modern::Core | Modern::InputRequest).then_some((rev, m))
        }
        Revision::Legacy20251125 => row.legacy.then_some((rev, m)),
    }
}

/// The `$defs` name for a request or notification method (from the method table).
fn message_def(rev: Revision, method: &str, is_request: bool) -> Option<(Revision, &'static str)> {
    let (rev, m) = method_in(rev, method)?;
    (m.is_request() == is_request).then_some((rev, m.row().def))
}

/// The `$defs` name for the result of `method`, looking at the result for task / input_required.
fn result_def(rev: Revision, method: &str, result: &Value) -> Option<(Revision, &'static str)> {
    let modern = rev == Revision::Modern20260728;
    let result_type = result.get("resultType").and_then(Value::as_str);
    if modern && result_type == Some("input_required") {
        return Some((rev, "InputRequiredResult"));
    }
    if modern && result_type == Some("task") {
        return Some((Revision::TasksExtension, "CreateTaskResult"));
    }
    if !modern && method == Method::ToolsCall && result.get("task").is_some() {
        return Some((rev, "CreateTaskResult"));
    }
    let (rev, m) = method_in(rev, method)?;
    Some((rev, m.row().result_def?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_and_invalid_messages() {
        let l = Linter::new();
        let ok = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}}});
        let r = l.lint(Revision::Legacy20251125, &ok, LintContext::default());
        assert_eq!(r.definition, "CallToolRequest");
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let bad = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": 5}]}});
        let r = l.lint(
            Revision::Legacy20251125,
            &bad,
            LintContext {
                request_method: Some("tools/list"),
            },
        );
        assert!(
            r.findings
                .iter()
                .any(|f| f.path.starts_with("/result/tools/0")),
            "{:?}",
            r.findings
        );
    }

    #[test]
    fn elicit_result_numbers_follow_schema_ts() {
        let l = Linter::new();
        let answer = |content: Value| json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": content}});
        let ctx = LintContext {
            request_method: Some("elicitation/create"),
        };
        for revision in [Revision::Legacy20251125, Revision::Modern20260728] {
            let ok = answer(json!({"rating": 4.5, "guests": 2, "name": "Ada", "tags": ["a"]}));
            let r = l.lint(revision, &ok, ctx);
            let findings: Vec<_> = r
                .findings
                .iter()
                .filter(|f| f.path.starts_with("/result/content"))
                .collect();
            assert!(findings.is_empty(), "{revision:?}: {findings:?}");
            let nested = l.lint(revision, &answer(json!({"x": {"y": 1}})), ctx);
            assert!(
                nested
                    .findings
                    .iter()
                    .any(|f| f.path == "/result/content/x"),
                "{revision:?}: {:?}",
                nested.findings
            );
        }
    }

    #[test]
    fn one_fault_is_one_finding() {
        let l = Linter::new();
        let r = l.lint(
            Revision::Modern20260728,
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
            LintContext {
                request_method: Some("tools/list"),
            },
        );
        let missing: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.message.contains("resultType"))
            .collect();
        assert_eq!(missing.len(), 1, "{:?}", r.findings);
    }

    /// A wrong value is quoted in the message; a big one is quoted short.
    #[test]
    fn a_big_wrong_value_is_quoted_short() {
        let l = Linter::new();
        let big = "x".repeat(1 << 20);
        let r = l.lint(
            Revision::Legacy20251125,
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": big}}),
            LintContext {
                request_method: Some("tools/list"),
            },
        );
        assert!(!r.findings.is_empty());
        for f in &r.findings {
            assert!(f.message.len() <= MAX_MESSAGE + 3, "{}", f.message.len());
        }
    }
}
