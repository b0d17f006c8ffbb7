//! One logical request driven to its end: modern `input_required` rounds answered through the
//! `Responder`, the `-32022` version retry, the `-32020` header-mismatch refetch, and a new
//! legacy session when the old one expired. Each step is one `send_once`.

use super::{RequestOptions, Session};
use crate::error::ClientError;
use crate::events::SessionEvent;
use crate::responder::{RequestOrigin, ServerRequest};
use mcpscope_proto::era::{self, Era};
use mcpscope_transport::TransportError;
use serde_json::{Map, Value, json};

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
        if method == "tools/call" && self.mirrors_param_headers() {
            self.ensure_tool_schema(params.as_ref()).await?;
        }
        let original = params.clone();
        let mut params = params;
        let mut rounds = 0;
        let mut retried_version = false;
        let mut retried_headers = false;
        let mut reinitialized = false;
        loop {
            // The transport already forgot the dead session id; a request sent now would go
            // without one and be refused as "session id required" instead of being retried.
            let lost = self.state().session_lost.take();
            if let Some(session_id) = lost
                && self.era() == Era::Legacy
            {
                reinitialized = true;
                self.warn(format!("session {session_id} expired (HTTP 404 to a notification); initializing a new session before {method}"), None);
                self.initialize(&mut Vec::new()).await?;
            }
            match self.send_once(method, params.clone(), opts).await {
                Ok(result) => {
                    if method == "tools/list" {
                        self.learn_tools(&result);
                    }
                    if self.era() != Era::Modern {
                        return Ok(result);
                    }
                    match era::result_type(&result) {
                        "complete" | "task" => return Ok(result),
                        "input_required" if era::may_require_input(method) => {
                            rounds += 1;
                            if rounds > self.shared.opts.max_input_rounds {
                                return Err(ClientError::TooManyRounds {
                                    method: method.to_string(),
                                    rounds: rounds - 1,
                                    last: result,
                                });
                            }
                            let responses = self
                                .fulfil(method, rounds, result.get("inputRequests"))
                                .await?;
                            let mut next = match original.clone() {
                                Some(Value::Object(m)) => m,
                                _ => Map::new(),
                            };
                            if !responses.is_empty() {
                                next.insert("inputResponses".into(), Value::Object(responses));
                            }
                            if let Some(state) = result.get("requestState") {
                                next.insert("requestState".into(), state.clone());
                            }
                            params = Some(Value::Object(next));
                            continue;
                        }
                        other => {
                            return Err(ClientError::Protocol(format!(
                                "{method} returned resultType {other:?}, which this request cannot have; the result is invalid"
                            )));
                        }
                    }
                }
                Err(ClientError::Rpc { error, .. })
                    if error.code == era::UNSUPPORTED_PROTOCOL_VERSION
                        && self.era() == Era::Modern
                        && !retried_version =>
                {
                    retried_version = true;
                    let current = self
                        .protocol_version()
                        .unwrap_or_else(|| era::MODERN_VERSION.to_string());
                    let supported = era::supported_versions(&error);
                    match era::MODERN_VERSIONS
                        .iter()
                        .find(|v| supported.iter().any(|s| s == *v))
                    {
                        Some(v) if *v != current => {
                            self.warn(
                                format!(
                                    "{method}: server does not support {current}; retrying with {v}"
                                ),
                                None,
                            );
                            self.state().version = Some(v.to_string());
                        }
                        Some(_) => {
                            // The server claims to support the version it just rejected: retry once as is.
                        }
                        None => {
                            return Err(ClientError::Rpc {
                                method: method.to_string(),
                                error,
                            });
                        }
                    }
                }
                Err(ClientError::Rpc { error, .. })
                    if error.code == era::HEADER_MISMATCH
                        && method == "tools/call"
                        && !retried_headers =>
                {
                    retried_headers = true;
                    self.warn(
                        format!("tools/call: server reports a header mismatch ({}); refetching tools/list and retrying once", error.message),
                        None,
                    );
                    self.refresh_tools().await?;
                }
                Err(ClientError::Transport(TransportError::SessionExpired { session_id }))
                    if self.era() == Era::Legacy && method != "initialize" && !reinitialized =>
                {
                    reinitialized = true;
                    self.warn(format!("session {session_id} expired (HTTP 404); initializing a new session and retrying {method}"), None);
                    self.conn().reset_session();
                    self.initialize(&mut Vec::new()).await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Answer every entry of an `inputRequests` map through the responder.
    pub(super) async fn fulfil(
        &self,
        method: &str,
        round: usize,
        requests: Option<&Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut out = Map::new();
        let Some(map) = requests.and_then(Value::as_object) else {
            return Ok(out);
        };
        for (key, req) in map {
            let inner = req
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            self.shared.observer.on_event(&SessionEvent::ServerRequest {
                method: inner.clone(),
                origin: format!("input_required round {round} of {method}, key {key:?}"),
            });
            let answer = self
                .shared
                .responder
                .respond(ServerRequest {
                    method: inner.clone(),
                    params: req.get("params").cloned().unwrap_or_else(|| json!({})),
                    origin: RequestOrigin::InputRequired {
                        key: key.clone(),
                        round,
                        for_method: method.to_string(),
                    },
                })
                .await;
            match answer {
                Ok(v) => {
                    out.insert(key.clone(), v);
                }
                Err(e) => {
                    return Err(ClientError::InputRefused {
                        method: method.to_string(),
                        input_method: inner,
                        key: key.clone(),
                        reason: e.message,
                    });
                }
            }
        }
        Ok(out)
    }
}
