//! mcpscope-inspect: the inspector core every view shares.
//!
//! Above the session engine (`mcpscope-client`) and below the views (the web backend, the TUI,
//! the CLI), it owns what an inspector knows beyond one `Session`: the catalog (`mcp.json` and
//! its dialects, secret values), connection slots and their lifecycle (connect, the OAuth
//! provider per slot, the pinger, the list-changed listener, disconnect), the frame pipeline
//! (redaction, attribution to history entries, timing, schema lint, header verdicts), the
//! history and the in-memory frame window, and the numbered event bus views subscribe to. It has
//! no HTTP server and no terminal code: a view sends commands (methods of [`Inspector`]) and
//! reads events ([`EventBus`]). `docs/architecture.md` draws the whole route.
//!
//! ```no_run
//! # async fn f() -> Result<(), mcpscope_inspect::Error> {
//! use mcpscope_inspect::{Catalog, CatalogEntry, Inspector, Options};
//! use mcpscope_store::{HistoryStore, Retention};
//! let demo = CatalogEntry {
//!     command: Some("mcpscope".into()),
//!     args: vec!["demo-server".into()],
//!     ..Default::default()
//! };
//! let store = HistoryStore::open(std::path::Path::new("history.sqlite"), Retention::default())
//!     .expect("history database");
//! let inspector = Inspector::new(
//!     Catalog::in_memory(vec![("demo".into(), demo)]),
//!     store,
//!     Options::default(),
//! );
//! inspector.connect("demo", None).await?;
//! let out = inspector
//!     .call("demo", mcpscope_inspect::Call { method: "tools/list".into(), ..Default::default() })
//!     .await?;
//! println!("history entry {}: {:?}", out.history_id, out.result);
//! inspector.shutdown().await;
//! # Ok(())
//! # }
//! ```

pub mod apps;
mod auth;
pub mod capabilities;
pub mod catalog;
mod conn;
pub mod datadir;
mod error;
pub mod events;
mod experimental;
mod frames;
mod history;
pub mod history_filter;
pub mod interactions;
mod listing;
mod pages;
mod pipeline;
pub mod profiles;
mod queue;
mod request;
pub mod roots;
mod servers;
mod state;
pub mod subscriptions;
pub mod tasks;
pub mod time;
mod traffic;
mod verdicts;
mod views;

pub use auth::Delivery;
pub use auth::{AuthPending, AuthStored, AuthToken, AuthView, SecretStoreView};
pub use catalog::{Catalog, CatalogEntry, OAuthEntry, write_atomically};
// The registry dialect under the name the views first knew it by (`import::preview_registry`).
pub use catalog::registry as import;
pub(crate) use catalog::secrets;
pub use datadir::{DataDirLock, LOCK_FILE, make_private, precreate_private};
pub use error::{Error, Result};
pub use events::{Event, EventBus, Published, RING_BYTES, RING_EVENTS};
pub use experimental::{HandSent, SendKind};
pub use frames::FrameView;
pub use frames::{VIEW_BODY_CAP, WINDOW_BYTES, WINDOW_FRAMES};
pub use history::HistoryPage;
pub use history_filter::HistoryFilter;
pub use import::RegistryChoice;
pub use interactions::{
    Answer, Decision, Interaction, InteractionClosed, InteractionKind, Outcome, Policy,
};
pub use pages::{Pages, list_key};
pub use request::{Call, CallOutcome, RESULT_CAP};
pub use state::{Inspector, Options};
pub use traffic::{FrameBody, FramePage};
pub use views::{HistoryChild, HistoryEntry, ServerView};

/// `bytes` random bytes as lowercase hex (request ids, secret-store keys).
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::fill(&mut b[..]);
    b.iter().map(|x| format!("{x:02x}")).collect()
}
