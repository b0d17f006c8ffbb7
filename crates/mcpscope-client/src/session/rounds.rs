//! One logical request driven to its end: modern `input_required` rounds answered through the
//! `Responder`, the `-32022` version retry, the `-32020` header-mismatch refetch, and a new
//! legacy session when the old one expired. Each step is one `send_once`.

use super::{RequestOptions, Session};
use crate::error::ClientError;
use crate::events::SessionEvent;
use crate::responder::{RequestOrigin, ServerRequest};
use mcpscope_proto::RpcError;
use mcpscope_proto::era::{self, Era};
use mcpscope_proto::method::Method;
use mcpscope_transport::TransportError;
use serde_json::{Map, Value, json};

/// Where one logical request stands: the params of the next attempt and which retries it has
/// used (each at most once).
struct Walk {
    /// The caller's params, the base of every `input_required` retry.
    original: Option<Value>,
    params: Option<Value>,
    rounds: usize,
    retried_version: bool,
    retried_headers: bool,
    reinitialized: bool,
}

impl Session {
    /// Send a request and drive it to completion: `input_required` rounds (modern), the `-32022`
    /// version retry, the `-32020` header refetch, and re-initialization after an expired legacy
    /// session. A modern `resultType: "task"` result is returned as is (see [`Session::await_task`]).
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        self.request_with(method, params, &RequestOptions::default())
            .await
    }

    /// [`Session::request`] with per-request options.
    pub async fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if method == Method::ToolsCall && self.mirrors_param_headers() {
            self.ensure_tool_schema(params.as_ref()).await?;
        }
        let mut walk = Walk {
            original: params.clone(),
            params,
            rounds: 0,
            retried_version: false,
            retried_headers: false,
            reinitialized: false,
        };
        loop {
            self.renew_lost_session(method, &mut walk).await?;
            let result = match self.send_once(method, walk.params.clone(), opts).await {
                Ok(result) => result,
                Err(e) => {
                    self.recover(method, e, &mut walk).await?;
                    continue;
                }
            };
            if method == Method::ToolsList {
                self.learn_tools(&result);
            }
            if self.era() != Era::Modern {
                return Ok(result);
            }
            match era::result_type(&result) {
                "complete" | "task" => return Ok(result),
                "input_required" if mcpscope_proto::method::may_require_input(method) => {
                    walk.params = Some(self.next_round(method, &mut walk, result, opts).await?);
                }
                other => {
                    return Err(ClientError::Protocol(format!(
                        "{method} returned resultType {other:?}, which this request cannot have; the result is invalid"
                    )));
                }
            }
        }
    }

    /// A legacy HTTP session that expired on a notification: start a new one before the next
    /// attempt. The transport already forgot the dead session id; a request sent now would go
    /// without one and be refused as "session id required" instead of being retried.
    async fn renew_lost_session(&self, method: &str, walk: &mut Walk) -> Result<(), ClientError> {
        let lost = self.state().session_lost.take();
        if let Some(session_id) = lost
            && self.era() == Era::Legacy
        {
            walk.reinitialized = true;
            self.warn(format!("session {session_id} expired (HTTP 404 to a notification); initializing a new session before {method}"), None);
            self.initialize(&mut Vec::new()).await?;
        }
        Ok(())
    }

    /// One `input_required` round: answer its `inputRequests` through the responder and build
    /// the retry's params (the original params, the answers, the server's `requestState`).
    async fn next_round(
        &self,
        method: &str,
        walk: &mut Walk,
        result: Value,
        opts: &RequestOptions,
    ) -> Result<Value, ClientError> {
        walk.rounds += 1;
        if walk.rounds > self.shared.opts.max_input_rounds {
            return Err(ClientError::TooManyRounds {
                method: method.to_string(),
                rounds: walk.rounds - 1,
                last: result,
            });
        }
        let asks = result.get("inputRequests");
        if asks.and_then(Value::as_object).is_none_or(|m| m.is_empty()) {
            // Nothing to answer: the retry carries only the requestState. Said, so a server
            // that loops on empty rounds is seen doing so before the round limit ends it.
            let what = if asks.is_some() { "an empty" } else { "no" };
            self.warn(
                format!("{method}: input_required round {} has {what} inputRequests; retrying with requestState only", walk.rounds),
                None,
            );
        }
        let answers = self.fulfil(method, walk.rounds, asks);
        // Between rounds nothing of ours is on the wire, so only the caller's cancel can end
        // the wait for a person's answer (dropping it abandons the question in the view).
        let responses = match &opts.control {
            Some(control) => tokio::select! {
                answered = answers => answered?,
                reason = control.wait_cancelled() => {
                    return Err(ClientError::Cancelled { method: method.to_string(), reason });
                }
            },
            None => answers.await?,
        };
        let mut next = match walk.original.clone() {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        if !responses.is_empty() {
            next.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = result.get("requestState") {
            next.insert("requestState".into(), state.clone());
        }
        Ok(Value::Object(next))
    }

    /// A failed attempt that one retry may mend — the `-32022` version retry, the `-32020`
    /// header refetch, an expired legacy session — is prepared for the retry (`Ok`); anything
    /// else, or a second time, is the request's error.
    async fn recover(
        &self,
        method: &str,
        error: ClientError,
        walk: &mut Walk,
    ) -> Result<(), ClientError> {
        match error {
            ClientError::Rpc { error, .. }
                if error.code == era::UNSUPPORTED_PROTOCOL_VERSION
                    && self.era() == Era::Modern
                    && !walk.retried_version =>
            {
                walk.retried_version = true;
                if self.adopt_supported_version(method, &error) {
                    Ok(())
                } else {
                    Err(ClientError::Rpc {
                        method: method.to_string(),
                        error,
                    })
                }
            }
            ClientError::Rpc { error, .. }
                if error.code == era::HEADER_MISMATCH
                    && method == Method::ToolsCall
                    && !walk.retried_headers =>
            {
                walk.retried_headers = true;
                self.warn(
                    format!("tools/call: server reports a header mismatch ({}); refetching tools/list and retrying once", error.message),
                    None,
                );
                self.refresh_tools().await
            }
            ClientError::Transport(TransportError::SessionExpired { session_id })
                if self.era() == Era::Legacy
                    && method != Method::Initialize
                    && !walk.reinitialized =>
            {
                walk.reinitialized = true;
                self.warn(format!("session {session_id} expired (HTTP 404); initializing a new session and retrying {method}"), None);
                self.conn().reset_session();
                self.initialize(&mut Vec::new()).await
            }
            e => Err(e),
        }
    }

    /// `-32022`: switch to a modern version the server lists as supported. False when it lists
    /// none we speak: the error is the request's.
    fn adopt_supported_version(&self, method: &str, error: &RpcError) -> bool {
        let current = self
            .protocol_version()
            .unwrap_or_else(|| era::MODERN_VERSION.to_string());
        let supported = era::supported_versions(error);
        match era::MODERN_VERSIONS
            .iter()
            .find(|v| supported.iter().any(|s| s == *v))
        {
            Some(v) if *v != current => {
                self.warn(
                    format!("{method}: server does not support {current}; retrying with {v}"),
                    None,
                );
                self.state().version = Some(v.to_string());
                true
            }
            // The server claims to support the version it just rejected: retry once as is.
            Some(_) => true,
            None => false,
        }
    }

    /// Answer every entry of an `inputRequests` map through the responder. Every entry is asked
    /// at once, in the map's order, so a view can show the round as one dialog ("key 1 of 3")
    /// and the answers go back together in one retry; the first refusal ends the round (the
    /// other questions are dropped, which abandons them in the view).
    pub(super) async fn fulfil(
        &self,
        method: &str,
        round: usize,
        requests: Option<&Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let Some(map) = requests.and_then(Value::as_object) else {
            return Ok(Map::new());
        };
        let asked: Vec<_> =
            map.iter()
                .map(|(key, req)| {
                    let inner = req
                        .get("method")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    self.shared.observer.on_event(SessionEvent::ServerRequest {
                        method: inner.clone(),
                        origin: format!("input_required round {round} of {method}, key {key:?}"),
                    });
                    let answer = self.shared.responder.respond(ServerRequest {
                        method: inner.clone(),
                        params: req.get("params").cloned().unwrap_or_else(|| json!({})),
                        origin: RequestOrigin::InputRequired {
                            key: key.clone(),
                            round,
                            keys: map.len(),
                            max_rounds: self.shared.opts.max_input_rounds,
                            for_method: method.to_string(),
                        },
                    });
                    async move {
                        answer.await.map(|v| (key.clone(), v)).map_err(|e| {
                            ClientError::InputRefused {
                                method: method.to_string(),
                                input_method: inner,
                                key: key.clone(),
                                reason: e.message,
                            }
                        })
                    }
                })
                .collect();
        let answered = futures::future::try_join_all(asked).await?;
        Ok(answered.into_iter().collect())
    }
}
