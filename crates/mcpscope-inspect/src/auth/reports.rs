//! What a server's authorization flows report, and the two halves of a flow the core plugs into
//! `mcpscope-auth`: [`WebAuth`] (the provider in the transports' hook, publishing how each flow
//! ended) and [`WebLogin`] (the login that waits for a person's browser). They hold only the
//! server's [`AuthReports`] — never its slot or the inspector — so ownership runs one way:
//! inspector → slot → provider → reports.

use crate::catalog::CatalogEntry;
use crate::events::{Event, EventBus};
use crate::queue::{Item, Queue, Seen};
use mcpscope_auth::{
    AuthSummary, BoxFuture, CallbackReceived, ExternalLogin, GrantDescription, LoginRequest,
    OAuthProvider,
};
use mcpscope_proto::Frame;
use mcpscope_store::{LazySecretStore, StoreInfo};
use mcpscope_transport::{AuthChallenge, AuthProvider, FrameSink};
use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::oneshot;
use ts_rs::TS;

/// A login waiting for its callback, as the page sees it.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) id: String,
    url: String,
    issuer: Option<String>,
    scopes: Vec<String>,
    step_up: bool,
    started_at: String,
}

/// What a slot holds of its server's authorization: the provider, and the settings it was made
/// from (a changed entry gets a new one).
#[derive(Default)]
pub(crate) struct AuthState {
    pub(crate) provider: Option<(String, Arc<WebAuth>)>,
}

/// Logins waiting for their callback, by `state`.
pub(crate) type Logins = std::sync::Mutex<
    std::collections::HashMap<String, (String, oneshot::Sender<CallbackReceived>)>,
>;

/// A server's authorization as its flows report it, and where to tell the views. The flows keep
/// it current; a view is built from it (and the provider, read live, where the slot is at hand).
pub(crate) struct AuthReports {
    server: String,
    status: Mutex<AuthStatus>,
    events: Arc<EventBus>,
    secrets: Arc<LazySecretStore>,
    callback_url: String,
    logins: Arc<Logins>,
}

/// The part of [`AuthReports`] that changes.
#[derive(Default)]
pub(crate) struct AuthStatus {
    pub(crate) pending: Option<Pending>,
    /// Why the last authorization failed (cleared by a success).
    pub(crate) error: Option<String>,
    /// The provider's state when it last reported (for views built without it: a login's).
    pub(crate) summary: Option<AuthSummary>,
    pub(crate) authorizing: bool,
    pub(crate) has_provider: bool,
}

impl AuthReports {
    /// The reports of server `server`: views are told on `events`, with the secret store in
    /// use and the redirect URI logins use; a login waits in `logins`.
    pub(crate) fn new(
        server: &str,
        events: Arc<EventBus>,
        secrets: Arc<LazySecretStore>,
        callback_url: String,
        logins: Arc<Logins>,
    ) -> AuthReports {
        AuthReports {
            server: server.to_string(),
            status: Mutex::default(),
            events,
            secrets,
            callback_url,
            logins,
        }
    }

    pub(crate) fn status(&self) -> MutexGuard<'_, AuthStatus> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Publish an `auth` event, reading `provider` live when given.
    fn publish(&self, provider: Option<&WebAuth>) {
        self.events
            .publish(Event::Auth(Box::new(view(self, provider, None))));
    }
}

/// True when OAuth applies to `entry`: an HTTP or SSE server whose entry does not bring its own
/// `Authorization` header.
pub(crate) fn applies(entry: &CatalogEntry) -> bool {
    entry.transport() != "stdio"
        && !entry
            .headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("authorization"))
}

/// `AuthView` (docs/web-api.md): what a server's authorization looks like to a view.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AuthView {
    /// The server.
    pub server: String,
    /// OAuth applies (HTTP/SSE without its own `Authorization` header).
    pub applies: bool,
    /// `none`, `authorizing`, `authorized` or `failed`.
    #[ts(type = "AuthState")]
    pub state: &'static str,
    /// A login waiting for a person.
    pub pending: Option<AuthPending>,
    /// What the flow established (never the token itself).
    pub summary: Option<AuthSummary>,
    /// Why the last authorization failed.
    pub error: Option<String>,
    /// Where tokens are kept.
    pub secret_store: SecretStoreView,
    /// The redirect URI logins use.
    pub callback_url: String,
    /// `GET …/auth` and forgetting only: the grant the secret store holds (null: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stored: Option<Option<AuthStored>>,
}

/// A stored grant, described without its tokens: what a connection to the server will start
/// with.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AuthStored {
    /// Scope, expiry, refresh, client.
    #[serde(flatten)]
    pub grant: GrantDescription,
    /// The authorization server.
    pub issuer: String,
    /// The credentials profile.
    pub profile: String,
}

/// `GET /api/servers/:name/auth/token`: the access token a connection sends (for the web UI's
/// Copy and JWT decoder).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AuthToken {
    /// The token.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: String,
    /// When it expires (Unix seconds), if the server said.
    pub expires_at: Option<u64>,
}

/// Where tokens are kept — which store, where, why — or why it cannot be opened.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(untagged)]
pub enum SecretStoreView {
    /// The store in use.
    Open(StoreInfo),
    /// It could not be opened, or is not opened yet.
    Unavailable {
        /// Why.
        error: String,
    },
}

/// A login waiting for a person: the view opens `url` in a new tab.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AuthPending {
    /// Its id.
    pub id: String,
    /// The authorization URL.
    pub url: String,
    /// The authorization server.
    pub issuer: Option<String>,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// `login` or `step-up`.
    #[ts(type = "'login' | 'step-up'")]
    pub reason: &'static str,
    /// When it started (RFC 3339).
    pub started_at: String,
}

impl AuthView {
    /// As a JSON value (what the REST answers carry).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The `AuthView` the reports give, with `provider`'s grant and progress read live when given
/// (else as it last reported them).
pub(crate) fn view(
    reports: &AuthReports,
    provider: Option<&WebAuth>,
    entry: Option<&CatalogEntry>,
) -> AuthView {
    let st = reports.status();
    let (summary, authorizing) = match provider {
        Some(p) => (p.provider.summary(), p.provider.authorizing()),
        None => (st.summary.clone(), st.authorizing),
    };
    let state = if st.pending.is_some() || authorizing {
        "authorizing"
    } else if st.error.is_some() {
        "failed"
    } else if summary.is_some() {
        "authorized"
    } else {
        "none"
    };
    let pending = st.pending.as_ref().map(|p| AuthPending {
        id: p.id.clone(),
        url: p.url.clone(),
        issuer: p.issuer.clone(),
        scopes: p.scopes.clone(),
        reason: if p.step_up { "step-up" } else { "login" },
        started_at: p.started_at.clone(),
    });
    // Never opened here: views are built on async threads and in event publishing, and opening
    // may probe the keyring or ask for a passphrase (`get_view` opens it off the async threads).
    let secret_store = match reports.secrets.peek() {
        Some(Ok(s)) => SecretStoreView::Open(s.info().clone()),
        Some(Err(e)) => SecretStoreView::Unavailable {
            error: e.to_string(),
        },
        None => SecretStoreView::Unavailable {
            error: "not opened yet: it opens when a server needs it".into(),
        },
    };
    AuthView {
        server: reports.server.clone(),
        applies: entry.map(applies).unwrap_or(st.has_provider),
        state,
        pending,
        summary,
        error: st.error.clone(),
        secret_store,
        callback_url: reports.callback_url.clone(),
        stored: None,
    }
}

/// The provider in the transports' hook, publishing how each flow ended.
pub(crate) struct WebAuth {
    pub(crate) provider: OAuthProvider,
    pub(crate) reports: Arc<AuthReports>,
    /// Exchange numbers for flows the page starts (Re-authorize): far above the transports'.
    pub(crate) exchanges: AtomicU64,
}

impl WebAuth {
    /// Record the end of a flow — the grant, whether a flow still runs, the failure — and tell
    /// the views.
    pub(crate) fn ended(&self, result: &Result<(), String>) {
        let mut st = self.reports.status();
        st.summary = self.provider.summary();
        st.authorizing = self.provider.authorizing();
        st.error = result.as_ref().err().cloned();
        drop(st);
        self.reports.publish(Some(self));
    }

    /// Note that a flow is about to run. Before it, not from the provider (which counts itself
    /// as authorizing only once inside the flow), so a login's views — built without the
    /// provider — say a flow is under way from its first step to its last, with the grant it
    /// started from.
    pub(crate) fn flow_starts(&self) {
        let mut st = self.reports.status();
        st.summary = self.provider.summary();
        st.authorizing = true;
    }
}

impl AuthProvider for WebAuth {
    fn authorization<'a>(&'a self, sink: &'a dyn FrameSink) -> BoxFuture<'a, Option<String>> {
        self.provider.authorization(sink)
    }

    fn on_challenge<'a>(
        &'a self,
        challenge: AuthChallenge,
        sink: &'a dyn FrameSink,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.flow_starts();
            let r = self.provider.on_challenge(challenge, sink).await;
            self.ended(&r);
            r
        })
    }

    fn on_success(&self, sent_authorization: &str) {
        self.provider.on_success(sent_authorization)
    }

    fn authorizing(&self) -> bool {
        self.provider.authorizing()
    }
}

/// Where a flow the page starts records its frames: the connection's processor, as if the
/// transport had sent them.
pub(crate) struct QueueSink<'a> {
    pub(crate) queue: Queue,
    pub(crate) exchanges: &'a AtomicU64,
}

impl FrameSink for QueueSink<'_> {
    fn next_exchange(&self) -> u64 {
        self.exchanges.fetch_add(1, Ordering::SeqCst)
    }

    fn frame(&self, frame: Frame) {
        self.queue.send(Item::Frame {
            frame,
            seen: Seen::default(),
        });
    }
}

/// Where OAuth frames go when the server is not connected: nowhere (the outcome is reported
/// instead), with exchange numbers still taken so later ones do not repeat them.
pub(crate) struct Unrecorded<'a>(pub(crate) &'a AtomicU64);

impl FrameSink for Unrecorded<'_> {
    fn next_exchange(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }

    fn frame(&self, _frame: Frame) {}
}

/// The login half that needs a person: publish the URL, wait for the callback.
pub(crate) struct WebLogin {
    pub(crate) reports: Arc<AuthReports>,
}

/// Clears a login's traces however its wait ends (callback, cancel, timeout, shutdown).
struct LoginGuard {
    reports: Arc<AuthReports>,
    state: String,
}

impl Drop for LoginGuard {
    fn drop(&mut self) {
        self.reports
            .logins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.state);
        let mut st = self.reports.status();
        if st.pending.as_ref().is_some_and(|p| p.id == self.state) {
            st.pending = None;
        }
        drop(st);
        self.reports.publish(None);
    }
}

impl ExternalLogin for WebLogin {
    fn login(&self, request: LoginRequest) -> BoxFuture<'static, Result<CallbackReceived, String>> {
        let reports = self.reports.clone();
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            reports
                .logins
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(request.state.clone(), (reports.server.clone(), tx));
            {
                let mut st = reports.status();
                st.error = None;
                st.pending = Some(Pending {
                    id: request.state.clone(),
                    url: request.url.clone(),
                    issuer: request.issuer.clone(),
                    scopes: request.scopes.clone(),
                    step_up: request.step_up,
                    started_at: crate::time::rfc3339(mcpscope_proto::now_us()),
                });
            }
            let guard = LoginGuard {
                reports,
                state: request.state,
            };
            guard.reports.publish(None);
            let r = rx.await;
            drop(guard);
            r.map_err(|_| "the login was cancelled in the web UI".to_string())
        })
    }
}

/// The secret store of the web UI: `config`, else the one the environment names (as for the
/// CLI); when the environment names an invalid one, tokens stay in memory and the reason says why.
pub(crate) fn secret_store(
    config: Option<mcpscope_store::SecretStoreConfig>,
) -> Arc<LazySecretStore> {
    match config.map_or_else(mcpscope_store::SecretStoreConfig::from_env, Ok) {
        Ok(cfg) => Arc::new(LazySecretStore::new(cfg)),
        Err(e) => Arc::new(LazySecretStore::opened(Arc::new(
            mcpscope_store::MemoryStore::new(format!(
                "the secret store setting is invalid ({e}); tokens are kept in memory only"
            )),
        ))),
    }
}
