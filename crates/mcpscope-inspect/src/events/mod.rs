//! The event bus: everything that happens, in order, for every view.
//!
//! Events are numbered and kept in a ring (the last [`RING_EVENTS`] events, and at most
//! [`RING_BYTES`] of JSON so a burst of large frames cannot pin hundreds of megabytes). A view
//! that comes back after a gap (the web UI's `Last-Event-ID`) gets what it missed from the ring
//! ([`EventBus::since`]); when the ring no longer holds it, the count of lost events says so, and
//! the view refetches. Subscribers read the ring directly and wait on a watch channel for the next
//! id ([`EventBus::subscribe`]), so a slow view never blocks the engine and never drops events
//! silently. How a view encodes events (Server-Sent Events for the web UI) is the view's business;
//! what an event is, and its JSON, is [`Event`]'s (`vocabulary.rs`).

mod typescript;
mod vocabulary;

pub use typescript::typescript;
pub use vocabulary::{
    CatalogEvent, Event, LogEvent, NotificationEvent, ProgressEvent, RenderedFrame, ResetEvent,
    ResyncEvent, ServerRequestEvent, WarningEvent,
};

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// How many events the ring keeps for `Last-Event-ID` replay.
pub const RING_EVENTS: usize = 10_000;
/// How many bytes of event JSON the ring keeps at most.
pub const RING_BYTES: usize = 64 << 20;

/// One published event.
#[derive(Debug)]
pub struct Published {
    /// Its number (from 1, in publishing order).
    pub id: u64,
    /// Its name ([`Event::name`]).
    pub name: &'static str,
    /// Its body, as JSON text ([`Event::data`]).
    pub data: String,
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
    /// Set at shutdown: open streams end, so a graceful shutdown does not wait forever on a
    /// view's event stream.
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

    /// Publish `event`; returns its id.
    pub fn publish(&self, event: Event) -> u64 {
        let name = event.name();
        let data = event.data();
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

    /// End every open stream (shutdown).
    pub fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        self.latest.send_modify(|_| {});
    }

    /// True once [`EventBus::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The id of the last event published (0 when none).
    pub fn last_id(&self) -> u64 {
        *self.latest.borrow()
    }

    /// A receiver of the id of the last event published: it changes with every publish (and at
    /// [`EventBus::close`]); read the events themselves with [`EventBus::since`].
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }

    /// Events with id ≥ `from`, at most `max`; and how many were lost because the ring no
    /// longer holds them.
    pub fn since(&self, from: u64, max: usize) -> (Vec<Arc<Published>>, u64) {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let oldest = ring.events.front().map(|e| e.id).unwrap_or(ring.next_id);
        let lost = oldest.saturating_sub(from);
        let start = from.max(oldest);
        let skip = (start - oldest) as usize;
        let out = ring.events.iter().skip(skip).take(max).cloned().collect();
        (out, lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn replays_from_the_ring_and_reports_what_it_lost() {
        let bus = Arc::new(EventBus::new());
        let warning = |i: u64| {
            Event::Warning(WarningEvent {
                server: "s".into(),
                message: format!("{i}"),
                frame_seq: Some(i),
            })
        };
        for i in 0..3 {
            bus.publish(warning(i));
        }
        let (got, lost) = bus.since(2, 10);
        assert_eq!(got.iter().map(|e| e.id).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(lost, 0);
        for i in 0..RING_EVENTS {
            bus.publish(warning(i as u64));
        }
        let (got, lost) = bus.since(1, 1);
        assert_eq!(lost, 3);
        assert_eq!(got[0].id, 4);
    }
}
