//! Shared plumbing: a real backend on a loopback port with its own temp directory, a real demo
//! server over Streamable HTTP, a client that speaks the API, and an event-stream collector.

use mcpscope_inspect::Policy;
use mcpscope_server::{
    AppState, Catalog, CatalogEntry, ListenOptions, Security, ServerOptions, TOKEN_HEADER,
};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A fresh directory under the system temp dir, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let unique = format!(
            "mcpscope-server-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let dir = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
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

/// The built-in demo server on a loopback port, over Streamable HTTP; stops when dropped.
pub(crate) type Demo = mcpscope_demo::LoopbackDemo;

pub(crate) async fn demo() -> Demo {
    mcpscope_demo::on_loopback().await.expect("start the demo")
}

/// A running backend.
pub(crate) struct Backend {
    pub base: String,
    pub port: u16,
    pub token: String,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

pub(crate) struct Options {
    pub token: Option<String>,
    pub ping: Option<Duration>,
    pub window_frames: usize,
    /// Load the catalog from this `mcp.json` (editable) instead of keeping `servers` in memory.
    pub catalog_file: Option<PathBuf>,
    /// Who answers the servers' questions at once (default: the web UI's `WaitForDialogs`);
    /// `WaitForView` leaves each for `POST /api/interactions/{id}`.
    pub interaction_policy: Option<Arc<dyn Policy>>,
    /// The listener's bounds and TLS (with TLS, `base` is `https://localhost:PORT` and
    /// `http` does not trust the certificate: bring a client that does).
    pub listen: ListenOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            token: Some("test-token-0123456789".into()),
            ping: None,
            window_frames: mcpscope_server::WINDOW_FRAMES,
            catalog_file: None,
            interaction_policy: None,
            listen: ListenOptions::default(),
        }
    }
}

/// Start a backend whose history lives in `dir` and whose catalog holds `servers`.
pub(crate) async fn start(dir: &Path, servers: Vec<(String, Value)>, opts: Options) -> Backend {
    let store = HistoryStore::open(&dir.join("history.sqlite"), Retention::default())
        .expect("history database");
    let catalog = match &opts.catalog_file {
        Some(path) => Catalog::load(path, false).expect("catalog file"),
        None => Catalog::in_memory(
            servers
                .into_iter()
                .map(|(n, e)| {
                    let entry: CatalogEntry = serde_json::from_value(e).expect("entry");
                    (n, entry.normalized())
                })
                .collect(),
        ),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind backend");
    let port = listener.local_addr().expect("addr").port();
    let mut security = Security::for_port(port, opts.token.clone(), None);
    if opts.listen.tls.is_some() {
        security.serve_https();
    }
    let base = match opts.listen.tls {
        Some(_) => format!("https://localhost:{port}"),
        None => format!("http://127.0.0.1:{port}"),
    };
    let mut server_options = ServerOptions {
        ping_interval: opts.ping,
        window_frames: opts.window_frames,
        // Tokens in the test's own directory, never in the user's keyring or home.
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.join("secrets.enc"),
            None,
        )),
        ..ServerOptions::for_port(port)
    };
    if let Some(policy) = opts.interaction_policy.clone() {
        server_options.interaction_policy = policy;
    }
    let state = AppState::new(security, catalog, store, server_options);
    let (tx, rx) = oneshot::channel::<()>();
    let listen = opts.listen;
    let task = tokio::spawn(async move {
        let _ = mcpscope_server::serve(listener, state, listen, async {
            let _ = rx.await;
        })
        .await;
    });
    Backend {
        base,
        port,
        token: opts.token.unwrap_or_default(),
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        stop: Some(tx),
        task: Some(task),
    }
}

/// A response: status, headers and the body as JSON (or `Value::String` of the text).
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Backend {
    /// Stop serving and close every connection.
    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), t).await;
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn authed(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.header(TOKEN_HEADER, format!("Bearer {}", self.token))
    }

    pub(crate) async fn send(&self, rb: reqwest::RequestBuilder) -> Reply {
        let resp = rb.send().await.expect("request reaches the backend");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        Reply {
            status,
            headers,
            body,
            text,
        }
    }

    pub(crate) async fn get(&self, path: &str) -> Reply {
        self.send(self.authed(self.http.get(self.url(path)))).await
    }

    pub(crate) async fn delete(&self, path: &str) -> Reply {
        self.send(self.authed(self.http.delete(self.url(path))))
            .await
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Reply {
        self.send(
            self.authed(self.http.post(self.url(path)))
                .header("content-type", "application/json")
                .body(body.to_string()),
        )
        .await
    }

    pub(crate) async fn put(&self, path: &str, body: Value) -> Reply {
        self.send(
            self.authed(self.http.put(self.url(path)))
                .header("content-type", "application/json")
                .body(body.to_string()),
        )
        .await
    }

    /// `POST` in the background (a call that waits on a login in the browser): resolves to the
    /// status and the body text.
    pub(crate) fn spawn_post(
        &self,
        path: &str,
        body: Value,
    ) -> tokio::task::JoinHandle<(u16, String)> {
        let rb = self
            .authed(self.http.post(self.url(path)))
            .header("content-type", "application/json")
            .body(body.to_string());
        tokio::spawn(async move {
            let r = rb.send().await.expect("request reaches the backend");
            (r.status().as_u16(), r.text().await.unwrap_or_default())
        })
    }

    /// `POST` that must answer 200; returns the body.
    pub(crate) async fn ok(&self, path: &str, body: Value) -> Value {
        let r = self.post(path, body).await;
        assert_eq!(r.status, 200, "POST {path}: {}", r.text);
        r.body
    }

    /// Open the event stream and collect every event in the background.
    pub(crate) async fn events(&self, last_event_id: Option<u64>) -> Events {
        let mut rb = self.authed(self.http.get(self.url("/api/events")));
        if let Some(id) = last_event_id {
            rb = rb.header("last-event-id", id.to_string());
        }
        let resp = rb.send().await.expect("event stream");
        assert_eq!(resp.status().as_u16(), 200);
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap_or("")
                .starts_with("text/event-stream")
        );
        let seen: Arc<Mutex<Vec<Event>>> = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let task = tokio::spawn(async move {
            use futures::StreamExt;
            let mut stream = resp.bytes_stream();
            let mut buf = String::new();
            while let Some(Ok(chunk)) = stream.next().await {
                buf.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buf.find("\n\n") {
                    let block: String = buf.drain(..end + 2).collect();
                    let mut ev = Event::default();
                    for line in block.lines() {
                        if let Some(v) = line
                            .strip_prefix("id: ")
                            .or_else(|| line.strip_prefix("id:"))
                        {
                            ev.id = v.trim().parse().ok();
                        } else if let Some(v) = line
                            .strip_prefix("event: ")
                            .or_else(|| line.strip_prefix("event:"))
                        {
                            ev.name = v.trim().to_string();
                        } else if let Some(v) = line
                            .strip_prefix("data: ")
                            .or_else(|| line.strip_prefix("data:"))
                        {
                            ev.data = serde_json::from_str(v).unwrap_or(Value::Null);
                        }
                    }
                    if !ev.name.is_empty() {
                        sink.lock().expect("events").push(ev);
                    }
                }
            }
        });
        Events { seen, task }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Event {
    pub id: Option<u64>,
    pub name: String,
    pub data: Value,
}

pub(crate) struct Events {
    pub seen: Arc<Mutex<Vec<Event>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Events {
    pub(crate) fn all(&self) -> Vec<Event> {
        self.seen.lock().expect("events").clone()
    }

    /// Wait (up to 10 s) for an event matching `f`.
    pub(crate) async fn wait(&self, what: &str, f: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(e) = self.all().into_iter().find(|e| f(e)) {
                return e;
            }
            if Instant::now() > deadline {
                let names: Vec<String> = self.all().iter().map(|e| e.name.clone()).collect();
                panic!("no {what} event within 10 s; saw: {names:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A catalog of the demo over HTTP twice: `legacy` and `modern`, each pinned to its era.
pub(crate) fn both_eras(url: &str) -> Vec<(String, Value)> {
    vec![
        ("legacy".to_string(), http_entry(url, "legacy")),
        ("modern".to_string(), http_entry(url, "modern")),
    ]
}

/// A catalog entry for the demo over HTTP in one era.
pub(crate) fn http_entry(url: &str, era: &str) -> Value {
    json!({"type": "http", "url": url, "protocolEra": era})
}
