//! `Error`: the one error type of the inspector core, for every view.
//!
//! An error is a stable code from the one table ([`ErrorCode`], shared with the CLI), a message
//! that says what happened and what to do, and extra fields (`rpcCode`, `data`, `status`, `url`,
//! `historyId`, `retries`). A failed request or connection takes its code and fields from the
//! engine (`ClientError::code()`, `error_fields()`), so the CLI and every view name a failure
//! alike. A view maps a code to what it shows — the web backend to an HTTP status, in one place
//! (`mcpscope-server`'s `error.rs`). The core never chooses a status: it does not know it is
//! behind HTTP.

use mcpscope_client::ClientError;
use mcpscope_proto::error_code::ErrorCode;
use serde_json::{Map, Value, json};

/// A failed core operation.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {message}", code.code())]
pub struct Error {
    /// Stable code: `usage`, `not_found`, `conflict`, `internal`, and for a request or a
    /// connection the engine's (`unreachable`, `timeout`, `auth_required`, `rpc_error`,
    /// `cancelled`, `server_cancelled`, `input_refused`, …).
    pub code: ErrorCode,
    /// What happened and what to do.
    pub message: String,
    /// Extra fields of the error object (`rpcCode`, `data`, `historyId`, `retries`).
    pub extra: Map<String, Value>,
}

/// Result alias of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// `usage`: what was asked is wrong (a bad entry, a bad argument).
    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Usage, message)
    }

    /// `not_found`: no such server, entry or connection.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NotFound, message)
    }

    /// `conflict`: the state does not allow it now (a taken name, a read-only catalog).
    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Conflict, message)
    }

    /// `internal`: our fault (SQLite, a failed task).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Internal, message)
    }

    /// Add a field to the error object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Error {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// The error object (`{"code", "message", …extra}`), as events, history and the web API
    /// carry it.
    pub fn body(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code.code()));
        m.insert("message".into(), json!(self.message));
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// The error of a failed request or connection: the engine's code and fields, as the CLI
    /// reports them.
    pub fn from_client(e: &ClientError) -> Error {
        Error {
            code: e.code(),
            message: e.to_string(),
            extra: e.error_fields(),
        }
    }
}

impl From<mcpscope_store::HistoryError> for Error {
    fn from(e: mcpscope_store::HistoryError) -> Error {
        Error::internal(e.to_string())
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(e: tokio::task::JoinError) -> Error {
        Error::internal(format!("a background task failed: {e}"))
    }
}
