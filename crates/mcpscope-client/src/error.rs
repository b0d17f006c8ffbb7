//! Errors a session reports. Each says what happened and, where the user can act, what to try.

use mcpscope_proto::RpcError;
use mcpscope_transport::TransportError;
use serde_json::Value;
use std::time::Duration;

/// Everything that can end a request or a connection attempt.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    /// The transport failed (process, network, HTTP status, auth).
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The server answered with a JSON-RPC error.
    #[error("{method} failed: {error}")]
    Rpc {
        /// The request's method.
        method: String,
        /// The error object as received.
        error: RpcError,
    },
    /// No answer within the request timeout (which resets on progress).
    #[error("{method} timed out after {} ms without an answer or progress{}", after.as_millis(), hint(detail))]
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout.
        after: Duration,
        /// Extra context (e.g. a discarded over-long message).
        detail: Option<String>,
    },
    /// Connecting took longer than the connect timeout.
    #[error("{stage}: no answer within {} ms{}", after.as_millis(), hint(detail))]
    ConnectTimeout {
        /// What we were waiting for.
        stage: String,
        /// The timeout.
        after: Duration,
        /// The server's last stderr lines, if any.
        detail: Option<String>,
    },
    /// The connection ended.
    #[error("{0}")]
    Closed(String),
    /// The request was cancelled (Ctrl-C, or by the caller).
    #[error("{method} was cancelled: {reason}")]
    Cancelled {
        /// The request's method.
        method: String,
        /// Why.
        reason: String,
    },
    /// The server ended the request itself with `notifications/cancelled`: how a modern server
    /// ends a `subscriptions/listen` on stdio (the only request it may end this way).
    #[error("the server cancelled {method}: {reason}")]
    ServerCancelled {
        /// The request's method.
        method: String,
        /// The reason the server gave, or that it gave none.
        reason: String,
    },
    /// The server broke a protocol rule we cannot work around.
    #[error("{0}")]
    Protocol(String),
    /// The server asked for input (an `input_required` round) and the responder declined to
    /// give it; the request cannot be retried without every answer, so it stops.
    #[error(
        "{method}: the server needs {input_method} (input {key:?}) and it was refused: {reason}; every input must be answered before retrying, so the request stops here"
    )]
    InputRefused {
        /// The request's method.
        method: String,
        /// What the server asked for (`sampling/createMessage`, …).
        input_method: String,
        /// The key of the refused entry in `inputRequests`.
        key: String,
        /// The responder's reason.
        reason: String,
    },
    /// `input_required` rounds exceeded `--max-input-rounds`.
    #[error(
        "{method}: the server asked for input {rounds} times without completing (limit --max-input-rounds {rounds})"
    )]
    TooManyRounds {
        /// The request's method.
        method: String,
        /// Rounds taken.
        rounds: usize,
        /// The last `input_required` result.
        last: Value,
    },
}

fn hint(detail: &Option<String>) -> String {
    match detail {
        Some(d) if !d.is_empty() => format!("; {d}"),
        _ => String::new(),
    }
}

impl ClientError {
    /// True when the failure is about reaching or keeping the server (exit code 4 in the CLI).
    pub fn is_connection_failure(&self) -> bool {
        matches!(
            self,
            ClientError::Transport(
                TransportError::Spawn { .. }
                    | TransportError::Unreachable { .. }
                    | TransportError::Closed
                    | TransportError::StreamEnded(_)
                    | TransportError::Status { .. }
                    | TransportError::SessionExpired { .. }
            ) | ClientError::Timeout { .. }
                | ClientError::ConnectTimeout { .. }
                | ClientError::Closed(_)
        )
    }

    /// True when the server wants authorization (exit code 3 in the CLI).
    pub fn is_auth_required(&self) -> bool {
        matches!(
            self,
            ClientError::Transport(
                TransportError::AuthRequired { .. } | TransportError::AuthFailed { .. }
            )
        )
    }
}
