//! One message sent by hand (the web UI's raw JSON-RPC tester): either built by the engine — an
//! id it assigns and the era's envelope, exactly as any request of ours — or sent as the bytes
//! the user typed, even when they are not JSON. Either way it goes through the session like
//! every other message (numbered, recorded, shown to the observer), a request's answer is
//! awaited with the usual timeout, progress and cancellation, and no retry or `input_required`
//! round is made on it: the tester shows what came back, not what the engine would do next.

use super::outbound::Sent;
use super::{Outcome, Pending, RequestOptions, Session};
use crate::error::ClientError;
use bytes::Bytes;
use mcpscope_proto::{Classified, RequestId, RpcError};
use mcpscope_transport::Outgoing;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::{Notify, oneshot};

/// What went and what came back for one message sent by hand.
#[derive(Debug, Clone)]
pub struct Exchanged {
    /// The bytes handed to the transport.
    pub sent: Bytes,
    /// The id whose answer was awaited; `None` when none was (a notification, a body that is
    /// not a single request).
    pub id: Option<RequestId>,
    /// The answer to `id`: its `result`, or the JSON-RPC error as received. `None` when nothing
    /// was awaited.
    pub answer: Option<Result<Value, RpcError>>,
}

impl Session {
    /// Send `method` as a request with an id the engine assigns and the era's envelope (modern:
    /// the `_meta` every request carries, and the `Mcp-*` headers), once, and wait for its
    /// answer — a JSON-RPC error is an answer here, not a failure. Timeouts, cancellation and a
    /// lost connection are errors, as for any request.
    pub async fn request_by_hand(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Exchanged, ClientError> {
        if let Some(reason) = self.state().closed.clone() {
            return Err(ClientError::Closed(reason));
        }
        let sent = self.put_on_wire(method, params, opts).await?;
        let (id, body) = (sent.id.clone(), sent.body.clone());
        let outcome = self.wait_for_outcome(sent, method, opts).await?;
        Ok(Exchanged {
            sent: body,
            id: Some(id),
            answer: Some(answered(outcome, method).map_err(|e| *e)?),
        })
    }

    /// Send a notification built from `method` and `params` (`jsonrpc` added; on modern HTTP the
    /// `Mcp-*` headers too). Nothing is awaited.
    pub async fn notify_by_hand(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Exchanged, ClientError> {
        let body = serde_json::to_vec(&mcpscope_proto::notification(method, params))
            .expect("serializable");
        self.send_raw(Bytes::from(body), &RequestOptions::default())
            .await
    }

    /// Send `body` exactly as given. When it is one JSON-RPC request, its answer is awaited by
    /// its own id, with the usual timeout and cancellation (the id must not be in flight: two
    /// requests cannot wait on one id); anything else (a notification, a response, a batch, a
    /// body that is not JSON) is sent and nothing is awaited. On modern HTTP, a body that names
    /// a method gets the `Mcp-*` headers derived from it, as any message of ours would.
    pub async fn send_raw(
        &self,
        body: Bytes,
        opts: &RequestOptions,
    ) -> Result<Exchanged, ClientError> {
        if let Some(reason) = self.state().closed.clone() {
            return Err(ClientError::Closed(reason));
        }
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        let classified = parsed.as_ref().map(mcpscope_proto::classify);
        let params = parsed.as_ref().and_then(|m| m.get("params"));
        match classified {
            Some(Classified::Request { id, method }) => {
                let headers = self.http_headers(&method, params);
                let sent = self
                    .register_raw(id.clone(), &method, params, opts, body)
                    .ok_or_else(|| ClientError::IdInFlight { id: id.to_string() })?;
                let outgoing = Outgoing {
                    body: sent.body.clone(),
                    id: Some(id.clone()),
                    headers,
                };
                if let Err(e) = self.conn().send(outgoing).await {
                    self.state().pending.remove(&id);
                    return Err(e.into());
                }
                let body = sent.body.clone();
                let outcome = self.wait_for_outcome(sent, &method, opts).await?;
                Ok(Exchanged {
                    sent: body,
                    id: Some(id),
                    answer: Some(answered(outcome, &method).map_err(|e| *e)?),
                })
            }
            other => {
                let headers = match &other {
                    Some(Classified::Notification { method }) => self.http_headers(method, params),
                    _ => vec![],
                };
                let outgoing = Outgoing {
                    body: body.clone(),
                    id: None,
                    headers,
                };
                self.conn().send(outgoing).await?;
                Ok(Exchanged {
                    sent: body,
                    id: None,
                    answer: None,
                })
            }
        }
    }

    /// Register a request typed by hand as pending under its own id, so the engine resolves
    /// its answer as it does ours (and progress on its `progressToken` restarts its timeout);
    /// `None` when that id is in flight already.
    fn register_raw(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
        body: Bytes,
    ) -> Option<Sent> {
        let (tx, rx) = oneshot::channel();
        let activity = Arc::new(Notify::new());
        {
            let mut st = self.state();
            if st.pending.contains_key(&id) {
                return None;
            }
            st.pending.insert(
                id.clone(),
                Pending {
                    method: method.to_string(),
                    tx,
                    progress_token: params
                        .and_then(|p| p.pointer("/_meta/progressToken"))
                        .cloned(),
                    activity: activity.clone(),
                },
            );
        }
        if let Some(c) = &opts.control {
            c.push_id(id.clone());
        }
        Some(Sent {
            id,
            answer: rx,
            activity,
            body,
        })
    }
}

/// A request's outcome as the tester reports it: a result or a JSON-RPC error is an answer;
/// anything else ended it without one (boxed: the error is large beside the answer).
fn answered(
    outcome: Option<Outcome>,
    method: &str,
) -> Result<Result<Value, RpcError>, Box<ClientError>> {
    match outcome {
        Some(Outcome::Result(v)) => Ok(Ok(v)),
        Some(Outcome::Error(e)) => Ok(Err(e)),
        Some(Outcome::Failed(e)) => Err(Box::new(e)),
        None => Err(Box::new(ClientError::Cancelled {
            method: method.to_string(),
            reason: "the request was dropped".into(),
        })),
    }
}
