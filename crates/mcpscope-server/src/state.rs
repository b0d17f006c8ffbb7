//! The backend's state: the inspector core and the security settings, cloned into every handler.

use crate::security::Security;
use mcpscope_inspect::{Catalog, Inspector, Options};
use mcpscope_store::HistoryStore;
use std::sync::Arc;

/// The backend: cheap to clone, shared by every handler.
#[derive(Clone)]
pub struct AppState {
    /// Everything above a session: catalog, connections, traffic, history, events.
    pub(crate) inspector: Arc<Inspector>,
    pub(crate) security: Arc<Security>,
    /// The MCP Apps sandbox page's URL (`/api/about`), when this process serves one.
    pub(crate) sandbox_url: Option<Arc<str>>,
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
        options: Options,
    ) -> AppState {
        AppState {
            inspector: Inspector::new(catalog, store, options),
            security: Arc::new(security),
            sandbox_url: None,
        }
    }

    /// Say where the MCP Apps sandbox page is served (`sandbox.url` of `/api/about`).
    pub fn with_sandbox_url(mut self, url: impl Into<String>) -> AppState {
        self.sandbox_url = Some(Arc::from(url.into()));
        self
    }

    /// The history database.
    pub fn store(&self) -> &Arc<HistoryStore> {
        self.inspector.store()
    }

    /// The inspector core this backend serves.
    pub fn inspector(&self) -> &Arc<Inspector> {
        &self.inspector
    }

    /// Close every connection (stdio servers are stopped), for a clean shutdown.
    pub async fn shutdown(&self) {
        self.inspector.shutdown().await;
    }
}
