//! What we send: the era's envelope (`_meta`) and `Mcp-*` headers, one request on the wire and
//! its wait (timeout reset by progress, cancellation), notifications, and cancelling the way the
//! era and transport call for.

use super::{Outcome, Pending, RequestOptions, Session};
use crate::error::ClientError;
use bytes::Bytes;
use mcpscope_proto::RequestId;
use mcpscope_proto::era::{self, Era};
use mcpscope_proto::headers::{self};
use mcpscope_proto::method::Method;
use mcpscope_transport::{Connection, Outgoing};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::{Notify, oneshot};

/// A request on the wire: its id, where its outcome will arrive, what progress on it wakes, and
/// the bytes that went (the raw tester shows them).
pub(super) struct Sent {
    pub(super) id: RequestId,
    pub(super) answer: oneshot::Receiver<Outcome>,
    pub(super) activity: Arc<Notify>,
    pub(super) body: Bytes,
}

impl Session {
    fn next_id(&self) -> RequestId {
        RequestId::Number(self.shared.next_id.fetch_add(1, Ordering::SeqCst))
    }

    /// Apply the era's envelope to `params`.
    fn envelope(
        &self,
        method: &str,
        params: Option<Value>,
        extra_meta: &Map<String, Value>,
        progress: Option<&Value>,
    ) -> Option<Value> {
        let (era, version) = {
            let st = self.state();
            (
                st.era,
                st.version
                    .clone()
                    .unwrap_or_else(|| era::MODERN_VERSION.to_string()),
            )
        };
        let mut meta = self.shared.opts.metadata.clone();
        meta.extend(extra_meta.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(t) = progress {
            meta.insert("progressToken".into(), t.clone());
        }
        let merge = |params: Option<Value>, meta: &Map<String, Value>| -> Option<Value> {
            if meta.is_empty() {
                return params;
            }
            let mut p = match params {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let m = p
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(m) = m.as_object_mut() {
                for (k, v) in meta {
                    m.insert(k.clone(), v.clone());
                }
            }
            Some(Value::Object(p))
        };
        match era {
            Era::Legacy => merge(params, &meta),
            Era::Modern => {
                let caps = self.shared.responder.capabilities(Era::Modern);
                let _ = method;
                let stamped = era::stamp_modern_meta(
                    merge(params, &meta),
                    &version,
                    &caps,
                    &self.shared.opts.client_info,
                    self.shared.opts.log_level.as_deref(),
                );
                Some(stamped)
            }
        }
    }

    pub(super) fn http_headers(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Vec<(String, String)> {
        let (era, version) = {
            let st = self.state();
            (
                st.era,
                st.version
                    .clone()
                    .unwrap_or_else(|| era::MODERN_VERSION.to_string()),
            )
        };
        if era != Era::Modern || !matches!(*self.conn(), Connection::Http(_)) {
            return vec![];
        }
        let mut h = headers::standard_headers(&version, method, params);
        if method == Method::ToolsCall
            && let Some(p) = params
            && let Some(name) = p.get("name").and_then(Value::as_str)
            && let Some(Ok(hs)) = self.state().tool_headers.get(name)
        {
            h.extend(headers::param_header_values(
                hs,
                p.get("arguments").unwrap_or(&Value::Null),
            ));
        }
        h
    }

    /// Send one request and wait for its outcome (no retries, no rounds).
    pub(super) async fn send_once(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if let Some(reason) = self.state().closed.clone() {
            return Err(ClientError::Closed(reason));
        }
        if let Some(reason) = opts.control.as_ref().and_then(|c| c.cancelled()) {
            return Err(ClientError::Cancelled {
                method: method.to_string(),
                reason,
            });
        }
        let sent = self.put_on_wire(method, params, opts).await?;
        let outcome = self.wait_for_outcome(sent, method, opts).await?;
        match outcome {
            Some(Outcome::Result(v)) => Ok(v),
            Some(Outcome::Error(e)) => Err(ClientError::Rpc {
                method: method.to_string(),
                error: e,
            }),
            Some(Outcome::Failed(e)) => Err(e),
            None => Err(ClientError::Cancelled {
                method: method.to_string(),
                reason: "the request was dropped".into(),
            }),
        }
    }

    /// Number the request, apply the era's envelope and headers, register it as pending and
    /// hand it to the transport.
    pub(super) async fn put_on_wire(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Sent, ClientError> {
        let id = self.next_id();
        let token = opts.progress.then(|| id.to_value());
        let params = self.envelope(method, params, &opts.meta, token.as_ref());
        let headers = self.http_headers(method, params.as_ref());
        let body = Bytes::from(
            serde_json::to_vec(&mcpscope_proto::request(&id, method, params))
                .expect("serializable"),
        );
        let (tx, rx) = oneshot::channel();
        let activity = Arc::new(Notify::new());
        self.state().pending.insert(
            id.clone(),
            Pending {
                method: method.to_string(),
                tx,
                progress_token: token,
                activity: activity.clone(),
            },
        );
        // Before the send: progress for this id may arrive before `send` returns.
        if let Some(c) = &opts.control {
            c.push_id(id.clone());
        }
        let outgoing = Outgoing {
            body: body.clone(),
            id: Some(id.clone()),
            headers,
        };
        if let Err(e) = self.conn().send(outgoing).await {
            self.state().pending.remove(&id);
            return Err(e.into());
        }
        Ok(Sent {
            id,
            answer: rx,
            activity,
            body,
        })
    }

    /// Wait for the answer to a sent request. The timeout restarts on progress and waits while
    /// an authorization is in progress; a cancellation or a timeout is signalled on the wire.
    /// `Ok(None)`: the engine dropped the request without an outcome.
    pub(super) async fn wait_for_outcome(
        &self,
        sent: Sent,
        method: &str,
        opts: &RequestOptions,
    ) -> Result<Option<Outcome>, ClientError> {
        let Sent {
            id,
            answer: mut rx,
            activity,
            ..
        } = sent;
        let id = &id;
        let timeout = opts.timeout.unwrap_or(self.shared.opts.request_timeout);
        let cancel = async {
            match &opts.control {
                Some(c) => c.wait_cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(cancel);
        // A sleep that never ends stands for "no timeout", so both cases share one select.
        let tick = || async move {
            match timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => std::future::pending().await,
            }
        };
        loop {
            tokio::select! {
                o = &mut rx => return Ok(o.ok()),
                reason = &mut cancel => return match self.cancel_one(id, method, &reason).await {
                    Some(e) => Err(e),
                    // The answer won the race: take it.
                    None => Ok((&mut rx).await.ok()),
                },
                _ = activity.notified() => continue,
                _ = tick() => {
                    let t = timeout.expect("the tick only ends with a timeout");
                    if self.authorizing() {
                        continue;
                    }
                    return match self.time_out(id, method, t, opts.quiet_timeout).await {
                        Some(e) => Err(e),
                        // Answered while we were timing out: take the answer.
                        None => Ok((&mut rx).await.ok()),
                    };
                }
            }
        }
    }

    /// Request `id` timed out after `t`: forget it (remembering it, so a late answer is named
    /// rather than "unknown"), signal it on the wire unless `quiet`, and give the error; `None`
    /// when it was answered meanwhile.
    async fn time_out(
        &self,
        id: &RequestId,
        method: &str,
        t: Duration,
        quiet: bool,
    ) -> Option<ClientError> {
        let removed = {
            let mut st = self.state();
            let removed = st.pending.remove(id);
            if let Some(p) = &removed {
                st.remember_timed_out(id.clone(), method.to_string(), t);
                st.remember_ended(p);
            }
            removed.is_some()
        };
        if !removed {
            return None;
        }
        if !quiet {
            self.cancel_on_wire(id, method, "request timed out").await;
        }
        // Two statements: the guard of the first must be gone before `stderr_hint` locks the
        // state (same-thread deadlock otherwise).
        let discarded = self.state().discarded.clone();
        let detail = discarded.or_else(|| self.stderr_hint());
        Some(ClientError::Timeout {
            method: method.to_string(),
            after: t,
            detail,
        })
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let body = Bytes::from(
            serde_json::to_vec(&mcpscope_proto::notification(method, params))
                .expect("serializable"),
        );
        self.conn()
            .send(Outgoing {
                body,
                id: None,
                headers: vec![],
            })
            .await?;
        Ok(())
    }

    /// Signal cancellation of request `id` the way the era and transport call for: closing the
    /// response stream on modern HTTP, `notifications/cancelled` everywhere else. `initialize` is
    /// never cancelled (the spec forbids it).
    async fn cancel_on_wire(&self, id: &RequestId, method: &str, reason: &str) {
        if method == Method::Initialize {
            return;
        }
        let conn = self.conn();
        if self.era() == Era::Modern && conn.close_stream(id) {
            return;
        }
        let _ = self
            .notify(
                Method::NotificationsCancelled.name(),
                Some(json!({"requestId": id.to_value(), "reason": reason})),
            )
            .await;
    }

    /// Cancel one pending request (its [`RequestControl`] fired): signal it on the wire and give
    /// the error to return, or `None` when the answer won the race and should be taken instead.
    async fn cancel_one(&self, id: &RequestId, method: &str, reason: &str) -> Option<ClientError> {
        {
            let mut st = self.state();
            let p = st.pending.remove(id)?;
            st.remember_ended(&p);
        }
        self.cancel_on_wire(id, method, reason).await;
        Some(ClientError::Cancelled {
            method: method.to_string(),
            reason: reason.to_string(),
        })
    }

    /// Cancel every request in flight (Ctrl-C): each is signalled on the wire and fails with
    /// `Cancelled`. Returns how many were cancelled.
    pub fn cancel_all(&self, reason: &str) -> usize {
        let pending: Vec<(RequestId, Pending)> = {
            let mut st = self.state();
            let pending: Vec<(RequestId, Pending)> = st.pending.drain().collect();
            pending.iter().for_each(|(_, p)| st.remember_ended(p));
            pending
        };
        let n = pending.len();
        for (id, p) in pending {
            let this = self.clone();
            let reason2 = reason.to_string();
            let method = p.method.clone();
            let _ = p.tx.send(Outcome::Failed(ClientError::Cancelled {
                method: p.method,
                reason: reason.to_string(),
            }));
            // Fire and forget, but the CLI awaits `cancel_all_on_wire` before exiting.
            tokio::spawn(async move { this.cancel_on_wire(&id, &method, &reason2).await });
        }
        n
    }

    /// The connect timeout ended the handshake after `t`: what it waited for is remembered as
    /// timed out, so an answer arriving while the attempt is torn down is named as late rather
    /// than as an answer to an unknown request.
    pub(super) fn handshake_timed_out(&self, t: Duration) {
        let mut st = self.state();
        let waiting: Vec<(RequestId, String)> = st
            .pending
            .iter()
            .map(|(id, p)| (id.clone(), p.method.clone()))
            .collect();
        for (id, method) in waiting {
            st.remember_timed_out(id, method, t);
        }
    }

    /// Like [`Session::cancel_all`], but waits until each cancellation has been handed to the wire.
    pub async fn cancel_all_on_wire(&self, reason: &str) -> usize {
        let pending: Vec<(RequestId, Pending)> = {
            let mut st = self.state();
            let pending: Vec<(RequestId, Pending)> = st.pending.drain().collect();
            pending.iter().for_each(|(_, p)| st.remember_ended(p));
            pending
        };
        let n = pending.len();
        for (id, p) in pending {
            self.cancel_on_wire(&id, &p.method, reason).await;
            let _ = p.tx.send(Outcome::Failed(ClientError::Cancelled {
                method: p.method,
                reason: reason.to_string(),
            }));
        }
        n
    }
}
