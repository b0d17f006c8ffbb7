//! [`OAuthProvider`]: the OAuth flow behind the transports' [`AuthProvider`] hook.
//!
//! On a `401`: discovery (every time — the protected resource may have moved to another
//! authorization server), then the cheapest way to a valid token: one stored for this issuer, a
//! refresh, and only then a login (registration as needed, PKCE, the authorization request, the
//! `iss` check, the token request). On a `403 insufficient_scope`: a new login for the union of
//! the scopes requested so far and the challenged ones, at most `max_step_ups` times in a row —
//! the count starts over after a request succeeds. Flows are serialized: requests refused while
//! one runs reuse its result.

use crate::authorize::{
    self, AuthorizationRequest, Callback, LoginMode, LoginRequest, LoopbackOptions,
};
use crate::challenge::{self, BearerChallenge, split_scopes};
use crate::client::{self, ClientConfig};
use crate::credentials::{ClientRegistration, ClientSource, CredentialStore, Record, Tokens};
use crate::discovery::{self, AuthServer, ProtectedResource};
use crate::error::AuthError;
use crate::recorder::Recorder;
use crate::revoke;
use crate::summary::{AuthSummary, ClientSummary};
use crate::token::{self, Grant};
use mcpscope_store::LazySecretStore;
use mcpscope_transport::auth::BoxFuture;
use mcpscope_transport::{AuthChallenge, AuthProvider, FrameSink, HttpClients};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Everything the flow is told by its user (the CLI's flags).
#[derive(Clone)]
pub struct AuthConfig {
    /// The MCP server URL as given.
    pub server_url: String,
    /// Credentials profile: two profiles keep separate tokens for one server.
    pub profile: String,
    /// `--client-id`.
    pub client_id: Option<String>,
    /// `--client-secret`.
    pub client_secret: Option<String>,
    /// `--client-metadata-url`.
    pub client_metadata_url: Option<String>,
    /// Scopes to request in place of the challenge's or the metadata's (space-separated), as a
    /// catalog entry's `oauth.scope` says. A step-up still adds the challenged ones.
    pub scope: Option<String>,
    /// `--callback-url` (checked with [`authorize::validate_callback_url`]).
    pub callback_url: String,
    /// How a login happens.
    pub login: LoginMode,
    /// Send stored tokens from the first request (`--use-stored-auth`, `--stored-auth-only`).
    pub use_stored_first: bool,
    /// Forget stored tokens for this server and profile first (`--relogin`).
    pub relogin: bool,
    /// Revoke tokens (RFC 7009) when they are forgotten (`--relogin`, Forget); `--no-revoke`
    /// turns it off.
    pub revoke: bool,
    /// `client_name` for dynamic registration.
    pub client_name: String,
    /// Timeout of each OAuth HTTP request.
    pub http_timeout: Duration,
    /// How long a browser login may take.
    pub login_timeout: Duration,
    /// Step-up authorizations in a row before giving up.
    pub max_step_ups: usize,
    /// Messages for the person at the terminal (the URL to open).
    pub notify: Arc<dyn Fn(&str) + Send + Sync>,
}

impl AuthConfig {
    /// Defaults: profile `default`, browser login on the official callback URL, 30 s per HTTP
    /// request, 5 minutes for a login, 2 step-ups in a row; messages go to stderr, cleaned of
    /// escape sequences.
    pub fn new(server_url: &str) -> AuthConfig {
        AuthConfig {
            server_url: server_url.to_string(),
            profile: "default".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            scope: None,
            callback_url: DEFAULT_CALLBACK_URL.into(),
            login: LoginMode::Browser,
            use_stored_first: false,
            relogin: false,
            revoke: true,
            client_name: "mcpscope".into(),
            http_timeout: Duration::from_secs(30),
            login_timeout: Duration::from_secs(300),
            max_step_ups: 2,
            // A message may carry server text (an authorization URL): shown, never obeyed.
            notify: Arc::new(|m| eprintln!("{}", mcpscope_proto::terminal::clean(m, usize::MAX))),
        }
    }
}

/// The official Inspector's CLI callback, so registrations made for it work for us too.
pub const DEFAULT_CALLBACK_URL: &str = "http://127.0.0.1:6276/oauth/callback";

#[derive(Default)]
struct State {
    tokens: Option<Tokens>,
    /// Consecutive step-ups without a success in between.
    step_ups: usize,
    /// The current token came from a login and no request has succeeded with it yet.
    fresh: bool,
    /// `401`s of fresh tokens in a row.
    fresh_rejections: usize,
    server: Option<AuthServer>,
    prm: Option<ProtectedResource>,
    client: Option<ClientRegistration>,
}

/// OAuth 2.1 for one MCP server, as an [`AuthProvider`] for the HTTP transports.
pub struct OAuthProvider {
    cfg: AuthConfig,
    client_cfg: ClientConfig,
    /// Built per scheme on first use: an `http://` MCP server that never challenges reads no
    /// TLS roots, and an https authorization server shares the transports' TLS client.
    http: HttpClients,
    creds: CredentialStore,
    state: Mutex<State>,
    flow: tokio::sync::Mutex<()>,
    prepared: tokio::sync::OnceCell<()>,
    /// Challenges being handled (waiting for the flow lock or running a flow).
    authorizing: AtomicUsize,
}

impl OAuthProvider {
    /// A provider for `cfg.server_url`, keeping credentials in `store`.
    pub fn new(cfg: AuthConfig, store: Arc<LazySecretStore>) -> Result<OAuthProvider, AuthError> {
        authorize::validate_callback_url(&cfg.callback_url)?;
        // Never silently: the clients follow no redirects; they are followed (or refused) by
        // hand, each hop recorded.
        let http = HttpClients::new(Some(cfg.http_timeout));
        Ok(OAuthProvider {
            client_cfg: ClientConfig {
                client_id: cfg.client_id.clone(),
                client_secret: cfg.client_secret.clone(),
                client_metadata_url: cfg.client_metadata_url.clone(),
                client_name: cfg.client_name.clone(),
                redirect_uri: cfg.callback_url.clone(),
            },
            creds: CredentialStore::new(store, &cfg.profile, &cfg.server_url),
            cfg,
            http,
            state: Mutex::new(State::default()),
            flow: tokio::sync::Mutex::new(()),
            prepared: tokio::sync::OnceCell::new(),
            authorizing: AtomicUsize::new(0),
        })
    }

    fn st(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("oauth state lock")
    }

    fn recorder<'a>(&'a self, sink: &'a dyn FrameSink) -> Recorder<'a> {
        Recorder {
            client: &self.http,
            sink,
            timeout: self.cfg.http_timeout,
        }
    }

    /// What the flow established, for `--method initialize` and Server Info: the authorization
    /// server, the client, the granted scopes and the token's expiry (not the token itself).
    pub fn summary(&self) -> Option<AuthSummary> {
        let st = self.st();
        let t = st.tokens.as_ref()?;
        Some(AuthSummary {
            issuer: t.issuer.clone(),
            authorization_server_metadata: st.server.as_ref().and_then(|s| s.metadata_url.clone()),
            protected_resource_metadata: st.prm.as_ref().map(|p| p.metadata_url.clone()),
            resource: t.resource.clone(),
            client: st.client.as_ref().map(|c| ClientSummary {
                client_id: c.client_id.clone(),
                registration: c.source.label(),
                token_endpoint_auth_method: c.token_endpoint_auth_method.clone(),
            }),
            scope: t.scope.clone(),
            requested_scope: t.requested_scope.clone(),
            token_type: t.token_type.clone(),
            expires_at: t.expires_at,
            refresh_token: t.refresh_token.is_some(),
            profile: self.cfg.profile.clone(),
        })
    }

    /// The access token in use (for the web UI's Copy and JWT decoder): the token, its type and
    /// its expiry (Unix seconds).
    pub fn access_token(&self) -> Option<(String, String, Option<u64>)> {
        let st = self.st();
        let t = st.tokens.as_ref()?;
        Some((t.access_token.clone(), t.token_type.clone(), t.expires_at))
    }

    /// True once a flow has found the authorization server (a re-authorization needs it).
    pub fn knows_authorization_server(&self) -> bool {
        self.st().server.is_some()
    }

    /// Log in again now — the web UI's Re-authorize — for the scopes of the current grant plus
    /// `extra`, without waiting for the server to refuse a request. The step-up counter is not
    /// touched: a person asked for this.
    pub async fn reauthorize(
        &self,
        extra: &[String],
        sink: &dyn FrameSink,
    ) -> Result<(), AuthError> {
        self.authorizing.fetch_add(1, Ordering::SeqCst);
        let _busy = Busy(&self.authorizing);
        let _one_at_a_time = self.flow.lock().await;
        let rec = self.recorder(sink);
        let (server, prm, previous) = {
            let st = self.st();
            let previous = st
                .tokens
                .as_ref()
                .and_then(|t| t.requested_scope.clone().or_else(|| t.scope.clone()));
            (st.server.clone(), st.prm.clone(), previous)
        };
        let Some(server) = server else {
            return Err(AuthError::Challenge(
                "nothing is known yet about this server's authorization server: connect first"
                    .into(),
            ));
        };
        if matches!(self.cfg.login, LoginMode::Never) {
            return Err(AuthError::LoginForbidden(
                "--stored-auth-only forbids a login".into(),
            ));
        }
        let mut scopes = split_scopes(previous.as_deref());
        if scopes.is_empty() {
            scopes = discovery::select_scopes(None, prm.as_ref());
        }
        for s in extra {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        let scopes = self.with_offline_access(scopes, &server);
        rec.step(format!(
            "re-authorization asked for in the web UI: scope {}",
            if scopes.is_empty() {
                "(omitted: none known)".to_string()
            } else {
                scopes.join(" ")
            }
        ));
        let record = self.creds.load(&server.key).await.unwrap_or_default();
        let record = Record {
            tokens: None,
            ..record
        };
        let resource = prm.as_ref().map(|p| p.resource.clone());
        let bearer = BearerChallenge::default();
        let ctx = Ctx {
            rec: &rec,
            server: &server,
            prm: prm.as_ref(),
            resource: resource.as_deref(),
            bearer: &bearer,
            step_up: false,
        };
        self.authorize(&ctx, record, scopes).await
    }

    /// Forget the tokens — in memory and in the secret store — for this server and profile,
    /// revoking them first (RFC 7009) unless `--no-revoke`; the client registration stays. The
    /// next request that is refused logs in again. Returns what could not be revoked.
    pub async fn forget(&self, sink: &dyn FrameSink) -> Result<Vec<String>, AuthError> {
        let _one_at_a_time = self.flow.lock().await;
        let rec = self.recorder(sink);
        let in_memory = {
            let mut st = self.st();
            let t = st.tokens.take();
            st.fresh = false;
            st.step_ups = 0;
            t
        };
        let issuer = match &in_memory {
            Some(t) => Some(t.issuer.clone()),
            None => self.creds.last_issuer().await?,
        };
        let mut record = match &issuer {
            Some(i) => self.creds.load(i).await?,
            None => Record::default(),
        };
        let stored = record.tokens.take();
        let mut failed = Vec::new();
        if self.cfg.revoke {
            // The stored grant and the one in memory differ after a refresh nobody saved.
            let mut seen = Vec::new();
            for t in in_memory.iter().chain(stored.iter()) {
                if !seen.contains(&&t.access_token) {
                    seen.push(&t.access_token);
                    let secret = self.secret_for(t, &record);
                    failed.extend(revoke::revoke(&rec, t, secret.as_deref()).await);
                }
            }
        }
        if let (Some(issuer), Some(_)) = (&issuer, &stored) {
            self.creds.save(issuer, &record).await?;
        }
        rec.step(format!(
            "forgot the tokens for {} (profile {:?})",
            self.cfg.server_url, self.cfg.profile
        ));
        Ok(failed)
    }

    /// The client secret a revocation of `tokens` authenticates with: the dynamic
    /// registration's, the current client's, or `--client-secret` for that client id.
    fn secret_for(&self, tokens: &Tokens, record: &Record) -> Option<String> {
        let id = tokens.client_id.as_deref()?;
        if let Some(c) = record.client.as_ref().filter(|c| c.client_id == id) {
            return c.client_secret.clone();
        }
        if let Some(c) = self.st().client.as_ref().filter(|c| c.client_id == id) {
            return c.client_secret.clone();
        }
        if self.cfg.client_id.as_deref() == Some(id) {
            return self.cfg.client_secret.clone();
        }
        None
    }

    /// Once per provider: `--relogin` forgets stored tokens; `--use-stored-auth` loads them.
    async fn prepare(&self, rec: &Recorder<'_>) {
        if !self.cfg.relogin && !self.cfg.use_stored_first {
            return;
        }
        let issuer = match self.creds.last_issuer().await {
            Ok(Some(i)) => i,
            Ok(None) => {
                if self.cfg.use_stored_first {
                    rec.step(format!(
                        "no stored tokens for {} (profile {:?})",
                        self.cfg.server_url, self.cfg.profile
                    ));
                }
                return;
            }
            Err(e) => {
                rec.step(format!("the secret store could not be read: {e}"));
                (self.cfg.notify)(&format!("warning: the secret store could not be read: {e}"));
                return;
            }
        };
        let mut record = match self.creds.load(&issuer).await {
            Ok(r) => r,
            Err(e) => {
                rec.step(format!("the stored credentials could not be read: {e}"));
                return;
            }
        };
        if self.cfg.relogin {
            if let Some(t) = record.tokens.take() {
                if self.cfg.revoke {
                    // Talking to the authorization server before the first request: the
                    // session's probe and connect timeouts must not count it against the server.
                    self.authorizing.fetch_add(1, Ordering::SeqCst);
                    let _busy = Busy(&self.authorizing);
                    let secret = self.secret_for(&t, &record);
                    for f in revoke::revoke(rec, &t, secret.as_deref()).await {
                        (self.cfg.notify)(&format!("warning: --relogin: {f}"));
                    }
                }
                let r = self.creds.save(&issuer, &record).await;
                rec.step(format!(
                    "--relogin: forgot the stored tokens from {issuer}{}",
                    r.err()
                        .map(|e| format!(" (could not save: {e})"))
                        .unwrap_or_default()
                ));
            }
            return;
        }
        if let Some(t) = record.tokens {
            rec.step(format!(
                "using stored tokens from {} (scope {}, {})",
                t.issuer,
                t.scope.as_deref().unwrap_or("not stated"),
                expiry(&t)
            ));
            self.st().tokens = Some(t);
        }
    }

    /// Save a grant (and a dynamic registration) for the authorization server `key`. Failing to
    /// save does not fail the connection: it is said, and the tokens still work for this run.
    async fn persist(
        &self,
        rec: &Recorder<'_>,
        key: &str,
        tokens: &Tokens,
        client: &ClientRegistration,
    ) {
        let result = async {
            let mut record = self.creds.load(key).await.unwrap_or_default();
            record.tokens = Some(tokens.clone());
            if client.source == ClientSource::DynamicRegistration {
                record.client = Some(client.clone());
            }
            self.creds.save(key, &record).await?;
            self.creds.set_last_issuer(key).await
        }
        .await;
        if let Err(e) = result {
            rec.step(format!("the tokens could not be saved: {e}"));
            (self.cfg.notify)(&format!(
                "warning: the tokens could not be saved ({e}); they work for this run only"
            ));
        }
    }

    async fn update_record(&self, rec: &Recorder<'_>, key: &str, change: impl FnOnce(&mut Record)) {
        let mut record = self.creds.load(key).await.unwrap_or_default();
        change(&mut record);
        if let Err(e) = self.creds.save(key, &record).await {
            rec.step(format!("the stored credentials could not be updated: {e}"));
        }
    }

    fn adopt(&self, tokens: Tokens, server: &AuthServer, client: &ClientRegistration, fresh: bool) {
        let mut st = self.st();
        st.tokens = Some(tokens);
        st.fresh = fresh;
        st.server = Some(server.clone());
        st.client = Some(client.clone());
    }

    /// Answer a `401` (login) or a `403 insufficient_scope` (step-up): one flow at a time,
    /// discovery first, then the stored credentials of the authorization server it names.
    async fn challenge(&self, ch: AuthChallenge, sink: &dyn FrameSink) -> Result<(), AuthError> {
        self.authorizing.fetch_add(1, Ordering::SeqCst);
        let _busy = Busy(&self.authorizing);
        let _one_at_a_time = self.flow.lock().await;
        let rec = self.recorder(sink);
        if self.renewed_meanwhile(&ch) {
            rec.step("another request already obtained new credentials; sending this one again with them");
            return Ok(());
        }
        let bearer = ch
            .www_authenticate
            .as_deref()
            .and_then(challenge::bearer)
            .unwrap_or_default();
        rec.step(describe_challenge(&ch, &bearer));
        let step_up = ch.status == 403;
        if step_up && bearer.error.as_deref() != Some("insufficient_scope") {
            return Err(no_scope_to_add(&bearer));
        }
        let (prm, server) = self.discover(&rec, &bearer).await?;
        // Without PRM (2025-03-26) there is no resource identifier to send: that revision
        // predates resource indicators, and servers of its time may refuse the parameter.
        let resource = prm.as_ref().map(|p| p.resource.clone());
        let record = self.stored_record(&rec, &server.key).await?;
        let ctx = Ctx {
            rec: &rec,
            server: &server,
            prm: prm.as_ref(),
            resource: resource.as_deref(),
            bearer: &bearer,
            step_up,
        };
        if step_up {
            self.step_up(&ctx, record).await
        } else {
            self.login(&ctx, record, ch.sent_authorization.as_deref())
                .await
        }
    }

    /// Whether the tokens in use are newer than those the refused request carried: another
    /// request's flow renewed them meanwhile. (An expired token is not sent, so it cannot be
    /// "newer" than what the refused request carried.)
    fn renewed_meanwhile(&self, ch: &AuthChallenge) -> bool {
        let current = self
            .st()
            .tokens
            .as_ref()
            .filter(|t| !t.expired())
            .map(Tokens::header);
        current.is_some() && current != ch.sent_authorization
    }

    /// Protected resource metadata (when the server has it) and the authorization server it
    /// names (else the legacy one at the server's origin), which must support PKCE; both kept in
    /// the state.
    async fn discover(
        &self,
        rec: &Recorder<'_>,
        bearer: &BearerChallenge,
    ) -> Result<(Option<ProtectedResource>, AuthServer), AuthError> {
        let prm = discovery::protected_resource(
            rec,
            &self.cfg.server_url,
            bearer.resource_metadata.as_deref(),
        )
        .await?;
        let server = match &prm {
            Some(p) => discovery::authorization_server(rec, &p.authorization_servers[0]).await?,
            None => discovery::legacy_authorization_server(rec, &self.cfg.server_url).await?,
        };
        server.check_pkce()?;
        let mut st = self.st();
        st.prm = prm.clone();
        st.server = Some(server.clone());
        Ok((prm, server))
    }

    /// The stored record of an authorization server; one that cannot be read is used as empty,
    /// unless no login is allowed to make up for it.
    async fn stored_record(&self, rec: &Recorder<'_>, key: &str) -> Result<Record, AuthError> {
        match self.creds.load(key).await {
            Ok(r) => Ok(r),
            Err(e) => {
                if matches!(self.cfg.login, LoginMode::Never) {
                    return Err(AuthError::LoginForbidden(format!(
                        "the stored credentials cannot be read ({e}), and --stored-auth-only forbids a login"
                    )));
                }
                rec.step(format!(
                    "the stored credentials could not be read ({e}); continuing without them"
                ));
                Ok(Record::default())
            }
        }
    }

    /// A `401`: a stored token, a refresh, or a login.
    async fn login(
        &self,
        ctx: &Ctx<'_>,
        record: Record,
        sent: Option<&str>,
    ) -> Result<(), AuthError> {
        let rec = ctx.rec;
        let refused = sent.and_then(|s| s.strip_prefix("Bearer "));
        // Candidates for this issuer: the tokens in use, else the stored ones. (The state is
        // read in statements of its own: a lock guard must not live into code that locks again.)
        let current = self.st().tokens.clone();
        if let Some(t) = &current
            && t.issuer != ctx.server.key
        {
            rec.step(format!(
                "the protected resource now names the authorization server {}, not {}: the credentials from {} are not used there (they are bound to their issuer)",
                ctx.server.key, t.issuer, t.issuer
            ));
        }
        let in_use = current.filter(|t| t.issuer == ctx.server.key);
        let candidate = in_use.or(record.tokens.clone());
        if let Some(t) = &candidate
            && Some(t.access_token.as_str()) != refused
            && !t.expired()
        {
            rec.step(format!(
                "using the stored access token from {} ({})",
                t.issuer,
                expiry(t)
            ));
            let client = record
                .client
                .clone()
                .unwrap_or_else(|| placeholder_client(&self.client_cfg));
            self.adopt(t.clone(), ctx.server, &client, false);
            return Ok(());
        }
        let mut why = None;
        if let Some(t) = &candidate
            && let Some(rt) = &t.refresh_token
        {
            match self.refresh(ctx, &record, t, rt).await {
                Ok(()) => return Ok(()),
                Err(AuthError::InvalidClient(m)) => {
                    rec.step(format!("{m}; the client registration is forgotten"));
                    self.update_record(rec, &ctx.server.key, |r| {
                        r.client = None;
                        r.tokens = None;
                    })
                    .await;
                    return self
                        .login_fresh(ctx, Record::default(), sent, Some(m))
                        .await;
                }
                Err(e) => {
                    let m = e.into_message();
                    rec.step(format!("{m}; a new login is needed"));
                    self.update_record(rec, &ctx.server.key, |r| r.tokens = None)
                        .await;
                    why = Some(m);
                }
            }
        }
        let record = Record {
            tokens: None,
            ..record
        };
        self.login_fresh(ctx, record, sent, why).await
    }

    /// A login is the only way left; `why` says what ruled out the cheaper ones.
    async fn login_fresh(
        &self,
        ctx: &Ctx<'_>,
        record: Record,
        sent: Option<&str>,
        why: Option<String>,
    ) -> Result<(), AuthError> {
        {
            let mut st = self.st();
            let refused_fresh = st.fresh
                && sent.is_some()
                && st.tokens.as_ref().map(Tokens::header).as_deref() == sent;
            if refused_fresh {
                st.fresh_rejections += 1;
                if st.fresh_rejections >= 2 {
                    return Err(AuthError::Challenge(format!(
                        "the server refused, {} times in a row, the access token its authorization server {} had just issued; the server and its authorization server disagree (audience, resource or issuer?), so logging in again would not help",
                        st.fresh_rejections, ctx.server.key
                    )));
                }
            }
        }
        if matches!(self.cfg.login, LoginMode::Never) {
            return Err(AuthError::LoginForbidden(format!(
                "{} for {} (profile {:?}) at {}, and --stored-auth-only forbids a login: run once without it to log in and store them",
                why.unwrap_or_else(|| "no usable stored credentials".into()),
                self.cfg.server_url,
                self.cfg.profile,
                ctx.server.key
            )));
        }
        let chosen = match self.cfg.scope.as_deref().map(|s| split_scopes(Some(s))) {
            Some(configured) if !configured.is_empty() => {
                ctx.rec.step(format!(
                    "scope {:?} as configured for this server (not taken from the challenge or the metadata)",
                    configured.join(" ")
                ));
                configured
            }
            _ => discovery::select_scopes(ctx.bearer.scope.as_deref(), ctx.prm),
        };
        let scopes = self.with_offline_access(chosen, ctx.server);
        self.authorize(ctx, record, scopes).await
    }

    /// A `403 insufficient_scope`: log in again for the union of scopes, boundedly.
    async fn step_up(&self, ctx: &Ctx<'_>, record: Record) -> Result<(), AuthError> {
        let previous = {
            let st = self.st();
            st.tokens
                .as_ref()
                .and_then(|t| t.requested_scope.clone().or_else(|| t.scope.clone()))
        };
        let challenged = ctx.bearer.scopes();
        let mut scopes = split_scopes(previous.as_deref());
        for s in &challenged {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        let scopes = self.with_offline_access(scopes, ctx.server);
        if matches!(self.cfg.login, LoginMode::Never) {
            return Err(AuthError::LoginForbidden(format!(
                "the server needs the scope {:?} (HTTP 403 insufficient_scope), and --stored-auth-only forbids the login that would grant it",
                challenged.join(" ")
            )));
        }
        {
            let mut st = self.st();
            if st.step_ups >= self.cfg.max_step_ups {
                return Err(AuthError::Challenge(format!(
                    "still HTTP 403 insufficient_scope after {} step-up authorization(s) in a row (requested: {:?}; the server asks for {:?}{}); giving up instead of looping",
                    st.step_ups,
                    scopes.join(" "),
                    challenged.join(" "),
                    ctx.bearer
                        .error_description
                        .as_deref()
                        .map(|d| format!(", saying {d:?}"))
                        .unwrap_or_default()
                )));
            }
            st.step_ups += 1;
        }
        ctx.rec.step(format!(
            "step-up: authorizing again for the union of the scopes requested so far and the challenged ones: {}",
            scopes.join(" ")
        ));
        self.authorize(ctx, record, scopes).await
    }

    /// Add `offline_access` when the authorization server offers it (SEP-2207: that is how a
    /// client asks for a refresh token) and other scopes are requested.
    fn with_offline_access(&self, mut scopes: Vec<String>, server: &AuthServer) -> Vec<String> {
        if !scopes.is_empty()
            && server.supports_scope("offline_access")
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".into());
        }
        scopes
    }

    async fn refresh(
        &self,
        ctx: &Ctx<'_>,
        record: &Record,
        old: &Tokens,
        refresh_token: &str,
    ) -> Result<(), AuthError> {
        let client = match (&self.client_cfg.client_id, &record.client) {
            (Some(_), _) | (None, None) => {
                client::identify(
                    ctx.rec,
                    &self.client_cfg,
                    ctx.server,
                    record.client.as_ref(),
                    &split_scopes(old.requested_scope.as_deref()),
                )
                .await?
            }
            (None, Some(c)) => c.clone(),
        };
        let resource = old.resource.as_deref().or(ctx.resource);
        let mut t = token::request(
            ctx.rec,
            ctx.server,
            &client,
            Grant::Refresh { refresh_token },
            old.requested_scope.as_deref(),
            resource,
        )
        .await
        .map_err(|e| e.into_flow("refresh"))?;
        // A refresh answer may omit the scope (unchanged) and the refresh token (not rotated).
        if t.scope.is_none() {
            t.scope = old.scope.clone();
        }
        if t.refresh_token.is_none() {
            t.refresh_token = Some(refresh_token.to_string());
        }
        ctx.rec
            .step(format!("refreshed the access token ({})", expiry(&t)));
        self.persist(ctx.rec, &ctx.server.key, &t, &client).await;
        self.adopt(t, ctx.server, &client, false);
        Ok(())
    }

    /// A full authorization: client identity, the authorization request, the response's checks
    /// and the token request. A stored registration the server no longer knows is replaced once;
    /// a client identified just now (registered, or configured) that is refused ends the flow —
    /// registering again would only ask the person for a second login, for the same refusal.
    async fn authorize(
        &self,
        ctx: &Ctx<'_>,
        mut record: Record,
        scopes: Vec<String>,
    ) -> Result<(), AuthError> {
        for attempt in 0..2 {
            let client = client::identify(
                ctx.rec,
                &self.client_cfg,
                ctx.server,
                record.client.as_ref(),
                &scopes,
            )
            .await?;
            let stored = record.client.as_ref() == Some(&client);
            match self
                .authorize_with(ctx, client.clone(), &scopes, stored)
                .await
            {
                Err(AuthError::InvalidClient(m))
                    if attempt == 0
                        && stored
                        && client.source == ClientSource::DynamicRegistration =>
                {
                    ctx.rec.step(format!(
                        "{m}: the authorization server no longer knows the client {:?}; registering again",
                        client.client_id
                    ));
                    self.update_record(ctx.rec, &ctx.server.key, |r| r.client = None)
                        .await;
                    record.client = None;
                }
                other => return other,
            }
        }
        Err(AuthError::Registration(
            "the authorization server refused the new registration too".into(),
        ))
    }

    /// One login with `client`; `stored`: its registration is one kept from an earlier run.
    async fn authorize_with(
        &self,
        ctx: &Ctx<'_>,
        client: ClientRegistration,
        scopes: &[String],
        stored: bool,
    ) -> Result<(), AuthError> {
        let req = authorize::build(
            ctx.server,
            &client.client_id,
            &self.client_cfg.redirect_uri,
            scopes,
            ctx.resource,
        )?;
        ctx.rec.step(format!(
            "authorization request: client {:?}, scope {}, resource {}, PKCE S256",
            client.client_id,
            if scopes.is_empty() {
                "(omitted: the server names none)".to_string()
            } else {
                format!("{:?}", scopes.join(" "))
            },
            ctx.resource
                .unwrap_or("(none: no protected resource metadata)")
        ));
        let cb = self.callback(ctx, &req, scopes).await?;
        let code = authorize::check(ctx.rec, &cb, &req, ctx.server)?;
        let requested = (!scopes.is_empty()).then(|| scopes.join(" "));
        let grant = Grant::Code {
            code: &code,
            verifier: &req.pkce.verifier,
            redirect_uri: &req.redirect_uri,
        };
        let (tokens, client) = self
            .redeem(ctx, client, grant, requested.as_deref(), stored)
            .await?;
        let client = &client;
        ctx.rec.step(format!(
            "authorized by {}: scope {}, {}{}",
            ctx.server.key,
            tokens.scope.as_deref().unwrap_or("(not stated)"),
            expiry(&tokens),
            if tokens.refresh_token.is_some() {
                ", with a refresh token"
            } else {
                ""
            }
        ));
        self.persist(ctx.rec, &ctx.server.key, &tokens, client)
            .await;
        self.adopt(tokens, ctx.server, client, true);
        Ok(())
    }

    /// The authorization response, the way the login mode gets it: headless, through the
    /// loopback redirect (a browser opened, or the URL printed), or from the view's login.
    async fn callback(
        &self,
        ctx: &Ctx<'_>,
        req: &AuthorizationRequest,
        scopes: &[String],
    ) -> Result<Callback, AuthError> {
        Ok(match &self.cfg.login {
            LoginMode::Headless => authorize::headless(ctx.rec, req).await?,
            LoginMode::Browser | LoginMode::PrintUrl => {
                authorize::loopback(
                    ctx.rec,
                    req,
                    LoopbackOptions {
                        open_browser: matches!(self.cfg.login, LoginMode::Browser),
                        timeout: self.cfg.login_timeout,
                        notify: self.cfg.notify.as_ref(),
                    },
                )
                .await?
            }
            LoginMode::External(login) => {
                let request = LoginRequest {
                    url: req.url.clone(),
                    state: req.state.clone(),
                    redirect_uri: req.redirect_uri.clone(),
                    scopes: scopes.to_vec(),
                    issuer: ctx.server.issuer.clone(),
                    step_up: ctx.step_up,
                    timeout: self.cfg.login_timeout,
                };
                authorize::external(ctx.rec, req, login.as_ref(), request).await?
            }
            LoginMode::Never => {
                return Err(AuthError::LoginForbidden(
                    "--stored-auth-only forbids a login".into(),
                ));
            }
        })
    }
}

impl OAuthProvider {
    /// The token request for a code. A client that has never obtained a token here (`!stored`)
    /// and is refused `invalid_client` tries the other secret-based method the server lists,
    /// once, and keeps the one that works; refused again, or with nothing else to try, the flow
    /// ends with the step, the methods and the server's words.
    async fn redeem(
        &self,
        ctx: &Ctx<'_>,
        mut client: ClientRegistration,
        grant: Grant<'_>,
        requested: Option<&str>,
        stored: bool,
    ) -> Result<(Tokens, ClientRegistration), AuthError> {
        const STEP: &str = "token request (authorization code)";
        let first = match token::request(
            ctx.rec,
            ctx.server,
            &client,
            grant,
            requested,
            ctx.resource,
        )
        .await
        {
            Ok(t) => return Ok((t, client)),
            Err(e) if stored || !e.invalid_client() => return Err(e.into_flow(STAGE_TOKEN)),
            Err(e) => e,
        };
        let mut tried = vec![format!(
            "with {} ({})",
            method_name(&client),
            first.detail()
        )];
        if let Some(other) = token::other_method(&client, ctx.server) {
            ctx.rec.step(format!(
                "the {STEP} with {} was refused ({}); {} also lists {other}: trying it once",
                method_name(&client),
                first.detail(),
                ctx.server.key
            ));
            client.token_endpoint_auth_method = other.to_string();
            match token::request(ctx.rec, ctx.server, &client, grant, requested, ctx.resource).await
            {
                Ok(t) => {
                    ctx.rec.step(format!(
                        "client {:?}: token endpoint authentication {other} works; kept",
                        client.client_id
                    ));
                    return Ok((t, client));
                }
                Err(e) if !e.invalid_client() => return Err(e.into_flow(STAGE_TOKEN)),
                Err(e) => tried.push(format!("with {other} ({})", e.detail())),
            }
        }
        let hint = if client.source == ClientSource::DynamicRegistration {
            "the authorization server refuses the client it has just registered: report it to its operator, or register mcpscope there by hand and pass --client-id and --client-secret"
        } else {
            "check --client-id, --client-secret and the token endpoint authentication method the client is registered with"
        };
        Err(AuthError::Token(format!(
            "the {STEP} at {} was refused for the client {:?} ({}, identified just now) {}; the flow stops here, with no new registration and no second login: {hint}",
            ctx.server.token_endpoint,
            client.client_id,
            client.source.label(),
            tried.join(", then "),
        )))
    }
}

/// What the flow calls the token request in its messages.
const STAGE_TOKEN: &str = "token request";

/// A client's token endpoint authentication method, as the messages name it.
fn method_name(c: &ClientRegistration) -> &str {
    match c.token_endpoint_auth_method.as_str() {
        "" => "none",
        m => m,
    }
}

/// Counts a challenge as being handled until dropped (however the handling ends).
struct Busy<'a>(&'a AtomicUsize);
impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What one challenge's handling works with.
struct Ctx<'a> {
    rec: &'a Recorder<'a>,
    server: &'a AuthServer,
    prm: Option<&'a ProtectedResource>,
    resource: Option<&'a str>,
    bearer: &'a BearerChallenge,
    /// A `403 insufficient_scope` is being answered.
    step_up: bool,
}

/// The client of stored tokens whose registration is not stored (pre-registered, CIMD): only its
/// id matters for the summary.
fn placeholder_client(cfg: &ClientConfig) -> ClientRegistration {
    ClientRegistration {
        client_id: cfg
            .client_id
            .clone()
            .or_else(|| cfg.client_metadata_url.clone())
            .unwrap_or_default(),
        client_secret: None,
        token_endpoint_auth_method: String::new(),
        source: if cfg.client_id.is_some() {
            ClientSource::PreRegistered
        } else {
            ClientSource::ClientIdMetadataDocument
        },
        redirect_uri: cfg.redirect_uri.clone(),
        registered_at: 0,
    }
}

fn expiry(t: &Tokens) -> String {
    match t.expires_at {
        Some(at) => {
            let now = crate::credentials::now();
            if at > now {
                format!("expires in {} s", at - now)
            } else {
                format!("expired {} s ago", now - at)
            }
        }
        None => "no stated expiry".into(),
    }
}

/// A `403` whose challenge is not `insufficient_scope`: no new authorization can help, so the
/// flow ends, with the server's error in its words.
fn no_scope_to_add(bearer: &BearerChallenge) -> AuthError {
    AuthError::Challenge(format!(
        "HTTP 403{}: the server refuses this request with these credentials, and the challenge asks for no scope a new authorization could add",
        bearer
            .error
            .as_deref()
            .map(|e| format!(
                " ({e}{})",
                bearer
                    .error_description
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ))
            .unwrap_or_default()
    ))
}

fn describe_challenge(ch: &AuthChallenge, b: &BearerChallenge) -> String {
    let mut s = format!(
        "HTTP {} from {}{}",
        ch.status,
        ch.url,
        if ch.sent_authorization.is_some() {
            " (with our token)"
        } else {
            " (no token sent)"
        }
    );
    let mut parts = vec![];
    if let Some(e) = &b.error {
        parts.push(format!("error {e}"));
    }
    if let Some(sc) = &b.scope {
        parts.push(format!("scope {sc:?}"));
    }
    if let Some(r) = &b.resource_metadata {
        parts.push(format!("resource_metadata {r}"));
    }
    if ch.www_authenticate.is_none() {
        parts.push("no WWW-Authenticate".into());
    }
    if !parts.is_empty() {
        s.push_str(": ");
        s.push_str(&parts.join(", "));
    }
    s
}

impl AuthProvider for OAuthProvider {
    fn authorization<'a>(&'a self, sink: &'a dyn FrameSink) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            self.prepared
                .get_or_init(|| async {
                    let rec = self.recorder(sink);
                    self.prepare(&rec).await;
                })
                .await;
            self.st()
                .tokens
                .as_ref()
                .filter(|t| !t.expired())
                .map(Tokens::header)
        })
    }

    fn on_challenge<'a>(
        &'a self,
        challenge: AuthChallenge,
        sink: &'a dyn FrameSink,
    ) -> BoxFuture<'a, Result<(), String>> {
        // The transports carry the message; the step stays in the recorded OAuth frames.
        Box::pin(async move {
            self.challenge(challenge, sink)
                .await
                .map_err(AuthError::into_message)
        })
    }

    fn on_success(&self, sent_authorization: &str) {
        let mut st = self.st();
        if st.tokens.as_ref().map(Tokens::header).as_deref() == Some(sent_authorization) {
            st.step_ups = 0;
            st.fresh = false;
            st.fresh_rejections = 0;
        }
    }

    fn authorizing(&self) -> bool {
        self.authorizing.load(Ordering::SeqCst) > 0
    }
}
