//! mcpscope-gateway: the team gateway mode (`mcpscope gateway --config FILE`, issue 25,
//! `docs/gateway.md` is the contract). One shared mcpscope in front of a team's MCP gateways:
//! the gateway inspector page and a relay to the gateways an administrator's file names, and
//! nothing else — no process spawning, no catalog, no history, nothing on disk but the optional
//! audit log.
//!
//! The page is an MCP client *of the relay* (002's design): it posts JSON-RPC to
//! `/api/gateways/{name}/mcp`, and the relay forwards it to that gateway's URL only, enforcing
//! every rule of the contract on each exchange whoever the client is. By file:
//! `config.rs` (the file, its checks and hot reload), `settings.rs` (the `MCP_PROXY_*`
//! environment), `upstream.rs` (the one HTTP client: no redirects, the CA file, the dial
//! address), `identity.rs` (token model or trusted proxy), `relay.rs` (the rules and the
//! exchange), `sessions.rs` (sealed session ids: no state per session), `refusal.rs` (the
//! error shape with its rule), `audit.rs` (the audit log). Beside the relay, the page's form
//! model and argument check are the web UI's stateless `/api/form` and `/api/validate`
//! (`mcpscope_server::schema_routes`).
//!
//! ```no_run
//! # async fn f() -> Result<(), String> {
//! use mcpscope_gateway::{Options, Settings, start};
//! let settings = Settings::from_lookup(|k| std::env::var(k).ok())?;
//! let started = start(Options::new("gateways.json".into()), settings).await?;
//! println!("{}", started.url);
//! # Ok(()) }
//! ```

mod audit;
pub mod config;
mod identity;
mod refusal;
mod relay;
pub mod sessions;
pub mod settings;
mod upstream;

pub use identity::User;
pub use refusal::REFUSAL_HEADER;
pub use relay::{ALLOWED_METHODS, GATEWAY_TOKEN_HEADER};
pub use settings::Settings;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mcpscope_server::{ApiError, Security};
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The default port of the gateway mode (the web UI's is 6274, its sandbox's 6275).
pub const DEFAULT_PORT: u16 = 6280;

/// How long requests in progress get to finish once a stop has closed the listener
/// (`MCPSCOPE_SHUTDOWN_GRACE`): comfortably inside Kubernetes' default 30 s
/// `terminationGracePeriodSeconds`, with the delay before it.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The command line of `mcpscope gateway`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The administrator's file.
    pub config: PathBuf,
    /// The address to listen on.
    pub host: String,
    /// The port (0: the system picks).
    pub port: u16,
    /// The audit log, if any.
    pub audit_log: Option<PathBuf>,
    /// Audit lines carry `params.arguments`.
    pub audit_arguments: bool,
    /// Trusted proxies' addresses or networks (team mode when non-empty).
    pub trusted_proxies: Vec<String>,
    /// The header naming the user (team mode).
    pub user_header: String,
    /// The header listing the user's groups (team mode).
    pub groups_header: String,
    /// How often the file (and the CA file) is looked at.
    pub poll: Duration,
    /// Serve HTTPS with this key and certificate (`INSPECTOR_TLS_KEY_PATH` /
    /// `INSPECTOR_TLS_CERT_PATH`, reloaded when the files change); `None`: plain HTTP.
    pub tls: Option<mcpscope_server::TlsConfig>,
    /// On [`Started::stop`], how long the listener still accepts after `/readyz` turned 503
    /// (`MCPSCOPE_SHUTDOWN_DELAY`; the load balancer's time to hear of it). Default 0.
    pub shutdown_delay: Duration,
    /// Then how long requests in progress may take (`MCPSCOPE_SHUTDOWN_GRACE`).
    pub shutdown_grace: Duration,
}

impl Options {
    /// The defaults for `config`: loopback, [`DEFAULT_PORT`], the token model.
    pub fn new(config: PathBuf) -> Options {
        Options {
            config,
            host: "127.0.0.1".into(),
            port: DEFAULT_PORT,
            audit_log: None,
            audit_arguments: false,
            trusted_proxies: Vec::new(),
            user_header: "X-Forwarded-User".into(),
            groups_header: "X-Forwarded-Groups".into(),
            poll: config::POLL,
            tls: None,
            shutdown_delay: Duration::ZERO,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

/// What every handler shares.
#[derive(Debug)]
pub struct GatewayState {
    watched: config::Watched,
    settings: Settings,
    upstream: upstream::Upstream,
    /// Seals the gateways' session ids to their user and gateway.
    sessions: sessions::Sealer,
    audit: Option<audit::Audit>,
    /// The CA file was readable at the last look (always true without one).
    ca_readable: AtomicBool,
    /// A stop has begun: `/readyz` answers 503 so no new traffic is routed here.
    stopping: AtomicBool,
}

impl GatewayState {
    /// Look at the file and the CA file once (the watcher's tick): take a changed file or say
    /// why it was refused; note whether the CA file is still readable.
    pub fn poll(&self) {
        match self.watched.poll() {
            Some(Ok(())) => eprintln!(
                "mcpscope gateway: reloaded {} ({} gateways)",
                self.watched.path().display(),
                self.watched.current().gateways.len()
            ),
            Some(Err(e)) => eprintln!(
                "mcpscope gateway: kept the last good gateway file; the changed one was refused: {e}"
            ),
            None => {}
        }
        if let Some(ca) = &self.settings.ca_file {
            let ok = upstream::ca_certificates(ca).is_ok();
            if self.ca_readable.swap(ok, Ordering::Relaxed) != ok {
                eprintln!(
                    "mcpscope gateway: {} is {} readable",
                    ca.display(),
                    if ok { "again" } else { "no longer" }
                );
            }
        }
    }

    fn warn_unlisted_origins(&self) {
        for (name, g) in &self.watched.current().gateways {
            if !self.settings.origin_allowed(&g.url.0) {
                eprintln!(
                    "mcpscope gateway: WARNING: gateway {:?} is at {}, which MCP_PROXY_ALLOWED_ORIGINS does not list: its requests will be refused",
                    name.0,
                    settings::normal_origin(&g.url.0)
                );
            }
        }
    }
}

/// A gateway mode that is serving.
#[derive(Debug)]
pub struct Started {
    /// The address bound.
    pub addr: SocketAddr,
    /// The URL to open (with `?token=` when the token was generated here).
    pub url: String,
    /// The token of the token model (`None` in team mode).
    pub token: Option<String>,
    /// The shared state.
    pub state: Arc<GatewayState>,
    served: tokio::task::JoinHandle<std::io::Result<mcpscope_server::Drained>>,
    watcher: tokio::task::JoinHandle<()>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Started {
    /// Stop as a rollout expects: `/readyz` answers 503 at once, the listener still accepts for
    /// [`Options::shutdown_delay`] then closes, requests in progress (streamed answers included)
    /// finish within [`Options::shutdown_grace`], the rest are cut. How it went.
    pub async fn stop(mut self) -> std::io::Result<mcpscope_server::Drained> {
        self.state.stopping.store(true, Ordering::Relaxed);
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        self.watcher.abort();
        match (&mut self.served).await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }

    /// Wait until serving fails (it does not end otherwise); then do not [`Started::stop`].
    pub async fn wait(&mut self) -> std::io::Result<()> {
        match (&mut self.served).await {
            Ok(r) => r.map(|_| ()),
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// True when `host` names this machine only.
fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost") || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Load the file, build the client, bind, and serve in the background. Every start-up error is
/// a sentence naming what is wrong (the file's line, the variable, the CA file).
pub async fn start(options: Options, settings: Settings) -> Result<Started, String> {
    let watched = config::Watched::open(&options.config).map_err(|e| format!("{e}"))?;
    let upstream = upstream::Upstream::build(&settings)?;
    let trusted = identity::parse_trusted(&options.trusted_proxies)?;
    let team = !trusted.is_empty();
    let explicit_token = settings.api_token.is_some();
    if !is_loopback(&options.host) && !team && !explicit_token {
        return Err(format!(
            "refusing to listen on {}: beyond loopback the gateway mode needs a guard, either --trusted-proxy (the authenticating proxy's address; users come from --user-header) or MCP_INSPECTOR_API_TOKEN (a shared token)",
            options.host
        ));
    }
    let audit = match &options.audit_log {
        Some(p) => Some(audit::Audit::open(p, options.audit_arguments)?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind((options.host.as_str(), options.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", options.host, options.port))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let state = Arc::new(GatewayState {
        watched,
        settings: settings.clone(),
        upstream,
        sessions: sessions::Sealer::new(settings.session_keys.clone()),
        audit,
        ca_readable: AtomicBool::new(true),
        stopping: AtomicBool::new(false),
    });
    state.warn_unlisted_origins();
    eprintln!("mcpscope gateway: {}", state.sessions.describe());
    let listen = mcpscope_server::ListenOptions {
        tls: options.tls.clone(),
        shutdown_delay: options.shutdown_delay,
        shutdown_grace: options.shutdown_grace,
        ..Default::default()
    };
    let scheme = listen.scheme();
    let shown_host = if options.host == "0.0.0.0" || options.host == "::" {
        "127.0.0.1".to_string()
    } else if options.host.contains(':') && !options.host.starts_with('[') {
        format!("[{}]", options.host)
    } else {
        options.host.clone()
    };
    let (app, token, url) = if team {
        let proxy = identity::TrustedProxy {
            trusted,
            user_header: header_name(&options.user_header, "--user-header")?,
            groups_header: header_name(&options.groups_header, "--groups-header")?,
            page_origins: settings.page_origins.clone(),
        };
        let mut security = Security::for_port(addr.port(), None, None);
        if listen.tls.is_some() {
            security.serve_https();
        }
        let app = router(state.clone(), Guard::Proxy(Arc::new(proxy)), security);
        (
            app,
            None,
            format!("{scheme}://{shown_host}:{}/", addr.port()),
        )
    } else {
        let token = settings
            .api_token
            .clone()
            .unwrap_or_else(mcpscope_server::new_token);
        let mut security = Security::for_port(
            addr.port(),
            Some(token.clone()),
            settings.page_origins.clone(),
        );
        if !is_loopback(&options.host) {
            security.allow_host(&format!("{shown_host}:{}", addr.port()));
        }
        // A token the administrator fixed is not printed (it would end up in a pod's logs);
        // one made here is, as the web UI prints its own.
        let url = if explicit_token {
            format!("{scheme}://{shown_host}:{}/", addr.port())
        } else {
            format!("{scheme}://{shown_host}:{}/?token={token}", addr.port())
        };
        let app = router(state.clone(), Guard::Token, security);
        (app, Some(token), url)
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // The shared listener (mcpscope-server's `listen.rs`): a connection cap, a header-read
    // timeout, TLS; it hands handlers the peer address (`ConnectInfo`) the trusted-proxy rule
    // reads.
    let served = tokio::spawn(mcpscope_server::serve_router(
        listener,
        app,
        listen,
        async move {
            let _ = stopped.await;
        },
    ));
    let watcher = tokio::spawn({
        let state = state.clone();
        let every = options.poll;
        async move {
            loop {
                tokio::time::sleep(every).await;
                let s = state.clone();
                let _ = tokio::task::spawn_blocking(move || s.poll()).await;
            }
        }
    });
    Ok(Started {
        addr,
        url,
        token,
        state,
        served,
        watcher,
        stop: Some(stop),
    })
}

fn header_name(v: &str, flag: &str) -> Result<HeaderName, String> {
    HeaderName::from_bytes(v.trim().as_bytes())
        .map_err(|_| format!("{flag} {v:?} is not a header name"))
}

/// Which identity guard stands in front.
enum Guard {
    Token,
    Proxy(Arc<identity::TrustedProxy>),
}

/// The routes of `docs/gateway.md`: health without a guard, everything else behind it.
fn router(state: Arc<GatewayState>, guard: Guard, security: Security) -> Router {
    let security = Arc::new(security);
    let guarded = Router::new()
        .route("/api/gateways", get(list))
        .route(
            "/api/gateways/{name}/mcp",
            axum::routing::post(relay::post)
                .delete(relay::delete)
                .get(relay::get_stream),
        )
        // `POST /api/form` and `/api/validate`: the web UI's own handlers (pure functions of the
        // body, capped), so the page asks the one owner of the rule instead of copying it.
        .nest("/api", mcpscope_server::schema_routes())
        .with_state(state.clone())
        .fallback(page_or_404)
        .with_state(security.clone());
    let guarded = match guard {
        Guard::Token => guarded
            .layer(axum::middleware::from_fn(identity::local_user))
            .layer(axum::middleware::from_fn_with_state(
                security,
                mcpscope_server::guard,
            ))
            .layer(axum::middleware::from_fn(identity::mark_token_refusals)),
        Guard::Proxy(proxy) => guarded.layer(axum::middleware::from_fn_with_state(
            proxy,
            identity::proxy_guard,
        )),
    };
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(state)
        .merge(guarded)
}

/// `ready` once the file is loaded (it is, or start-up failed) and the CA file is readable;
/// `stopping` (503) from the moment a stop begins.
async fn readyz(State(g): State<Arc<GatewayState>>) -> Response {
    if g.stopping.load(Ordering::Relaxed) {
        (StatusCode::SERVICE_UNAVAILABLE, "stopping").into_response()
    } else if g.ca_readable.load(Ordering::Relaxed) {
        "ready".into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready").into_response()
    }
}

/// `GET /api/gateways`: the user and the gateways they may see.
async fn list(
    State(g): State<Arc<GatewayState>>,
    axum::Extension(user): axum::Extension<User>,
) -> Response {
    let config = g.watched.current();
    let gateways: Vec<_> = config
        .gateways
        .iter()
        .filter(|(_, gw)| gw.visible_to(&user.name, &user.groups))
        .map(|(name, gw)| {
            json!({
                "name": name.0,
                "description": gw.description,
                "url": gw.url.0.as_str(),
                "servers": gw.servers,
            })
        })
        .collect();
    let mut resp = axum::Json(json!({
        "user": {"name": user.name, "groups": user.groups},
        "gateways": gateways,
    }))
    .into_response();
    resp.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    resp
}

/// The page and its files for `GET`; a 404 for every other path (this mode has nothing else).
async fn page_or_404(state: State<Arc<Security>>, req: axum::extract::Request) -> Response {
    let path = req.uri().path();
    if path == "/api" || path.starts_with("/api/") {
        return ApiError::not_found(format!("no route {path} in gateway mode")).into_response();
    }
    if req.method() != axum::http::Method::GET && req.method() != axum::http::Method::HEAD {
        return StatusCode::NOT_FOUND.into_response();
    }
    mcpscope_server::gateway_page(state, req).await
}
