//! The modern stream: open a `subscriptions/listen` with the desired filter (its own history
//! entry, no timeout), follow it until it ends, and say how it ended. A graceful end (a
//! `complete` result, or `notifications/cancelled` from the server on stdio) and a remote close
//! (the stream's transport closed without that result) are different statuses, always; a local
//! end (Cancel stream, a new filter, a disconnect) is a third.

use super::{Filter, ServerSubs, Stream, StreamStatus, StreamView, TransitionKind, change};
use crate::conn;
use crate::error::{Error, Result};
use crate::request::Call;
use crate::state::Inspector;
use crate::subscriptions::SubscriptionsView;
use mcpscope_client::{ClientError, RequestControl, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::now_us;
use serde_json::{Value, json};
use std::sync::Arc;

/// Open a stream for `filter` (or, `None`, the desired filter again), cancelling the current
/// one. The same filter while a stream is open changes nothing.
pub(super) async fn relisten(
    app: &Arc<Inspector>,
    name: &str,
    filter: Option<Filter>,
) -> Result<SubscriptionsView> {
    let (session, tx, log_level) = conn::connected_named(app, name)?;
    if session.era() != Era::Modern {
        return Err(Error::conflict(format!(
            "{name:?} speaks the legacy era (2025-11-25), which has no subscriptions/listen: \
             subscribe to each resource instead (resources/subscribe)"
        )));
    }
    let generation = app
        .slots()
        .get(name)
        .map(|s| s.st().generation)
        .unwrap_or_default();
    let control = Arc::new(RequestControl::new());
    let (old, start) = change(app, name, true, |st| {
        let open = st.stream.as_ref().is_some_and(|s| s.view.status.open());
        if let Some(f) = filter {
            if open && f == st.view.desired {
                return (None, None);
            }
            st.view.desired = f;
        }
        let reason = "the desired filter changed: a new stream replaces this one";
        let old = close_current(st, reason);
        let desired = st.view.desired.clone();
        if desired.is_empty() {
            return (old, None);
        }
        let number = st.stream.as_ref().map_or(1, |s| s.view.number + 1);
        if number > 1 {
            st.view.relistens += 1;
        }
        let message = format!("subscriptions/listen {}", desired.to_wire());
        st.record(TransitionKind::Opening, message, None, None);
        st.stream = Some(Stream {
            view: opening(number, desired.clone()),
            control: control.clone(),
        });
        (old, Some((number, desired)))
    });
    if let Some(old) = old {
        old.cancel("the desired filter changed");
    }
    if let Some((number, filter)) = start {
        let listen = Listen {
            app: app.clone(),
            name: name.to_string(),
            session,
            generation,
            number,
            control,
        };
        tokio::spawn(listen.run(filter, tx, log_level));
    }
    Ok(app.subscriptions(name))
}

/// End the current stream as a local abort. `not_found` when none is open.
pub(super) fn cancel(app: &Arc<Inspector>, name: &str, why: &str) -> Result<()> {
    let control = change(app, name, true, |st| close_current(st, why));
    match control {
        Some(c) => {
            c.cancel(why);
            Ok(())
        }
        None => Err(Error::not_found(format!(
            "{name:?} has no subscription stream open"
        ))),
    }
}

/// Mark the open stream cancelled locally (recorded), returning the control to cancel it with.
fn close_current(st: &mut ServerSubs, why: &str) -> Option<Arc<RequestControl>> {
    let s = st.stream.as_mut().filter(|s| s.view.status.open())?;
    let control = s.control.clone();
    end(st, StreamStatus::CancelledLocally, why.to_string());
    Some(control)
}

/// Set the current stream's final status and record it; its id is remembered as ended.
fn end(st: &mut ServerSubs, status: StreamStatus, reason: String) {
    let Some(s) = st.stream.as_mut() else { return };
    s.view.status = status;
    s.view.close_reason = Some(reason.clone());
    s.view.closed_us = Some(now_us());
    let shown = s.view.subscription_id.clone();
    let wire = s.control.wire_ids();
    for id in wire {
        if st.ended.len() >= super::MAX_IDS {
            st.ended.pop_front();
        }
        st.ended.push_back((id, now_us(), status));
    }
    let kind = match status {
        StreamStatus::ClosedByServer => TransitionKind::ClosedByServer,
        StreamStatus::ConnectionLost => TransitionKind::ConnectionLost,
        StreamStatus::CancelledLocally => TransitionKind::CancelledLocally,
        _ => TransitionKind::Error,
    };
    st.record(kind, reason, None, shown);
}

fn opening(number: u32, requested: Filter) -> StreamView {
    StreamView {
        number,
        status: StreamStatus::Opening,
        subscription_id: None,
        id_source: None,
        requested,
        acknowledged: None,
        not_honoured: Vec::new(),
        close_reason: None,
        opened_us: now_us(),
        closed_us: None,
        notifications: 0,
        history_id: None,
    }
}

/// One stream's task.
struct Listen {
    app: Arc<Inspector>,
    name: String,
    session: Session,
    generation: u64,
    number: u32,
    control: Arc<RequestControl>,
}

impl Listen {
    /// Send the listen with a history entry, wait for its end, record how it ended.
    async fn run(self, filter: Filter, tx: crate::queue::Queue, log_level: Option<String>) {
        let call = Call {
            method: "subscriptions/listen".into(),
            params: Some(json!({"notifications": filter.to_wire()})),
            timeout: Some(None),
            ..Call::default()
        };
        let era = self.session.era();
        let request_id = conn::new_request_id();
        let (app, name) = (&self.app, self.name.as_str());
        let hist = conn::open_entry(app, name, &call, era, &request_id, &self.control, &tx)
            .await
            .ok();
        self.mine(|s| s.view.history_id = hist);
        let opts = conn::request_options(&call, era, log_level, &self.control);
        let outcome = (self.session)
            .request_with(&call.method, call.params.clone(), &opts)
            .await;
        let (status, reason) = self.ending(&outcome);
        let number = self.number;
        change(app, name, true, |st| {
            let current = st.stream.as_ref().is_some_and(|s| s.view.number == number);
            if current && st.stream.as_ref().is_some_and(|s| s.view.status.open()) {
                end(st, status, reason);
            }
        });
        if let Some(h) = hist {
            let _ = conn::close_entry(app, &tx, h, outcome).await;
        }
    }

    /// Change this task's stream, if it is still the current one.
    fn mine(&self, f: impl FnOnce(&mut Stream)) {
        let number = self.number;
        change(&self.app, &self.name, false, |st| {
            if let Some(s) = st.stream.as_mut().filter(|s| s.view.number == number) {
                f(s);
            }
        });
    }

    /// How the listen ended, as a status and a reason in words.
    fn ending(&self, outcome: &std::result::Result<Value, ClientError>) -> (StreamStatus, String) {
        let local = self.app.slots().get(&self.name).is_none_or(|s| {
            let st = s.st();
            st.generation != self.generation || st.closing
        });
        match outcome {
            Ok(v) => {
                let kind = v.get("resultType").and_then(Value::as_str);
                let how = kind.map_or("no resultType".to_string(), |k| format!("resultType {k:?}"));
                (
                    StreamStatus::ClosedByServer,
                    format!("the server ended the subscription with a result ({how})"),
                )
            }
            Err(ClientError::ServerCancelled { reason, .. }) => (
                StreamStatus::ClosedByServer,
                format!("the server ended the subscription with notifications/cancelled: {reason}"),
            ),
            Err(ClientError::Cancelled { reason, .. }) => (
                StreamStatus::CancelledLocally,
                self.control.cancelled().unwrap_or_else(|| reason.clone()),
            ),
            Err(_) if local => (
                StreamStatus::CancelledLocally,
                "the connection was closed (disconnect)".into(),
            ),
            Err(e) if e.is_connection_failure() => (
                StreamStatus::ConnectionLost,
                format!("the stream closed without a result (remote close): {e}"),
            ),
            Err(e) => (StreamStatus::Error, e.to_string()),
        }
    }
}
