//! Subscriptions, both eras, as the Subscriptions panel of the Resources screen shows them.
//!
//! Modern (2026-07-28): one `subscriptions/listen` stream per server with the filter the user
//! wants (list-changed kinds and resource URIs to watch). A listen filter is immutable for the
//! life of its subscription, so changing the desired filter cancels the stream and opens a new
//! one (a re-listen, counted). Each stream's status — Opening, Active, Closed by server
//! (graceful: a `complete` result, or `notifications/cancelled` on stdio), Connection lost
//! (its transport closed without that result), Cancelled locally, Error — its subscription id
//! (reported in `notifications/subscriptions/acknowledged`, or observed on a notification when
//! no acknowledgement came first), the requested filter next to the acknowledged one, the
//! interests the server did not honour and the close reason are kept (`stream.rs`). This stream
//! is the panel's own: the connection's list-changed listener (`conn.rs`) keeps its own
//! subscription, so unticking a kind here never blinds the other screens.
//!
//! Legacy (2025-11-25): per-URI `resources/subscribe` / `resources/unsubscribe`, each with its
//! history entry and the server's answer (`legacy.rs`).
//!
//! Both: a bounded history of transitions with timestamps; a notification the server should not
//! have sent (a type the filter did not ask for, a URI not watched, an unknown subscription id,
//! one for a subscription that has ended) is recorded as rejected, never acted on, never
//! dropped silently; `notifications/resources/updated` marks its URI updated until the page
//! re-reads it (`notify.rs`). Every change is published as a `subscriptions` event carrying the
//! server's whole panel, at most every [`PUBLISH_EVERY`] while a server floods.

mod legacy;
mod notify;
mod stream;

pub(crate) use notify::{notified, sent};

use crate::error::{Error, Result};
use crate::events::Event;
use crate::state::Inspector;
use mcpscope_client::RequestControl;
use mcpscope_proto::era::Era;
use mcpscope_proto::{RequestId, now_us};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use ts_rs::TS;

/// Transitions kept per server; older ones are counted (`historyOmitted`).
pub const MAX_HISTORY: usize = 200;
/// URIs tracked per server (watched, subscribed or updated); past it updates are counted in
/// `urisOmitted`, not kept (a server sending updates for 100,000 sub-resources).
pub const MAX_URIS: usize = 2000;
/// URIs one filter may watch.
pub const MAX_WATCHED: usize = 1000;
/// Ids of ended streams and of listens made elsewhere remembered per server, to tell a late or
/// foreign notification from one with an id nobody asked for.
const MAX_IDS: usize = 64;
/// While notifications stream in, the panel is published at most this often (transitions are
/// published at once).
pub const PUBLISH_EVERY: Duration = Duration::from_millis(200);

/// A `subscriptions/listen` filter, as the panel edits it and the wire carries it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Filter {
    /// `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs (and their sub-resources).
    pub resource_subscriptions: Vec<String>,
}

/// The list-changed kinds of a filter: (wire key, notification method, what the panel calls it).
const KINDS: [(&str, &str); 3] = [
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    (
        "resourcesListChanged",
        "notifications/resources/list_changed",
    ),
];

impl Filter {
    fn kind(&self, key: &str) -> bool {
        match key {
            "toolsListChanged" => self.tools_list_changed,
            "promptsListChanged" => self.prompts_list_changed,
            "resourcesListChanged" => self.resources_list_changed,
            _ => false,
        }
    }

    /// Nothing asked for: no stream is needed.
    pub fn is_empty(&self) -> bool {
        KINDS.iter().all(|(k, _)| !self.kind(k)) && self.resource_subscriptions.is_empty()
    }

    /// The `notifications` param of `subscriptions/listen`: only what is asked for (omitted =
    /// not subscribed).
    pub fn to_wire(&self) -> Value {
        let mut m = Map::new();
        for (key, _) in KINDS {
            if self.kind(key) {
                m.insert(key.into(), json!(true));
            }
        }
        if !self.resource_subscriptions.is_empty() {
            m.insert(
                "resourceSubscriptions".into(),
                json!(self.resource_subscriptions),
            );
        }
        Value::Object(m)
    }

    /// What an acknowledgement's `notifications` says, read leniently (anything but `true` is
    /// not honoured; non-string URIs are left out).
    pub fn from_wire(v: Option<&Value>) -> Filter {
        let on = |k: &str| v.and_then(|v| v.get(k)) == Some(&json!(true));
        let uris = v
            .and_then(|v| v.get("resourceSubscriptions"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .take(MAX_WATCHED)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Filter {
            tools_list_changed: on("toolsListChanged"),
            prompts_list_changed: on("promptsListChanged"),
            resources_list_changed: on("resourcesListChanged"),
            resource_subscriptions: uris,
        }
    }

    /// What `self` asked for that `honoured` leaves out, in the protocol's words.
    pub fn not_honoured_by(&self, honoured: &Filter) -> Vec<String> {
        let mut out: Vec<String> = KINDS
            .iter()
            .filter(|(k, _)| self.kind(k) && !honoured.kind(k))
            .map(|(_, method)| method.trim_start_matches("notifications/").to_string())
            .collect();
        out.extend(
            (self.resource_subscriptions.iter())
                .filter(|u| !honoured.resource_subscriptions.contains(u))
                .map(|u| format!("resources/updated {u}")),
        );
        out
    }

    /// Whether a notification `method` (about `uri`) is one this filter asked for. A URI may be
    /// a sub-resource of a watched one.
    pub fn allows(&self, method: &str, uri: Option<&str>) -> bool {
        if method == "notifications/resources/updated" {
            return uri.is_some_and(|u| watched(&self.resource_subscriptions, u));
        }
        KINDS.iter().any(|(k, m)| *m == method && self.kind(k))
    }
}

/// `uri` is one of `watched` or below one of them (`file:///dir/` covers `file:///dir/a`).
fn watched(watched: &[String], uri: &str) -> bool {
    watched.iter().any(|w| {
        uri == w
            || (uri.starts_with(w.as_str())
                && (w.ends_with('/') || uri[w.len()..].starts_with(['/', '#', '?'])))
    })
}

/// A stream's status, as the panel names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum StreamStatus {
    /// `subscriptions/listen` sent, no acknowledgement yet.
    Opening,
    /// Acknowledged (or a notification for it arrived).
    Active,
    /// The server ended it: a `complete` result, or `notifications/cancelled` (stdio).
    ClosedByServer,
    /// Its transport closed without that result (an unexpected disconnect).
    ConnectionLost,
    /// We ended it: Cancel stream, a new filter, a disconnect.
    CancelledLocally,
    /// The server answered with an error (or something else went wrong).
    Error,
}

impl StreamStatus {
    fn open(self) -> bool {
        matches!(self, StreamStatus::Opening | StreamStatus::Active)
    }
}

/// Where the subscription id shown came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum IdSource {
    /// In `notifications/subscriptions/acknowledged`.
    Reported,
    /// On a notification of the stream, no acknowledgement having said it.
    Observed,
}

/// One `subscriptions/listen` stream.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StreamView {
    /// Which listen of this server's panel it is (1 = the first).
    pub number: u32,
    /// Its status.
    pub status: StreamStatus,
    /// The MCP subscription id (the listen request's JSON-RPC id).
    #[ts(type = "Json | null")]
    pub subscription_id: Option<Value>,
    /// Whether the id was reported (acknowledgement) or observed (notifications).
    pub id_source: Option<IdSource>,
    /// The filter it asked for.
    pub requested: Filter,
    /// What the acknowledgement said the server honours (`null` before it).
    pub acknowledged: Option<Filter>,
    /// What it asked for and the server left out.
    pub not_honoured: Vec<String>,
    /// Why it ended, in words.
    pub close_reason: Option<String>,
    /// When it was opened / ended (µs since the Unix epoch).
    pub opened_us: u64,
    /// When it ended.
    pub closed_us: Option<u64>,
    /// Notifications it delivered (acknowledgement excluded).
    pub notifications: u64,
    /// The history entry of its `subscriptions/listen`.
    pub history_id: Option<i64>,
}

/// One URI's state in the panel.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UriView {
    /// The URI.
    pub uri: String,
    /// Legacy: subscribed (the server said yes, or a subscribe was sent from another screen);
    /// modern: watched by the current stream's acknowledged filter.
    pub subscribed: bool,
    /// Legacy: `subscribing` / `unsubscribing` while the request is in flight.
    pub pending: Option<String>,
    /// The server's last answer to subscribe/unsubscribe when it was an error.
    pub error: Option<String>,
    /// `notifications/resources/updated` received for it.
    pub updates: u64,
    /// Updated since the page last read it.
    pub updated: bool,
    /// When the last update came.
    pub last_updated_us: Option<u64>,
}

/// What a history row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum TransitionKind {
    /// A listen was sent.
    Opening,
    /// Its acknowledgement (or first notification) came.
    Active,
    /// The server ended the stream gracefully.
    ClosedByServer,
    /// The stream's transport closed without a result.
    ConnectionLost,
    /// We ended it.
    CancelledLocally,
    /// The listen (or a subscribe) failed.
    Error,
    /// Legacy: `resources/subscribe` answered.
    Subscribed,
    /// Legacy: `resources/unsubscribe` answered.
    Unsubscribed,
    /// A URI was updated (the first update since it was last read; later ones are counted).
    Updated,
    /// A notification the server should not have sent.
    Rejected,
}

/// One row of the history.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Transition {
    /// When (µs since the Unix epoch).
    pub time_us: u64,
    /// What kind of transition.
    pub kind: TransitionKind,
    /// What happened, in words.
    pub message: String,
    /// The URI it is about.
    pub uri: Option<String>,
    /// The subscription it is about.
    #[ts(type = "Json | null")]
    pub subscription_id: Option<Value>,
}

/// The Subscriptions panel of one server (the `subscriptions` event and `GET …/subscriptions`).
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsView {
    /// The server.
    pub server: String,
    /// The era of its connection (`null`: not connected).
    pub era: Option<Era>,
    /// Bumped by every change.
    pub version: u64,
    /// Modern: what the user wants to listen for.
    pub desired: Filter,
    /// Modern: the current (or last) stream.
    pub stream: Option<StreamView>,
    /// Modern: the list-changed kinds the connection's own stream listens for (`conn.rs`:
    /// opened at connect, apart from the panel's); empty while it has none open. The panel
    /// names it, so it never says "no stream" while Traffic shows one.
    pub connection_listen: Vec<String>,
    /// Listens after the first (filter changes, Listen again).
    pub relistens: u32,
    /// URIs watched, subscribed or updated, in URI order.
    pub uris: Vec<UriView>,
    /// Updates for URIs beyond [`MAX_URIS`], counted only.
    pub uris_omitted: u64,
    /// Transitions, oldest first (the last [`MAX_HISTORY`]).
    pub history: Vec<Transition>,
    /// Transitions older than those kept.
    pub history_omitted: u64,
    /// Notifications rejected (all of them, kept or not).
    pub rejected: u64,
    /// `notifications/resources/updated` received (all of them).
    pub updates: u64,
}

/// The current stream and how to end it.
pub(crate) struct Stream {
    pub view: StreamView,
    pub control: Arc<RequestControl>,
}

/// One server's subscriptions.
#[derive(Default)]
pub(crate) struct ServerSubs {
    pub view: SubscriptionsView,
    /// The connection generation the state belongs to.
    pub generation: u64,
    pub stream: Option<Stream>,
    uris: BTreeMap<String, UriView>,
    history: VecDeque<Transition>,
    /// Ids of this panel's ended streams, with when they ended and how.
    pub ended: VecDeque<(RequestId, u64, StreamStatus)>,
    /// Ids of listens sent by anything else (the list-changed listener, the raw tester).
    pub foreign: VecDeque<RequestId>,
    last_publish: Option<Instant>,
    publish_scheduled: bool,
}

impl ServerSubs {
    /// Record a transition (the oldest goes past [`MAX_HISTORY`]).
    pub(crate) fn record(
        &mut self,
        kind: TransitionKind,
        message: String,
        uri: Option<&str>,
        id: Option<Value>,
    ) {
        if self.history.len() >= MAX_HISTORY {
            self.history.pop_front();
            self.view.history_omitted += 1;
        }
        if kind == TransitionKind::Rejected {
            self.view.rejected += 1;
        }
        self.history.push_back(Transition {
            time_us: now_us(),
            kind,
            message,
            uri: uri.map(str::to_owned),
            subscription_id: id,
        });
    }

    /// The URI's state, created unless [`MAX_URIS`] are tracked (then `None`, counted).
    pub(crate) fn uri(&mut self, uri: &str) -> Option<&mut UriView> {
        if !self.uris.contains_key(uri) {
            if self.uris.len() >= MAX_URIS {
                self.view.uris_omitted += 1;
                return None;
            }
            let v = UriView {
                uri: uri.to_string(),
                ..Default::default()
            };
            self.uris.insert(uri.to_string(), v);
        }
        self.uris.get_mut(uri)
    }

    /// Forget URIs nothing refers to any more (not subscribed, watched or updated).
    fn prune(&mut self) {
        let desired = &self.view.desired.resource_subscriptions;
        self.uris.retain(|u, v| {
            v.subscribed || v.updated || v.pending.is_some() || v.error.is_some() || {
                desired.contains(u)
            }
        });
    }

    /// Remember a listen id for later classification, bounded.
    pub(crate) fn remember(list: &mut VecDeque<RequestId>, id: RequestId) {
        if list.len() >= MAX_IDS {
            list.pop_front();
        }
        list.push_back(id);
    }

    /// The panel as a view sees it.
    fn snapshot(&self) -> SubscriptionsView {
        let mut v = self.view.clone();
        v.stream = self.stream.as_ref().map(|s| s.view.clone());
        v.uris = self.uris.values().cloned().collect();
        v.history = self.history.iter().cloned().collect();
        v
    }

    /// The connection changed (a new one, or none): what the old one had is gone ("no state
    /// survives reconnection"). A stream still open is left to its task, which knows how it
    /// ended (a remote close must not be reported as a local one); legacy subscriptions end.
    fn new_connection(&mut self, generation: u64, era: Option<Era>) {
        self.generation = generation;
        self.view.era = era;
        self.view.connection_listen.clear();
        let mut ended = Vec::new();
        for u in self.uris.values_mut() {
            if u.subscribed {
                ended.push(u.uri.clone());
            }
            u.subscribed = false;
            u.pending = None;
        }
        for uri in ended {
            let message = "no longer subscribed: the connection ended".to_string();
            self.record(TransitionKind::Unsubscribed, message, Some(&uri), None);
        }
        self.ended.clear();
        self.foreign.clear();
        self.prune();
    }
}

/// Every server's subscriptions, by server name.
#[derive(Default)]
pub(crate) struct Registry {
    servers: Mutex<HashMap<String, ServerSubs>>,
}

impl Registry {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, ServerSubs>> {
        self.servers.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The connection `server` has now: its generation and era (`None` when not connected).
fn connection(app: &Inspector, server: &str) -> Option<(u64, Era)> {
    let slot = app.slots().get(server).cloned()?;
    let st = slot.st();
    let era = st.session.as_ref().map(|s| s.era())?;
    (st.status == Some(crate::views::Status::Connected)).then_some((st.generation, era))
}

/// Modern: the connection's own list-changed stream is open for `kinds` (empty: it ended).
pub(crate) fn connection_listen(app: &Arc<Inspector>, server: &str, kinds: Vec<String>) {
    change(app, server, true, |st| st.view.connection_listen = kinds);
}

/// Change `server`'s state (made current for its connection first), then publish it: at once
/// when `transition`, else at most every [`PUBLISH_EVERY`].
pub(crate) fn change<T>(
    app: &Arc<Inspector>,
    server: &str,
    transition: bool,
    f: impl FnOnce(&mut ServerSubs) -> T,
) -> T {
    apply(app, server, |st| (f(st), Some(transition)))
}

/// [`change`], where `f` also says whether to publish (`None`: nothing changed).
pub(crate) fn apply<T>(
    app: &Arc<Inspector>,
    server: &str,
    f: impl FnOnce(&mut ServerSubs) -> (T, Option<bool>),
) -> T {
    let now = connection(app, server);
    let (out, publish) = {
        let mut all = app.subscriptions.lock();
        let st = all.entry(server.to_string()).or_default();
        st.view.server = server.to_string();
        match now {
            Some((g, era)) if g != st.generation || st.view.era != Some(era) => {
                st.new_connection(g, Some(era))
            }
            None if st.view.era.is_some() => st.new_connection(st.generation, None),
            _ => {}
        }
        let (out, publish) = f(st);
        let publish = match publish {
            Some(transition) => {
                st.view.version += 1;
                publish_or_schedule(st, transition)
            }
            None => Publish::Skip,
        };
        (out, publish)
    };
    match publish {
        Publish::Now(v) => {
            app.events.publish(Event::Subscriptions(*v));
        }
        Publish::Later => schedule(app, server),
        Publish::Skip => {}
    }
    out
}

enum Publish {
    Now(Box<SubscriptionsView>),
    Later,
    Skip,
}

fn publish_or_schedule(st: &mut ServerSubs, transition: bool) -> Publish {
    let recent = st.last_publish.is_some_and(|t| t.elapsed() < PUBLISH_EVERY);
    if transition || !recent {
        st.last_publish = Some(Instant::now());
        st.prune();
        return Publish::Now(Box::new(st.snapshot()));
    }
    if st.publish_scheduled {
        return Publish::Skip;
    }
    st.publish_scheduled = true;
    Publish::Later
}

/// Publish `server`'s panel once [`PUBLISH_EVERY`] has passed (the trailing edge of a flood).
fn schedule(app: &Arc<Inspector>, server: &str) {
    let app = app.clone();
    let server = server.to_string();
    tokio::spawn(async move {
        tokio::time::sleep(PUBLISH_EVERY).await;
        let v = {
            let mut all = app.subscriptions.lock();
            let Some(st) = all.get_mut(&server) else {
                return;
            };
            st.publish_scheduled = false;
            st.last_publish = Some(Instant::now());
            st.prune();
            st.snapshot()
        };
        app.events.publish(Event::Subscriptions(v));
    });
}

impl Inspector {
    /// The Subscriptions panel of `name` (no request).
    pub fn subscriptions(self: &Arc<Self>, name: &str) -> SubscriptionsView {
        change(self, name, false, |st| {
            st.prune();
            st.snapshot()
        })
    }

    /// Modern: listen for `filter` from now on. The current stream (if any) is cancelled and a
    /// new one opened with it (a re-listen); an empty filter only ends the stream.
    pub async fn set_subscription_filter(
        self: &Arc<Self>,
        name: &str,
        filter: Filter,
    ) -> Result<SubscriptionsView> {
        if filter.resource_subscriptions.len() > MAX_WATCHED {
            return Err(Error::usage(format!(
                "a filter watches at most {MAX_WATCHED} URIs; this one has {}",
                filter.resource_subscriptions.len()
            )));
        }
        stream::relisten(self, name, Some(filter)).await
    }

    /// Modern: open a stream again with the desired filter (after the server closed it).
    pub async fn listen_again(self: &Arc<Self>, name: &str) -> Result<SubscriptionsView> {
        stream::relisten(self, name, None).await
    }

    /// Modern: end the current stream as a local abort (`notifications/cancelled` on stdio,
    /// the stream closed on HTTP).
    pub fn cancel_subscription_stream(self: &Arc<Self>, name: &str) -> Result<SubscriptionsView> {
        stream::cancel(self, name, "Cancel stream (the user)")?;
        Ok(self.subscriptions(name))
    }

    /// Legacy: `resources/subscribe {uri}` with a history entry; the panel with the answer.
    pub async fn subscribe_resource(self: &Arc<Self>, name: &str, uri: &str) -> Result<Value> {
        legacy::subscribe(self, name, uri, true).await
    }

    /// Legacy: `resources/unsubscribe {uri}`.
    pub async fn unsubscribe_resource(self: &Arc<Self>, name: &str, uri: &str) -> Result<Value> {
        legacy::subscribe(self, name, uri, false).await
    }

    /// The page has re-read `uri`: it is no longer shown as updated.
    pub fn subscription_seen(self: &Arc<Self>, name: &str, uri: &str) -> SubscriptionsView {
        change(self, name, true, |st| {
            if let Some(u) = st.uris.get_mut(uri) {
                u.updated = false;
            }
            st.prune();
            st.snapshot()
        })
    }
}

#[cfg(test)]
mod tests;
