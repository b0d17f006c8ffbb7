//! mcpscope-proto: what goes over the wire in the Model Context Protocol, for both eras, with no I/O.
//!
//! - [`Frame`]: bytes as they crossed the wire, recorded before anything parses them.
//! - [`classify`]: a lenient JSON-RPC classifier that names every odd message instead of dropping it.
//! - [`error_code`]: the one table of stable error codes (CLI stderr line, web API) and exit codes.
//! - [`era`]: legacy (2025-11-25) vs modern (2026-07-28) rules: `_meta` envelope, probe verdicts.
//! - [`method`]: every MCP method of both revisions as a type, with its list key, name field and era.
//! - [`headers`]: `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` mirroring and `x-mcp-header` validation.
//! - [`form`]: the form a view draws for a JSON Schema (tools, prompts, templates, elicitation).
//! - [`lint`] (feature `lint`): each message checked against the official `schema.json` of its revision.
//! - [`openable`]: the one rule for a server-supplied URL mcpscope may open or link (https:, http: on loopback).
//! - [`redact`]: credentials and secret values kept out of what is shown and stored.
//! - [`terminal`]: server text made safe for a terminal (escape sequences shown, never obeyed).
//! - [`tool_lint`] (feature `lint`): quality findings about the tools of a `tools/list`.
//!
//! ```
//! use mcpscope_proto::{classify, Classified};
//! let v = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}});
//! assert!(matches!(classify(&v), Classified::Response { .. }));
//! ```

pub mod era;
pub mod error_code;
pub mod form;
mod frame;
pub mod headers;
mod jsonrpc;
#[cfg(feature = "lint")]
pub mod lint;
pub mod method;
pub mod openable;
pub mod redact;
pub mod terminal;
#[cfg(feature = "lint")]
pub mod tool_lint;

pub use frame::{Direction, Frame, FrameKind, FrameMeta, now_us, rfc3339};
pub use jsonrpc::{
    Classified, RequestId, RpcError, classify, error_response, notification, parse_and_classify,
    request, response, salvage_id,
};
