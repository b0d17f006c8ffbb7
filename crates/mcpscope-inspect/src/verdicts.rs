//! Header verdicts: on each outgoing modern HTTP frame, do the `Mcp-*` headers agree with the
//! JSON-RPC body they travel with?
//!
//! The rules are the modern era's (SEP-2243): `Mcp-Method` mirrors `method`, `Mcp-Name` mirrors
//! the method's name field (`params.name`, `params.uri`, `params.taskId`), `MCP-Protocol-Version`
//! the `_meta` protocol version, and each `Mcp-Param-{Name}` the argument its tool's
//! `x-mcp-header` annotation points at. Param rows are judged only against a `tools/list` this
//! connection actually received; without one the row says "unchecked — tool schema unavailable",
//! so an unverifiable header never reads as a passing one. The response fills in the status and
//! the `Mcp-*` headers the server sent back; a 4xx/5xx or a transport failure marks the
//! exchange failed.

use mcpscope_proto::era;
use mcpscope_proto::headers::{ParamHeader, decode_value, param_header_values, param_headers};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use ts_rs::TS;

/// The verdicts of one outgoing frame (`HeaderVerdicts` in `docs/web-api.md`).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HeaderVerdicts {
    /// Every request header as sent (credentials redacted).
    pub request: Vec<(String, String)>,
    /// The response status, once it arrived.
    pub status: Option<u16>,
    /// The `Mcp-*` headers of the response.
    pub mirrored: Vec<(String, String)>,
    /// The first row that disagrees, in words.
    pub first_disagreement: Option<String>,
    /// One row per cross-checked header.
    pub rows: Vec<VerdictRow>,
    /// The exchange answered 4xx/5xx or failed at the transport level.
    pub failed: bool,
    /// The transport failure, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub transport_error: Option<String>,
    /// The first characters of a 4xx/5xx response's body: what the server said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub response_excerpt: Option<String>,
}

/// At most this many characters of an error response's body are kept in the verdicts.
const EXCERPT_CHARS: usize = 300;

/// One judged header.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[ts(rename = "HeaderRow")]
pub(crate) struct VerdictRow {
    /// Header name as sent (or as it should have been sent).
    pub header: String,
    /// What the body says the value should be (decoded).
    pub expected: Option<String>,
    /// What was sent (decoded).
    pub sent: Option<String>,
    /// `ok`, `mismatch`, `missing`, `undeclared` or `unchecked`.
    #[ts(type = "Verdict")]
    pub verdict: &'static str,
    /// Why, when the verdict needs a reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
}

fn find<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn decoded(v: &str) -> String {
    decode_value(v).unwrap_or_else(|| v.to_string())
}

/// A row for an `Mcp-Param-*` header that was sent but has nothing to be judged against.
fn sent_only(
    header: &str,
    value: &str,
    verdict: &'static str,
    note: impl Into<String>,
) -> VerdictRow {
    VerdictRow {
        header: header.to_string(),
        expected: None,
        sent: Some(decoded(value)),
        verdict,
        note: Some(note.into()),
    }
}

fn row(header: &str, expected: Option<String>, sent: Option<String>) -> VerdictRow {
    let verdict = match (&expected, &sent) {
        (Some(e), Some(s)) if e == s => "ok",
        (Some(_), Some(_)) => "mismatch",
        (Some(_), None) => "missing",
        (None, Some(_)) => "undeclared",
        (None, None) => "ok",
    };
    VerdictRow {
        header: header.to_string(),
        expected,
        sent,
        verdict,
        note: None,
    }
}

/// Judge an outgoing request frame. `None` when the frame carries no cross-checked `Mcp-*`
/// header (legacy era, stdio), so the section stays hidden. `tools` maps tool names to the
/// `inputSchema` of the last `tools/list` seen on this connection.
pub(crate) fn judge(
    request_headers: &[(String, String)],
    message: &Value,
    tools: &HashMap<String, Value>,
) -> Option<HeaderVerdicts> {
    let cross_checked = request_headers.iter().any(|(k, _)| {
        let k = k.to_ascii_lowercase();
        k == "mcp-method" || k == "mcp-name" || k.starts_with("mcp-param-")
    });
    if !cross_checked {
        return None;
    }
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let params = message.get("params");
    let mut rows = Vec::new();
    rows.extend(protocol_version_row(request_headers, params));
    rows.push(row(
        "Mcp-Method",
        Some(method.to_string()).filter(|m| !m.is_empty()),
        find(request_headers, "mcp-method").map(str::to_string),
    ));
    rows.extend(name_row(request_headers, method, params));
    rows.extend(param_rows(request_headers, method, params, tools));
    let first_disagreement = first_disagreement(&rows);
    Some(HeaderVerdicts {
        request: request_headers.to_vec(),
        status: None,
        mirrored: Vec::new(),
        first_disagreement,
        rows,
        failed: false,
        transport_error: None,
        response_excerpt: None,
    })
}

/// `MCP-Protocol-Version` against the body's `_meta` protocol version; no row when the body
/// names none.
fn protocol_version_row(
    request_headers: &[(String, String)],
    params: Option<&Value>,
) -> Option<VerdictRow> {
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(era::META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .map(str::to_string)?;
    Some(row(
        "MCP-Protocol-Version",
        Some(body_version),
        find(request_headers, "mcp-protocol-version").map(str::to_string),
    ))
}

/// `Mcp-Name` against the method's name field (`params.name`, `params.uri`, `params.taskId`); for
/// a method without one, a row only when a name was sent anyway.
fn name_row(
    request_headers: &[(String, String)],
    method: &str,
    params: Option<&Value>,
) -> Option<VerdictRow> {
    let sent_name = find(request_headers, "mcp-name").map(decoded);
    match mcpscope_proto::method::name_field(method) {
        Some(field) => {
            let expected = params
                .and_then(|p| p.get(field))
                .and_then(Value::as_str)
                .map(str::to_string);
            let mut r = row("Mcp-Name", expected, sent_name);
            if r.verdict == "undeclared" {
                r.note = Some(format!("the body has no params.{field} to mirror"));
            }
            Some(r)
        }
        None if sent_name.is_some() => {
            let mut r = row("Mcp-Name", None, sent_name);
            r.note = Some(format!("{method} has no name to mirror"));
            Some(r)
        }
        None => None,
    }
}

/// The `Mcp-Param-*` rows: on `tools/call`, judged against the tool's `x-mcp-header`
/// annotations when this connection saw its schema (else "unchecked"); on any other method every
/// one sent is undeclared.
fn param_rows(
    request_headers: &[(String, String)],
    method: &str,
    params: Option<&Value>,
    tools: &HashMap<String, Value>,
) -> Vec<VerdictRow> {
    let sent_params: Vec<(&str, &str)> = request_headers
        .iter()
        .filter(|(k, _)| k.to_ascii_lowercase().starts_with("mcp-param-"))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let each_sent = |verdict, note: String| -> Vec<VerdictRow> {
        (sent_params.iter())
            .map(|(k, v)| sent_only(k, v, verdict, note.clone()))
            .collect()
    };
    if method != "tools/call" {
        return each_sent(
            "undeclared",
            format!("{method} has no tool parameters to mirror"),
        );
    }
    let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let Some(schema) = tool.and_then(|t| tools.get(t)) else {
        return each_sent("unchecked", "unchecked — tool schema unavailable".into());
    };
    match param_headers(schema) {
        Err(reason) => each_sent(
            "unchecked",
            format!("unchecked — the tool is excluded: {reason}"),
        ),
        Ok(declared) => {
            let args = params
                .and_then(|p| p.get("arguments"))
                .cloned()
                .unwrap_or(Value::Null);
            declared_param_rows(request_headers, &declared, &args, &sent_params)
        }
    }
}

/// The tool's declared param headers against the values its arguments give them, then every
/// `Mcp-Param-*` sent that the tool does not declare.
fn declared_param_rows(
    request_headers: &[(String, String)],
    declared: &[ParamHeader],
    args: &Value,
    sent_params: &[(&str, &str)],
) -> Vec<VerdictRow> {
    let mut rows = Vec::new();
    let expected = param_header_values(declared, args);
    for h in declared {
        let name = format!("Mcp-Param-{}", h.name);
        let exp = expected
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(&name))
            .map(|(_, v)| decoded(v));
        let sent = find(request_headers, &name).map(decoded);
        if exp.is_none() && sent.is_none() {
            continue;
        }
        let mut r = row(&name, exp, sent);
        if r.verdict == "undeclared" {
            // Declared, but the body has no value: the header should be absent.
            r.verdict = "mismatch";
            r.note = Some(format!(
                "the body has no value at arguments.{}",
                h.path.join(".")
            ));
        }
        rows.push(r);
    }
    for (k, v) in sent_params {
        let known = declared
            .iter()
            .any(|h| format!("mcp-param-{}", h.name).eq_ignore_ascii_case(k));
        if !known {
            rows.push(sent_only(
                k,
                v,
                "undeclared",
                "the tool declares no x-mcp-header for it",
            ));
        }
    }
    rows
}

fn first_disagreement(rows: &[VerdictRow]) -> Option<String> {
    rows.iter().find_map(|r| {
        let h = r.header.to_ascii_lowercase();
        match r.verdict {
            "mismatch" => Some(format!("{h} disagrees with the body")),
            "missing" => Some(format!("{h} was not sent")),
            "undeclared" if h.starts_with("mcp-param-") => {
                Some(format!("{h} names a parameter the tool never declared"))
            }
            "undeclared" => Some(format!("{h} was sent but the body has nothing to mirror")),
            _ => None,
        }
    })
}

/// Fill in the response of the exchange; a 4xx/5xx keeps the start of its (redacted) body, so
/// the view says what the server answered and not only that it failed.
pub(crate) fn answered(
    v: &mut HeaderVerdicts,
    status: u16,
    response_headers: &[(String, String)],
    body: &[u8],
) {
    v.status = Some(status);
    v.mirrored = response_headers
        .iter()
        .filter(|(k, _)| k.to_ascii_lowercase().starts_with("mcp-"))
        .cloned()
        .collect();
    v.failed = status >= 400;
    v.response_excerpt = v.failed.then(|| excerpt(body)).flatten();
}

/// The body's first [`EXCERPT_CHARS`] characters on one line, `…` when cut; none when empty.
fn excerpt(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(EXCERPT_CHARS * 4)];
    let text = String::from_utf8_lossy(head);
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return None;
    }
    let cut = line.chars().count() > EXCERPT_CHARS || head.len() < body.len();
    let kept: String = line.chars().take(EXCERPT_CHARS).collect();
    Some(if cut { format!("{kept}…") } else { kept })
}

/// The exchange failed at the transport level.
pub(crate) fn transport_failed(v: &mut HeaderVerdicts, error: &str) {
    v.failed = true;
    v.transport_error = Some(error.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn tools() -> HashMap<String, Value> {
        let mut t = HashMap::new();
        t.insert(
            "route".to_string(),
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer"}}}),
        );
        t
    }

    #[test]
    fn agreeing_headers_pass() {
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "route", "arguments": {"region": "Zürich"},
                        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let v = judge(
            &h(&[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "route"),
                ("Mcp-Param-Region", "=?base64?WsO8cmljaA==?="),
            ]),
            &msg,
            &tools(),
        )
        .unwrap();
        assert!(v.rows.iter().all(|r| r.verdict == "ok"), "{:?}", v.rows);
        assert_eq!(v.first_disagreement, None);
        assert_eq!(v.rows.last().unwrap().sent.as_deref(), Some("Zürich"));
    }

    #[test]
    fn disagreements_are_named_in_order() {
        let msg = json!({"method": "tools/call", "params": {"name": "route", "arguments": {"region": "eu"}}});
        let v = judge(
            &h(&[
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "other"),
                ("Mcp-Param-Zone", "x"),
            ]),
            &msg,
            &tools(),
        )
        .unwrap();
        assert_eq!(
            v.first_disagreement.as_deref(),
            Some("mcp-name disagrees with the body")
        );
        let verdicts: Vec<(&str, &str)> = v
            .rows
            .iter()
            .map(|r| (r.header.as_str(), r.verdict))
            .collect();
        assert_eq!(
            verdicts,
            vec![
                ("Mcp-Method", "ok"),
                ("Mcp-Name", "mismatch"),
                ("Mcp-Param-Region", "missing"),
                ("Mcp-Param-Zone", "undeclared"),
            ]
        );
    }

    #[test]
    fn unknown_schemas_are_unchecked_and_legacy_frames_have_no_section() {
        let msg = json!({"method": "tools/call", "params": {"name": "ghost", "arguments": {}}});
        let v = judge(
            &h(&[
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "ghost"),
                ("Mcp-Param-A", "1"),
            ]),
            &msg,
            &tools(),
        )
        .unwrap();
        let last = v.rows.last().unwrap();
        assert_eq!(last.verdict, "unchecked");
        assert_eq!(
            last.note.as_deref(),
            Some("unchecked — tool schema unavailable")
        );
        assert_eq!(v.first_disagreement, None);
        assert!(judge(&h(&[("Content-Type", "application/json")]), &msg, &tools()).is_none());
        let mut v = v;
        answered(
            &mut v,
            400,
            &h(&[("Mcp-Method", "tools/call"), ("content-type", "x")]),
            b"{\"error\":\n  \"bad header\"}",
        );
        assert!(v.failed);
        assert_eq!(v.mirrored.len(), 1);
        assert_eq!(
            v.response_excerpt.as_deref(),
            Some("{\"error\": \"bad header\"}")
        );
    }

    #[test]
    fn an_error_body_is_kept_short_and_a_success_body_not_at_all() {
        let long = "x".repeat(1000);
        let cut = excerpt(long.as_bytes()).unwrap();
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1, "{cut}");
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt(b"  \n "), None);
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let mut v = judge(&h(&[("Mcp-Method", "tools/list")]), &msg, &tools()).unwrap();
        answered(&mut v, 200, &[], b"{}");
        assert_eq!(v.response_excerpt, None);
    }
}
