//! How the CLI fails: the one JSON line on stderr and the exit code, both from the error-code
//! table in `mcpscope-proto`, and the words that make a failure actionable.

use crate::resolve::UsageError;
use mcpscope_client::{ClientError, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::method::{Kind, Method, Sender};
use serde_json::{Map, Value, json};

/// Exit codes, as in the official Inspector's CLI (the table lives in `mcpscope-proto`).
pub use mcpscope_proto::error_code::exit;

/// A failure with the fields of the stderr JSON line; its exit code follows from its code.
pub struct Failure {
    /// Machine-readable code (`usage`, `auth_required`, `unreachable`, `tool_error`, …).
    pub code: ErrorCode,
    /// Human message.
    pub message: String,
    /// Extra fields.
    pub extra: Map<String, Value>,
}

impl Failure {
    /// A failure with no extra fields.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// The process exit code.
    pub fn exit(&self) -> i32 {
        self.code.exit_code()
    }

    /// The one JSON line for stderr.
    pub fn json_line(&self) -> String {
        self.json_line_with(&[])
    }

    /// The JSON line with what the session warned about before it failed, beside `error` as a
    /// success document carries them (`warnings`, left out when there are none).
    pub fn json_line_with(&self, warnings: &[String]) -> String {
        let mut e = Map::new();
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        e.extend(self.extra.clone());
        let mut doc = json!({"error": e});
        if !warnings.is_empty() {
            doc["warnings"] = json!(warnings);
        }
        doc.to_string()
    }
}

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Failure {
        Failure::new(ErrorCode::Usage, e.0)
    }
}

/// An engine error as the CLI reports it, with the engine's one code: a JSON-RPC error is
/// `rpc_error` (exit 1) whatever the method, as the official Inspector's CLI; a tool that fails
/// says so in its result (`isError`, exit 5), and a tool that does not exist is named by
/// [`unknown_tool`].
pub(super) fn failure(e: &ClientError) -> Failure {
    Failure {
        code: e.code(),
        message: e.to_string(),
        extra: e.error_fields(),
    }
}

/// A failed connection to `label`. The handshake failed, not the method asked for: a refused
/// `initialize` or `server/discover` is a failed connection (exit 4), never a tool error.
pub(super) fn connect_failure(e: &ClientError, label: &str) -> Failure {
    let mut f = failure(e);
    if matches!(e, ClientError::Rpc { .. }) {
        f.code = ErrorCode::HandshakeRefused;
    }
    f.message = format!("cannot connect to {label}: {}", f.message);
    if let Some(hint) = not_an_mcp_path(&f, label) {
        f.message.push_str(&hint);
    }
    f
}

/// A 404 from a URL that does not end in `/mcp` or `/sse` is most likely the server's root, not
/// its MCP endpoint: say where MCP servers usually listen.
fn not_an_mcp_path(f: &Failure, label: &str) -> Option<String> {
    if f.extra.get("status") != Some(&json!(404)) {
        return None;
    }
    let mut url = url::Url::parse(label).ok()?;
    let path = url.path().trim_end_matches('/').to_string();
    if path.ends_with("/mcp") || path.ends_with("/sse") {
        return None;
    }
    let mut try_at = |end: &str| {
        url.set_path(&format!("{path}/{end}"));
        url.to_string()
    };
    let (mcp, sse) = (try_at("mcp"), try_at("sse"));
    Some(format!(
        "; nothing answers MCP at this path: servers usually listen on /mcp (Streamable HTTP) or /sse (HTTP+SSE); try {mcp} or {sse}"
    ))
}

/// A method that is not MCP's, refused by the server as unknown (-32601), is most likely a typo:
/// say so, with the nearest MCP method and the list, instead of blaming the server.
pub(super) fn explain_unknown_method(mut f: Failure, method: &str) -> Failure {
    if f.extra.get("rpcCode") != Some(&json!(mcpscope_proto::era::METHOD_NOT_FOUND))
        || Method::from_name(method).is_some()
    {
        return f;
    }
    let known: Vec<&str> = Method::ALL
        .iter()
        .map(|m| m.row())
        .filter(|r| r.kind == Kind::Request && r.sender != Sender::Server)
        .map(|r| r.name)
        .collect();
    let nearest = known
        .iter()
        .map(|k| (edit_distance(method, k), *k))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, k)| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    f.code = ErrorCode::Usage;
    f.message = format!(
        "unknown method `{method}` (the server answered -32601, method not found){nearest} MCP's client methods: {}",
        known.join(", ")
    );
    f
}

/// The tool `name` when the server does not list it: "no tool named X; the server has: …" (exit
/// 5, as the official Inspector's "failed or does not exist"), so a typo is not read as the tool
/// failing. `None` when the tool is listed, or the list cannot be had.
pub(super) async fn unknown_tool(session: &Session, name: &str) -> Option<Failure> {
    let listing = session
        .list_all(Method::ToolsList.name(), "tools", None)
        .await
        .ok()?;
    let names: Vec<&str> = listing.result["tools"]
        .as_array()?
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    if names.contains(&name) {
        return None;
    }
    let nearest = names
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    let has = if names.is_empty() {
        "no tools at all".to_string()
    } else {
        names.join(", ")
    };
    Some(Failure::new(
        ErrorCode::ToolError,
        format!("no tool named `{name}`{nearest}; the server has: {has}"),
    ))
}

/// Levenshtein distance in characters, for "did you mean" (short names only: a method or tool
/// name, so the quadratic cost is nothing).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A server that advertises a capability and then answers its methods with -32601 breaks its own
/// promise. Say so: "method not found" alone reads like a typo on the user's side.
pub(super) fn explain_unserved(mut f: Failure, session: &Session, method: &str) -> Failure {
    if f.extra.get("rpcCode") != Some(&json!(mcpscope_proto::era::METHOD_NOT_FOUND)) {
        return f;
    }
    if let Some(words) = removed_in_modern(method, session.era()) {
        f.code = ErrorCode::Usage;
        f.message = words;
        return f;
    }
    let Some((capability, pointer)) = capability_of(method, session.era()) else {
        return f;
    };
    let advertised = session.server_info().is_some_and(|i| {
        i.capabilities
            .pointer(pointer)
            .is_some_and(|v| !v.is_null() && *v != json!(false))
    });
    if advertised {
        f.message.push_str(&format!(
            "; the server advertised the {capability:?} capability, so not serving {method} is a server bug"
        ));
        f.extra
            .insert("advertisedCapability".into(), json!(capability));
    }
    f
}

/// A 2025-11-25 method sent on a 2026-07-28 connection, which removed it (`--protocol-era auto`
/// picks modern on a server that speaks both): the server is right to refuse it, so say what to
/// pass instead of "method not found".
fn removed_in_modern(method: &str, era: Era) -> Option<String> {
    let m = Method::from_name(method)?;
    if era != Era::Modern || m.in_era(Era::Modern) || !m.in_era(Era::Legacy) {
        return None;
    }
    let instead = match m {
        Method::LoggingSetLevel => {
            "; a 2026-07-28 level travels in each request's _meta: pass --log-level with the method you run, or --protocol-era legacy"
        }
        _ => "; pass --protocol-era legacy to send it to a 2025-11-25 session",
    };
    Some(format!(
        "`{method}` is not a method of 2026-07-28, the revision this connection speaks (it was removed; the server answered -32601, method not found){instead}"
    ))
}

/// The server capability that promises `method` in `era` (its name and where it sits in the
/// capabilities object), for the methods that have one.
fn capability_of(method: &str, era: Era) -> Option<(&'static str, &'static str)> {
    use Method as M;
    match Method::from_name(method)? {
        // 2026-07-28 removed these: a modern server that does not know them is right, whatever
        // it advertises (its `logging` means the per-request `_meta` level).
        m if era == Era::Modern && !m.in_era(Era::Modern) => None,
        M::LoggingSetLevel => Some(("logging", "/logging")),
        M::CompletionComplete => Some(("completions", "/completions")),
        // Subscriptions have a capability of their own; `resources` alone does not promise them.
        M::ResourcesSubscribe | M::ResourcesUnsubscribe => {
            Some(("resources.subscribe", "/resources/subscribe"))
        }
        M::ToolsList | M::ToolsCall => Some(("tools", "/tools")),
        M::ResourcesList | M::ResourcesTemplatesList | M::ResourcesRead => {
            Some(("resources", "/resources"))
        }
        M::PromptsList | M::PromptsGet => Some(("prompts", "/prompts")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_line_is_one_json_object() {
        let f = Failure::new(ErrorCode::Unreachable, "boom");
        let v: Value = serde_json::from_str(&f.json_line()).unwrap();
        assert_eq!(v["error"]["code"], "unreachable");
        assert_eq!(f.exit(), 4);
    }

    #[test]
    fn a_typo_of_a_method_is_named_with_the_nearest_one() {
        let mut f = Failure::new(ErrorCode::RpcError, "tools/lst failed");
        f.extra.insert("rpcCode".into(), json!(-32601));
        let f = explain_unknown_method(f, "tools/lst");
        assert_eq!(f.code, ErrorCode::Usage);
        assert!(
            f.message
                .starts_with("unknown method `tools/lst` (the server answered -32601, method not found); did you mean `tools/list`?"),
            "{}",
            f.message
        );
        assert!(f.message.contains("prompts/get"), "{}", f.message);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_404_off_the_mcp_path_says_where_to_look() {
        let mut f = Failure::new(ErrorCode::Unreachable, "x");
        f.extra.insert("status".into(), json!(404));
        let hint = not_an_mcp_path(&f, "http://127.0.0.1:3000/").unwrap();
        assert!(
            hint.contains("try http://127.0.0.1:3000/mcp or http://127.0.0.1:3000/sse"),
            "{hint}"
        );
        assert_eq!(not_an_mcp_path(&f, "http://127.0.0.1:3000/mcp"), None);
    }

    #[test]
    fn capabilities_that_promise_a_method() {
        assert_eq!(
            capability_of("tools/call", Era::Legacy),
            Some(("tools", "/tools"))
        );
        assert_eq!(
            capability_of("resources/subscribe", Era::Legacy),
            Some(("resources.subscribe", "/resources/subscribe"))
        );
        // Removed in 2026-07-28, so a modern server is right not to serve it.
        assert_eq!(capability_of("logging/setLevel", Era::Modern), None);
        assert_eq!(capability_of("ping", Era::Legacy), None);
        assert_eq!(capability_of("x/custom", Era::Legacy), None);
    }
}
