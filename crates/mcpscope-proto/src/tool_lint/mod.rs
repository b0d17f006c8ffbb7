//! Tool quality lint: what is wrong or unportable in the tool definitions of a `tools/list`.
//!
//! The frame lint ([`crate::lint`]) says whether a message matches the schema of its revision;
//! this says, tool by tool, what a server author should fix before their users' clients find
//! out: each finding names its tool (by name and position), a severity, a stable `code`, a
//! message and a JSON pointer into the tool.
//!
//! - **Errors** are spec violations: a tool that fails the revision's `Tool` definition (an
//!   `inputSchema` that is missing or not `type: "object"`, a legacy `outputSchema` that is not an
//!   object schema, annotations of the wrong type), a schema that is not valid JSON Schema (its
//!   dialect's meta-schema), a `#/…` `$ref` that points at nothing, the tool name rules of
//!   2025-11-25 (1–128 characters of `[A-Za-z0-9_.-]`; the spec words them as SHOULD, they are
//!   errors here because clients refuse such names), a name used twice, and an invalid
//!   `x-mcp-header` in the modern era (the rule's owner is [`crate::headers::param_headers`]).
//! - **Warnings** are quality and portability: no description, contradicting annotation hints,
//!   an oversized schema, and the constructs of [`portability`] that valid JSON Schema allows but
//!   many clients refuse or mishandle.
//!
//! Bounded: a schema is measured before it is walked and one over [`MAX_SCHEMA_NODES`] is only
//! reported as oversized; the deep checks of a whole list stop after [`MAX_LIST_NODES`] nodes and
//! the findings after [`MAX_FINDINGS`] ([`ToolLint::incomplete`] says so). Pure: no I/O.
//!
//! ```
//! use mcpscope_proto::{era::Era, lint::Linter, tool_lint::lint_tools};
//! let tools = [serde_json::json!({"name": "bad name", "inputSchema": {"type": "object"}})];
//! let lint = lint_tools(&Linter::new(), Era::Legacy, &tools);
//! assert!(lint.findings.iter().any(|f| f.code == "name-characters"));
//! ```

mod checks;
pub mod portability;
#[cfg(test)]
mod tests;

use crate::era::Era;
use crate::lint::{Linter, Revision};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ToolLintSeverity"))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A spec violation: clients may refuse the tool.
    Error,
    /// A quality or portability problem: the tool works, but not everywhere or not well.
    Warning,
}

/// One finding about one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolFinding {
    /// The tool's name as sent (cut to [`MAX_QUOTE`] bytes; empty when it has none).
    pub tool: String,
    /// Its position in the list (names may repeat, positions do not).
    pub index: usize,
    /// Error or warning.
    pub severity: Severity,
    /// A stable name for the rule, e.g. `name-characters`, `boolean-schema`.
    pub code: String,
    /// What is wrong, for the server's author. Server-controlled text may be quoted in it.
    pub message: String,
    /// JSON pointer into the tool (`/inputSchema/properties/path`); empty for the whole tool.
    pub pointer: String,
}

/// The findings of one list of tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ToolLint {
    /// Every finding, in tool order.
    pub findings: Vec<ToolFinding>,
    /// How many findings are errors.
    pub errors: usize,
    /// How many findings are warnings.
    pub warnings: usize,
    /// Why the lint stopped short of checking everything (a bound was hit), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

/// Most findings in one list; the rest are not reported (10,000 tools each missing a
/// description is 10,000 findings, and fits).
pub const MAX_FINDINGS: usize = 20_000;
/// Most findings listed for one tool; one more (`more-findings`) counts the others.
pub const MAX_TOOL_FINDINGS: usize = 32;
/// Largest schema (JSON values in it) the deep checks walk: the meta-schema, `x-mcp-header`,
/// portability. A real tool's schema has tens to a few thousand.
pub const MAX_SCHEMA_NODES: usize = 50_000;
/// Most schema nodes the deep checks walk for one whole list (the sum over its tools).
pub const MAX_LIST_NODES: usize = 1_000_000;
/// A schema larger than this, written as JSON, is reported as oversized: a tool definition goes
/// to the model with every turn, and 32 KiB is about 8,000 tokens of its context.
pub const OVERSIZED_SCHEMA_BYTES: usize = 32 << 10;
/// Longest piece of server text (a name, a `$ref`) quoted in a finding.
pub const MAX_QUOTE: usize = 120;

/// Lint the `tools` array of a `tools/list` result (a page, or every page merged). A result
/// without a `tools` array has nothing to lint here (the frame lint reports its shape).
pub fn lint_list_result(linter: &Linter, era: Era, result: &Value) -> ToolLint {
    match result.get("tools").and_then(Value::as_array) {
        Some(tools) => lint_tools(linter, era, tools),
        None => ToolLint::default(),
    }
}

/// Lint the tools of one server (one page or all of them) under the rules of `era`.
pub fn lint_tools(linter: &Linter, era: Era, tools: &[Value]) -> ToolLint {
    let mut run = Run {
        linter,
        era,
        revision: match era {
            Era::Legacy => Revision::Legacy20251125,
            Era::Modern => Revision::Modern20260728,
        },
        nodes_left: MAX_LIST_NODES,
        out: ToolLint::default(),
    };
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    for (index, tool) in tools.iter().enumerate() {
        if run.out.findings.len() >= MAX_FINDINGS {
            run.stop(format!(
                "stopped after {MAX_FINDINGS} findings; tools from position {index} on are not checked"
            ));
            break;
        }
        let name = tool.get("name").and_then(Value::as_str);
        let mut t = ToolCx::new(index, name);
        if let Some(n) = name
            && let Some(first) = first_of.get(n)
        {
            t.error(
                "duplicate-name",
                "/name",
                format!(
                    "the name is also used by the tool at position {first}; tool names must be unique within a server"
                ),
            );
        } else if let Some(n) = name {
            first_of.insert(n, index);
        }
        run.tool(tool, &mut t);
        run.keep(t);
    }
    run.out
}

/// One run over a list: the rules of its era and what the bounds still allow.
struct Run<'a> {
    linter: &'a Linter,
    era: Era,
    revision: Revision,
    nodes_left: usize,
    out: ToolLint,
}

impl Run<'_> {
    fn stop(&mut self, why: String) {
        if self.out.incomplete.is_none() {
            self.out.incomplete = Some(why);
        }
    }

    /// Every check of one tool, cheap ones first.
    fn tool(&mut self, tool: &Value, t: &mut ToolCx) {
        if !tool.is_object() {
            t.error(
                "invalid-tool",
                "",
                "a tool must be a JSON object".to_string(),
            );
            return;
        }
        checks::definition(self.linter, self.revision, tool, t);
        checks::name(tool, t);
        checks::description(tool, t);
        checks::annotations(tool, t);
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key).filter(|s| s.is_object()) {
                self.schema(key, schema, t);
            }
        }
    }

    /// The checks of one schema that walk it, within the bounds.
    fn schema(&mut self, key: &'static str, schema: &Value, t: &mut ToolCx) {
        let size = checks::measure(schema, MAX_SCHEMA_NODES);
        let at = format!("/{key}");
        if size.bytes > OVERSIZED_SCHEMA_BYTES {
            let how_big = if size.over {
                format!("over {MAX_SCHEMA_NODES} JSON values; it is not checked further here")
            } else {
                format!("about {} KiB written as JSON", size.bytes.div_ceil(1024))
            };
            t.warning(
                "oversized-schema",
                &at,
                format!(
                    "{key} is {how_big} (bound: {} KiB): a tool definition is sent to the model with every turn",
                    OVERSIZED_SCHEMA_BYTES >> 10
                ),
            );
        }
        if size.over {
            return;
        }
        if size.nodes > self.nodes_left {
            self.stop(format!(
                "the schemas of this list have over {MAX_LIST_NODES} JSON values in all; from tool position {} on only the definition, name, description and annotations are checked",
                t.index
            ));
            return;
        }
        self.nodes_left -= size.nodes;
        checks::meta_schema(key, schema, t);
        if key == "inputSchema" {
            checks::x_mcp_header(self.era, schema, t);
        }
        portability::check(key, schema, t);
    }

    fn keep(&mut self, t: ToolCx) {
        for f in t.finish() {
            match f.severity {
                Severity::Error => self.out.errors += 1,
                Severity::Warning => self.out.warnings += 1,
            }
            self.out.findings.push(f);
        }
    }
}

/// The findings of the tool being checked, up to [`MAX_TOOL_FINDINGS`].
pub(crate) struct ToolCx {
    index: usize,
    tool: String,
    findings: Vec<ToolFinding>,
    /// Errors and warnings left out because the tool had too many findings.
    dropped_errors: usize,
    dropped_warnings: usize,
}

impl ToolCx {
    fn new(index: usize, name: Option<&str>) -> ToolCx {
        ToolCx {
            index,
            tool: name.map(quote).unwrap_or_default(),
            findings: Vec::new(),
            dropped_errors: 0,
            dropped_warnings: 0,
        }
    }

    pub(crate) fn error(&mut self, code: &str, pointer: &str, message: String) {
        self.push(Severity::Error, code, pointer, message);
    }

    pub(crate) fn warning(&mut self, code: &str, pointer: &str, message: String) {
        self.push(Severity::Warning, code, pointer, message);
    }

    /// Whether another finding would be left out (only counted).
    fn full(&self) -> bool {
        self.findings.len() >= MAX_TOOL_FINDINGS
    }

    fn push(&mut self, severity: Severity, code: &str, pointer: &str, message: String) {
        if self.full() {
            match severity {
                Severity::Error => self.dropped_errors += 1,
                Severity::Warning => self.dropped_warnings += 1,
            }
            return;
        }
        self.findings.push(ToolFinding {
            tool: self.tool.clone(),
            index: self.index,
            severity,
            code: code.to_string(),
            message,
            pointer: pointer.to_string(),
        });
    }

    /// The findings, with one more that counts those left out (an error among them makes it
    /// an error, so the tool's badge stays red).
    fn finish(mut self) -> Vec<ToolFinding> {
        let dropped = self.dropped_errors + self.dropped_warnings;
        if dropped > 0 {
            self.findings.push(ToolFinding {
                tool: self.tool.clone(),
                index: self.index,
                severity: if self.dropped_errors > 0 {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                code: "more-findings".to_string(),
                message: format!(
                    "{dropped} more finding{} of this tool not listed ({} errors, {} warnings; at most {MAX_TOOL_FINDINGS} are listed)",
                    if dropped == 1 { " is" } else { "s are" },
                    self.dropped_errors,
                    self.dropped_warnings
                ),
                pointer: String::new(),
            });
        }
        self.findings
    }
}

/// Server text cut for quoting in a finding.
pub(crate) fn quote(s: &str) -> String {
    crate::form::shorten(s, MAX_QUOTE)
}

/// A JSON pointer from the tool's root through `segments` (RFC 6901 escapes).
pub(crate) fn pointer<S: AsRef<str>>(segments: &[S]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        out.push_str(&s.as_ref().replace('~', "~0").replace('/', "~1"));
    }
    out
}
