//! OAuth for the views: one `mcpscope-auth` provider per server slot, and a login that runs in a
//! browser the view opens.
//!
//! When the flow needs a person, [`WebLogin`] registers the login under its `state`, sets the
//! slot's `pending` login and publishes an `auth` event carrying the authorization URL; the view
//! opens it, and the authorization server sends that tab to the callback URL (the web backend's
//! `GET /oauth/callback`), whose query the view hands to [`Inspector::deliver_callback`] — taken
//! only when its `state` is one we are waiting for. The provider is wrapped in [`WebAuth`] so
//! that the end of every flow (authorized, refused, cancelled) is published too. Providers
//! outlive connections: tokens stay in memory across a reconnect and in the secret store across
//! restarts (shared with the CLI: same keys).
//!
//! Ownership runs one way (`reports.rs`): a slot holds its `AuthState` (the provider) and its
//! [`AuthReports`]; the provider ([`WebAuth`]) and the login ([`WebLogin`]) hold only the
//! reports — the pending login, the last failure, what the flow established, and where to tell
//! the views — never the slot or the inspector.

pub(crate) mod reports;

pub use reports::{AuthPending, AuthStored, AuthToken, AuthView, SecretStoreView};
use reports::{QueueSink, Unrecorded, WebAuth, WebLogin, applies, view};

use crate::catalog::CatalogEntry;
use crate::error::{Error, Result};
use crate::events::{Event, WarningEvent};
use crate::state::{Inspector, Slot};
use mcpscope_auth::{AuthConfig, CallbackReceived, CredentialStore, LoginMode, OAuthProvider};
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_transport::Target;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// How long a person has to sign in before the login is abandoned.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest any single OAuth HTTP request may take.
const OAUTH_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// The settings a provider is made from; a provider is re-used while they stay the same.
fn fingerprint(entry: &CatalogEntry) -> String {
    json!({"url": entry.url, "oauth": entry.oauth}).to_string()
}

/// The credentials profile of `entry` (`oauth.profile`, else `default`).
fn profile_of(entry: &CatalogEntry) -> String {
    entry
        .oauth
        .as_ref()
        .and_then(|o| o.profile.clone())
        .unwrap_or_else(|| "default".into())
}

/// The provider for `slot`'s server (made, or re-used while the entry's URL and OAuth settings
/// stay the same), or `None` when OAuth does not apply.
pub(crate) fn provider_for(
    app: &Arc<Inspector>,
    slot: &Arc<Slot>,
    entry: &CatalogEntry,
    target: &Target,
) -> Result<Option<Arc<WebAuth>>> {
    let url = match target {
        Target::Http { url, .. } | Target::Sse { url, .. } if applies(entry) => url.clone(),
        _ => return Ok(None),
    };
    let key = fingerprint(entry);
    let mut st = slot.auth();
    if let Some((k, p)) = &st.provider
        && *k == key
    {
        return Ok(Some(p.clone()));
    }
    let oauth = entry.oauth.clone().unwrap_or_default();
    let mut cfg = AuthConfig::new(&url);
    cfg.profile = profile_of(entry);
    cfg.client_id = oauth.client_id;
    cfg.client_metadata_url = oauth.client_metadata_url;
    cfg.scope = oauth.scope;
    cfg.callback_url = app.callback_url.clone();
    cfg.use_stored_first = true;
    cfg.http_timeout = OAUTH_HTTP_TIMEOUT;
    cfg.login_timeout = LOGIN_TIMEOUT;
    cfg.login = LoginMode::External(Arc::new(WebLogin {
        reports: slot.auth_reports.clone(),
    }));
    // Every step is a frame in the Traffic screen; nothing goes to the terminal.
    cfg.notify = Arc::new(|_| {});
    let provider = OAuthProvider::new(cfg, app.secrets.clone()).map_err(Error::usage)?;
    let web = Arc::new(WebAuth {
        provider,
        reports: slot.auth_reports.clone(),
        exchanges: AtomicU64::new(1 << 32),
    });
    st.provider = Some((key, web.clone()));
    let mut status = slot.auth_reports.status();
    status.error = None;
    status.has_provider = true;
    drop(status);
    Ok(Some(web))
}

/// The provider of `slot`, when one was made.
fn provider_of(slot: &Slot) -> Option<Arc<WebAuth>> {
    slot.auth().provider.as_ref().map(|(_, p)| p.clone())
}

/// The `AuthView` of `slot`, its provider read live.
pub(crate) fn view_of(slot: &Slot, entry: Option<&CatalogEntry>) -> AuthView {
    view(&slot.auth_reports, provider_of(slot).as_deref(), entry)
}

// ----- what a view asks -----

/// `GET /api/servers/:name/auth`.
async fn get_view(app: &Arc<Inspector>, name: &str) -> Result<Value> {
    let entry = entry(app, name).await?;
    let slot = app.slot(name).await?;
    // Open the store (keyring probe, file read, maybe a passphrase prompt) off the async threads,
    // so the view can say which one is in use.
    let secrets = app.secrets.clone();
    let _ = tokio::task::spawn_blocking(move || secrets.get().map(|_| ())).await;
    let mut v = view_of(&slot, Some(&entry));
    // Always said while nothing is loaded (null: nothing stored), so a page that showed a
    // grant which has since gone (refresh refused, profile edited, --relogin) drops it.
    if v.summary.is_none() {
        v.stored = Some(stored_grant(app, &entry).await);
    }
    Ok(v.to_value())
}

/// What the secret store holds for `entry` (its URL and profile) before anything is loaded —
/// the grant a connection will start with — without the tokens themselves.
async fn stored_grant(app: &Inspector, entry: &CatalogEntry) -> Option<AuthStored> {
    if !applies(entry) {
        return None;
    }
    let (Target::Http { url, .. } | Target::Sse { url, .. }) = entry.connection(None).ok()?.0
    else {
        return None;
    };
    let profile = profile_of(entry);
    let creds = CredentialStore::new(app.secrets.clone(), &profile, &url);
    let (_, record) = creds.latest().await.ok()??;
    let t = record.tokens?;
    Some(AuthStored {
        grant: t.description(),
        issuer: t.issuer,
        profile,
    })
}

async fn entry(app: &Inspector, name: &str) -> Result<CatalogEntry> {
    app.catalog
        .lock()
        .await
        .get(name)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))
}

/// `GET /api/servers/:name/auth/token`.
async fn token(app: &Arc<Inspector>, name: &str) -> Result<Value> {
    let slot = app.slot(name).await?;
    let (token, kind, expires) = provider_of(&slot)
        .and_then(|p| p.provider.access_token())
        .ok_or_else(|| Error::not_found(format!("no access token for {name:?}")))?;
    Ok(serde_json::to_value(AuthToken {
        access_token: token,
        token_type: kind,
        expires_at: expires,
    })
    .unwrap_or_default())
}

/// `POST /api/servers/:name/auth`: log in again now, for the granted scopes plus `extra`.
async fn reauthorize(app: &Arc<Inspector>, name: &str, extra: Vec<String>) -> Result<Value> {
    let entry = entry(app, name).await?;
    let slot = app.slot(name).await?;
    let queue = slot.st().processor.clone();
    let (Some(queue), Some(web)) = (queue, provider_of(&slot)) else {
        return Err(Error::conflict(format!(
            "{name:?} is not connected over HTTP with OAuth; connect first"
        )));
    };
    if !web.provider.knows_authorization_server() {
        return Err(Error::conflict(format!(
            "{name:?} has not asked for authorization yet, so its authorization server is unknown"
        )));
    }
    let sink = QueueSink {
        queue,
        exchanges: &web.exchanges,
    };
    web.flow_starts();
    let r = web
        .provider
        .reauthorize(&extra, &sink)
        .await
        .map_err(String::from);
    web.ended(&r);
    match r {
        Ok(()) => Ok(view_of(&slot, Some(&entry)).to_value()),
        Err(m) => Err(Error::new(ErrorCode::AuthRequired, m)),
    }
}

/// `POST /api/servers/:name/auth/cancel`: the pending login fails.
async fn cancel(app: &Arc<Inspector>, name: &str) -> Result<Value> {
    let mut logins = app.logins.lock().unwrap_or_else(|p| p.into_inner());
    // Dropping the sender wakes the waiting flow with "cancelled".
    logins.retain(|_, (server, _)| server != name);
    Ok(json!({}))
}

/// `DELETE /api/servers/:name/auth`: forget the tokens (memory and secret store).
async fn forget(app: &Arc<Inspector>, name: &str) -> Result<Value> {
    let entry = entry(app, name).await?;
    let slot = app.slot(name).await?;
    let (target, _) = entry.connection(None)?;
    let Some(web) = provider_for(app, &slot, &entry, &target)? else {
        return Err(Error::usage(format!(
            "OAuth does not apply to {name:?} (stdio, or its entry sets its own Authorization header)"
        )));
    };
    // Connected: the revocation requests go into the Traffic screen's OAuth source like every
    // other step. Not connected there is no frame stream to put them in; what failed is still
    // said, in the answer and as a warning.
    let queue = slot.st().processor.clone();
    let failed = match queue {
        Some(queue) => {
            let sink = QueueSink {
                queue,
                exchanges: &web.exchanges,
            };
            web.provider.forget(&sink).await
        }
        None => web.provider.forget(&Unrecorded(&web.exchanges)).await,
    }
    .map_err(|e| Error::internal(format!("the tokens could not be forgotten: {e}")))?;
    for f in &failed {
        app.events.publish(Event::Warning(WarningEvent {
            server: name.to_string(),
            message: format!("Forget: {f}"),
            frame_seq: None,
        }));
    }
    slot.auth_reports.status().error = None;
    // `stored: null`: nothing is stored any more (the page keeps a stored grant it was shown
    // until a view says otherwise).
    let mut event = view_of(&slot, None);
    event.stored = Some(None);
    app.events.publish(Event::Auth(Box::new(event)));
    let mut v = view_of(&slot, Some(&entry));
    v.stored = Some(None);
    let mut v = v.to_value();
    v["revocationFailures"] = json!(failed);
    Ok(v)
}

/// What became of an authorization response handed to [`Inspector::deliver_callback`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The waiting login of this server has it.
    Delivered {
        /// The server whose login it was.
        server: String,
    },
    /// Its `state` is unknown or was already used: nothing was done with it.
    Unknown,
    /// The login stopped waiting (it timed out or was cancelled) just before it arrived.
    Gone,
}

impl Inspector {
    /// Hand an authorization response (the callback URL's raw query and the request's headers)
    /// to the login waiting for its `state`. Only a `state` we are waiting for is accepted;
    /// anything else is refused and changes nothing.
    pub fn deliver_callback(&self, query: &str, headers: Vec<(String, String)>) -> Delivery {
        let waiting = mcpscope_auth::callback_state(query).and_then(|s| {
            self.logins
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&s)
        });
        let Some((server, tx)) = waiting else {
            return Delivery::Unknown;
        };
        let url = format!("{}?{query}", self.callback_url);
        match tx.send(CallbackReceived { url, headers }) {
            Ok(()) => Delivery::Delivered { server },
            Err(_) => Delivery::Gone,
        }
    }
}

impl Inspector {
    /// The authorization of `name` (`AuthView` in `docs/web-api.md`), with the grant the secret
    /// store holds when nothing is loaded yet.
    pub async fn auth_view(self: &Arc<Self>, name: &str) -> Result<Value> {
        get_view(self, name).await
    }

    /// The access token `name`'s connection sends (`{accessToken, tokenType, expiresAt}`).
    pub async fn auth_token(self: &Arc<Self>, name: &str) -> Result<Value> {
        token(self, name).await
    }

    /// Log in again now, for the granted scopes plus `extra` (each entry one scope or several
    /// separated by spaces, as a `scope` parameter is written); the flow's frames go into the
    /// connection's traffic.
    pub async fn reauthorize(self: &Arc<Self>, name: &str, extra: Vec<String>) -> Result<Value> {
        let extra = extra
            .iter()
            .flat_map(|s| s.split_whitespace())
            .map(str::to_string)
            .collect();
        reauthorize(self, name, extra).await
    }

    /// Fail the pending login of `name` ("cancelled").
    pub async fn cancel_login(self: &Arc<Self>, name: &str) -> Result<Value> {
        cancel(self, name).await
    }

    /// Forget `name`'s tokens (memory and secret store), revoking them where the server can.
    pub async fn forget_auth(self: &Arc<Self>, name: &str) -> Result<Value> {
        forget(self, name).await
    }
}
