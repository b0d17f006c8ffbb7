//! JSON-RPC 2.0 envelope: classify a parsed value without rejecting anything.
//!
//! A server may send anything. `classify` names what arrived — request, notification,
//! response, error response, batch, or invalid with the reason — and keeps the original value so
//! views can show it exactly as received. Building outgoing messages lives here too, so that what
//! we send is always well-formed.

use serde_json::{Map, Value, json};
use std::fmt;

/// A JSON-RPC id as it appeared on the wire (string or number; kept exact for echoing back).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// Read an id from a JSON value; `None` for null, floats, objects and the like.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            Value::String(s) => Some(RequestId::String(s.clone())),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => json!(n),
            RequestId::String(s) => json!(s),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error object, leniently read.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// `error.code` (0 when missing or not an integer).
    pub code: i64,
    /// `error.message` (empty when missing).
    pub message: String,
    /// `error.data`, if any.
    pub data: Option<Value>,
}

impl RpcError {
    /// Read an error object leniently.
    pub fn from_value(v: &Value) -> RpcError {
        RpcError {
            code: v.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: v
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            data: v.get("data").cloned(),
        }
    }

    /// The error object as JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// What one parsed message is. Payloads (`params`, `result`) stay in the message value, so a
/// 100 MB result is never copied to be classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Classified {
    /// Has `method` and an `id`.
    Request {
        /// The id.
        id: RequestId,
        /// The method name.
        method: String,
    },
    /// Has `method` and no `id`.
    Notification {
        /// The method name.
        method: String,
    },
    /// Has `result`.
    Response {
        /// The id.
        id: RequestId,
    },
    /// Has `error`.
    ErrorResponse {
        /// The id; `None` when the server could not read the request id (JSON-RPC allows null).
        id: Option<RequestId>,
        /// The error.
        error: RpcError,
    },
    /// A JSON array (JSON-RPC batch; MCP forbids batching in both revisions), with its length.
    Batch(usize),
    /// Not a JSON-RPC 2.0 message; the reason says why.
    Invalid(String),
}

impl Classified {
    /// A short name for display: request, notification, response, error, batch, invalid.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Classified::Request { .. } => "request",
            Classified::Notification { .. } => "notification",
            Classified::Response { .. } => "response",
            Classified::ErrorResponse { .. } => "error",
            Classified::Batch(_) => "batch",
            Classified::Invalid(_) => "invalid",
        }
    }
}

/// Classify a parsed JSON value as a JSON-RPC message. Never fails: anything odd is `Invalid`.
pub fn classify(v: &Value) -> Classified {
    let obj = match v {
        Value::Object(o) => o,
        Value::Array(items) => return Classified::Batch(items.len()),
        other => {
            return Classified::Invalid(format!(
                "a JSON-RPC message must be an object, got {}",
                json_type(other)
            ));
        }
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Classified::Invalid(r#"missing "jsonrpc": "2.0""#.into());
    }
    let id = obj.get("id");
    if let Some(method) = obj.get("method") {
        let Some(method) = method.as_str() else {
            return Classified::Invalid(r#""method" is not a string"#.into());
        };
        if let Some(p) = obj.get("params")
            && !(p.is_object() || p.is_array())
        {
            return Classified::Invalid(format!(
                r#""params" of {method} must be an object, got {}"#,
                json_type(p)
            ));
        }
        return match id {
            None => Classified::Notification {
                method: method.to_string(),
            },
            Some(idv) => match RequestId::from_value(idv) {
                Some(id) => Classified::Request {
                    id,
                    method: method.to_string(),
                },
                None => Classified::Invalid(format!(
                    "request {method} has an id that is not a string or integer: {idv}"
                )),
            },
        };
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Classified::Invalid(r#"has both "result" and "error""#.into()),
        (Some(_), None) => match id.and_then(RequestId::from_value) {
            Some(id) => Classified::Response { id },
            None => Classified::Invalid("response without a usable id".into()),
        },
        (None, Some(error)) => {
            if !error.is_object() {
                return Classified::Invalid(r#""error" is not an object"#.into());
            }
            Classified::ErrorResponse {
                id: id.and_then(RequestId::from_value),
                error: RpcError::from_value(error),
            }
        }
        (None, None) => {
            Classified::Invalid(r#"neither "method", "result" nor "error" is present"#.into())
        }
    }
}

/// Parse bytes and classify. A parse failure is `Invalid` with serde's message, plus hints for the
/// usual suspects (a byte-order mark, a carriage return, an empty line).
pub fn parse_and_classify(bytes: &[u8]) -> (Option<Value>, Classified) {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => {
            let c = classify(&v);
            (Some(v), c)
        }
        Err(e) => (None, Classified::Invalid(describe_parse_error(bytes, &e))),
    }
}

/// The `id` of a message that does not parse (nested too deep, not UTF-8), read from its
/// top-level object without parsing anything else, so the request it answers can fail at once
/// instead of waiting for its timeout. One pass, no recursion, whatever the nesting. `None` when
/// the bytes are not an object with a top-level `"id"` that is an integer or a plain string.
pub fn salvage_id(bytes: &[u8]) -> Option<RequestId> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' {
        return None;
    }
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 1 && &bytes[i + 1..end] == b"id" {
                    let colon = skip_space(bytes, end + 1);
                    if bytes.get(colon) == Some(&b':') {
                        return id_value(&bytes[skip_space(bytes, colon + 1)..]);
                    }
                }
                i = end;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote that closes the string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut j = open + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// An id at the start of `rest`: an integer, or a string without escapes.
fn id_value(rest: &[u8]) -> Option<RequestId> {
    if rest.first() == Some(&b'"') {
        let end = string_end(rest, 0)?;
        let text = std::str::from_utf8(&rest[1..end]).ok()?;
        return (!text.contains('\\')).then(|| RequestId::String(text.to_string()));
    }
    let len = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(rest.len());
    std::str::from_utf8(&rest[..len])
        .ok()?
        .parse()
        .ok()
        .map(RequestId::Number)
}

fn describe_parse_error(bytes: &[u8], e: &serde_json::Error) -> String {
    if bytes.is_empty() {
        return "empty line".into();
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return format!("line starts with a UTF-8 byte-order mark: {e}");
    }
    if bytes.ends_with(b"\r") {
        return format!("line ends with a carriage return (CRLF line ending): {e}");
    }
    if std::str::from_utf8(bytes).is_err() {
        return format!("not valid UTF-8: {e}");
    }
    if e.is_eof() {
        return format!("truncated JSON: {e}");
    }
    if e.to_string().contains("recursion limit") {
        return format!("nested deeper than the 128 levels mcpscope reads: {e}");
    }
    format!("not JSON: {e}")
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Build a request object.
pub fn request(id: &RequestId, method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("id".into(), id.to_value());
    m.insert("method".into(), json!(method));
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// Build a notification object.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("method".into(), json!(method));
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// Build a success response.
pub fn response(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
}

/// Build an error response.
pub fn error_response(id: &RequestId, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "error": error.to_value()})
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn an_unreadable_answer_still_names_its_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let body = format!(r#"{{"jsonrpc":"2.0","result":{{"x":{deep},"s":"a \" id"}},"id":7}}"#);
        let (m, c) = parse_and_classify(body.as_bytes());
        assert!(m.is_none());
        assert!(
            matches!(&c, Classified::Invalid(r) if r.contains("nested deeper")),
            "{c:?}"
        );
        assert_eq!(salvage_id(body.as_bytes()), Some(RequestId::Number(7)));
        let bad_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\": \"req-1\",\"result\":{\"t\":\"\xff\"}}";
        assert_eq!(
            salvage_id(bad_utf8),
            Some(RequestId::String("req-1".into()))
        );
        // Only a top-level "id" counts; none, or one that is not an id, is no id.
        assert_eq!(salvage_id(br#"{"result":{"id":3}}"#), None);
        assert_eq!(salvage_id(br#"{"method":"id","x":1}"#), None);
        assert_eq!(salvage_id(br#"{"id":null}"#), None);
        assert_eq!(salvage_id(br#"[{"id":1}]"#), None);
        assert_eq!(salvage_id(b"{\"id\":"), None);
    }

    #[test]
    fn classifies_each_shape() {
        let c = |s: &str| parse_and_classify(s.as_bytes()).1;
        assert!(matches!(
            c(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Classified::Request {
                id: RequestId::Number(1),
                ..
            }
        ));
        assert!(matches!(
            c(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#),
            Classified::Notification { .. }
        ));
        assert!(matches!(
            c(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Classified::Response {
                id: RequestId::String(_),
                ..
            }
        ));
        assert!(matches!(
            c(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            Classified::ErrorResponse { id: None, .. }
        ));
        assert!(matches!(c("[1,2]"), Classified::Batch(_)));
        assert!(matches!(
            c(r#"{"id":1,"result":{}}"#),
            Classified::Invalid(_)
        ));
        assert!(matches!(
            c(r#"{"jsonrpc":"2.0","method":"x","params":"s"}"#),
            Classified::Invalid(_)
        ));
    }

    #[test]
    fn names_the_usual_parse_failures() {
        let reason = |b: &[u8]| match parse_and_classify(b).1 {
            Classified::Invalid(r) => r,
            other => panic!("{other:?}"),
        };
        assert!(reason(b"\xEF\xBB\xBF{}").contains("byte-order mark"));
        // CRLF is JSON whitespace: the message is accepted (the engine warns about the line ending).
        assert!(matches!(
            parse_and_classify(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r").1,
            Classified::Notification { .. }
        ));
        assert!(reason(b"{\"a\":\r").contains("carriage return"));
        assert!(reason(b"{\"jsonrpc\":\"2.0\",").contains("truncated"));
        assert!(reason(b"Server started on port 3000").contains("not JSON"));
        assert!(reason(b"\xff\xfe\x00").contains("UTF-8"));
    }
}
