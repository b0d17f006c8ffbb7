//! What a view asks the core to send ([`Call`]) and what it gets back ([`CallOutcome`]).

use crate::error::Error;
use serde_json::{Map, Value};
use std::time::Duration;

/// History entries carry results cut to this many bytes (`truncated: true`).
pub const RESULT_CAP: usize = 256 << 10;

/// What a view asks to send.
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// The JSON-RPC method.
    pub method: String,
    /// Its params (an object).
    pub params: Option<Value>,
    /// The view's id for the request (to cancel it); `None`: a fresh one.
    pub request_id: Option<String>,
    /// Ask for progress notifications (a `progressToken`).
    pub progress: bool,
    /// Extra `_meta` fields.
    pub meta: Map<String, Value>,
    /// `None`: the server's default timeout; `Some(None)`: none; `Some(Some(d))`: `d`.
    pub timeout: Option<Option<Duration>>,
    /// List calls: walk every page, merging the arrays under this key.
    pub pages: Option<String>,
    /// The app tool whose app sent this request (MCP Apps: its host proxies it), `None` for a
    /// view's own request. The visibility rules depend on it (`apps::refusal`).
    pub app: Option<String>,
}

/// The outcome of a call: the history entry and the result or the error.
#[derive(Debug)]
pub struct CallOutcome {
    /// The history entry of the request.
    pub history_id: i64,
    /// The result (secrets redacted), or why there is none.
    pub result: Result<Value, Error>,
    /// `tools/list` only: the tools the engine left out of its tool cache, with the reason.
    pub excluded_tools: Option<Vec<(String, String)>>,
    /// A list walked page by page that stopped before the server said it had ended (a repeated
    /// cursor, the page limit): `{pages, stop: {reason, …, message}}`, as the CLI's
    /// `--format json` says it. `None` when the list ended, or was not walked.
    pub pagination: Option<Value>,
    /// `tools/list` only: the quality findings of the tools it answered, under the rules of the
    /// era it was answered in (the tools' badges).
    pub tool_lint: Option<mcpscope_proto::tool_lint::ToolLint>,
}
