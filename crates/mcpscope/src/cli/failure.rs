//! How the CLI fails: the one JSON line on stderr and the exit code, both from the error-code
//! table in `mcpscope-proto`, and the words that make a failure actionable.

use crate::resolve::UsageError;
use mcpscope_client::{ClientError, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::method::Method;
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
        let mut e = Map::new();
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        e.extend(self.extra.clone());
        json!({"error": e}).to_string()
    }
}

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Failure {
        Failure::new(ErrorCode::Usage, e.0)
    }
}

/// An engine error as the CLI reports it: the engine's one code, except that a JSON-RPC error
/// to `tools/call` is a tool error (exit 5: the official Inspector's "failed or does not exist").
pub(super) fn failure(e: &ClientError, method: &str) -> Failure {
    let code = match e.code() {
        ErrorCode::RpcError if method == Method::ToolsCall => ErrorCode::ToolError,
        code => code,
    };
    Failure {
        code,
        message: e.to_string(),
        extra: e.error_fields(),
    }
}

/// A failed connection to `label`. The handshake failed, not the method asked for: a refused
/// `initialize` or `server/discover` is a failed connection (exit 4), never a tool error.
pub(super) fn connect_failure(e: &ClientError, label: &str) -> Failure {
    let mut f = failure(e, Method::Initialize.name());
    if matches!(e, ClientError::Rpc { .. }) {
        f.code = ErrorCode::HandshakeRefused;
    }
    f.message = format!("cannot connect to {label}: {}", f.message);
    f
}

/// A server that advertises a capability and then answers its methods with -32601 breaks its own
/// promise. Say so: "method not found" alone reads like a typo on the user's side.
pub(super) fn explain_unserved(mut f: Failure, session: &Session, method: &str) -> Failure {
    if f.extra.get("rpcCode") != Some(&json!(mcpscope_proto::era::METHOD_NOT_FOUND)) {
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
