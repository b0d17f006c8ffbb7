//! mcpscope-server: the web UI's backend.
//!
//! A thin axum adapter over the inspector core (`mcpscope-inspect`: catalog, connections,
//! traffic, history, events): JSON REST commands under `/api`, one Server-Sent Events stream
//! (`/api/events`) of the core's event bus, the OAuth callback route, the troubleshooting page of
//! each error code (`troubleshooting.rs`, served from the binary), and the embedded SPA. The
//! contract with the SPA is `docs/web-api.md`. The browser never talks to an MCP server: every
//! protocol decision stays in the engine and the core.
//!
//! Security comes first (the threat model is CVE-2025-49596): every request passes the Host,
//! `Sec-Fetch-Site` and Origin checks, and `/api/*` needs the per-launch token (see
//! [`Security`]). A stdio server is only ever launched from the catalog by an authenticated
//! `POST`; nothing in a query string starts a process.
//!
//! ```no_run
//! # async fn f() -> std::io::Result<()> {
//! use mcpscope_server::{AppState, Catalog, ListenOptions, Security, ServerOptions, serve};
//! use mcpscope_store::{HistoryStore, Retention};
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:6274").await?;
//! let security = Security::for_port(6274, Some("secret-token".into()), None);
//! let store = HistoryStore::open(std::path::Path::new("history.sqlite"), Retention::default())
//!     .expect("history database");
//! let state = AppState::new(security, Catalog::in_memory(vec![]), store, ServerOptions::default());
//! serve(listener, state, ListenOptions::default(), std::future::pending()).await
//! # }
//! ```

mod api;
mod assets;
mod callback;
mod error;
mod extract;
mod listen;
mod sandbox;
mod security;
mod sse;
mod state;
pub mod troubleshooting;

pub use api::{SCHEMA_BODY_BYTES, schema_routes};
pub use error::ApiError;
pub use listen::{
    Drained, ListenOptions, TLS_CERT_ENV, TLS_KEY_ENV, TLS_RELOAD_EVERY, TlsConfig, serve_router,
};
// The core's types the binary and the tests name through this crate.
pub use assets::gateway_page;
pub use mcpscope_inspect::Options as ServerOptions;
pub use mcpscope_inspect::{
    Catalog, CatalogEntry, DataDirLock, EventBus, LOCK_FILE, OAuthEntry, RING_BYTES, RING_EVENTS,
    VIEW_BODY_CAP, WINDOW_BYTES, WINDOW_FRAMES, make_private, precreate_private, write_atomically,
};
pub use sandbox::{DEFAULT_SANDBOX_PORT, SANDBOX_PAGE, sandbox_router, serve_sandbox};
pub use security::{
    FREE_GUESSES, Security, TOKEN_COOKIE, TOKEN_HEADER, guard, new_token, random_bytes,
};
pub use state::AppState;

use axum::Router;
use axum::extract::FromRef;
use std::future::Future;
use std::sync::Arc;

impl FromRef<AppState> for Arc<Security> {
    fn from_ref(s: &AppState) -> Arc<Security> {
        s.security.clone()
    }
}

impl FromRef<AppState> for Arc<EventBus> {
    fn from_ref(s: &AppState) -> Arc<EventBus> {
        s.inspector.events().clone()
    }
}

/// The whole application: `/api` and the SPA, behind the security guard.
pub fn router(state: AppState) -> Router {
    let security = state.security.clone();
    Router::new()
        .nest("/api", api::router())
        .route("/oauth/callback", axum::routing::get(callback::callback))
        .route(
            "/troubleshooting",
            axum::routing::get(troubleshooting::index),
        )
        .route(
            "/troubleshooting/{code}",
            axum::routing::get(troubleshooting::guide),
        )
        .fallback(assets::spa)
        .with_state(state)
        // Outermost, so nothing — not even a 404 — is answered to a refused Host or Origin.
        .layer(axum::middleware::from_fn_with_state(
            security,
            security::guard,
        ))
}

/// Serve `state` on `listener` until `shutdown` resolves, then close every connection. The
/// listener's bounds and TLS are `opts`'s ([`serve_router`]); give [`Security::serve_https`]
/// to `state` too when `opts.tls` is set, so its origins and cookie say https.
///
/// The stop of the single-user web UI: the event streams (`/api/events`, which never end on
/// their own) are ended first, so only real requests in progress (a tool call) hold the drain,
/// for at most `opts.shutdown_grace` (5 s by default: a person pressed Ctrl-C and waits); what
/// the grace cut is said on stderr. Then every server connection is closed.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    opts: ListenOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state.clone());
    let bus = state.inspector.events().clone();
    let grace = opts.shutdown_grace;
    let r = serve_router(listener, app, opts, async move {
        shutdown.await;
        // Event streams never end on their own; a graceful shutdown would wait for them.
        bus.close();
    })
    .await;
    if let Ok(d) = &r
        && d.cut > 0
    {
        eprintln!(
            "mcpscope: {} request(s) still in progress after {grace:?} were cut",
            d.cut
        );
    }
    state.shutdown().await;
    r.map(|_| ())
}
