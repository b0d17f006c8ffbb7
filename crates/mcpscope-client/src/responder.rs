//! The `Responder`: how a view answers what the server asks of the client.
//!
//! Legacy servers send JSON-RPC requests (`sampling/createMessage`, `elicitation/create`,
//! `roots/list`); modern servers return `input_required` results whose `inputRequests` carry the
//! same methods and params. Both arrive here as one [`ServerRequest`], so a view writes its
//! dialogs once. The CLI's responder is chosen by flags; the web UI's shows dialogs.

use futures::future::BoxFuture;
use mcpscope_proto::era::Era;
use mcpscope_proto::method::Method;
use mcpscope_proto::{RequestId, RpcError};
use serde_json::{Value, json};

/// Where a server request came from.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestOrigin {
    /// A legacy JSON-RPC request from the server.
    Legacy {
        /// The server's request id.
        id: RequestId,
    },
    /// One entry of a modern `input_required` result (or a task's `inputRequests`).
    InputRequired {
        /// The server-assigned key in `inputRequests`.
        key: String,
        /// Which round of the original request this is (1-based).
        round: usize,
        /// How many entries this round's `inputRequests` holds (a view may walk them as one
        /// dialog: they are all asked at once, and the retry waits for every answer).
        keys: usize,
        /// The most rounds the engine answers before it gives up
        /// ([`ClientOptions::max_input_rounds`](crate::ClientOptions)).
        max_rounds: usize,
        /// The method of the request that needs the input.
        for_method: String,
    },
}

/// Something the server asks the client to do.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRequest {
    /// `sampling/createMessage`, `elicitation/create`, `roots/list` (or anything else a server sends).
    pub method: String,
    /// The request's params (`{}` when absent).
    pub params: Value,
    /// Where it came from.
    pub origin: RequestOrigin,
}

/// Answers server requests. Implemented by each view.
pub trait Responder: Send + Sync + 'static {
    /// The client capabilities to declare in this era (legacy `initialize`, modern `_meta`).
    fn capabilities(&self, era: Era) -> Value;
    /// Answer one request: `Ok(result)` or `Err(error)` for a JSON-RPC error.
    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>>;
}

/// Declines everything: elicitation → `decline`, sampling → an error, roots → none.
#[derive(Debug, Clone, Default)]
pub struct DeclineAll;

/// The capabilities mcpscope declares: everything a client can answer, so servers show all of their
/// features (the answer may still be a decline). MCP Apps (`io.modelcontextprotocol/ui`) are
/// declared in both eras, as the views that can render an app (the web UI) and show its metadata
/// (the TUI) need; a view that renders nothing takes them out ([`without_apps`]: the CLI unless
/// `--advertise-apps`).
pub fn full_capabilities(era: Era) -> Value {
    use mcpscope_proto::era::{APP_MIME, APPS_EXTENSION, TASKS_EXTENSION};
    let apps = json!({"mimeTypes": [APP_MIME]});
    match era {
        Era::Legacy => json!({
            "roots": {"listChanged": true},
            "sampling": {},
            "elicitation": {"form": {}, "url": {}},
            "extensions": {APPS_EXTENSION: apps},
        }),
        Era::Modern => json!({
            "roots": {},
            "sampling": {},
            "elicitation": {"form": {}, "url": {}},
            "extensions": {TASKS_EXTENSION: {}, APPS_EXTENSION: apps},
        }),
    }
}

/// `caps` without the MCP Apps extension (and without an `extensions` object it leaves empty):
/// what a client that cannot render an app declares, so servers fall back to text-only tools.
pub fn without_apps(mut caps: Value) -> Value {
    if let Some(obj) = caps.as_object_mut() {
        let emptied = match obj.get_mut("extensions").and_then(Value::as_object_mut) {
            Some(ext) => {
                ext.remove(mcpscope_proto::era::APPS_EXTENSION);
                ext.is_empty()
            }
            None => false,
        };
        if emptied {
            obj.remove("extensions");
        }
    }
    caps
}

impl Responder for DeclineAll {
    fn capabilities(&self, era: Era) -> Value {
        full_capabilities(era)
    }

    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>> {
        Box::pin(async move { decline(&request.method) })
    }
}

/// The declining answer for a method: elicitation `decline`, sampling an error (code -1, as the
/// spec's examples use for a user rejection), roots an empty list, anything else method-not-found.
pub fn decline(method: &str) -> Result<Value, RpcError> {
    match Method::from_name(method) {
        Some(Method::ElicitationCreate) => Ok(json!({"action": "decline"})),
        Some(Method::RootsList) => Ok(json!({"roots": []})),
        Some(Method::SamplingCreateMessage) => Err(RpcError {
            code: -1,
            // Every view's refusal (the CLI without --sampling-text, the web card's Reject, a
            // Testing Profile's reject): no view's own vocabulary in what the server receives.
            message: "User rejected sampling request".into(),
            data: None,
        }),
        Some(Method::Ping) => Ok(json!({})),
        _ => Err(RpcError {
            code: -32601,
            message: format!("Method not found: {method}"),
            data: None,
        }),
    }
}
