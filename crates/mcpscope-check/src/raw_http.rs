//! One HTTP request made by hand, for the Streamable HTTP checks: what no transport of ours would
//! send — a `DELETE` of a session, a POST with a foreign `Origin`, a request whose `Mcp-Method`
//! disagrees with its body. Sent with the clients of `mcpscope_transport::clients` (proxies and
//! `MCPSCOPE_EXTRA_CA_CERTS` honoured), with the target's `--header`s and the session's
//! `Authorization`, bounded in time and bytes. The request and its answer are recorded as frames
//! of the era (numbered with the session's), and as evidence whose excerpt starts with the headers
//! the check is about, so a failing verdict shows the exchange; the reproduce command is `curl`.
//! The authorization checks use it too, before any session exists ([`Wire`]): a request without
//! credentials, and `GET`s of metadata documents on other URLs.

use crate::recorder::Recorder;
use crate::run::{Cx, Options};
use crate::verdict::Evidence;
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind};
use mcpscope_transport::{AuthProvider, FrameSink, HttpClients, Target};
use serde_json::Value;
use std::time::Duration;

/// How long one exchange may take, headers and body.
const WAIT: Duration = Duration::from_secs(10);
/// Bytes of an answer read; the rest is not waited for.
const MAX_BODY: usize = 256 * 1024;

/// What a request made by hand needs of the run: the target and its options, and the era's
/// recorder and frame numbers. A session's [`Cx`] has them, and so has an era whose handshake
/// the server refused (the authorization checks run there).
pub(crate) trait Wire: Sync {
    /// The run's options (the target, its `--header`s, the session's auth provider).
    fn opts(&self) -> &Options;
    /// The era's recorder.
    fn rec(&self) -> &Recorder;
    /// The next frame number of the era.
    fn next_frame(&self) -> u64;
}

impl Wire for Cx {
    fn opts(&self) -> &Options {
        &self.opts
    }

    fn rec(&self) -> &Recorder {
        &self.rec
    }

    fn next_frame(&self) -> u64 {
        Cx::next_frame(self)
    }
}

/// A request to make.
pub(crate) struct Ask {
    /// `POST`, `DELETE` or `GET`.
    pub(crate) method: reqwest::Method,
    /// Headers the check chooses (they replace a `--header` of the same name).
    pub(crate) headers: Vec<(String, String)>,
    /// The JSON body (POST).
    pub(crate) body: Option<Value>,
    /// Another URL than the MCP endpoint (a metadata document): sent with none of the target's
    /// `--header`s nor credentials.
    pub(crate) url: Option<String>,
    /// Whether the target's `Authorization` (a `--header`, the session's token) goes along.
    pub(crate) credentials: bool,
}

impl Ask {
    /// A POST of `body` with `Content-Type` and `Accept` as every client sends them, plus `headers`.
    pub(crate) fn post(body: Value, headers: &[(&str, &str)]) -> Ask {
        let mut all = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        all.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Ask {
            method: reqwest::Method::POST,
            headers: all,
            body: Some(body),
            url: None,
            credentials: true,
        }
    }

    /// The same request without the target's `Authorization` (its other `--header`s stay).
    pub(crate) fn without_credentials(mut self) -> Ask {
        self.credentials = false;
        self
    }

    /// A GET of a JSON document at `url`, with nothing of the target's.
    pub(crate) fn get(url: &str) -> Ask {
        Ask {
            method: reqwest::Method::GET,
            headers: vec![("Accept".to_string(), "application/json".to_string())],
            body: None,
            url: Some(url.to_string()),
            credentials: false,
        }
    }

    /// A GET of the MCP endpoint asking for a stream (`Accept: text/event-stream`) with `headers`:
    /// an SSE answer is not read, only its status and headers.
    pub(crate) fn stream(headers: &[(&str, &str)]) -> Ask {
        let mut all = vec![("Accept".to_string(), "text/event-stream".to_string())];
        all.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Ask {
            method: reqwest::Method::GET,
            headers: all,
            body: None,
            url: None,
            credentials: true,
        }
    }

    /// A DELETE with `headers`.
    pub(crate) fn delete(headers: &[(&str, &str)]) -> Ask {
        Ask {
            method: reqwest::Method::DELETE,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: None,
            url: None,
            credentials: true,
        }
    }
}

/// What came back.
pub(crate) struct Answer {
    /// The HTTP status (`None`: no answer, see `failure`).
    pub(crate) status: Option<u16>,
    /// The response headers, names lowercase.
    pub(crate) headers: Vec<(String, String)>,
    /// The body as read (at most [`MAX_BODY`] bytes; an SSE stream up to the answer to our id).
    pub(crate) body: Bytes,
    /// The JSON-RPC message that answers the request's id (or an id-less error), if one came.
    pub(crate) message: Option<Value>,
    /// Why there is no status.
    pub(crate) failure: Option<String>,
    /// The request and the answer, as evidence.
    pub(crate) evidence: Vec<Evidence>,
    /// A `curl` command that makes the same request.
    pub(crate) reproduce: String,
}

impl Answer {
    /// The value of response header `name` (case-insensitive), the first if repeated.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC error code of the answer, if it is an error.
    pub(crate) fn error_code(&self) -> Option<i64> {
        self.message
            .as_ref()
            .and_then(|m| m.pointer("/error/code"))
            .and_then(Value::as_i64)
    }

    /// `HTTP 400, JSON-RPC error -32020 "…"`, or what there was instead, for a verdict's message.
    pub(crate) fn describe(&self) -> String {
        let Some(status) = self.status else {
            return format!(
                "no answer: {}",
                self.failure.as_deref().unwrap_or("unknown")
            );
        };
        let rpc = match &self.message {
            Some(m) if m.get("error").is_some() => format!(
                "JSON-RPC error {} {}",
                m["error"]["code"],
                crate::verdict::cut(&m["error"]["message"].to_string(), 120)
            ),
            Some(m) if m.get("result").is_some() => "a JSON-RPC result".to_string(),
            _ if self.body.is_empty() => "no body".to_string(),
            _ => format!(
                "body {:?}",
                crate::verdict::cut(&String::from_utf8_lossy(&self.body), 120)
            ),
        };
        format!("HTTP {status}, {rpc}")
    }
}

/// The MCP endpoint of an HTTP target and its `--header`s; `None` for stdio and HTTP+SSE.
pub(crate) fn endpoint(cx: &dyn Wire) -> Option<(&str, &[(String, String)])> {
    match &cx.opts().target {
        Target::Http { url, headers } => Some((url.as_str(), headers.as_slice())),
        _ => None,
    }
}

/// Send `ask` to the target's MCP endpoint (or its own URL) and read the answer, within [`WAIT`].
pub(crate) async fn send(cx: &dyn Wire, ask: Ask) -> Answer {
    let Some((endpoint, extra)) = endpoint(cx) else {
        return no_answer("not an HTTP target".into(), Vec::new(), String::new());
    };
    let url = ask.url.as_deref().unwrap_or(endpoint);
    let chosen = |k: &str| ask.headers.iter().any(|(a, _)| a.eq_ignore_ascii_case(k));
    let secret = |k: &str| k.eq_ignore_ascii_case("authorization");
    let mut headers: Vec<(String, String)> = match ask.url {
        Some(_) => Vec::new(),
        None => extra
            .iter()
            .filter(|(k, _)| !chosen(k) && (ask.credentials || !secret(k)))
            .cloned()
            .collect(),
    };
    if ask.credentials
        && !chosen("authorization")
        && !headers.iter().any(|(k, _)| secret(k))
        && let Some(value) = credentials(cx).await
    {
        headers.push(("Authorization".into(), value));
    }
    headers.extend(ask.headers.iter().cloned());
    let body = ask.body.as_ref().map(Value::to_string).unwrap_or_default();
    let reproduce = curl(&ask.method, url, &ask.headers, &body);
    let mark = cx.rec().mark();
    let shown = notable(&ask.headers);
    record_request(cx, &ask.method, url, &headers, &body);
    let id = ask.body.as_ref().and_then(|b| b.get("id")).cloned();
    let outcome = tokio::time::timeout(WAIT, exchange(cx, &ask.method, url, &headers, body, id))
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", WAIT.as_secs())));
    let mut answer = match outcome {
        Ok(a) => a,
        Err(why) => no_answer(why, Vec::new(), String::new()),
    };
    if let Some(status) = answer.status {
        record_response(cx, url, status, &answer.headers, &answer.body);
    }
    answer.evidence = evidence(cx, mark, &shown, &answer.headers);
    answer.reproduce = reproduce;
    answer
}

/// The `Authorization` value the era's requests carry: the target's `--header`, else the
/// session's token, as its transport would send it (a refresh, if one is needed, is recorded in
/// the era's frames). `None`: the run has no credentials.
pub(crate) async fn credentials(cx: &dyn Wire) -> Option<String> {
    if let Some((_, extra)) = endpoint(cx)
        && let Some((_, v)) = extra
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
    {
        return Some(v.clone());
    }
    let auth = cx.opts().client.transport.auth.clone()?;
    authorization(cx, auth.as_ref()).await
}

fn no_answer(why: String, evidence: Vec<Evidence>, reproduce: String) -> Answer {
    Answer {
        status: None,
        headers: Vec::new(),
        body: Bytes::new(),
        message: None,
        failure: Some(why),
        evidence,
        reproduce,
    }
}

/// The request on the wire and its answer, read up to the message answering `id`.
async fn exchange(
    cx: &dyn Wire,
    method: &reqwest::Method,
    url: &str,
    headers: &[(String, String)],
    body: String,
    id: Option<Value>,
) -> Result<Answer, String> {
    let clients = HttpClients::new(cx.opts().client.transport.connect_timeout);
    let client = clients.for_url(url).map_err(|e| e.to_string())?;
    let mut request = client.request(method.clone(), url);
    for (k, v) in headers {
        request = request.header(k, v);
    }
    if !body.is_empty() {
        request = request.body(body);
    }
    let mut response = request
        .send()
        .await
        .map_err(|e| mcpscope_transport::error_chain(&e))?;
    let status = response.status().as_u16();
    let headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let sse = headers
        .iter()
        .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
    let mut read = Vec::new();
    let mut message = None;
    // A stream that answers no request (a GET's) may stay open for ever: its headers are the answer.
    let open_ended = sse && id.is_none();
    while read.len() < MAX_BODY && !open_ended {
        let Ok(Some(chunk)) = response.chunk().await else {
            break;
        };
        read.extend_from_slice(&chunk);
        // An SSE stream may stay open after the answer: stop at it.
        if sse && let Some(m) = answering(&read, id.as_ref(), true) {
            message = Some(m);
            break;
        }
    }
    read.truncate(MAX_BODY);
    if message.is_none() {
        message = answering(&read, id.as_ref(), sse);
    }
    Ok(Answer {
        status: Some(status),
        headers,
        body: Bytes::from(read),
        message,
        failure: None,
        evidence: Vec::new(),
        reproduce: String::new(),
    })
}

/// The JSON-RPC message in `body` that answers `id` (a response, or an error without an id, as a
/// server that refuses a request before reading it may send): the body itself, or an SSE event's
/// `data`.
fn answering(body: &[u8], id: Option<&Value>, sse: bool) -> Option<Value> {
    let answers = |m: &Value| {
        m.get("method").is_none()
            && (m.get("id") == id
                // A JSON-RPC error object, not an OAuth error (`{"error": "invalid_token"}`).
                || (m.get("error").is_some_and(Value::is_object)
                    && m.get("id").is_none_or(Value::is_null)))
    };
    if !sse {
        return serde_json::from_slice::<Value>(body)
            .ok()
            .filter(|m| answers(m));
    }
    let text = String::from_utf8_lossy(body);
    let text = text.replace("\r\n", "\n");
    // Only complete events (a blank line ends one).
    let complete = text.rfind("\n\n").map_or("", |end| &text[..end]);
    complete.split("\n\n").find_map(|event| {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        serde_json::from_str::<Value>(&data.join("\n"))
            .ok()
            .filter(|m| answers(m))
    })
}

/// The session's `Authorization` value, as its transport would send it.
async fn authorization(cx: &dyn Wire, auth: &dyn AuthProvider) -> Option<String> {
    let sink = Sink { cx };
    auth.authorization(&sink).await
}

/// Frames an auth provider makes go to the era's recorder.
struct Sink<'a> {
    cx: &'a dyn Wire,
}

impl FrameSink for Sink<'_> {
    fn next_exchange(&self) -> u64 {
        self.cx.opts().client.transport.exchanges.next()
    }

    fn frame(&self, mut frame: Frame) {
        frame.seq = self.cx.next_frame();
        self.cx.rec().keep(&frame);
    }
}

fn record_request(
    cx: &dyn Wire,
    method: &reqwest::Method,
    url: &str,
    headers: &[(String, String)],
    body: &str,
) {
    let mut frame = Frame::new(
        Direction::Out,
        FrameKind::HttpRequest,
        Bytes::from(body.to_string()),
    );
    frame.seq = cx.next_frame();
    frame.meta.method = Some(method.to_string());
    frame.meta.url = Some(url.to_string());
    frame.meta.headers = headers
        .iter()
        .map(|(k, v)| {
            let secret = k.eq_ignore_ascii_case("authorization");
            (k.clone(), if secret { "…".into() } else { v.clone() })
        })
        .collect();
    cx.rec().keep(&frame);
}

fn record_response(
    cx: &dyn Wire,
    url: &str,
    status: u16,
    headers: &[(String, String)],
    body: &Bytes,
) {
    let mut frame = Frame::new(Direction::In, FrameKind::HttpResponse, body.clone());
    frame.seq = cx.next_frame();
    frame.meta.url = Some(url.to_string());
    frame.meta.status = Some(status);
    frame.meta.headers = headers.to_vec();
    cx.rec().keep(&frame);
}

/// The request headers a check chose, except the two every POST carries.
fn notable(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(k, _)| {
            !k.eq_ignore_ascii_case("content-type") && !k.eq_ignore_ascii_case("accept")
        })
        .cloned()
        .collect()
}

/// The exchange's frames, the request's excerpt led by the headers the check chose and the
/// answer's by the MCP headers it carried, so the evidence shows what the check is about.
fn evidence(
    cx: &dyn Wire,
    mark: u64,
    sent: &[(String, String)],
    received: &[(String, String)],
) -> Vec<Evidence> {
    let mut frames = cx.rec().since(mark, 2);
    for e in &mut frames {
        let lead: Vec<String> = match e.direction {
            "out" => sent.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
            _ => received
                .iter()
                .filter(|(k, _)| {
                    k.starts_with("mcp-") || k == "content-type" || k == "www-authenticate"
                })
                .map(|(k, v)| format!("{k}: {v}"))
                .collect(),
        };
        if !lead.is_empty() {
            e.excerpt = format!("{}\n\n{}", lead.join("\n"), e.excerpt);
        }
    }
    frames
}

/// `curl -si -X POST URL -H 'K: V' … --data 'BODY'`, single quotes escaped for a POSIX shell.
fn curl(method: &reqwest::Method, url: &str, headers: &[(String, String)], body: &str) -> String {
    let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut cmd = format!("curl -si -X {method} {}", q(url));
    for (k, v) in headers {
        cmd.push_str(&format!(" -H {}", q(&format!("{k}: {v}"))));
    }
    if !body.is_empty() {
        cmd.push_str(&format!(" --data {}", q(body)));
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_sse_answer_is_found_in_complete_events_only() {
        let id = json!(7);
        let body = b"id: 1\ndata: \n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n";
        assert_eq!(
            answering(body, Some(&id), true),
            Some(json!({"jsonrpc":"2.0","id":7,"result":{}}))
        );
        let cut = b"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
        assert_eq!(answering(cut, Some(&id), true), None);
    }

    #[test]
    fn an_id_less_error_answers_any_request() {
        let id = json!(7);
        let body = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#;
        assert!(answering(body, Some(&id), false).is_some());
        let other = br#"{"jsonrpc":"2.0","id":8,"result":{}}"#;
        assert!(answering(other, Some(&id), false).is_none());
        let oauth = br#"{"error":"server_error","error_description":"Internal Server Error"}"#;
        assert!(answering(oauth, Some(&id), false).is_none());
    }

    #[test]
    fn curl_quotes_for_the_shell() {
        let c = curl(
            &reqwest::Method::POST,
            "http://h/mcp",
            &[("Origin".into(), "http://evil.example".into())],
            r#"{"a":"it's"}"#,
        );
        assert_eq!(
            c,
            r#"curl -si -X POST 'http://h/mcp' -H 'Origin: http://evil.example' --data '{"a":"it'\''s"}'"#
        );
    }
}
