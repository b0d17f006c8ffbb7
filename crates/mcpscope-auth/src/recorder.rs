//! Every HTTP exchange of the OAuth flow, made and recorded in one place.
//!
//! Each request becomes an [`FrameKind::OAuthRequest`] frame and its answer an
//! [`FrameKind::OAuthResponse`] frame (status, headers, body), both named after the flow step
//! ("protected resource metadata", "token request"), in the event stream of the connection whose
//! request needed authorization. Decisions that are not bytes on the wire (a document refused,
//! the scopes chosen) are [`FrameKind::OAuthStep`] notes. Redirects are never followed silently:
//! metadata GETs follow them within one origin, each hop recorded; everything else reports them.

use bytes::Bytes;
use futures::StreamExt;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};
use mcpscope_transport::{FrameSink, HttpClients, error_chain};
use serde_json::Value;
use std::time::Duration;

/// The largest OAuth response body read (metadata and token documents are a few KB).
const MAX_BODY: usize = 1024 * 1024;
/// Redirect hops followed for a metadata GET, within one origin.
const MAX_METADATA_REDIRECTS: usize = 3;

/// An answer, fully read.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) url: String,
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Bytes,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as a JSON object, or why it is not one.
    pub(crate) fn json_object(&self) -> Result<serde_json::Map<String, Value>, String> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(format!("{} answered JSON that is not an object", self.url)),
            Err(e) => Err(format!(
                "{} answered HTTP {} with a body that is not JSON ({e}){}",
                self.url,
                self.status,
                excerpt(&self.body)
            )),
        }
    }

    /// `error: error_description` from an OAuth error body, if it is one.
    pub(crate) fn oauth_error(&self) -> Option<(String, Option<String>)> {
        let m = serde_json::from_slice::<Value>(&self.body).ok()?;
        let e = m.get("error")?.as_str()?.to_string();
        let d = m
            .get("error_description")
            .and_then(Value::as_str)
            .map(str::to_string);
        Some((e, d))
    }
}

/// `": <first 200 characters>"` of a body, or nothing.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(600)]);
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return String::new();
    }
    let cut: String = folded.chars().take(200).collect();
    format!(": {cut}{}", if cut.len() < folded.len() { "…" } else { "" })
}

/// A request to make.
pub(crate) struct Request<'a> {
    /// The flow step, used as the frames' note ("token request").
    pub(crate) step: &'a str,
    pub(crate) method: &'a str,
    pub(crate) url: &'a str,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Option<Bytes>,
}

/// A response body as read: the bytes that arrived, whether [`MAX_BODY`] cut them, and why it
/// is not a whole answer, when it is not.
struct Body {
    bytes: Bytes,
    truncated: bool,
    problem: Option<String>,
}

/// Makes the flow's HTTP requests and records them.
pub(crate) struct Recorder<'a> {
    pub(crate) client: &'a HttpClients,
    pub(crate) sink: &'a dyn FrameSink,
    pub(crate) timeout: Duration,
}

impl Recorder<'_> {
    /// A note about the flow, not bytes on the wire.
    pub(crate) fn step(&self, note: impl Into<String>) {
        self.sink.frame(
            Frame::new(Direction::Local, FrameKind::OAuthStep, Bytes::new()).with_meta(FrameMeta {
                note: Some(note.into()),
                ..Default::default()
            }),
        );
    }

    /// Send one request (no redirects followed) and read the whole answer.
    pub(crate) async fn send(&self, r: Request<'_>) -> Result<Answer, String> {
        let ex = self.sink.next_exchange();
        self.record_request(ex, &r);
        let req = self.prepare(&r)?;
        let resp = match req.send().await {
            Ok(resp) => resp,
            Err(e) if e.is_timeout() => {
                let reason = format!("no answer within {} ms", self.timeout.as_millis());
                return Err(self.failed(ex, &r, reason));
            }
            Err(e) => return Err(self.failed(ex, &r, error_chain(&e))),
        };
        let status = resp.status().as_u16();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = self.read_body(resp).await;
        // The answer is recorded as far as it arrived, also when it then counts as a failure.
        let mut f = Frame::new(Direction::In, FrameKind::OAuthResponse, body.bytes.clone())
            .with_meta(FrameMeta {
                exchange: Some(ex),
                method: Some(r.method.to_string()),
                url: Some(r.url.to_string()),
                status: Some(status),
                headers: headers.clone(),
                note: Some(r.step.to_string()),
                ..Default::default()
            });
        f.meta.truncated = body.truncated;
        self.sink.frame(f);
        if let Some(reason) = body.problem {
            return Err(self.failed(ex, &r, reason));
        }
        Ok(Answer {
            url: r.url.to_string(),
            status,
            headers,
            body: body.bytes,
        })
    }

    /// The request frame, before anything is sent.
    fn record_request(&self, ex: u64, r: &Request<'_>) {
        self.sink.frame(
            Frame::new(
                Direction::Out,
                FrameKind::OAuthRequest,
                r.body.clone().unwrap_or_default(),
            )
            .with_meta(FrameMeta {
                exchange: Some(ex),
                method: Some(r.method.to_string()),
                url: Some(r.url.to_string()),
                headers: r.headers.clone(),
                note: Some(r.step.to_string()),
                ..Default::default()
            }),
        );
    }

    /// The reqwest request: the client for the URL's scheme, the timeout, headers and body.
    fn prepare(&self, r: &Request<'_>) -> Result<reqwest::RequestBuilder, String> {
        let method = reqwest::Method::from_bytes(r.method.as_bytes()).map_err(|e| e.to_string())?;
        let client = self
            .client
            .for_url(r.url)
            .map_err(|e| format!("{} ({} {}) failed: {e}", r.step, r.method, r.url))?;
        let mut req = client.request(method, r.url).timeout(self.timeout);
        for (k, v) in &r.headers {
            req = req.header(k, v);
        }
        if let Some(b) = &r.body {
            req = req.body(b.clone());
        }
        Ok(req)
    }

    /// Read the body, at most [`MAX_BODY`] bytes, within the timeout; what arrived is kept
    /// with why it is not the whole answer.
    async fn read_body(&self, resp: reqwest::Response) -> Body {
        let mut stream = resp.bytes_stream();
        let mut buf = Vec::new();
        let mut truncated = false;
        let read = tokio::time::timeout(self.timeout, async {
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| error_chain(&e))?;
                if buf.len() + chunk.len() > MAX_BODY {
                    buf.extend_from_slice(&chunk[..MAX_BODY - buf.len()]);
                    truncated = true;
                    break;
                }
                buf.extend_from_slice(&chunk);
            }
            Ok::<(), String>(())
        })
        .await;
        let problem = match read {
            Err(_) => Some(format!(
                "the body did not arrive within {} ms",
                self.timeout.as_millis()
            )),
            Ok(Err(e)) => Some(format!("the body broke off: {e}")),
            Ok(Ok(())) if truncated => Some(format!(
                "the answer is larger than {MAX_BODY} bytes; that is no OAuth document"
            )),
            Ok(Ok(())) => None,
        };
        Body {
            bytes: Bytes::from(buf),
            truncated,
            problem,
        }
    }

    /// Note why the exchange failed (tied to it) and say so as the error, naming the step.
    fn failed(&self, ex: u64, r: &Request<'_>, reason: String) -> String {
        self.sink.frame(
            Frame::new(Direction::Local, FrameKind::OAuthStep, Bytes::new()).with_meta(FrameMeta {
                exchange: Some(ex),
                note: Some(format!("{}: {reason}", r.step)),
                ..Default::default()
            }),
        );
        format!("{} ({} {}) failed: {reason}", r.step, r.method, r.url)
    }

    /// GET a metadata document, following redirects within its origin (each hop recorded). A
    /// redirect to another origin is refused: metadata must come from the host it describes.
    pub(crate) async fn get_metadata(&self, step: &str, url: &str) -> Result<Answer, String> {
        let mut url = url.to_string();
        for hop in 0..=MAX_METADATA_REDIRECTS {
            let a = self
                .send(Request {
                    step,
                    method: "GET",
                    url: &url,
                    headers: vec![("Accept".into(), "application/json".into())],
                    body: None,
                })
                .await?;
            if !(300..400).contains(&a.status) {
                return Ok(a);
            }
            let Some(loc) = a.header("location") else {
                return Ok(a);
            };
            let from = url::Url::parse(&url).map_err(|e| e.to_string())?;
            let next = from.join(loc).map_err(|e| {
                format!("{step}: {url} redirected to an invalid Location {loc:?}: {e}")
            })?;
            if next.origin() != from.origin() {
                let note = format!(
                    "{step}: {url} redirected to another host ({next}); metadata must come from the host it describes, so the redirect was not followed"
                );
                self.step(note.clone());
                return Err(note);
            }
            if hop == MAX_METADATA_REDIRECTS {
                break;
            }
            self.step(format!("{step}: following the redirect to {next}"));
            url = next.to_string();
        }
        Err(format!(
            "{step}: more than {MAX_METADATA_REDIRECTS} redirects from {url}"
        ))
    }
}

/// `application/x-www-form-urlencoded` body from pairs.
pub(crate) fn form(pairs: &[(&str, &str)]) -> Bytes {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    Bytes::from(s.finish())
}
