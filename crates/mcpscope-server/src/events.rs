//! The event stream: everything that happens, in order, to every open page.
//!
//! Events are numbered and kept in a ring (the last [`RING_EVENTS`] events, and at most
//! [`RING_BYTES`] of JSON so a burst of large frames cannot pin hundreds of megabytes). A page
//! that reconnects with `Last-Event-ID` gets what it missed from the ring; when the ring no longer
//! holds it, a `resync` event says how many were lost so the page refetches with the REST calls.
//! A new page starts from now. Subscribers read the ring directly and wait on a watch channel for
//! the next id, so a slow page never blocks the engine and never drops events silently.

use crate::extract::Query;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// How many events the ring keeps for `Last-Event-ID` replay.
pub const RING_EVENTS: usize = 10_000;
/// How many bytes of event JSON the ring keeps at most.
pub const RING_BYTES: usize = 64 << 20;

/// One published event.
#[derive(Debug)]
struct Published {
    id: u64,
    name: &'static str,
    data: String,
}

#[derive(Debug, Default)]
struct Ring {
    /// The id the next event gets (ids start at 1).
    next_id: u64,
    events: VecDeque<Arc<Published>>,
    bytes: usize,
}

/// Publishes events and serves them to subscribers.
#[derive(Debug)]
pub struct EventBus {
    ring: Mutex<Ring>,
    latest: watch::Sender<u64>,
    /// Set when the server shuts down: open streams end, so a graceful shutdown does not wait
    /// forever on a page's event stream.
    closed: std::sync::atomic::AtomicBool,
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus {
            ring: Mutex::new(Ring {
                next_id: 1,
                ..Default::default()
            }),
            latest: watch::Sender::new(0),
            closed: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl EventBus {
    /// A bus with no events yet.
    pub fn new() -> EventBus {
        EventBus::default()
    }

    /// Publish `data` (serialised to JSON) as event `name`; returns its id.
    pub fn publish(&self, name: &'static str, data: &impl Serialize) -> u64 {
        let data = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
        self.publish_json(name, data)
    }

    /// Publish already-serialised JSON.
    pub fn publish_json(&self, name: &'static str, data: String) -> u64 {
        let id = {
            let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
            let id = ring.next_id;
            ring.next_id += 1;
            ring.bytes += data.len();
            ring.events
                .push_back(Arc::new(Published { id, name, data }));
            while ring.events.len() > RING_EVENTS
                || (ring.bytes > RING_BYTES && ring.events.len() > 1)
            {
                if let Some(old) = ring.events.pop_front() {
                    ring.bytes -= old.data.len();
                }
            }
            id
        };
        self.latest.send_replace(id);
        id
    }

    /// End every open stream (server shutdown).
    pub fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        self.latest.send_modify(|_| {});
    }

    fn is_closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The id of the last event published (0 when none).
    pub fn last_id(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Events with id ≥ `from`, at most `max`; and how many were lost because the ring no
    /// longer holds them.
    fn since(&self, from: u64, max: usize) -> (Vec<Arc<Published>>, u64) {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let oldest = ring.events.front().map(|e| e.id).unwrap_or(ring.next_id);
        let lost = oldest.saturating_sub(from);
        let start = from.max(oldest);
        let skip = (start - oldest) as usize;
        let out = ring.events.iter().skip(skip).take(max).cloned().collect();
        (out, lost)
    }

    /// A stream of SSE events starting after `last_seen` (`None`: from now on).
    fn stream(
        self: Arc<Self>,
        last_seen: Option<u64>,
    ) -> impl Stream<Item = Result<Event, Infallible>> {
        let next = match last_seen {
            Some(id) => id + 1,
            None => self.last_id() + 1,
        };
        let rx = self.latest.subscribe();
        futures::stream::unfold((self, rx, next), |(bus, mut rx, mut next)| async move {
            loop {
                if bus.is_closed() {
                    return None;
                }
                let (batch, lost) = bus.since(next, 256);
                let mut out: Vec<Result<Event, Infallible>> = Vec::with_capacity(batch.len() + 1);
                if lost > 0 {
                    out.push(Ok(Event::default()
                        .event("resync")
                        .data(format!("{{\"missed\":{lost}}}"))));
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
}

use futures::StreamExt as _;

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
    Sse::new(hello.chain(bus.stream(last))).keep_alive(
        KeepAlive::new()
            .interval(Duration::from_secs(15))
            .text("keep-alive"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn replays_from_the_ring_and_reports_what_it_lost() {
        let bus = Arc::new(EventBus::new());
        for i in 0..3 {
            bus.publish("warning", &serde_json::json!({"i": i}));
        }
        let (got, lost) = bus.since(2, 10);
        assert_eq!(got.iter().map(|e| e.id).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(lost, 0);
        for _ in 0..RING_EVENTS {
            bus.publish("warning", &1);
        }
        let (got, lost) = bus.since(1, 1);
        assert_eq!(lost, 3);
        assert_eq!(got[0].id, 4);
    }
}
