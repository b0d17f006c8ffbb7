//! Just enough JSON-RPC for fixtures: read a line into a request, notification or something else,
//! and build the envelopes we answer with. Deliberately separate from `mcpscope-proto` so the
//! fixtures are an independent implementation — a bug shared by both would otherwise pass.

use serde_json::{Value, json};

/// JSON-RPC parse error.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC method not found; MCP also uses it for "capability not advertised".
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC invalid params: unknown tool, bad cursor, missing modern `_meta`.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// 2026-07-28 `MissingRequiredClientCapability`.
pub(crate) const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28 `UnsupportedProtocolVersion`.
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// One line (or HTTP body) from the client, sorted by shape.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// Has `method` and `id`: must be answered (or, in some modes, pointedly not).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// Has `method` and no `id`.
    Notification { method: String, params: Value },
    /// Valid JSON that is neither: a response to a server→client request (we send none) or junk.
    Other,
    /// Not JSON at all.
    Unparsable,
}

/// Sort one message. A trailing `\r` is tolerated because clients on Windows send CRLF.
pub(crate) fn classify(bytes: &[u8]) -> Incoming {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Incoming::Unparsable;
    };
    let Some(method) = value.get("method").and_then(Value::as_str) else {
        return Incoming::Other;
    };
    let method = method.to_owned();
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    match value.get("id") {
        Some(id) => Incoming::Request {
            id: id.clone(),
            method,
            params,
        },
        None => Incoming::Notification { method, params },
    }
}

/// A success response.
pub(crate) fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response; `data` is left out when `None`.
pub(crate) fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// A notification.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A `CallToolResult` with one text block.
pub(crate) fn text_content(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A legacy `InitializeResult`. `server` becomes `serverInfo.name`, so traffic logs say which
/// fixture answered.
pub(crate) fn initialize_result(
    protocol_version: &str,
    capabilities: Value,
    server: &str,
) -> Value {
    json!({
        "protocolVersion": protocol_version,
        "capabilities": capabilities,
        "serverInfo": {"name": server, "version": env!("CARGO_PKG_VERSION")}
    })
}

/// The `echo` tool every well-behaved-enough fixture offers.
pub(crate) fn echo_tool() -> Value {
    json!({
        "name": "echo",
        "description": "Returns its `text` argument.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo back."}},
            "required": ["text"]
        }
    })
}

/// Answer `tools/call echo`: the `text` argument back, or a tool error (not a JSON-RPC error,
/// per SEP-1303) when it is missing.
pub(crate) fn call_echo(params: &Value) -> Value {
    match params.pointer("/arguments/text").and_then(Value::as_str) {
        Some(text) => text_content(text),
        None => json!({
            "content": [{"type": "text", "text": "echo needs a string argument `text`"}],
            "isError": true
        }),
    }
}

/// The JSON form of a request id as it appears in our stderr lines, so `3` and `"3"` stay
/// distinguishable: an inspector that changes an id's type is exactly the bug we want to see.
pub(crate) fn id_text(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_sorts_by_shape() {
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Incoming::Request { .. }
        ));
        assert!(matches!(
            classify(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r"),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::Other
        ));
        assert!(matches!(classify(b"\xff\xfe"), Incoming::Unparsable));
    }
}
