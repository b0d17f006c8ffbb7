//! Extractors whose rejections come back in the API's error shape (`{"error": {code, message}}`,
//! `docs/web-api.md`) instead of axum's plain-text ones: path and query parameters, and a JSON
//! body that may be empty. [`crate::error::Json`] does the same for required JSON bodies.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::response::IntoResponse;
use serde::de::DeserializeOwned;

/// An axum rejection as our error: its status, `usage` for the client's mistakes, `internal`
/// for ours (a route declared with the wrong parameters), with axum's text as the reason.
fn refused(rejection: impl IntoResponse + std::fmt::Display, what: &str) -> ApiError {
    let text = rejection.to_string();
    let status = rejection.into_response().status();
    let code = if status.is_server_error() {
        "internal"
    } else {
        "usage"
    };
    ApiError::new(status, code, format!("{what} was refused: {text}"))
}

/// axum's `Path`, with rejections in our error shape (`/api/history/abc` → 400 `usage`).
#[derive(Debug)]
pub(crate) struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|r| refused(r, "the path"))
    }
}

/// axum's `Query`, with rejections in our error shape (`?limit=many` → 400 `usage`).
#[derive(Debug)]
pub(crate) struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(|r| refused(r, "the query string"))
    }
}

/// A JSON body that may be empty (`POST /connect` with no body): `T::default()` then. A body
/// over the size limit is 413 in our shape; the Content-Type rule is the guard's
/// (`security::guard`), the same for every route.
#[derive(Debug)]
pub(crate) struct OptionalJson<T>(pub T);

impl<S, T> FromRequest<S> for OptionalJson<T>
where
    T: DeserializeOwned + Default,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let body = Bytes::from_request(req, state)
            .await
            .map_err(|r| refused(r, "the request body"))?;
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        serde_json::from_slice(&body)
            .map(OptionalJson)
            .map_err(|e| ApiError::usage(format!("the request body is not the JSON expected: {e}")))
    }
}
