//! The channel from a connection's engine to its processor ([`crate::pipeline`]): what goes
//! down it ([`Item`]), the observer and interaction sink that put it there, and the
//! backpressure that makes a flooding server wait on its pipe. Nothing here reads the inspector's
//! state: the slot holds a [`Queue`], and the pipeline drains it.

use crate::interactions::{Interaction, InteractionClosed, InteractionSink};
use mcpscope_client::{
    Observer, Recorded, RequestControl, RequestOrigin, ServerRequest, SessionEvent,
};
use mcpscope_proto::redact::Secrets;
use mcpscope_proto::{Classified, Frame};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Messages larger than this are not checked by the pipeline (lint, verdicts, tool schemas):
/// the engine's parse of them is not kept, so a 100 MB result is shown and stored but neither
/// held twice nor checked against the schema (which would stall the traffic behind it).
pub(crate) const PARSE_CAP: usize = 4 << 20;

/// What a connection's processor is told, in order.
pub(crate) enum Item {
    Frame {
        frame: Frame,
        seen: Seen,
    },
    Event(SessionEvent),
    /// A server request became an interaction in the queue (`interactions.rs`).
    Opened {
        interaction: Interaction,
        origin: RequestOrigin,
    },
    /// It was answered, timed out or abandoned.
    InteractionClosed(InteractionClosed),
    Closed(String),
    Begin(Active),
    Finish {
        hist: i64,
        status: &'static str,
        result: Option<String>,
        error: Option<Value>,
        ack: oneshot::Sender<Option<Value>>,
    },
}

/// What the engine made of a frame ([`Recorded`]), owned: its one parse, classification, method
/// and the revision in force. Empty for frames no session recorded.
#[derive(Default)]
pub(crate) struct Seen {
    pub message: Option<Arc<Value>>,
    pub classified: Option<Classified>,
    pub method: Option<String>,
    pub version: Option<String>,
}

impl Seen {
    fn of(rec: &Recorded<'_>) -> Seen {
        Seen {
            // Kept only where the pipeline reads it (see PARSE_CAP).
            message: rec
                .message
                .filter(|_| rec.frame.body.len() <= PARSE_CAP)
                .cloned(),
            classified: rec.classified.cloned(),
            method: rec.method.map(str::to_string),
            version: rec.protocol_version.map(str::to_string),
        }
    }
}

/// A request with a history entry, while it runs.
pub(crate) struct Active {
    pub hist: i64,
    pub request_id: String,
    pub method: String,
    pub control: Arc<RequestControl>,
    pub started: Instant,
    pub frames: Vec<u64>,
    pub exchanges: Vec<u64>,
    pub children: usize,
    pub omitted: usize,
}

/// Items waiting for the processor above which the engine is asked to wait
/// ([`Observer::ready`]): a server flooding notifications then waits on its pipe.
///
/// Each waiting frame carries the engine's parse of it, a few times the frame's size, so the
/// depth is memory: at 2,048 the web backend held 1.5–2 MiB more with 100,000 frames than at
/// 128, and answered the flood no sooner (bench/RESULTS-web.md, 2026-12-03).
const QUEUE_HIGH: usize = 128;
/// The engine goes on once the processor has brought the queue down to this.
const QUEUE_LOW: usize = 32;

/// The channel to a connection's processor, with backpressure.
///
/// The engine calls the observer synchronously, so the channel itself is unbounded; its depth is
/// counted, and past [`QUEUE_HIGH`] the observer's `ready` hands the engine a future to await
/// between transport events (the engine then stops taking lines, and the stdio reader stops
/// reading). An earlier version blocked the engine's thread instead (`block_in_place`) and lost a
/// wakeup under a 100,000-notification flood; awaiting keeps every wait visible to the runtime, and
/// the wait re-checks on a short timer so no missed notification can stall it.
#[derive(Clone)]
pub(crate) struct Queue {
    tx: mpsc::UnboundedSender<Item>,
    gauge: Arc<Gauge>,
    /// The connection's secret values, kept out of results and history as well as frames.
    pub(crate) secrets: Arc<Secrets>,
}

/// How far behind the processor is; shared by the senders and the processor (which must not
/// hold a sender: its loop ends when the last one is dropped).
#[derive(Default)]
pub(crate) struct Gauge {
    depth: std::sync::atomic::AtomicUsize,
    drained: tokio::sync::Notify,
}

impl Gauge {
    /// The processor took one item.
    pub(crate) fn took(&self) {
        let left = self
            .depth
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            .saturating_sub(1);
        if left <= QUEUE_LOW {
            self.drained.notify_waiters();
        }
    }
}

impl Queue {
    pub(crate) fn new(secrets: Arc<Secrets>) -> (Queue, mpsc::UnboundedReceiver<Item>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Queue {
                tx,
                gauge: Arc::default(),
                secrets,
            },
            rx,
        )
    }

    /// The processor's side of the backpressure.
    pub(crate) fn gauge(&self) -> Arc<Gauge> {
        self.gauge.clone()
    }

    /// Queue an item; false when the processor is gone.
    pub(crate) fn send(&self, item: Item) -> bool {
        if self.tx.send(item).is_err() {
            return false;
        }
        self.gauge
            .depth
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        true
    }

    /// A future that ends once the processor has caught up (or is gone), when it is behind.
    fn ready(&self) -> Option<futures::future::BoxFuture<'static, ()>> {
        use std::sync::atomic::Ordering;
        if self.gauge.depth.load(Ordering::SeqCst) <= QUEUE_HIGH {
            return None;
        }
        let gauge = self.gauge.clone();
        let tx = self.tx.clone();
        Some(Box::pin(async move {
            while gauge.depth.load(Ordering::SeqCst) > QUEUE_LOW && !tx.is_closed() {
                let _ =
                    tokio::time::timeout(Duration::from_millis(20), gauge.drained.notified()).await;
            }
        }))
    }
}

/// Forwards the engine's callbacks to the processor.
pub(crate) struct WebObserver {
    pub(crate) tx: Queue,
}

impl Observer for WebObserver {
    fn on_frame(&self, rec: &Recorded<'_>) {
        let _ = self.tx.send(Item::Frame {
            frame: rec.frame.clone(),
            seen: Seen::of(rec),
        });
    }
    fn on_event(&self, event: SessionEvent) {
        let _ = self.tx.send(Item::Event(event));
    }
    fn on_closed(&self, reason: &str) {
        let _ = self.tx.send(Item::Closed(reason.to_string()));
    }
    fn ready(&self) -> Option<futures::future::BoxFuture<'static, ()>> {
        self.tx.ready()
    }
}

/// Tells a connection's processor about its interactions, in order (opened before closed).
pub(crate) struct ProcessorSink {
    pub(crate) tx: Queue,
}

impl InteractionSink for ProcessorSink {
    fn opened(&self, interaction: &Interaction, request: &ServerRequest) {
        let _ = self.tx.send(Item::Opened {
            interaction: interaction.clone(),
            origin: request.origin.clone(),
        });
    }
    fn closed(&self, closed: &InteractionClosed) {
        let _ = self.tx.send(Item::InteractionClosed(closed.clone()));
    }
}
