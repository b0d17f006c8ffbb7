//! `GET /api/events`: the core's event bus as one Server-Sent Events stream per page.
//!
//! A page that reconnects with `Last-Event-ID` gets what it missed from the bus's ring; when the
//! ring no longer holds it, a `resync` event says how many were lost so the page refetches with
//! the REST calls. A new page starts from now. Each event goes out with its bus id, so the
//! browser's `Last-Event-ID` is the bus's numbering. Names and bodies are the core's
//! (`mcpscope_inspect::Event`); this file only frames them as SSE.

use crate::extract::Query;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt as _};
use mcpscope_inspect::EventBus;
use mcpscope_inspect::events::{Event as ViewEvent, ResyncEvent};
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// Query of `GET /api/events` (for clients that cannot set `Last-Event-ID`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EventsQuery {
    last_event_id: Option<u64>,
}

/// `GET /api/events`.
pub(crate) async fn events(
    State(bus): State<Arc<EventBus>>,
    Query(q): Query<EventsQuery>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .or(q.last_event_id);
    // A comment first: hyper sends the response head with the first body bytes, and a page's
    // EventSource only reports `open` once it has the head.
    let hello = futures::stream::once(async { Ok(Event::default().comment("connected")) });
    Sse::new(hello.chain(stream(bus, last))).keep_alive(
        KeepAlive::new()
            .interval(Duration::from_secs(15))
            .text("keep-alive"),
    )
}

/// The bus's events starting after `last_seen` (`None`: from now on), as SSE events.
fn stream(
    bus: Arc<EventBus>,
    last_seen: Option<u64>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let next = match last_seen {
        Some(id) => id + 1,
        None => bus.last_id() + 1,
    };
    let rx = bus.subscribe();
    futures::stream::unfold((bus, rx, next), |(bus, mut rx, mut next)| async move {
        loop {
            if bus.is_closed() {
                return None;
            }
            let (batch, lost) = bus.since(next, 256);
            let mut out: Vec<Result<Event, Infallible>> = Vec::with_capacity(batch.len() + 1);
            if lost > 0 {
                // Not in the ring, so no id: the next real event's id stays the page's cursor.
                let resync = ViewEvent::Resync(ResyncEvent { missed: lost });
                out.push(Ok(Event::default()
                    .event(resync.name())
                    .data(resync.data())));
                next += lost;
            }
            if let Some(last) = batch.last() {
                next = last.id + 1;
            }
            out.extend(batch.iter().map(|e| {
                Ok(Event::default()
                    .id(e.id.to_string())
                    .event(e.name)
                    .data(e.data.as_str()))
            }));
            if !out.is_empty() {
                return Some((futures::stream::iter(out), (bus, rx, next)));
            }
            rx.borrow_and_update();
            if *rx.borrow() >= next || bus.is_closed() {
                continue;
            }
            if rx.changed().await.is_err() {
                return None;
            }
        }
    })
    .flat_map(|s| s)
}
