//! `ApiError`: the one error type of the API, and how it becomes a response.
//!
//! Every failure is `{"error": {"code", "message", …}}` with the same codes as the CLI's stderr
//! JSON line, so the SPA switches on `code` and shows `message` as is. The core's errors
//! (`mcpscope_inspect::Error`) carry no HTTP status; [`status_of`] gives them one, here only. Bad request bodies go
//! through [`Json`], our wrapper of axum's extractor, so they come back in the same shape instead
//! of axum's plain-text rejection. Internal faults (SQLite, a panicked task) are shown with their
//! message: this is a local developer tool whose only user is the person who started it.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mcpscope_proto::error_code::ErrorCode;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// A failed API call.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable code (`usage`, `not_found`, `unreachable`, `timeout`, `auth_required`, `rpc_error`,
    /// `cancelled`, `input_refused`, `protocol_error`, `conflict`, `unauthorized`, `forbidden`,
    /// `internal`, …): [`ErrorCode::code`] of the one table shared with the CLI.
    pub code: &'static str,
    /// What happened and what to do.
    pub message: String,
    /// Extra fields of the error object (`rpcCode`, `data`, `historyId`, `retries`).
    pub extra: Map<String, Value>,
}

/// Result alias for handlers.
pub(crate) type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error with a status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// 400 `usage`: the request itself is wrong.
    pub fn usage(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "usage", message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 409 `conflict`.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 500 `internal`.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// Add a field to the error object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// The error object as sent (`{"code", "message", …extra}`), for events and history.
    pub fn body(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// The HTTP status of an error code: the one place a code becomes a status. A match on the
/// enum, so a new code is a compile error here rather than a silent 500.
pub(crate) fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Usage => StatusCode::BAD_REQUEST,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden | ErrorCode::ToolNotVisible => StatusCode::FORBIDDEN,
        ErrorCode::NotFound | ErrorCode::NoApp => StatusCode::NOT_FOUND,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::RpcError | ErrorCode::ToolError | ErrorCode::AppRefused => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        ErrorCode::Cancelled | ErrorCode::Interrupted => cancelled_status(),
        ErrorCode::Timeout => StatusCode::GATEWAY_TIMEOUT,
        // The server (or its authorization server) failed us, or stopped because it wanted input
        // we did not give: we are the gateway.
        ErrorCode::ServerCancelled
        | ErrorCode::AuthRequired
        | ErrorCode::Unreachable
        | ErrorCode::HandshakeRefused
        | ErrorCode::InputRefused
        | ErrorCode::InputRoundsExceeded
        | ErrorCode::ProtocolError => StatusCode::BAD_GATEWAY,
        ErrorCode::SecretStore
        | ErrorCode::LintFailed
        | ErrorCode::OutputFailed
        | ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<mcpscope_inspect::Error> for ApiError {
    fn from(e: mcpscope_inspect::Error) -> ApiError {
        ApiError {
            status: status_of(e.code),
            code: e.code.code(),
            message: e.message,
            extra: e.extra,
        }
    }
}

/// Whether a request that ended with `code` ended as the server or the user meant it to: the
/// server answered with a JSON-RPC error, or the request was cancelled (by the user, or by the
/// server ending its own stream). `/request` and `/list` answer those 200 with the error in the
/// body: an ordinary outcome, which a browser must not log as a failed load. The codes keep
/// their statuses everywhere else.
pub(crate) fn is_ordinary_outcome(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::RpcError | ErrorCode::Cancelled | ErrorCode::ServerCancelled
    )
}

/// 499, as nginx names "the client closed the request": the request was cancelled on purpose.
fn cancelled_status() -> StatusCode {
    StatusCode::from_u16(499).unwrap_or(StatusCode::CONFLICT)
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({"error": self.body()}))).into_response()
    }
}

/// axum's `Json`, with rejections in our error shape.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Json<T>(pub T);

impl<S, T> FromRequest<S> for Json<T>
where
    axum::Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Json(v)),
            Err(rejection) => Err(body_refused(rejection)),
        }
    }
}

/// A refused JSON body as our error: `usage`, and 400 whatever axum's status — axum answers a
/// body of the wrong shape with 422, which is `rpc_error`'s and `tool_error`'s status here. The
/// message is serde's, with the path of the field at fault (`entry.args: invalid type: …`), as
/// [`crate::extract::OptionalJson`] says it. A body over the limit keeps its 413; a wrong
/// Content-Type never gets here (the guard's 415, `security::guard`).
fn body_refused(rejection: JsonRejection) -> ApiError {
    // serde's message without axum's preamble ("Failed to deserialize the JSON body into the
    // target type: "): the rejection's source is serde_path_to_error's error.
    let serde = |e: &dyn std::error::Error| {
        e.source()
            .map(ToString::to_string)
            .unwrap_or_else(|| e.to_string())
    };
    match rejection {
        JsonRejection::JsonDataError(e) => ApiError::usage(format!(
            "the request body is not the JSON expected: {}",
            serde(&e)
        )),
        JsonRejection::JsonSyntaxError(e) => {
            ApiError::usage(format!("the request body is not valid JSON: {}", serde(&e)))
        }
        // No body and no Content-Type (a bodiless write passes the guard) on a route that
        // needs one.
        JsonRejection::MissingJsonContentType(_) => ApiError::usage(
            "the request body is missing: send JSON with Content-Type: application/json",
        ),
        other => ApiError::new(
            other.status(),
            "usage",
            format!("the request body was refused: {}", other.body_text()),
        ),
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}
