//! The one table of stable error codes: what the CLI's stderr JSON line and the web API's
//! `{"error": {"code", …}}` say, and the CLI's exit code for each.
//!
//! Scripts, CI jobs and the SPA switch on these strings, so they never change meaning. Every view
//! takes its code from here; the mapping from an engine error to a code is written once, as
//! `mcpscope_client::ClientError::code()`. What is *not* here: the HTTP status of each code,
//! which belongs to the web adapter (`mcpscope-server`), since proto knows nothing of HTTP views.
//!
//! How a view uses it:
//!
//! - The CLI prints `{"error": {"code": code.code(), …}}` and exits with [`ErrorCode::exit_code`].
//! - The web API keeps an `ErrorCode` in its error type, serialises it with serde (it is the code
//!   string), takes it from `ClientError::code()` for a failed request or connection, and picks its
//!   HTTP status by matching on the enum (so a new code is a compile error there, not a silent 500).
//!
//! ```
//! use mcpscope_proto::error_code::ErrorCode;
//! assert_eq!(ErrorCode::AuthRequired.code(), "auth_required");
//! assert_eq!(ErrorCode::AuthRequired.exit_code(), 3);
//! assert_eq!(serde_json::to_value(ErrorCode::InputRefused).unwrap(), "input_refused");
//! assert_eq!("timeout".parse::<ErrorCode>(), Ok(ErrorCode::Timeout));
//! ```

use serde::{Deserialize, Serialize};

/// The CLI's exit codes, as in the official Inspector's CLI (README "Exit codes", docs/anchors.md).
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// Usage error, or the server answered with a JSON-RPC error.
    pub const USAGE: i32 = 1;
    /// `--app-info`: the tool has no MCP App (no `ui://` resource).
    pub const NO_APP: i32 = 2;
    /// The server requires authorization.
    pub const AUTH: i32 = 3;
    /// Unreachable, connection failed, or timed out.
    pub const UNREACHABLE: i32 = 4;
    /// The tool failed (`isError: true`) or does not exist.
    pub const TOOL_ERROR: i32 = 5;
    /// `--lint` found an invalid frame.
    pub const LINT: i32 = 6;
    /// Interrupted (Ctrl-C).
    pub const INTERRUPTED: i32 = 130;
}

/// Every stable error code. Serialises as its [`code`](ErrorCode::code) string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request itself is wrong: flags, parameters, a refused body.
    Usage,
    /// The named server, entry or resource of the inspector does not exist.
    NotFound,
    /// The server cannot be reached or the connection broke.
    Unreachable,
    /// No answer (or progress) within the timeout: the server is slow or silent, not gone.
    Timeout,
    /// The MCP server wants authorization (OAuth), or refused what we had.
    AuthRequired,
    /// The server answered with a JSON-RPC error (`rpcCode`, `data` alongside).
    RpcError,
    /// The tool failed (`isError: true`), or, in the CLI, it does not exist (the official
    /// Inspector's exit 5: "failed or does not exist"; the error lists the server's tools). A
    /// JSON-RPC error to `tools/call` for a tool that exists is an `RpcError` (exit 1).
    ToolError,
    /// The handshake (`initialize` / `server/discover`) was answered with a JSON-RPC error.
    HandshakeRefused,
    /// The request was cancelled on purpose (by the user or the caller).
    Cancelled,
    /// The CLI was interrupted (Ctrl-C) while connecting or waiting.
    Interrupted,
    /// The server ended the request itself with `notifications/cancelled`.
    ServerCancelled,
    /// The server asked for input (`input_required` or a server→client request) and it was
    /// declined, so the request stopped.
    InputRefused,
    /// `input_required` rounds exceeded the limit (`--max-input-rounds`).
    InputRoundsExceeded,
    /// The server broke a protocol rule we cannot work around.
    ProtocolError,
    /// `--lint` found frames invalid against the official schema.
    LintFailed,
    /// The secret store (keyring or encrypted file) could not be opened or read.
    SecretStore,
    /// The result could not be written (stdout, `--output`).
    OutputFailed,
    /// The web API: the state does not allow it (a name taken, a request id in flight).
    Conflict,
    /// The web API: the inspector's own token is missing or wrong (not the MCP server's OAuth).
    Unauthorized,
    /// The web API: refused by a security check (Host, Origin, Sec-Fetch-Site).
    Forbidden,
    /// A fault of the inspector itself (storage, a failed task).
    Internal,
    /// MCP Apps: a `tools/call` refused by the tool's `_meta.ui.visibility` (an app-only tool
    /// called from a view, a model-only tool called by an app).
    ToolNotVisible,
    /// MCP Apps: the app's UI resource, or what an app asked, was refused (not HTML, missing,
    /// too big, a bad CSP domain, a method an app may not send).
    AppRefused,
    /// MCP Apps: the tool has no app (no `ui://` resource); the CLI's `--app-info` exits 2.
    NoApp,
}

impl ErrorCode {
    /// Every code, in the order of the enum (for docs and tests).
    pub const ALL: [ErrorCode; 24] = [
        ErrorCode::Usage,
        ErrorCode::NotFound,
        ErrorCode::Unreachable,
        ErrorCode::Timeout,
        ErrorCode::AuthRequired,
        ErrorCode::RpcError,
        ErrorCode::ToolError,
        ErrorCode::HandshakeRefused,
        ErrorCode::Cancelled,
        ErrorCode::Interrupted,
        ErrorCode::ServerCancelled,
        ErrorCode::InputRefused,
        ErrorCode::InputRoundsExceeded,
        ErrorCode::ProtocolError,
        ErrorCode::LintFailed,
        ErrorCode::SecretStore,
        ErrorCode::OutputFailed,
        ErrorCode::Conflict,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::Internal,
        ErrorCode::ToolNotVisible,
        ErrorCode::AppRefused,
        ErrorCode::NoApp,
    ];

    /// The stable string, as in `{"error": {"code": …}}`.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorCode::Usage => "usage",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Unreachable => "unreachable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::AuthRequired => "auth_required",
            ErrorCode::RpcError => "rpc_error",
            ErrorCode::ToolError => "tool_error",
            ErrorCode::HandshakeRefused => "handshake_refused",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Interrupted => "interrupted",
            ErrorCode::ServerCancelled => "server_cancelled",
            ErrorCode::InputRefused => "input_refused",
            ErrorCode::InputRoundsExceeded => "input_rounds_exceeded",
            ErrorCode::ProtocolError => "protocol_error",
            ErrorCode::LintFailed => "lint_failed",
            ErrorCode::SecretStore => "secret_store",
            ErrorCode::OutputFailed => "output_failed",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Internal => "internal",
            ErrorCode::ToolNotVisible => "tool_not_visible",
            ErrorCode::AppRefused => "app_refused",
            ErrorCode::NoApp => "no_app",
        }
    }

    /// The CLI's exit code for this failure (see [`exit`]). Codes only the web API uses exit 1,
    /// the official Inspector's catch-all, should one ever reach the CLI.
    pub const fn exit_code(self) -> i32 {
        match self {
            ErrorCode::AuthRequired => exit::AUTH,
            // Still exit 4, but a script can tell "slow or silent" (timeout) from "gone".
            ErrorCode::Unreachable | ErrorCode::Timeout => exit::UNREACHABLE,
            // The handshake failed, not the method asked for: a failed connection.
            ErrorCode::HandshakeRefused => exit::UNREACHABLE,
            // The server is there but gave the request up: like an unanswered request.
            ErrorCode::ServerCancelled => exit::UNREACHABLE,
            // The server is reachable and answering; it just never finishes asking.
            ErrorCode::InputRoundsExceeded | ErrorCode::ProtocolError => exit::UNREACHABLE,
            ErrorCode::ToolError => exit::TOOL_ERROR,
            ErrorCode::LintFailed => exit::LINT,
            ErrorCode::NoApp => exit::NO_APP,
            // Refused by a rule of the tool's own definition: like a tool that cannot be called.
            ErrorCode::ToolNotVisible => exit::TOOL_ERROR,
            ErrorCode::Cancelled | ErrorCode::Interrupted => exit::INTERRUPTED,
            // Nothing is wrong with the server: our flags declined what it needs (for example
            // sampling without --sampling-text), a usage matter the message explains.
            ErrorCode::InputRefused => exit::USAGE,
            ErrorCode::Usage
            | ErrorCode::RpcError
            | ErrorCode::SecretStore
            | ErrorCode::OutputFailed
            | ErrorCode::NotFound
            | ErrorCode::Conflict
            | ErrorCode::Unauthorized
            | ErrorCode::Forbidden
            | ErrorCode::AppRefused
            | ErrorCode::Internal => exit::USAGE,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// A string that is not one of the codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error code {0:?}")]
pub struct UnknownErrorCode(pub String);

impl std::str::FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<ErrorCode, UnknownErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.code() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_is_the_code_string_both_ways() {
        for c in ErrorCode::ALL {
            let v = serde_json::to_value(c).unwrap();
            assert_eq!(v, c.code(), "{c:?}");
            assert_eq!(serde_json::from_value::<ErrorCode>(v).unwrap(), c);
            assert_eq!(c.code().parse::<ErrorCode>(), Ok(c));
            assert_eq!(c.to_string(), c.code());
        }
        assert!("error".parse::<ErrorCode>().is_err());
    }

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.code()), "{} twice", c.code());
        }
    }

    /// The exit codes the README documents; scripts depend on them.
    #[test]
    fn exit_codes_are_the_documented_ones() {
        assert_eq!(ErrorCode::Usage.exit_code(), 1);
        assert_eq!(ErrorCode::RpcError.exit_code(), 1);
        assert_eq!(ErrorCode::InputRefused.exit_code(), 1);
        assert_eq!(ErrorCode::AuthRequired.exit_code(), 3);
        assert_eq!(ErrorCode::Unreachable.exit_code(), 4);
        assert_eq!(ErrorCode::Timeout.exit_code(), 4);
        assert_eq!(ErrorCode::HandshakeRefused.exit_code(), 4);
        assert_eq!(ErrorCode::ToolError.exit_code(), 5);
        assert_eq!(ErrorCode::LintFailed.exit_code(), 6);
        assert_eq!(ErrorCode::NoApp.exit_code(), 2);
        assert_eq!(ErrorCode::ToolNotVisible.exit_code(), 5);
        assert_eq!(ErrorCode::Cancelled.exit_code(), 130);
        assert_eq!(ErrorCode::Interrupted.exit_code(), 130);
    }
}
