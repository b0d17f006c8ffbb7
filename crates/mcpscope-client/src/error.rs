//! Errors a session reports. Each says what happened and, where the user can act, what to try.
//!
//! [`ClientError::code`] is the one mapping from an engine error to the stable
//! [`ErrorCode`] every view reports (the CLI's stderr line, the web API's error object), and
//! [`ClientError::error_fields`] the extra fields both put beside it.

use mcpscope_proto::RpcError;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_transport::TransportError;
use serde_json::{Map, Value, json};
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
    /// A request typed by hand (the raw tester) reuses the id of one still waiting for its
    /// answer: two requests cannot wait on one id.
    #[error(
        "request id {id} is still waiting for its answer; give the message another id (or wait for it to finish)"
    )]
    IdInFlight {
        /// The id, as JSON text.
        id: String,
    },
    /// A failure with advice on what to try, which the engine knows and the error alone does not
    /// say (a 2026-07-28 connect refused by a server that speaks only 2025-11-25: the era is the
    /// likely cause). The message ends with the advice, so every view that shows the message
    /// shows it; `error_fields` also carries it as `hint`, for a view that shows it apart.
    #[error("{error}; {hint}")]
    Hinted {
        /// The failure itself, whose code and fields this keeps.
        error: Box<ClientError>,
        /// What to try, in the command line's words (`--protocol-era …`).
        hint: String,
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
    /// The stable code of this failure, the same in every view. A JSON-RPC error is always
    /// `rpc_error` here; the CLI alone reports one to `tools/call` as `tool_error` and one to the
    /// handshake as `handshake_refused`, because its exit codes (the official Inspector's) say so.
    pub fn code(&self) -> ErrorCode {
        match self {
            ClientError::Hinted { error, .. } => error.code(),
            e if e.is_auth_required() => ErrorCode::AuthRequired,
            ClientError::Timeout { .. } | ClientError::ConnectTimeout { .. } => ErrorCode::Timeout,
            e if e.is_connection_failure() => ErrorCode::Unreachable,
            ClientError::Rpc { .. } => ErrorCode::RpcError,
            ClientError::InputRefused { .. } => ErrorCode::InputRefused,
            ClientError::Cancelled { .. } => ErrorCode::Cancelled,
            ClientError::ServerCancelled { .. } => ErrorCode::ServerCancelled,
            ClientError::TooManyRounds { .. } => ErrorCode::InputRoundsExceeded,
            ClientError::IdInFlight { .. } => ErrorCode::Conflict,
            ClientError::Transport(_) | ClientError::Protocol(_) => ErrorCode::ProtocolError,
            // Unreachable in practice (`is_connection_failure` takes these), named for the match.
            ClientError::Closed(_) => ErrorCode::Unreachable,
        }
    }

    /// The fields beside `code` and `message` in the error object: `rpcCode` and `data` of a
    /// JSON-RPC error, `status` and `url` of a refused HTTP exchange, `url` of an unreachable one.
    pub fn error_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        match self {
            ClientError::Hinted { error, hint } => {
                m = error.error_fields();
                m.insert("hint".into(), json!(hint));
            }
            ClientError::Rpc { error, .. } => {
                m.insert("rpcCode".into(), json!(error.code));
                if let Some(d) = &error.data {
                    m.insert("data".into(), d.clone());
                }
            }
            ClientError::Transport(TransportError::Status { status, url, .. })
            | ClientError::Transport(TransportError::AuthRequired { status, url, .. })
            | ClientError::Transport(TransportError::AuthFailed { status, url, .. }) => {
                m.insert("status".into(), json!(status));
                m.insert("url".into(), json!(url));
            }
            ClientError::Transport(TransportError::Unreachable { url, .. }) => {
                m.insert("url".into(), json!(url));
            }
            _ => {}
        }
        m
    }

    /// `error` with `hint` (see [`ClientError::Hinted`]).
    pub fn hinted(error: ClientError, hint: impl Into<String>) -> ClientError {
        ClientError::Hinted {
            error: Box::new(error),
            hint: hint.into(),
        }
    }

    /// The failure under any advice: what to match a kind of failure on.
    pub fn unhinted(&self) -> &ClientError {
        match self {
            ClientError::Hinted { error, .. } => error.unhinted(),
            e => e,
        }
    }

    /// The advice on what to try, when the engine gave one.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ClientError::Hinted { hint, .. } => Some(hint),
            _ => None,
        }
    }

    /// True when the failure is about reaching or keeping the server (exit code 4 in the CLI).
    pub fn is_connection_failure(&self) -> bool {
        if let ClientError::Hinted { error, .. } = self {
            return error.is_connection_failure();
        }
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
        if let ClientError::Hinted { error, .. } = self {
            return error.is_auth_required();
        }
        matches!(
            self,
            ClientError::Transport(
                TransportError::AuthRequired { .. } | TransportError::AuthFailed { .. }
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_refused_is_its_own_code_in_every_view() {
        let e = ClientError::InputRefused {
            method: "tools/call".into(),
            input_method: "sampling/createMessage".into(),
            key: "s1".into(),
            reason: "no --sampling-text".into(),
        };
        assert_eq!(e.code(), ErrorCode::InputRefused);
        assert_eq!(e.code().exit_code(), 1);
    }

    #[test]
    fn each_kind_of_failure_has_its_code() {
        let rpc = ClientError::Rpc {
            method: "tools/call".into(),
            error: RpcError {
                code: -32602,
                message: "unknown tool".into(),
                data: Some(json!({"name": "x"})),
            },
        };
        assert_eq!(rpc.code(), ErrorCode::RpcError);
        assert_eq!(
            Value::Object(rpc.error_fields()),
            json!({"rpcCode": -32602, "data": {"name": "x"}})
        );
        let timeout = ClientError::Timeout {
            method: "ping".into(),
            after: Duration::from_millis(5),
            detail: None,
        };
        assert_eq!(timeout.code(), ErrorCode::Timeout);
        assert_eq!(
            ClientError::Closed("gone".into()).code(),
            ErrorCode::Unreachable
        );
        assert_eq!(
            ClientError::Protocol("bad".into()).code(),
            ErrorCode::ProtocolError
        );
        let rounds = ClientError::TooManyRounds {
            method: "tools/call".into(),
            rounds: 3,
            last: Value::Null,
        };
        assert_eq!(rounds.code(), ErrorCode::InputRoundsExceeded);
    }
}
