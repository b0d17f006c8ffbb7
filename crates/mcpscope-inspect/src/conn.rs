//! Connections and their lifecycle: one `mcpscope_client::Session` per connected server —
//! connect (the OAuth provider, the channel to the connection's processor, the interaction
//! responder), disconnect, the pinger, the list-changed listener — and calls with a history
//! entry. The engine's observer only forwards, down one channel ([`crate::queue`]), to the
//! connection's processor ([`crate::pipeline`]), which turns the traffic into what views show.

use crate::capabilities::Advertising;
use crate::error::{Error, Result};
use crate::events::{Event, ResetEvent, WarningEvent};
use crate::interactions::QueueResponder;
use crate::pipeline::{Processor, finish};
use crate::queue::{Active, Item, ProcessorSink, Queue, WebObserver};
use crate::request::{Call, CallOutcome};
use crate::state::{InFlight, Inspector, Slot};
use crate::views;
use crate::views::Status;
use mcpscope_client::{ClientError, RequestControl, RequestOptions, Session};
use mcpscope_proto::era::{self, Era};
use mcpscope_proto::now_us;
use mcpscope_store::NewEntry;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Connect `name` (from the catalog), with an era chosen for this connection.
pub(crate) async fn connect(
    app: &Arc<Inspector>,
    name: &str,
    era_override: Option<String>,
) -> Result<Value> {
    let entry = app
        .catalog
        .lock()
        .await
        .get(name)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
    let slot = app.slot(name).await?;
    let _guard = slot.connect_lock.lock().await;
    let stored_override = slot.st().era_override.clone();
    let era_override = era_override.or(stored_override);
    {
        let st = slot.st();
        if era_override.is_none()
            && st.status == Some(Status::Connected)
            && let Some(info) = &st.info
        {
            return Ok(views::server_info(info, &st.advertised));
        }
    }
    disconnect_locked(app, &slot).await;
    // Secret env and header values come from the secret store, for this connection only; the
    // values it resolved are redacted from everything this connection shows and stores.
    let (entry, secrets) = crate::secrets::unseal(app, &entry).await?;
    let secrets = Arc::new(secrets);
    let (target, mut opts) = entry.connection(era_override.as_deref())?;
    opts.frame_numbers = Some(slot.frames().numbers());
    if let Some(auth) = crate::auth::provider_for(app, &slot, &entry, &target)? {
        opts.transport.auth = Some(auth as Arc<dyn mcpscope_transport::AuthProvider>);
    }
    let (tx, rx) = Queue::new(secrets.clone());
    let generation = {
        let mut st = slot.st();
        st.generation += 1;
        st.status = Some(Status::Connecting);
        st.closing = false;
        st.latency_ms = None;
        st.info = None;
        st.generation
    };
    slot.tools().clear();
    app.publish_status(name).await;
    let connection = app.interactions.connection_id();
    slot.st().interaction_connection = connection;
    Processor::spawn(app, &slot, generation, secrets, connection, rx, tx.gauge());
    let observer = Arc::new(WebObserver { tx: tx.clone() });
    let responder = Arc::new(QueueResponder {
        queue: app.interactions.clone(),
        server: name.to_string(),
        connection,
        policy: app.options.interaction_policy.clone(),
        timeout: app.options.interaction_timeout,
        sink: Arc::new(ProcessorSink { tx: tx.clone() }),
    });
    // The client capabilities chosen in the Experimental panel, fixed for this connection.
    let settings = {
        let mut st = slot.st();
        st.advertised = (st.capabilities_override.clone())
            .or_else(|| entry.client_capabilities.clone())
            .unwrap_or_default();
        st.advertised.clone()
    };
    let responder = Arc::new(Advertising {
        inner: responder,
        settings,
    });
    match Session::connect(target, opts, responder, observer).await {
        Ok(session) => Ok(connected_now(app, &slot, session, tx, generation).await),
        Err(e) => {
            let err = {
                let mut st = slot.st();
                st.retries += 1;
                let err = Error::from_client(&e).with("retries", st.retries);
                st.status = Some(Status::Failed);
                st.error = Some(err.body());
                err
            };
            app.publish_status(name).await;
            Err(err)
        }
    }
}

/// A connection that has just completed its handshake: keep its session, tell the views, start
/// its list-changed listener (modern) and pinger; the server's info for the answer.
async fn connected_now(
    app: &Arc<Inspector>,
    slot: &Arc<Slot>,
    session: Session,
    tx: Queue,
    generation: u64,
) -> Value {
    let info = session.server_info();
    {
        let mut st = slot.st();
        st.status = Some(Status::Connected);
        st.error = None;
        st.retries = 0;
        st.session = Some(session.clone());
        st.info = info.clone();
        st.processor = Some(tx);
    }
    app.publish_status(&slot.name).await;
    if session.era() == Era::Modern {
        let listen = listener(app.clone(), slot.clone(), session.clone(), generation);
        tokio::spawn(listen);
    }
    if let Some(every) = app.options.ping_interval {
        tokio::spawn(pinger(
            app.clone(),
            slot.clone(),
            session,
            generation,
            every,
        ));
    }
    let advertised = slot.st().advertised.clone();
    info.as_ref()
        .map(|i| views::server_info(i, &advertised))
        .unwrap_or(Value::Null)
}

/// Disconnect (taking the connect lock).
pub(crate) async fn disconnect(app: &Arc<Inspector>, slot: &Arc<Slot>) {
    let _guard = slot.connect_lock.lock().await;
    disconnect_locked(app, slot).await;
}

async fn disconnect_locked(app: &Arc<Inspector>, slot: &Arc<Slot>) {
    let session = {
        let mut st = slot.st();
        st.closing = true;
        st.processor = None;
        let s = st.session.take();
        if s.is_some() || st.status == Some(Status::Connected) {
            st.status = Some(Status::Disconnected);
            st.latency_ms = None;
        }
        s
    };
    let connection = slot.st().interaction_connection;
    app.interactions
        .abandon(connection, "the connection was closed (disconnect)");
    if let Some(s) = session {
        s.cancel_all("disconnected");
        s.close().await;
        slot.st().info = None;
        app.publish_status(&slot.name).await;
    }
}

/// Measure latency while the connection lasts: `ping` on legacy; on modern, where `ping` no
/// longer exists, `server/discover` (the cheapest round trip the era has).
async fn pinger(
    app: Arc<Inspector>,
    slot: Arc<Slot>,
    session: Session,
    generation: u64,
    every: Duration,
) {
    loop {
        let method = match session.era() {
            Era::Legacy => "ping",
            Era::Modern => "server/discover",
        };
        let opts = RequestOptions {
            timeout: Some(Some(Duration::from_secs(10))),
            ..Default::default()
        };
        let t = Instant::now();
        let r = session.request_with(method, None, &opts).await;
        let ms = t.elapsed().as_millis() as u64;
        let alive = {
            let mut st = slot.st();
            if st.generation != generation || st.status != Some(Status::Connected) {
                return;
            }
            match &r {
                // An error answer is still a round trip.
                Ok(_) | Err(ClientError::Rpc { .. }) => {
                    st.latency_ms = Some(ms);
                    true
                }
                Err(e) if e.is_connection_failure() => false,
                Err(_) => true,
            }
        };
        if alive {
            app.publish_status(&slot.name).await;
        }
        tokio::time::sleep(every).await;
    }
}

/// How many times in a row a modern server may end the list-changed subscription quickly
/// before we stop asking again (a server that ends every listen at once must not be flooded
/// with new ones).
const LISTEN_RESTARTS: u32 = 5;
/// A subscription that ends sooner than this counts towards [`LISTEN_RESTARTS`].
const LISTEN_QUICK_END: Duration = Duration::from_secs(10);

/// The `subscriptions/listen` filter that asks for every list change `capabilities` promises.
fn list_changed_filter(capabilities: &Value) -> Map<String, Value> {
    let mut filter = Map::new();
    for (capability, key) in [
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ] {
        if capabilities[capability]["listChanged"] == json!(true) {
            filter.insert(key.into(), json!(true));
        }
    }
    filter
}

/// Modern servers send `list_changed` only on a `subscriptions/listen` stream (legacy ones send
/// them unsolicited), so the list-changed indicators of the Tools, Resources and Prompts screens
/// need one open for as long as the connection lasts. Its notifications reach the processor like
/// any other; the disconnect cancels it with everything else in flight.
async fn listener(app: Arc<Inspector>, slot: Arc<Slot>, session: Session, generation: u64) {
    let Some(info) = session.server_info() else {
        return;
    };
    let filter = list_changed_filter(&info.capabilities);
    if filter.is_empty() {
        return;
    }
    let still_ours = || {
        let st = slot.st();
        st.generation == generation && st.status == Some(Status::Connected)
    };
    let warn = |message: String| {
        app.events.publish(Event::Warning(WarningEvent {
            server: slot.name.clone(),
            message,
            frame_seq: None,
        }));
    };
    let mut quick_ends = 0u32;
    let kinds: Vec<String> = filter.keys().cloned().collect();
    loop {
        let opts = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let params = json!({"notifications": filter});
        let started = Instant::now();
        crate::subscriptions::connection_listen(&app, &slot.name, kinds.clone());
        let r = session
            .request_with("subscriptions/listen", Some(params), &opts)
            .await;
        if !still_ours() {
            return;
        }
        crate::subscriptions::connection_listen(&app, &slot.name, Vec::new());
        let why = match r {
            // A result or a notifications/cancelled: the server ended the subscription.
            Ok(_) | Err(ClientError::ServerCancelled { .. }) => {
                "the server ended the list-changed subscription (subscriptions/listen)".to_string()
            }
            // The connection itself is going: the disconnect says so.
            Err(ClientError::Closed(_) | ClientError::Cancelled { .. }) => return,
            // On modern HTTP the listen has a stream of its own, which a proxy or a 5xx can end
            // while the connection lives on.
            Err(e) if e.is_connection_failure() => {
                format!("the list-changed subscription (subscriptions/listen) broke: {e}")
            }
            Err(e) => {
                warn(format!(
                    "subscriptions/listen failed, so list changes will not be shown: {e}"
                ));
                return;
            }
        };
        // Only ends in quick succession count: a subscription that lived a while is not a
        // server refusing to keep one.
        if started.elapsed() >= LISTEN_QUICK_END {
            quick_ends = 0;
        }
        quick_ends += 1;
        if quick_ends >= LISTEN_RESTARTS {
            warn(format!(
                "{why} {LISTEN_RESTARTS} times in a row within {} s each; list changes will not be shown until you reconnect",
                LISTEN_QUICK_END.as_secs()
            ));
            return;
        }
        warn(format!("{why}; listening again"));
        tokio::time::sleep(Duration::from_secs(u64::from(quick_ends))).await;
        if !still_ours() {
            return;
        }
    }
}

/// The connected session of the server named `name` and its processor, or `not_found`.
pub(crate) fn connected_named(
    app: &Inspector,
    name: &str,
) -> Result<(Session, Queue, Option<String>)> {
    let slot = app.slots().get(name).cloned().ok_or_else(|| {
        Error::not_found(format!(
            "server {name:?} is not connected; connect it first"
        ))
    })?;
    connected(&slot)
}

/// The connected session of `slot` and its processor, or `not_found`.
pub(crate) fn connected(slot: &Slot) -> Result<(Session, Queue, Option<String>)> {
    let st = slot.st();
    match (&st.session, &st.processor, st.status) {
        (Some(s), Some(p), Some(Status::Connected)) => {
            Ok((s.clone(), p.clone(), st.log_level.clone()))
        }
        _ => Err(Error::not_found(format!(
            "server {:?} is not connected; connect it first",
            slot.name
        ))),
    }
}

/// Make a request with a history entry, tying everything it causes to that entry.
pub(crate) async fn call(app: &Arc<Inspector>, name: &str, c: Call) -> Result<CallOutcome> {
    let (session, tx, log_level) = connected_named(app, name)?;
    let request_id = c.request_id.clone().unwrap_or_else(new_request_id);
    let (control, _cleanup) = in_flight(app, &request_id)?;
    let era = session.era();
    let refused = app
        .slots()
        .get(name)
        .and_then(|s| crate::apps::refusal(s, &c));
    let hist = open_entry(app, name, &c, era, &request_id, &control, &tx).await?;
    if let Some(err) = refused {
        return Ok(refuse(app, name, &tx, hist, err).await);
    }
    let opts = request_options(&c, era, log_level, &control);
    let (outcome, pagination) = match &c.pages {
        Some(key) => crate::listing::all_pages(&session, &c, key, &opts, &tx).await,
        None => (
            session
                .request_with(&c.method, c.params.clone(), &opts)
                .await,
            None,
        ),
    };
    let excluded_tools = (c.method == "tools/list").then(|| session.excluded_tools());
    let result = close_entry(app, &tx, hist, outcome).await;
    let (result, tool_lint) = if c.method == "tools/list" {
        crate::listing::lint_tools(app.linter.clone(), era, result).await
    } else {
        (result, None)
    };
    crate::tasks::learn(app, name, &c, &request_id, hist, &result);
    Ok(CallOutcome {
        history_id: hist,
        result,
        excluded_tools,
        pagination,
        tool_lint,
    })
}

/// A call refused before it was sent (the visibility rules): its entry ends with the error, and
/// every view hears why.
async fn refuse(
    app: &Arc<Inspector>,
    name: &str,
    tx: &Queue,
    hist: i64,
    err: Error,
) -> CallOutcome {
    let err = err.with("historyId", hist);
    app.warn(name, format!("refused: {}", err.message));
    finish_entry(app, tx, hist, "error", None, Some(err.body())).await;
    CallOutcome {
        history_id: hist,
        result: Err(err),
        excluded_tools: None,
        pagination: None,
        tool_lint: None,
    }
}

/// Register `request_id` as in flight (so a view can cancel it), until the guard drops.
pub(crate) fn in_flight(
    app: &Arc<Inspector>,
    request_id: &str,
) -> Result<(Arc<RequestControl>, RemoveOnDrop)> {
    let control = Arc::new(RequestControl::new());
    let mut reqs = app.requests();
    if reqs.contains_key(request_id) {
        return Err(Error::conflict(format!(
            "request id {request_id:?} is already in flight; choose a fresh id (a UUID)"
        )));
    }
    reqs.insert(
        request_id.to_string(),
        InFlight {
            control: control.clone(),
        },
    );
    let guard = RemoveOnDrop {
        app: app.clone(),
        id: request_id.to_string(),
    };
    Ok((control, guard))
}

/// Write the call's history entry (params without the connection's secrets), publish it, and
/// tell the processor it begins, so everything the request causes is tied to it.
pub(crate) async fn open_entry(
    app: &Arc<Inspector>,
    name: &str,
    c: &Call,
    era: Era,
    request_id: &str,
    control: &Arc<RequestControl>,
    tx: &Queue,
) -> Result<i64> {
    let new = NewEntry {
        server: name.to_string(),
        method: c.method.clone(),
        params: c.params.as_ref().map(|p| {
            let mut p = p.clone();
            tx.secrets.value(&mut p);
            p.to_string()
        }),
        started_at_us: now_us(),
        era: Some(era.to_string()),
        parent_id: None,
        request_id: Some(request_id.to_string()),
    };
    let store = app.store.clone();
    let row = new.clone();
    let hist = tokio::task::spawn_blocking(move || store.insert(&row)).await??;
    app.events
        .publish(Event::History(views::pending_entry(hist, &new)));
    let _ = tx.send(Item::Begin(Active {
        hist,
        request_id: request_id.to_string(),
        method: c.method.clone(),
        control: control.clone(),
        started: Instant::now(),
        frames: Vec::new(),
        exchanges: Vec::new(),
        children: 0,
        omitted: 0,
    }));
    Ok(hist)
}

/// The engine's options for the call: the view's `_meta`, progress and timeout, and on modern
/// the log level the user chose (unless the view set one).
pub(crate) fn request_options(
    c: &Call,
    era: Era,
    log_level: Option<String>,
    control: &Arc<RequestControl>,
) -> RequestOptions {
    let mut meta = c.meta.clone();
    if era == Era::Modern
        && let Some(level) = log_level
        && !meta.contains_key(era::META_LOG_LEVEL)
    {
        meta.insert(era::META_LOG_LEVEL.into(), json!(level));
    }
    RequestOptions {
        meta,
        progress: c.progress,
        timeout: c.timeout,
        control: Some(control.clone()),
        ..Default::default()
    }
}

/// Record how the call ended in its entry (through the processor, so every frame is in first)
/// and give the view the result or error as SQLite keeps it: without the connection's secrets.
pub(crate) async fn close_entry(
    app: &Arc<Inspector>,
    tx: &Queue,
    hist: i64,
    outcome: std::result::Result<Value, ClientError>,
) -> std::result::Result<Value, Error> {
    let (status, result_text, error, result) = match outcome {
        Ok(mut v) => {
            tx.secrets.value(&mut v);
            // A tool's `isError: true` is a result on the wire but an error to the user: History,
            // its status filter and every view read this one status.
            let status = if v.get("isError") == Some(&Value::Bool(true)) {
                "error"
            } else {
                "ok"
            };
            (status, Some(v.to_string()), None, Ok(v))
        }
        Err(e) => {
            let mut err = Error::from_client(&e).with("historyId", hist);
            if let Some(m) = tx.secrets.text(&err.message) {
                err.message = m;
            }
            for x in err.extra.values_mut() {
                tx.secrets.value(x);
            }
            let status = if err.code == mcpscope_proto::error_code::ErrorCode::Cancelled {
                "cancelled"
            } else {
                "error"
            };
            (status, None, Some(err.body()), Err(err))
        }
    };
    finish_entry(app, tx, hist, status, result_text, error).await;
    result
}

/// End entry `hist` through the processor, so every frame is in first.
async fn finish_entry(
    app: &Arc<Inspector>,
    tx: &Queue,
    hist: i64,
    status: &'static str,
    result_text: Option<String>,
    error: Option<Value>,
) {
    let (ack, done) = oneshot::channel();
    let sent = tx.send(Item::Finish {
        hist,
        status,
        result: result_text.clone(),
        error: error.clone(),
        ack,
    });
    if sent {
        let _ = done.await;
    } else {
        // The connection's processor is gone (the server went away): record it here.
        finish(app, hist, status, result_text, error, Vec::new()).await;
    }
}

pub(crate) struct RemoveOnDrop {
    app: Arc<Inspector>,
    id: String,
}

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        self.app.requests().remove(&self.id);
    }
}

/// A fresh id for a request whose page chose none: 128 random bits in hex.
pub(crate) fn new_request_id() -> String {
    crate::random_hex(16)
}

/// Cancel a request by the id its page chose. False when it is not in flight.
pub(crate) fn cancel(app: &Inspector, request_id: &str) -> bool {
    let control = app.requests().get(request_id).map(|f| f.control.clone());
    match control {
        Some(c) => c.cancel("cancelled by the user"),
        None => false,
    }
}

impl Inspector {
    /// Connect `name` (from the catalog), with an era chosen for this connection (`legacy`,
    /// `modern`, `auto`; `None`: the entry's). Returns `ServerInfo`; an already connected server
    /// is not connected again unless an era is given.
    pub async fn connect(self: &Arc<Self>, name: &str, era: Option<String>) -> Result<Value> {
        connect(self, name, era).await
    }

    /// Disconnect `name` (a stdio server is stopped).
    pub async fn disconnect(self: &Arc<Self>, name: &str) -> Result<()> {
        if self.catalog.lock().await.get(name).is_none() {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        }
        let slot = self.slots().get(name).cloned();
        if let Some(slot) = slot {
            disconnect(self, &slot).await;
            self.publish_status(name).await;
        }
        Ok(())
    }

    /// Close every connection (stdio servers are stopped), for a clean shutdown.
    pub async fn shutdown(self: &Arc<Self>) {
        let slots: Vec<Arc<Slot>> = self.slots().values().cloned().collect();
        for slot in slots {
            disconnect(self, &slot).await;
        }
    }

    /// `ServerInfo` of the connected server `name`.
    pub fn server_info(&self, name: &str) -> Result<Value> {
        let slot = self.slots().get(name).cloned();
        let info = slot.and_then(|sl| {
            let st = sl.st();
            (st.status == Some(Status::Connected))
                .then(|| st.info.clone().map(|i| (i, st.advertised.clone())))
                .flatten()
        });
        info.map(|(i, a)| views::server_info(&i, &a))
            .ok_or_else(|| {
                Error::not_found(format!(
                    "server {name:?} is not connected; connect it first"
                ))
            })
    }

    /// Choose `name`'s protocol era (`legacy`, `modern`, `auto`) and reconnect with it. The
    /// choice is saved in the catalog; a read-only catalog keeps it for this run only. Views are
    /// told to forget what they showed of the old connection (`reset`).
    pub async fn set_protocol_era(self: &Arc<Self>, name: &str, era: &str) -> Result<Value> {
        era.parse::<mcpscope_proto::era::EraPreference>()
            .map_err(Error::usage)?;
        let entry = self
            .catalog
            .lock()
            .await
            .get(name)
            .cloned()
            .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
        let mut changed = entry.clone();
        changed.protocol_era = Some(era.to_string());
        let saved = self.catalog.lock().await.update(name, name, changed);
        let slot = self.slot(name).await?;
        disconnect(self, &slot).await;
        {
            let mut st = slot.st();
            // A read-only catalog (--config) cannot keep the choice: remember it for this run.
            st.era_override = match &saved {
                Ok(()) => None,
                Err(_) => Some(era.to_string()),
            };
            st.latency_ms = None;
        }
        slot.tools().clear();
        self.events.publish(Event::Reset(ResetEvent {
            server: name.to_string(),
        }));
        if saved.is_ok() {
            self.publish_catalog().await;
        }
        connect(self, name, None).await
    }

    /// Choose the log level of `name`'s server. Legacy servers are told now
    /// (`logging/setLevel`, with a history entry); on modern, where the level travels with each
    /// request, it goes into the `_meta` of every request from now on.
    pub async fn set_log_level(self: &Arc<Self>, name: &str, level: &str) -> Result<Value> {
        let slot = self.slot(name).await?;
        let (era, connected) = {
            let mut st = slot.st();
            st.log_level = Some(level.to_string());
            (
                st.info.as_ref().map(|i| i.era),
                st.status == Some(Status::Connected),
            )
        };
        if connected && era == Some(Era::Legacy) {
            let out = call(
                self,
                name,
                Call {
                    method: "logging/setLevel".into(),
                    params: Some(json!({"level": level})),
                    ..Call::default()
                },
            )
            .await?;
            let result = out.result?;
            return Ok(json!({"level": level, "applied": "logging/setLevel",
                             "historyId": out.history_id, "result": result}));
        }
        Ok(json!({"level": level, "applied": "meta"}))
    }

    /// Make a request on `name`'s connection with a history entry, tying everything it causes
    /// (progress, logs, server requests, frames) to that entry.
    pub async fn call(self: &Arc<Self>, name: &str, c: Call) -> Result<CallOutcome> {
        call(self, name, c).await
    }

    /// Cancel a request by the id its view chose. False when it is not in flight.
    pub fn cancel(&self, request_id: &str) -> bool {
        cancel(self, request_id)
    }

    /// The `inputSchema` of `tool` from the last `tools/list` answer on `name`'s connection.
    pub fn tool_schema(&self, name: &str, tool: &str) -> Result<Value> {
        let slot = self.slots().get(name).cloned();
        slot.and_then(|sl| {
            sl.tools()
                .get(tool)
                .and_then(|k| serde_json::from_str::<Value>(&k.schema).ok())
                .filter(|schema| !schema.is_null())
        })
        .ok_or_else(|| {
            Error::not_found(format!(
                "tool {tool:?} is not in the last tools/list of {name:?}; list the tools first"
            ))
        })
    }
}
