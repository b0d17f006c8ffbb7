//! `RequestControl`: a handle on one logical request that another task can hold.
//!
//! One call of [`Session::request_with`](crate::Session::request_with) may put several requests on
//! the wire (modern `input_required` rounds, the `-32022` version retry, the `-32020` refetch, every
//! page of a list). A view that lets a person cancel "this call", or that wants to tie progress,
//! logs and frames back to it, needs the wire ids as they are chosen and a way to stop the call
//! from elsewhere — the web UI cancels from a different HTTP request than the one waiting for the
//! answer. Passing the same control to several calls groups them.

use mcpscope_proto::RequestId;
use std::sync::Mutex;
use tokio::sync::watch;

/// Follows one logical request across its wire ids and lets another task cancel it.
#[derive(Debug)]
pub struct RequestControl {
    ids: Mutex<Vec<RequestId>>,
    cancelled: watch::Sender<Option<String>>,
}

impl Default for RequestControl {
    fn default() -> Self {
        RequestControl {
            ids: Mutex::new(Vec::new()),
            cancelled: watch::Sender::new(None),
        }
    }
}

impl RequestControl {
    /// A fresh control: not cancelled, no wire ids yet.
    pub fn new() -> RequestControl {
        RequestControl::default()
    }

    /// Cancel the request: the pending wire request fails with `Cancelled` and is signalled the
    /// era- and transport-correct way; nothing more is sent under this control. Returns false when
    /// it was already cancelled.
    pub fn cancel(&self, reason: impl Into<String>) -> bool {
        let reason = reason.into();
        self.cancelled.send_if_modified(|c| {
            if c.is_some() {
                false
            } else {
                *c = Some(reason);
                true
            }
        })
    }

    /// Why it was cancelled, if it was.
    pub fn cancelled(&self) -> Option<String> {
        self.cancelled.borrow().clone()
    }

    /// Every id this request has used on the wire so far, oldest first.
    pub fn wire_ids(&self) -> Vec<RequestId> {
        self.ids.lock().expect("control ids lock").clone()
    }

    /// True when `id` is one of this request's wire ids.
    pub fn owns(&self, id: &RequestId) -> bool {
        self.ids.lock().expect("control ids lock").contains(id)
    }

    pub(crate) fn push_id(&self, id: RequestId) {
        self.ids.lock().expect("control ids lock").push(id);
    }

    /// Resolves once the request is cancelled, with the reason.
    pub(crate) async fn wait_cancelled(&self) -> String {
        let mut rx = self.cancelled.subscribe();
        loop {
            if let Some(reason) = rx.borrow_and_update().clone() {
                return reason;
            }
            if rx.changed().await.is_err() {
                // The sender lives in `self`, so this cannot happen while we are borrowed; wait
                // forever rather than invent a cancellation.
                std::future::pending::<()>().await;
            }
        }
    }
}
