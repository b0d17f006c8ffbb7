//! The backend's shared state: the catalog, one slot per server (its connection, status and
//! traffic window), the event bus, the history database and the requests in flight.
//!
//! `AppState` is one `Arc`, cloned into every handler. Locks are `std::sync::Mutex` held for a
//! few field reads or writes and never across an `.await`; the catalog's is a tokio mutex
//! because saving it writes a file.

use crate::catalog::{Catalog, CatalogEntry};
use crate::events::EventBus;
use crate::frames::{FrameWindow, WINDOW_BYTES, WINDOW_FRAMES};
use crate::security::Security;
use mcpscope_client::{RequestControl, ServerInfo, Session};
use mcpscope_proto::lint::Linter;
use mcpscope_store::{HistoryStore, StoredFrame};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;

/// Knobs of the backend.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// How often a connected server's latency is measured (`ping`, or `server/discover` on
    /// modern). `None`: never.
    pub ping_interval: Option<Duration>,
    /// Frames per server kept in memory.
    pub window_frames: usize,
    /// Body bytes per server kept in memory.
    pub window_bytes: usize,
    /// The OAuth redirect URI: this backend's `/oauth/callback` on loopback
    /// ([`ServerOptions::for_port`]).
    pub callback_url: String,
    /// Where OAuth tokens are kept; `None`: as the environment says (`MCPSCOPE_SECRET_STORE`, …),
    /// like the CLI.
    pub secrets: Option<mcpscope_store::SecretStoreConfig>,
}

impl ServerOptions {
    /// Defaults for a backend listening on `port` (the callback URL names it).
    pub fn for_port(port: u16) -> ServerOptions {
        ServerOptions {
            callback_url: format!("http://127.0.0.1:{port}/oauth/callback"),
            ..ServerOptions::default()
        }
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            ping_interval: Some(Duration::from_secs(15)),
            window_frames: WINDOW_FRAMES,
            window_bytes: WINDOW_BYTES,
            callback_url: "http://127.0.0.1:6274/oauth/callback".into(),
            secrets: None,
        }
    }
}

/// The status dot of a server card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Disconnected,
    Connecting,
    Connected,
    Failed,
}

/// What the backend knows about one server's connection.
#[derive(Default)]
pub(crate) struct SlotState {
    pub status: Option<Status>,
    pub error: Option<Value>,
    /// Consecutive failed connection attempts.
    pub retries: u32,
    pub latency_ms: Option<u64>,
    pub session: Option<Session>,
    pub info: Option<ServerInfo>,
    /// Bumped by every connect; a connection's tasks stop acting when it moves on.
    pub generation: u64,
    /// Where the current connection's frames and events go.
    pub processor: Option<crate::conn::Queue>,
    /// Set while we close the connection ourselves (its end is not a failure).
    pub closing: bool,
    /// The log level the user chose (sent in `_meta` on every modern request).
    pub log_level: Option<String>,
    /// An era chosen with the protocol selector when the catalog could not be saved.
    pub era_override: Option<String>,
}

/// One server's slot.
pub(crate) struct Slot {
    pub name: String,
    pub st: Mutex<SlotState>,
    pub frames: Mutex<FrameWindow>,
    /// The `inputSchema` of each tool of the last `tools/list` answers on the current
    /// connection, by tool name.
    pub tools: Mutex<HashMap<String, Value>>,
    /// Serialises connect, disconnect and reconnect.
    pub connect_lock: tokio::sync::Mutex<()>,
    /// The server's authorization (OAuth provider, pending login, last failure).
    pub auth: Mutex<crate::auth::AuthState>,
}

impl Slot {
    pub(crate) fn st(&self) -> MutexGuard<'_, SlotState> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn frames(&self) -> MutexGuard<'_, FrameWindow> {
        self.frames.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn tools(&self) -> MutexGuard<'_, HashMap<String, Value>> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn auth(&self) -> MutexGuard<'_, crate::auth::AuthState> {
        self.auth.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A request in flight, by the id the page chose.
pub(crate) struct InFlight {
    pub control: Arc<RequestControl>,
}

pub(crate) struct Inner {
    pub catalog: tokio::sync::Mutex<Catalog>,
    pub slots: Mutex<HashMap<String, Arc<Slot>>>,
    pub events: Arc<EventBus>,
    pub store: Arc<HistoryStore>,
    pub spill: mpsc::Sender<StoredFrame>,
    pub requests: Mutex<HashMap<String, InFlight>>,
    pub linter: Arc<Linter>,
    pub options: ServerOptions,
    pub security: Arc<Security>,
    /// Where OAuth tokens are kept (opened on first use).
    pub secrets: Arc<mcpscope_store::LazySecretStore>,
    /// Logins waiting for their callback, by `state`.
    pub logins: crate::auth::Logins,
    /// The OAuth redirect URI (`options.callback_url`).
    pub callback_url: String,
}

/// The backend: cheap to clone, shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState").finish_non_exhaustive()
    }
}

impl AppState {
    /// The backend over a catalog and a history database. Starts the task that writes frames to
    /// SQLite, so it must be called inside a tokio runtime.
    pub fn new(
        security: Security,
        catalog: Catalog,
        store: HistoryStore,
        options: ServerOptions,
    ) -> AppState {
        let store = Arc::new(store);
        let (spill, rx) = mpsc::channel(1024);
        tokio::spawn(spill_frames(store.clone(), rx));
        AppState {
            inner: Arc::new(Inner {
                catalog: tokio::sync::Mutex::new(catalog),
                slots: Mutex::new(HashMap::new()),
                events: Arc::new(EventBus::new()),
                store,
                spill,
                requests: Mutex::new(HashMap::new()),
                linter: Arc::new(Linter::new()),
                secrets: crate::auth::secret_store(options.secrets.clone()),
                logins: Default::default(),
                callback_url: options.callback_url.clone(),
                options,
                security: Arc::new(security),
            }),
        }
    }

    /// The history database.
    pub fn store(&self) -> &Arc<HistoryStore> {
        &self.inner.store
    }

    /// Close every connection (stdio servers are stopped), for a clean shutdown.
    pub async fn shutdown(&self) {
        let slots: Vec<Arc<Slot>> = self.inner.slots().values().cloned().collect();
        for slot in slots {
            crate::conn::disconnect(&self.inner, &slot).await;
        }
    }
}

impl Inner {
    pub(crate) fn slots(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn requests(&self) -> MutexGuard<'_, HashMap<String, InFlight>> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The slot of `name`, created on first use (its frame numbering goes on from the database).
    pub(crate) async fn slot(&self, name: &str) -> Result<Arc<Slot>, crate::error::ApiError> {
        if let Some(s) = self.slots().get(name) {
            return Ok(s.clone());
        }
        let store = self.store.clone();
        let n = name.to_string();
        let max = tokio::task::spawn_blocking(move || store.max_seq(&n)).await??;
        let mut slots = self.slots();
        let slot = slots.entry(name.to_string()).or_insert_with(|| {
            Arc::new(Slot {
                name: name.to_string(),
                st: Mutex::new(SlotState::default()),
                frames: Mutex::new(FrameWindow::new(
                    max + 1,
                    self.options.window_frames,
                    self.options.window_bytes,
                )),
                tools: Mutex::new(HashMap::new()),
                connect_lock: tokio::sync::Mutex::new(()),
                auth: Mutex::new(crate::auth::AuthState::default()),
            })
        });
        Ok(slot.clone())
    }

    /// The server card of `name`.
    pub(crate) fn view(&self, name: &str, entry: &CatalogEntry) -> Value {
        let slot = self.slots().get(name).cloned();
        let (status, error, latency, era, version) = match &slot {
            Some(s) => {
                let st = s.st();
                (
                    st.status.unwrap_or(Status::Disconnected),
                    st.error.clone(),
                    st.latency_ms,
                    st.info.as_ref().map(|i| i.era.to_string()),
                    st.info.as_ref().map(|i| i.protocol_version.clone()),
                )
            }
            None => (Status::Disconnected, None, None, None, None),
        };
        let connected = status == Status::Connected;
        serde_json::json!({
            "name": name,
            "entry": entry,
            "transport": entry.transport(),
            "target": entry.target_text(),
            "status": status,
            "error": error,
            "latencyMs": if connected { latency } else { None },
            "era": if connected { era } else { None },
            "protocolVersion": if connected { version } else { None },
        })
    }

    /// Publish a `status` event for `name`.
    pub(crate) async fn publish_status(&self, name: &str) {
        let entry = self.catalog.lock().await.get(name).cloned();
        if let Some(entry) = entry {
            let v = self.view(name, &entry);
            self.events.publish("status", &v);
        }
    }

    /// Every server card, in catalog order.
    pub(crate) async fn views(&self) -> Vec<Value> {
        let catalog = self.catalog.lock().await;
        catalog
            .servers()
            .iter()
            .map(|(n, e)| self.view(n, e))
            .collect()
    }

    /// Publish a `catalog` event.
    pub(crate) async fn publish_catalog(&self) {
        let servers = self.views().await;
        self.events
            .publish("catalog", &serde_json::json!({"servers": servers}));
    }
}

/// Write frames to SQLite in batches, off the async threads.
async fn spill_frames(store: Arc<HistoryStore>, mut rx: mpsc::Receiver<StoredFrame>) {
    let mut buf = Vec::with_capacity(1024);
    while rx.recv_many(&mut buf, 1024).await > 0 {
        let batch = std::mem::take(&mut buf);
        let store = store.clone();
        match tokio::task::spawn_blocking(move || store.put_frames(&batch)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("mcpscope: frames not saved to the history database: {e}"),
            Err(e) => eprintln!("mcpscope: the frame writer failed: {e}"),
        }
    }
}
