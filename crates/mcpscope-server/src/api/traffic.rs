//! A server's traffic: a page of frames (window and SQLite merged by the core) and one frame's
//! whole body as a download.

use super::{app, download};
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mcpscope_inspect::FramePage;
use serde::Deserialize;

/// The traffic routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/servers/{name}/frames", get(frames))
        .route("/servers/{name}/frames/{seq}/body", get(frame_body))
}

#[derive(Deserialize)]
struct FramesQuery {
    after: Option<u64>,
    before: Option<u64>,
    limit: Option<usize>,
    source: Option<String>,
}

async fn frames(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<FramesQuery>,
) -> ApiResult<Response> {
    let page = FramePage {
        after: q.after,
        before: q.before,
        limit: q.limit,
        sources: q
            .source
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
    };
    let rendered = app(&s).frames(&name, page).await?;
    // Each frame is JSON text already (rendered once, when it was recorded).
    let body = format!("{{\"frames\":[{}]}}", rendered.join(","));
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn frame_body(
    State(s): State<AppState>,
    Path((name, seq)): Path<(String, u64)>,
) -> ApiResult<Response> {
    let body = app(&s).frame_body(&name, seq).await?;
    let (content_type, ext) = if body.json {
        ("application/json", "json")
    } else {
        ("application/octet-stream", "bin")
    };
    Ok(download(
        body.bytes,
        content_type,
        &format!("frame-{seq}.{ext}"),
    ))
}
