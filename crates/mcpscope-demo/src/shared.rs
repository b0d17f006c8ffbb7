//! What the demo handler's parts share: the process-wide state ([`Shared`]) with the lock
//! helper, the era of a request, and the two shapes of a tool's answer. It sits below the
//! handler (`server`), the input rounds (`interaction`) and the transports, so that none of
//! them has to import another for these.

use std::{
    hash::{BuildHasher, Hasher},
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Instant,
};

use rmcp::{
    Peer, RoleServer,
    model::{
        CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion, RequestStateCodec, Tool,
    },
    service::RequestContext,
    task_manager::TaskManager,
};
use tokio::sync::broadcast;

use crate::{catalog, legacy_tasks};

/// Locks a mutex, ignoring poisoning: every critical section here leaves its data consistent.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Process-wide state, shared by every session and request.
pub(crate) struct Shared {
    /// Whether `toggle-extra-tool` has switched the extra tool on.
    pub(crate) extra_tool: AtomicBool,
    /// How many times the demo app has called `app-refresh`.
    pub(crate) app_refreshes: AtomicU64,
    /// Wakes every `subscriptions/listen` stream when the tool list changes.
    pub(crate) tool_changes: broadcast::Sender<()>,
    /// Ends the listen streams on demand (`end-subscriptions`, see `listen_end`).
    pub(crate) listen_ends: crate::listen_end::Ends,
    /// Legacy sessions, which get `notifications/tools/list_changed` unsolicited.
    pub(crate) legacy_peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Tasks of the modern `io.modelcontextprotocol/tasks` extension.
    pub(crate) tasks: TaskManager,
    /// Tasks of the 2025-11-25 core (see `legacy_tasks`).
    pub(crate) legacy_tasks: legacy_tasks::Store,
    /// Seals the MRTR `requestState` so a client cannot forge it.
    pub(crate) codec: RequestStateCodec,
    started: Instant,
}

impl Shared {
    /// Fresh state for a new server process.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            extra_tool: AtomicBool::new(false),
            app_refreshes: AtomicU64::new(0),
            tool_changes: broadcast::channel(16).0,
            listen_ends: crate::listen_end::Ends::default(),
            legacy_peers: Mutex::new(Vec::new()),
            tasks: TaskManager::new(),
            legacy_tasks: legacy_tasks::Store::default(),
            codec: RequestStateCodec::try_new(process_secret())
                .expect("a 32-byte key is long enough"),
            started: Instant::now(),
        })
    }

    /// The tools `tools/list` shows now (with the extra tool while it is switched on).
    pub(crate) fn tools(&self) -> Vec<Tool> {
        catalog::tools(self.extra_tool.load(Ordering::SeqCst))
    }

    /// Tells every listener that the tool list changed: modern listen streams through the bus,
    /// legacy sessions directly (dropping the ones whose transport has closed).
    pub(crate) async fn announce_tools_changed(&self) {
        let _no_listeners_is_fine = self.tool_changes.send(());
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = lock(&self.legacy_peers);
            peers.retain(|peer| !peer.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            let _gone_sessions_are_pruned_next_time = peer.notify_tool_list_changed().await;
        }
    }

    /// The value of `demo://counter`: seconds since the process started.
    pub(crate) fn counter(&self) -> u64 {
        self.started.elapsed().as_secs()
    }
}

/// A per-process secret for the request-state codec. `RandomState` is seeded from the OS
/// random source once per process, which is enough for a demo and spares a dependency.
fn process_secret() -> Vec<u8> {
    let state = std::collections::hash_map::RandomState::new();
    let mut key = Vec::with_capacity(32);
    for round in 0..4u64 {
        let mut hasher = state.build_hasher();
        hasher.write_u64(round);
        hasher.write_u32(std::process::id());
        key.extend_from_slice(&hasher.finish().to_le_bytes());
    }
    key
}

/// Whether this request speaks the modern era (2026-07-28 or later).
pub(crate) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// A tool's text answer.
pub(crate) fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

/// A tool-level failure: per the spec the caller's model should see it, so it is a result with
/// `isError: true`, not a JSON-RPC error.
pub(crate) fn tool_error(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text)]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_secret_is_long_enough_for_the_codec() {
        assert!(RequestStateCodec::try_new(process_secret()).is_ok());
    }
}
