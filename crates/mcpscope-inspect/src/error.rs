//! `Error`: the one error type of the inspector core, for every view.
//!
//! An error is a stable code, a message that says what happened and what to do, and extra fields
//! (`rpcCode`, `data`, `historyId`, `retries`). The codes are the CLI's (its stderr JSON line) and
//! the web API's (`{"error": {code, message, …}}`); a view maps a code to what it shows — the web
//! backend to an HTTP status, in one place (`mcpscope-server`'s `error.rs`). The core never
//! chooses a status: it does not know it is behind HTTP.

use mcpscope_client::ClientError;
use serde_json::{Map, Value, json};

/// A failed core operation.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// Stable code: `usage`, `not_found`, `conflict`, `internal`, and for a request or a
    /// connection `unreachable`, `timeout`, `auth_required`, `rpc_error`, `cancelled`,
    /// `server_cancelled`, `protocol_error`.
    pub code: &'static str,
    /// What happened and what to do.
    pub message: String,
    /// Extra fields of the error object (`rpcCode`, `data`, `historyId`, `retries`).
    pub extra: Map<String, Value>,
}

/// Result alias of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a code and message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// `usage`: what was asked is wrong (a bad entry, a bad argument).
    pub fn usage(message: impl Into<String>) -> Error {
        Error::new("usage", message)
    }

    /// `not_found`: no such server, entry or connection.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new("not_found", message)
    }

    /// `conflict`: the state does not allow it now (a taken name, a read-only catalog).
    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new("conflict", message)
    }

    /// `internal`: our fault (SQLite, a failed task).
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new("internal", message)
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
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// The error of a failed request or connection, with the CLI's codes.
    pub fn from_client(e: &ClientError) -> Error {
        let message = e.to_string();
        match e {
            ClientError::Rpc { error, .. } => {
                let mut err = Error::new("rpc_error", message).with("rpcCode", error.code);
                if let Some(d) = &error.data {
                    err = err.with("data", d.clone());
                }
                err
            }
            ClientError::Cancelled { .. } => Error::new("cancelled", message),
            ClientError::ServerCancelled { .. } => Error::new("server_cancelled", message),
            ClientError::Timeout { .. } | ClientError::ConnectTimeout { .. } => {
                Error::new("timeout", message)
            }
            e if e.is_auth_required() => Error::new("auth_required", message),
            e if e.is_connection_failure() => Error::new("unreachable", message),
            _ => Error::new("protocol_error", message),
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
