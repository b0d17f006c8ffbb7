//! What the relay tests stand on: a fake MCP gateway that answers MCP JSON and records exactly
//! what it received (method, path, every header, the body), over plain HTTP or over TLS with a
//! private CA made by `openssl` in the test; and a gateway mode started on a free port with its
//! own file and environment.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use mcpscope_gateway::{Options, Settings, Started};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request the fake gateway received.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Seen {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub(crate) fn header_names(&self) -> Vec<String> {
        let mut n: Vec<String> = self.headers.iter().map(|(k, _)| k.clone()).collect();
        n.sort();
        n
    }
}

/// The fake gateway's shared state.
#[derive(Debug, Default)]
pub(crate) struct Fake {
    pub(crate) seen: Mutex<Vec<Seen>>,
    pub(crate) release: tokio::sync::Notify,
    sessions: AtomicU32,
    pub(crate) addr: Mutex<Option<SocketAddr>>,
}

impl Fake {
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    pub(crate) fn seen_on(&self, path: &str) -> Vec<Seen> {
        self.seen().into_iter().filter(|s| s.path == path).collect()
    }
}

async fn answer(State(fake): State<Arc<Fake>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 4 << 20)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_string();
    fake.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path: path.clone(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let method = msg
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match path.as_str() {
        "/redirect/mcp" => {
            let to = format!("http://{}/elsewhere", fake.addr.lock().unwrap().unwrap());
            (StatusCode::TEMPORARY_REDIRECT, [("location", to)]).into_response()
        }
        "/auth/mcp" => {
            if parts.headers.get("authorization").map(|v| v.as_bytes()) == Some(b"Bearer good") {
                rpc(&id, json!({"ok": true}), None)
            } else {
                (
                    StatusCode::UNAUTHORIZED,
                    [
                        ("www-authenticate", "Bearer realm=\"fake\""),
                        ("set-cookie", "gw=1"),
                    ],
                    "unauthorized",
                )
                    .into_response()
            }
        }
        "/big/mcp" => {
            let filler = "x".repeat(2 << 20);
            rpc(&id, json!({"filler": filler}), None)
        }
        "/slow/mcp" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            rpc(&id, json!({}), None)
        }
        "/sse/mcp" | "/ssebig/mcp" => sse(fake.clone(), &path, id),
        // A session id one byte over the relay's bound (1 KiB), or exactly at it.
        "/longsession/mcp" | "/longestsession/mcp" => {
            let n = if path == "/longsession/mcp" {
                1025
            } else {
                1024
            };
            rpc(&id, json!({}), Some("s".repeat(n)))
        }
        _ => {
            let session = (method == "initialize")
                .then(|| format!("sess-{}", fake.sessions.fetch_add(1, Ordering::Relaxed)));
            let result = match method {
                "initialize" => {
                    json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}})
                }
                "tools/list" => {
                    json!({"tools": [{"name": "toystore_greet", "inputSchema": {"type": "object"}}]})
                }
                "tools/call" => json!({"content": [{"type": "text", "text": "Hi Ada"}]}),
                _ => json!({}),
            };
            if msg.get("id").is_none() && !msg.is_null() {
                return StatusCode::ACCEPTED.into_response();
            }
            if parts.method == axum::http::Method::DELETE {
                return StatusCode::OK.into_response();
            }
            rpc(&id, result, session)
        }
    }
}

fn rpc(id: &Value, result: Value, session: Option<String>) -> Response {
    let mut resp =
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
    let h = resp.headers_mut();
    h.insert("set-cookie", HeaderValue::from_static("gateway-cookie=1"));
    h.insert("x-gateway-internal", HeaderValue::from_static("secret"));
    h.insert(
        "mcp-protocol-version",
        HeaderValue::from_static("2025-11-25"),
    );
    if let Some(s) = session {
        h.insert("mcp-session-id", HeaderValue::from_str(&s).unwrap());
    }
    resp
}

/// A request-scoped SSE response: the first event at once, the second when the test releases it
/// (`/sse/mcp`); or 64 events of 1 KiB (`/ssebig/mcp`).
fn sse(fake: Arc<Fake>, path: &str, id: Value) -> Response {
    let big = path == "/ssebig/mcp";
    let stream = futures::stream::unfold(0u32, move |n| {
        let fake = fake.clone();
        let id = id.clone();
        async move {
            if big {
                if n >= 64 {
                    return None;
                }
                let event = format!("data: {}\n\n", "y".repeat(1024));
                return Some((Ok::<Bytes, std::io::Error>(Bytes::from(event)), n + 1));
            }
            match n {
                0 => Some((
                    Ok(Bytes::from(
                        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
                    )),
                    1,
                )),
                1 => {
                    fake.release.notified().await;
                    let data = json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}});
                    Some((
                        Ok(Bytes::from(format!("event: message\ndata: {data}\n\n"))),
                        2,
                    ))
                }
                _ => None,
            }
        }
    });
    let mut resp = Response::new(Body::from_stream(stream));
    resp.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    resp
}

/// Start the fake gateway over plain HTTP.
pub(crate) async fn fake_gateway() -> (Arc<Fake>, SocketAddr) {
    let fake = Arc::new(Fake::default());
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    *fake.addr.lock().unwrap() = Some(addr);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (fake, addr)
}

/// A TCP listener whose connections are TLS.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;
    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                return (tls, addr);
            }
        }
    }
    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// A private CA and a certificate for `localhost`/127.0.0.1 it signed, made in `dir` by
/// `testenv/peers/make-test-ca.sh` (openssl): (ca.pem, server.pem, server-key.pem).
pub(crate) fn make_ca(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testenv/peers/make-test-ca.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(dir)
        .output()
        .expect("make-test-ca.sh");
    assert!(
        out.status.success(),
        "make-test-ca.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server-key.pem"),
    )
}

/// Start the fake gateway over TLS with this certificate and key.
pub(crate) async fn fake_tls_gateway(cert: &Path, key: &Path) -> (Arc<Fake>, SocketAddr) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(key).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let fake = Arc::new(Fake::default());
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(fake.clone());
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    *fake.addr.lock().unwrap() = Some(addr);
    let listener = TlsListener {
        tcp,
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
    };
    tokio::spawn(async move { axum::serve(listener, app).await });
    (fake, addr)
}

/// A temporary directory, removed when dropped.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "mcpscope-gateway-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A gateway mode under test, with its file and a client.
pub(crate) struct Under {
    pub(crate) started: Started,
    pub(crate) dir: TempDir,
    pub(crate) client: reqwest::Client,
}

impl Under {
    pub(crate) fn base(&self) -> String {
        format!("http://{}", self.started.addr)
    }
    pub(crate) fn file(&self) -> PathBuf {
        self.dir.path().join("gateways.json")
    }
    /// `POST /api/gateways/{gateway}/mcp` with the token and these extra headers.
    pub(crate) async fn post(
        &self,
        gateway: &str,
        body: Value,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut r = self
            .client
            .post(format!("{}/api/gateways/{gateway}/mcp", self.base()))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(t) = &self.started.token {
            r = r.header("x-mcp-remote-auth", format!("Bearer {t}"));
        }
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.send().await.unwrap()
    }
}

/// Start a gateway mode with `file` as its gateways file and `env` as its environment.
pub(crate) async fn gateway(
    file: Value,
    env: &[(&str, &str)],
    tweak: impl FnOnce(&mut Options),
) -> Under {
    let dir = TempDir::new("gw");
    let path = dir.path().join("gateways.json");
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let settings = Settings::from_lookup(|k| env.get(k).cloned()).expect("settings");
    let mut options = Options::new(path);
    options.port = 0;
    options.poll = Duration::from_millis(100);
    tweak(&mut options);
    let started = mcpscope_gateway::start(options, settings)
        .await
        .expect("start");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    Under {
        started,
        dir,
        client,
    }
}

pub(crate) fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The refusal's rule (header and body must agree).
pub(crate) async fn rule_of(resp: reqwest::Response) -> (u16, String, Value) {
    let status = resp.status().as_u16();
    let header = resp
        .headers()
        .get("x-mcpscope-refusal")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body: Value = resp
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    assert_eq!(
        body["error"]["rule"].as_str().unwrap_or_default(),
        header,
        "{body}"
    );
    (status, header, body)
}
