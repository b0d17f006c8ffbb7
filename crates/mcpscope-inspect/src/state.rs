//! The inspector's shared state: the catalog, one slot per server (its connection, status and
//! traffic window), the event bus, the history database and the requests in flight.
//!
//! [`Inspector`] lives in one `Arc`, shared by every view (the web backend clones it into every
//! handler). Locks are `std::sync::Mutex` held for a few field reads or writes and never across
//! an `.await`; the catalog's is a tokio mutex because saving it writes a file.

use crate::catalog::{Catalog, CatalogEntry};
use crate::events::{CatalogEvent, Event, EventBus};
use crate::frames::{FrameWindow, WINDOW_BYTES, WINDOW_FRAMES};
use crate::interactions::{
    Answer, DEFAULT_INTERACTION_TIMEOUT, Interaction, InteractionClosed, InteractionQueue, Policy,
    WaitForDialogs,
};
use crate::views::{ServerView, Status};
use mcpscope_client::{RequestControl, ServerInfo, Session};
use mcpscope_proto::lint::Linter;
use mcpscope_store::{HistoryStore, StoredFrame};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;

/// Knobs of the inspector.
#[derive(Debug, Clone)]
pub struct Options {
    /// How often a connected server's latency is measured (`ping`, or `server/discover` on
    /// modern). `None`: never.
    pub ping_interval: Option<Duration>,
    /// Frames per server kept in memory.
    pub window_frames: usize,
    /// Body bytes per server kept in memory.
    pub window_bytes: usize,
    /// The OAuth redirect URI: the web backend's `/oauth/callback` on loopback
    /// ([`Options::for_port`]).
    pub callback_url: String,
    /// Where OAuth tokens are kept; `None`: as the environment says (`MCPSCOPE_SECRET_STORE`, …),
    /// like the CLI.
    pub secrets: Option<mcpscope_store::SecretStoreConfig>,
    /// Who answers a server's questions at once (`None` from it: a view must, within
    /// `interaction_timeout`). The web UI's dialogs answer elicitation and sampling; roots are
    /// answered at once from the server's configured roots (`roots`).
    pub interaction_policy: Arc<dyn Policy>,
    /// How long an interaction waits for a view before it is declined as timed out.
    pub interaction_timeout: Duration,
    /// The roots each server answers with now, kept from the catalog by the inspector (the
    /// default policy's `roots` answers from it: `roots.rs`).
    pub roots: Arc<crate::roots::RootsBook>,
    /// The Testing Profiles and each server's choice (`profiles/`; the default policy's
    /// `sampling` answers from them). Kept in `profiles.json` beside the history database.
    pub profiles: Arc<crate::profiles::Profiles>,
}

impl Options {
    /// Defaults for a web backend listening on `port` (the callback URL names it).
    pub fn for_port(port: u16) -> Options {
        Options {
            callback_url: format!("http://127.0.0.1:{port}/oauth/callback"),
            ..Options::default()
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        let roots = Arc::new(crate::roots::RootsBook::new());
        let profiles = Arc::new(crate::profiles::Profiles::in_memory());
        let dialogs = WaitForDialogs {
            roots: Arc::new(crate::roots::ConfiguredRoots {
                book: roots.clone(),
            }),
            sampling: Arc::new(crate::profiles::ProfilePolicy::new(profiles.clone())),
        };
        Options {
            ping_interval: Some(Duration::from_secs(15)),
            window_frames: WINDOW_FRAMES,
            window_bytes: WINDOW_BYTES,
            callback_url: "http://127.0.0.1:6274/oauth/callback".into(),
            secrets: None,
            interaction_policy: Arc::new(dialogs),
            interaction_timeout: DEFAULT_INTERACTION_TIMEOUT,
            roots,
            profiles,
        }
    }
}

/// What the inspector knows about one server's connection.
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
    pub processor: Option<crate::queue::Queue>,
    /// Set while we close the connection ourselves (its end is not a failure).
    pub closing: bool,
    /// The log level the user chose (sent in `_meta` on every modern request).
    pub log_level: Option<String>,
    /// An era chosen with the protocol selector when the catalog could not be saved.
    pub era_override: Option<String>,
    /// Client capabilities chosen in the Experimental panel when the catalog could not be
    /// saved (`capabilities.rs`).
    pub capabilities_override: Option<crate::capabilities::AdvertisedCapabilities>,
    /// The client capabilities settings the current connection was made with.
    pub advertised: crate::capabilities::AdvertisedCapabilities,
    /// The current connection's number in the interaction queue (its questions are abandoned
    /// when it ends).
    pub interaction_connection: u64,
}

/// One server's slot.
pub(crate) struct Slot {
    pub name: String,
    pub st: Mutex<SlotState>,
    pub frames: Mutex<FrameWindow>,
    /// The tools of the last `tools/list` answers on the current connection, by name.
    pub tools: Mutex<ToolCache>,
    /// The flood bound of the app frames views report (`apps/frames.rs`).
    pub app_gate: Mutex<crate::apps::gate::Gate>,
    /// Serialises connect, disconnect and reconnect.
    pub connect_lock: tokio::sync::Mutex<()>,
    /// The server's OAuth provider.
    pub auth: Mutex<crate::auth::reports::AuthState>,
    /// What its authorization flows report (pending login, last failure), shared with them.
    pub auth_reports: Arc<crate::auth::reports::AuthReports>,
}

impl Slot {
    pub(crate) fn st(&self) -> MutexGuard<'_, SlotState> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn frames(&self) -> MutexGuard<'_, FrameWindow> {
        self.frames.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn tools(&self) -> MutexGuard<'_, ToolCache> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn app_gate(&self) -> MutexGuard<'_, crate::apps::gate::Gate> {
        self.app_gate.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(crate) fn auth(&self) -> MutexGuard<'_, crate::auth::reports::AuthState> {
        self.auth.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One tool of the last `tools/list` answers: only what calls need, kept small (10,000 tools
/// must stay cheap: bench/RESULTS-tui.md).
pub(crate) struct KnownTool {
    /// The `inputSchema` as compact JSON text (a value per schema cost ten times more), read
    /// again for the one tool a call names (validation, header verdicts).
    pub schema: Box<str>,
    /// `_meta.ui.visibility`: who may call it (`apps`).
    pub visibility: crate::apps::meta::Visibility,
    /// Its place in the listing, so apps are listed in the server's order.
    pub index: u32,
    /// The whole definition as compact JSON text, kept only for tools that declare an MCP App.
    pub app: Option<Box<str>>,
}

/// The tools of the last `tools/list` answers on a connection, and whether one was answered
/// (an empty cache is not the same as a server with no tools).
#[derive(Default)]
pub(crate) struct ToolCache {
    pub tools: HashMap<String, KnownTool>,
    pub listed: bool,
}

impl ToolCache {
    pub(crate) fn get(&self, name: &str) -> Option<&KnownTool> {
        self.tools.get(name)
    }

    /// Forget everything (a new connection, a list change).
    pub(crate) fn clear(&mut self) {
        self.tools.clear();
        self.listed = false;
    }

    /// Keep one tool of an answer (a tool listed again keeps its place).
    pub(crate) fn remember(&mut self, tool: &Value) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return;
        };
        let schema = tool.get("inputSchema").unwrap_or(&Value::Null).to_string();
        let (visibility, _, _) = crate::apps::meta::visibility(tool);
        let app = crate::apps::meta::declares_app(tool).then(|| tool.to_string().into());
        let next = u32::try_from(self.tools.len()).unwrap_or(u32::MAX);
        let index = self.tools.get(name).map_or(next, |k| k.index);
        let known = KnownTool {
            schema: schema.into(),
            visibility,
            index,
            app,
        };
        self.tools.insert(name.to_string(), known);
    }
}

/// A request in flight, by the id the view chose.
pub(crate) struct InFlight {
    pub control: Arc<RequestControl>,
}

/// The inspector: the catalog, a slot per server, the event bus, the history database and the
/// requests in flight. Every view holds it in an `Arc` ([`Inspector::new`]).
pub struct Inspector {
    pub(crate) catalog: tokio::sync::Mutex<Catalog>,
    pub(crate) slots: Mutex<HashMap<String, Arc<Slot>>>,
    pub(crate) events: Arc<EventBus>,
    pub(crate) store: Arc<HistoryStore>,
    /// To the task that writes frames to SQLite.
    pub(crate) spill: mpsc::Sender<StoredFrame>,
    pub(crate) requests: Mutex<HashMap<String, InFlight>>,
    pub(crate) linter: Arc<Linter>,
    pub(crate) options: Options,
    /// Where OAuth tokens and secret catalog values are kept (opened on first use).
    pub(crate) secrets: Arc<mcpscope_store::LazySecretStore>,
    /// Logins waiting for their callback, by `state`.
    pub(crate) logins: Arc<crate::auth::reports::Logins>,
    /// The OAuth redirect URI (`options.callback_url`).
    pub(crate) callback_url: String,
    /// The servers' questions waiting for an answer.
    pub(crate) interactions: Arc<InteractionQueue>,
    /// The tasks of every server (`tasks/`).
    pub(crate) tasks: crate::tasks::Registry,
    /// The Subscriptions panel of every server (`subscriptions/`).
    pub(crate) subscriptions: crate::subscriptions::Registry,
}

impl std::fmt::Debug for Inspector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inspector").finish_non_exhaustive()
    }
}

impl Inspector {
    /// The inspector over a catalog and a history database. Starts the task that writes frames to
    /// SQLite, so it must be called inside a tokio runtime.
    pub fn new(catalog: Catalog, store: HistoryStore, options: Options) -> Arc<Inspector> {
        let store = Arc::new(store);
        let (spill, rx) = mpsc::channel(1024);
        tokio::spawn(spill_frames(store.clone(), rx));
        options.roots.refresh(catalog.servers());
        let profiles_file = store.path().with_file_name(crate::profiles::PROFILES_FILE);
        options.profiles.attach(&profiles_file);
        let events = Arc::new(EventBus::new());
        Arc::new(Inspector {
            catalog: tokio::sync::Mutex::new(catalog),
            slots: Mutex::new(HashMap::new()),
            events: events.clone(),
            store,
            spill,
            requests: Mutex::new(HashMap::new()),
            linter: Arc::new(Linter::new()),
            secrets: crate::auth::reports::secret_store(options.secrets.clone()),
            logins: Default::default(),
            callback_url: options.callback_url.clone(),
            interactions: Arc::new(InteractionQueue::new()),
            tasks: crate::tasks::Registry::new(events),
            subscriptions: Default::default(),
            options,
        })
    }

    /// The history database.
    pub fn store(&self) -> &Arc<HistoryStore> {
        &self.store
    }

    /// The event bus every view subscribes to.
    pub fn events(&self) -> &Arc<EventBus> {
        &self.events
    }

    /// Every server question still waiting for an answer, oldest first.
    pub fn interactions(&self) -> Vec<Interaction> {
        self.interactions.pending()
    }

    /// Answer interaction `id` (accept with content, decline, cancel) for any view.
    pub fn answer_interaction(&self, id: u64, answer: Answer) -> crate::Result<InteractionClosed> {
        self.interactions.answer(id, answer)
    }

    /// The options it was made with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The catalog file, when there is one.
    pub async fn catalog_path(&self) -> Option<std::path::PathBuf> {
        self.catalog
            .lock()
            .await
            .path()
            .map(std::path::Path::to_path_buf)
    }
}

impl Inspector {
    pub(crate) fn slots(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn requests(&self) -> MutexGuard<'_, HashMap<String, InFlight>> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The slot of `name`, created on first use (its frame numbering goes on from the database).
    pub(crate) async fn slot(&self, name: &str) -> crate::Result<Arc<Slot>> {
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
                tools: Mutex::new(ToolCache::default()),
                app_gate: Mutex::new(crate::apps::gate::Gate::default()),
                connect_lock: tokio::sync::Mutex::new(()),
                auth: Mutex::new(crate::auth::reports::AuthState::default()),
                auth_reports: Arc::new(crate::auth::reports::AuthReports::new(
                    name,
                    self.events.clone(),
                    self.secrets.clone(),
                    self.callback_url.clone(),
                    self.logins.clone(),
                )),
            })
        });
        Ok(slot.clone())
    }

    /// The server card of `name`, as JSON (what the REST answers carry).
    pub(crate) fn view(&self, name: &str, entry: &CatalogEntry) -> Value {
        serde_json::to_value(self.server_view(name, entry)).unwrap_or(Value::Null)
    }

    /// The server card of `name`.
    pub(crate) fn server_view(&self, name: &str, entry: &CatalogEntry) -> ServerView {
        let slot = self.slots().get(name).cloned();
        let mut entry = entry.clone();
        let (status, error, latency, era, version, connection) = match &slot {
            Some(s) => {
                let st = s.st();
                // An era chosen for this run (a read-only catalog could not keep it) is the one
                // the card shows: the era a view cycles from and says was asked for.
                if let Some(e) = &st.era_override {
                    entry.protocol_era = Some(e.clone());
                }
                (
                    st.status.unwrap_or(Status::Disconnected),
                    st.error.clone(),
                    st.latency_ms,
                    st.info.as_ref().map(|i| i.era.to_string()),
                    st.info.as_ref().map(|i| i.protocol_version.clone()),
                    st.generation,
                )
            }
            None => (Status::Disconnected, None, None, None, None, 0),
        };
        let connected = status == Status::Connected;
        ServerView {
            name: name.to_string(),
            transport: entry.transport(),
            target: entry.target_text(),
            entry,
            status,
            error,
            latency_ms: if connected { latency } else { None },
            era: if connected { era } else { None },
            protocol_version: if connected { version } else { None },
            connection,
        }
    }

    /// Publish a `status` event for `name`.
    pub(crate) async fn publish_status(&self, name: &str) {
        let entry = self.catalog.lock().await.get(name).cloned();
        if let Some(entry) = entry {
            let v = self.server_view(name, &entry);
            self.events.publish(Event::Status(Box::new(v)));
        }
    }

    /// Every server card (`ServerView` in `docs/web-api.md`), in catalog order.
    pub async fn servers(&self) -> Vec<Value> {
        let catalog = self.catalog.lock().await;
        catalog
            .servers()
            .iter()
            .map(|(n, e)| self.view(n, e))
            .collect()
    }

    /// Publish a `catalog` event.
    pub(crate) async fn publish_catalog(&self) {
        let servers = {
            let catalog = self.catalog.lock().await;
            self.options.roots.refresh(catalog.servers());
            catalog
                .servers()
                .iter()
                .map(|(n, e)| self.server_view(n, e))
                .collect()
        };
        self.events
            .publish(Event::Catalog(CatalogEvent { servers }));
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
