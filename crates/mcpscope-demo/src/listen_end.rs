//! `end-subscriptions`: the demo ends its own `subscriptions/listen` streams on demand, so a
//! client can see both ways a server ends a subscription (2026-07-28):
//!
//! - `graceful`: every listen handler returns, and rmcp answers the listen request with its
//!   final `{"resultType": "complete"}` result (on stdio and HTTP alike);
//! - `drop`: on Streamable HTTP, the SSE response of every listen POST ends without that result
//!   (a remote close, as a proxy or a crash would do it). stdio has no stream of its own per
//!   subscription — one pipe carries everything — so there is nothing to drop there without
//!   ending the process, and the tool says so.
//!
//! The drop is done by [`drop_on_demand`], a middleware around `/mcp` that recognises a listen by
//! its `Mcp-Method` header (the 2026-07-28 HTTP transport requires it) and cuts its body short.

use axum::{
    body::Body,
    extract::{Request, State},
    middleware::Next,
    response::Response,
};
use futures::StreamExt as _;
use rmcp::model::CallToolResponse;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio::sync::broadcast;

use crate::shared::{Shared, text_result, tool_error};

/// How the listen streams should end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// With the final result.
    Graceful,
    /// Their transport closed, no result.
    Drop,
}

/// The two signals: listen handlers wait on `graceful`; dropped HTTP bodies on `drop`.
pub(crate) struct Ends {
    pub(crate) graceful: broadcast::Sender<()>,
    pub(crate) drop: broadcast::Sender<()>,
}

impl Default for Ends {
    fn default() -> Self {
        Ends {
            graceful: broadcast::channel(4).0,
            drop: broadcast::channel(4).0,
        }
    }
}

/// The tool: `{"how": "graceful" | "drop"}` (default `graceful`).
pub(crate) fn end_subscriptions(shared: &Shared, args: &Map<String, Value>) -> CallToolResponse {
    let how = match args.get("how").and_then(Value::as_str) {
        None | Some("graceful") => End::Graceful,
        Some("drop") => End::Drop,
        Some(other) => {
            return tool_error(format!(
                "how must be \"graceful\" or \"drop\", not {other:?}"
            ));
        }
    };
    let (sender, what) = match how {
        End::Graceful => (
            &shared.listen_ends.graceful,
            "ended gracefully (each answered with its complete result)",
        ),
        End::Drop => (
            &shared.listen_ends.drop,
            "dropped (each SSE response closed without a result)",
        ),
    };
    match sender.send(()) {
        Ok(n) => text_result(format!("{n} subscriptions/listen stream(s) {what}.")),
        Err(_) if how == End::Drop => tool_error(
            "no listen stream has a transport of its own to drop: on stdio one pipe carries \
             every subscription, so only ending the process would close it (use the HTTP \
             transport, or how: \"graceful\")",
        ),
        Err(_) => text_result("no subscriptions/listen stream was open."),
    }
}

/// Around `/mcp`: a listen POST's response body ends early when `end-subscriptions` drops.
pub(crate) async fn drop_on_demand(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let listen = request
        .headers()
        .get("mcp-method")
        .is_some_and(|m| m.as_bytes() == b"subscriptions/listen");
    if !listen {
        return next.run(request).await;
    }
    // Subscribed before the request runs, so a drop during the handshake is not missed.
    let mut dropped = shared.listen_ends.drop.subscribe();
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let until = async move {
        let _ = dropped.recv().await;
    };
    let cut = body.into_data_stream().take_until(Box::pin(until));
    Response::from_parts(parts, Body::from_stream(cut))
}
