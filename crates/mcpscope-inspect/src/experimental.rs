//! The Experimental panel's commands: one JSON-RPC message sent by hand (the raw tester) and the
//! client capabilities a server's next connection advertises.
//!
//! A message goes through the engine like any call — a history entry, its frames in the
//! traffic, the usual timeout and cancellation — as a request (an id the engine assigns, the
//! era's envelope: `Session::request_by_hand`), a notification, or the bytes exactly as typed
//! (`Session::send_raw`, even when they are not JSON: a server author tests the server's error
//! handling). What comes back is reported as what it is: a result, a JSON-RPC error (with the
//! standard name of its code), nothing within the timeout, or — for a body that is not one
//! request, so has no id to answer — the first frame the server sent that answers no request of
//! ours (a `-32700` with `id: null`, an HTTP `415`, a line that is not JSON).

use crate::capabilities::{AdvertisedCapabilities, standard_view};
use crate::conn::{
    close_entry, connected_named, in_flight, new_request_id, open_entry, request_options,
};
use crate::error::{Error, Result};
use crate::request::{Call, RESULT_CAP};
use crate::state::Inspector;
use bytes::Bytes;
use mcpscope_client::{ClientError, ClientOptions, Exchanged};
use mcpscope_proto::era::Era;
use mcpscope_proto::{Classified, RpcError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a message typed by hand is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SendKind {
    /// With an id (the engine's), its answer awaited.
    #[default]
    Request,
    /// Without an id; nothing is awaited.
    Notification,
}

/// What a view asks to send by hand.
#[derive(Debug, Clone, Default)]
pub struct HandSent {
    /// Request or notification (ignored for a raw body, which says what it is itself).
    pub kind: SendKind,
    /// The method (ignored for a raw body).
    pub method: String,
    /// Its params (an object; ignored for a raw body).
    pub params: Option<Value>,
    /// The whole message exactly as typed, sent as these bytes: no id, `jsonrpc` or `_meta`
    /// added, and it need not be JSON.
    pub raw: Option<String>,
    /// The view's id for the send (to cancel it); `None`: a fresh one.
    pub request_id: Option<String>,
    /// `None`: the server's default timeout; `Some(None)`: none; `Some(Some(d))`: `d`.
    pub timeout: Option<Option<Duration>>,
}

/// What was sent and what came back, before it is shaped for the view.
struct Sending {
    result: std::result::Result<Exchanged, ClientError>,
    /// A raw body that is not one request: the first frame that answered nothing of ours.
    reply: Option<Value>,
    /// How long it waited for that reply.
    waited: Option<Duration>,
    elapsed: Duration,
}

impl Inspector {
    /// Send one message by hand on `name`'s connection, with a history entry: `{historyId,
    /// requestId, raw, kind, sent: {text, size}, id, outcome, durationMs, summary, …}`
    /// (`docs/web-api.md`, "Experimental"). A server's answer of any kind, or its silence, is an
    /// outcome, not an error; errors are the view's (not connected, a busy id, bad input).
    pub async fn send_by_hand(self: &Arc<Self>, name: &str, m: HandSent) -> Result<Value> {
        if m.raw.is_none() && m.method.trim().is_empty() {
            return Err(Error::usage(
                "method is required (e.g. \"experimental/myMethod\")",
            ));
        }
        let (session, tx, log_level) = connected_named(self, name)?;
        let request_id = m.request_id.clone().unwrap_or_else(new_request_id);
        let (control, _cleanup) = in_flight(self, &request_id)?;
        let era = session.era();
        let call = history_call(&m);
        let hist = open_entry(self, name, &call, era, &request_id, &control, &tx).await?;
        let opts = request_options(&call, era, log_level, &control);
        let watch_from = self.events.last_id() + 1;
        let started = Instant::now();
        let result = match (&m.raw, m.kind) {
            (Some(text), _) => session.send_raw(Bytes::from(text.clone()), &opts).await,
            (None, SendKind::Request) => {
                session
                    .request_by_hand(&m.method, m.params.clone(), &opts)
                    .await
            }
            (None, SendKind::Notification) => {
                session.notify_by_hand(&m.method, m.params.clone()).await
            }
        };
        let mut sending = Sending {
            result,
            reply: None,
            waited: None,
            elapsed: started.elapsed(),
        };
        if let (Some(text), Ok(x)) = (&m.raw, &sending.result)
            && x.answer.is_none()
            && expects_reply(text)
        {
            let wait = self.reply_wait(name, m.timeout).await;
            sending.reply = watch_reply(self, name, watch_from, wait).await;
            sending.elapsed = started.elapsed();
            sending.waited = Some(wait);
        }
        let mut view = shape(&m, &sending, era);
        tx.secrets.value(&mut view);
        view["historyId"] = json!(hist);
        view["requestId"] = json!(request_id);
        let recorded = match &sending.result {
            Ok(x) => match &x.answer {
                Some(Err(e)) => Err(ClientError::Rpc {
                    method: call.method.clone(),
                    error: e.clone(),
                }),
                _ => Ok(view.get("response").cloned().unwrap_or(Value::Null)),
            },
            Err(e) => Err(e.clone()),
        };
        // The entry's result is the answer's (or the reply's) so History shows what came back.
        let recorded = recorded.map(|v| match (&v, &sending.reply) {
            (Value::Null, Some(r)) => json!({"reply": r}),
            _ => v,
        });
        let _ = close_entry(self, &tx, hist, recorded).await;
        Ok(view)
    }

    /// How long a raw body with no id to answer waits for a reply: the view's timeout, else the
    /// server's request timeout (`requestTimeout`), else the engine's default.
    async fn reply_wait(&self, name: &str, timeout: Option<Option<Duration>>) -> Duration {
        let entry_ms = self
            .catalog
            .lock()
            .await
            .get(name)
            .and_then(|e| e.request_timeout);
        let chosen = match timeout {
            Some(t) => t,
            None => match entry_ms {
                Some(0) => None,
                Some(ms) => Some(Duration::from_millis(ms)),
                None => ClientOptions::default().request_timeout,
            },
        };
        // "No timeout" cannot mean waiting forever for a reply that has no id to arrive by.
        chosen.unwrap_or(Duration::from_secs(60))
    }

    /// The Experimental panel's capabilities view of `name`: `{settings, standard,
    /// advertised: {legacy, modern}, current, serverExperimental, persisted, protocolEra}`.
    pub async fn client_capabilities(&self, name: &str) -> Result<Value> {
        let entry = self
            .catalog
            .lock()
            .await
            .get(name)
            .cloned()
            .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
        let slot = self.slots().get(name).cloned();
        let (override_, current, server_experimental) = match &slot {
            Some(sl) => {
                let st = sl.st();
                let connected = st.status == Some(crate::views::Status::Connected);
                let info = st.info.as_ref().filter(|_| connected);
                (
                    st.capabilities_override.clone(),
                    info.map(|i| st.advertised.advertise(i.era)),
                    info.map(|i| i.capabilities["experimental"].clone()),
                )
            }
            None => (None, None, None),
        };
        let persisted = override_.is_none();
        let settings = override_.or(entry.client_capabilities).unwrap_or_default();
        Ok(json!({
            "settings": settings,
            "standard": standard_view(&settings),
            "advertised": {
                "legacy": settings.advertise(Era::Legacy),
                "modern": settings.advertise(Era::Modern),
            },
            "current": current,
            "serverExperimental": server_experimental.filter(|v| !v.is_null()),
            "persisted": persisted,
            // A view that reconnects to apply the settings keeps the server's era setting.
            "protocolEra": entry.protocol_era.as_deref().unwrap_or("auto"),
        }))
    }

    /// Choose the client capabilities `name`'s next connection advertises; saved in the
    /// catalog entry (`clientCapabilities`), or for this run when the catalog is read-only. The
    /// current connection keeps what it declared: reconnect to apply.
    pub async fn set_client_capabilities(
        self: &Arc<Self>,
        name: &str,
        settings: AdvertisedCapabilities,
    ) -> Result<Value> {
        if let Some(p) = settings.problem() {
            return Err(Error::usage(format!("clientCapabilities: {p}")));
        }
        let entry = self
            .catalog
            .lock()
            .await
            .get(name)
            .cloned()
            .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
        let mut changed = entry;
        changed.client_capabilities = (!settings.is_default()).then(|| settings.clone());
        let saved = self.catalog.lock().await.update(name, name, changed);
        let slot = self.slot(name).await?;
        slot.st().capabilities_override = match &saved {
            Ok(()) => None,
            Err(_) => Some(settings),
        };
        if saved.is_ok() {
            self.publish_catalog().await;
        }
        self.client_capabilities(name).await
    }
}

/// The history entry's method and params: the view's, or what the raw body names.
fn history_call(m: &HandSent) -> Call {
    let (method, params) = match &m.raw {
        None => (m.method.clone(), m.params.clone()),
        Some(text) => {
            let parsed: Option<Value> = serde_json::from_str(text).ok();
            let method = parsed
                .as_ref()
                .and_then(|v| v.get("method"))
                .and_then(Value::as_str)
                .map_or_else(|| "(raw message)".to_string(), str::to_string);
            (method, parsed.and_then(|v| v.get("params").cloned()))
        }
    };
    Call {
        method,
        params,
        request_id: m.request_id.clone(),
        timeout: m.timeout,
        ..Call::default()
    }
}

/// A raw body that is neither one request (answered by its id) nor a notification (never
/// answered) may still draw an answer: a parse error, an invalid-request error, a batch's.
fn expects_reply(text: &str) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => !matches!(
            mcpscope_proto::classify(&v),
            Classified::Notification { .. }
        ),
        Err(_) => true,
    }
}

/// The first frame of `name`, published from event `from` on and within `wait`, that answers
/// no request of ours: a response or error with a null id, a batch, a message that is not
/// JSON-RPC, or an HTTP answer with a body that carries no message (a `415` in plain text).
async fn watch_reply(app: &Inspector, name: &str, from: u64, wait: Duration) -> Option<Value> {
    let mut changed = app.events.subscribe();
    let deadline = tokio::time::Instant::now() + wait;
    let mut next = from;
    loop {
        let (events, _lost) = app.events.since(next, 1_000);
        for e in &events {
            next = e.id + 1;
            if e.name != "frame" {
                continue;
            }
            if let Ok(f) = serde_json::from_str::<Value>(&e.data)
                && is_reply(&f, name)
            {
                return Some(f);
            }
        }
        if events.is_empty() {
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) if !app.events.is_closed() => {}
                _ => return None,
            }
        }
    }
}

fn is_reply(f: &Value, name: &str) -> bool {
    if f["server"] != name || f["direction"] != "in" {
        return false;
    }
    match f["message"].as_str() {
        Some("response" | "error") => f["id"].is_null(),
        Some("batch" | "invalid") => true,
        Some(_) => false,
        None => f["kind"] == "http-response" && f["size"].as_u64().unwrap_or(0) > 0,
    }
}

/// The view's answer: what went, what came back, how long it took, and one sentence saying so.
fn shape(m: &HandSent, s: &Sending, era: Era) -> Value {
    let ms = (s.elapsed.as_secs_f64() * 1e6).round() / 1e3;
    let mut v = json!({
        "raw": m.raw.is_some(),
        "era": era.to_string(),
        "durationMs": ms,
    });
    let x = match &s.result {
        Ok(x) => x,
        Err(e) => {
            let err = Error::from_client(e);
            let outcome = match err.code {
                mcpscope_proto::error_code::ErrorCode::Timeout => "timeout",
                mcpscope_proto::error_code::ErrorCode::Cancelled => "cancelled",
                _ => "failed",
            };
            v["kind"] = json!(kind_of(m, None));
            v["outcome"] = json!(outcome);
            v["summary"] = json!(format!("{outcome}: {}", err.message));
            v["error"] = err.body();
            return v;
        }
    };
    v["kind"] = json!(kind_of(m, Some(x)));
    v["sent"] = capped_text(&x.sent);
    v["id"] = x.id.as_ref().map_or(Value::Null, |id| id.to_value());
    let (outcome, summary) = match (&x.answer, &s.reply, s.waited) {
        (Some(Ok(result)), ..) => {
            let id = v["id"].clone();
            put_response(
                &mut v,
                json!({"jsonrpc": "2.0", "id": id, "result": result}),
            );
            ("result", format!("answered with a result in {ms} ms"))
        }
        (Some(Err(e)), ..) => {
            let id = v["id"].clone();
            put_response(
                &mut v,
                json!({"jsonrpc": "2.0", "id": id, "error": wire_error(e)}),
            );
            v["rpcError"] = rpc_error_view(e);
            let named = error_name(e.code).map_or(String::new(), |n| format!(" {n}"));
            let summary = format!(
                "answered with JSON-RPC error {}{named}: {} in {ms} ms",
                e.code, e.message
            );
            ("error", summary)
        }
        (None, Some(reply), _) => {
            v["reply"] = reply.clone();
            (
                "reply",
                format!(
                    "the server answered in {ms} ms with {}",
                    describe_reply(reply)
                ),
            )
        }
        (None, None, Some(waited)) => {
            v["waitedMs"] = json!(waited.as_millis() as u64);
            let summary = format!(
                "nothing came back within {} ms (the server may have dropped the message without a word)",
                waited.as_millis()
            );
            ("noReply", summary)
        }
        (None, None, None) => ("sent", "sent; a notification gets no answer".to_string()),
    };
    v["outcome"] = json!(outcome);
    v["summary"] = json!(summary);
    v
}

/// `request`, `notification`, or for a raw body what it is: those two or `message` (anything
/// else: a response, a batch, not JSON).
fn kind_of(m: &HandSent, x: Option<&Exchanged>) -> &'static str {
    match &m.raw {
        None => match m.kind {
            SendKind::Request => "request",
            SendKind::Notification => "notification",
        },
        Some(text) => {
            if x.is_some_and(|x| x.id.is_some()) {
                return "request";
            }
            match serde_json::from_str::<Value>(text).map(|v| mcpscope_proto::classify(&v)) {
                Ok(Classified::Request { .. }) => "request",
                Ok(Classified::Notification { .. }) => "notification",
                _ => "message",
            }
        }
    }
}

/// The response message, or past [`RESULT_CAP`] its first bytes as text (`truncated`): a
/// 10 MB answer must not be handed to a page whole.
fn put_response(v: &mut Value, message: Value) {
    let text = message.to_string();
    if text.len() <= RESULT_CAP {
        v["response"] = message;
        return;
    }
    v["response"] = Value::Null;
    v["responseText"] = json!(head(&text, RESULT_CAP));
    v["responseSize"] = json!(text.len());
    v["truncated"] = json!(true);
}

/// What was sent, as text (lossy for bytes that are not UTF-8), cut to [`RESULT_CAP`].
fn capped_text(b: &Bytes) -> Value {
    let text = String::from_utf8_lossy(b);
    json!({
        "text": head(&text, RESULT_CAP),
        "size": b.len(),
        "truncated": text.len() > RESULT_CAP,
    })
}

/// The first `max` bytes of `s`, cut on a character boundary.
fn head(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The error object as the wire carries it.
fn wire_error(e: &RpcError) -> Value {
    let mut v = json!({"code": e.code, "message": e.message});
    if let Some(d) = &e.data {
        v["data"] = d.clone();
    }
    v
}

/// [`wire_error`] with the standard name of its code.
fn rpc_error_view(e: &RpcError) -> Value {
    let mut v = wire_error(e);
    if let Some(n) = error_name(e.code) {
        v["name"] = json!(n);
    }
    v
}

/// A reply frame in words: its HTTP status, what kind of message it is, and its error code.
fn describe_reply(f: &Value) -> String {
    let status = f["meta"]["status"]
        .as_u64()
        .map_or(String::new(), |s| format!("HTTP {s} "));
    let text = f["text"].as_str().unwrap_or("");
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let code = parsed
        .as_ref()
        .and_then(|p| p.pointer("/error/code"))
        .and_then(Value::as_i64);
    match (f["message"].as_str(), code) {
        (Some("error"), Some(c)) => {
            let named = error_name(c).map_or(String::new(), |n| format!(" {n}"));
            format!("{status}JSON-RPC error {c}{named} (id null)")
        }
        (Some("invalid"), _) => format!("{status}something that is not a JSON-RPC message"),
        (Some(kind), _) => format!("{status}a {kind}"),
        (None, _) => format!("{status}a body that is not a JSON-RPC message"),
    }
}

/// The standard name of a JSON-RPC error code (JSON-RPC 2.0's and MCP's own), if it has one.
fn error_name(code: i64) -> Option<&'static str> {
    Some(match code {
        -32700 => "Parse error",
        -32600 => "Invalid Request",
        -32601 => "Method not found",
        -32602 => "Invalid params",
        -32603 => "Internal error",
        -32002 => "Resource not found",
        -32020 => "Header mismatch",
        -32021 => "Missing required client capability",
        -32022 => "Unsupported protocol version",
        -32042 => "URL elicitation required",
        -32099..=-32000 => "Server error",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_what_answers_nothing_of_ours() {
        let f = |v: Value| is_reply(&v, "demo");
        let base = json!({"server": "demo", "direction": "in"});
        let with = |extra: Value| {
            let mut b = base.clone();
            for (k, x) in extra.as_object().unwrap() {
                b[k] = x.clone();
            }
            b
        };
        assert!(f(with(json!({"message": "error", "id": null}))));
        assert!(
            !f(with(json!({"message": "response", "id": 4}))),
            "the pinger's answer"
        );
        assert!(!f(with(json!({"message": "notification"}))));
        assert!(f(with(json!({"message": "invalid"}))));
        assert!(f(with(json!({"kind": "http-response", "size": 66}))));
        assert!(
            !f(with(json!({"kind": "http-response", "size": 0}))),
            "a stream's head"
        );
        assert!(!f(
            json!({"server": "other", "direction": "in", "message": "invalid"})
        ));
    }

    #[test]
    fn only_notifications_expect_no_reply() {
        assert!(expects_reply("not json"));
        assert!(expects_reply(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#
        ));
        assert!(!expects_reply(
            r#"{"jsonrpc":"2.0","method":"notifications/x"}"#
        ));
    }

    #[test]
    fn codes_have_their_names() {
        assert_eq!(error_name(-32601), Some("Method not found"));
        assert_eq!(error_name(-32001), Some("Server error"));
        assert_eq!(error_name(7), None);
    }
}
