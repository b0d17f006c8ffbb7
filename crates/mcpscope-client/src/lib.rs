//! mcpscope-client: the session engine every view (CLI, web UI, TUI) drives.
//!
//! A [`Session`] connects over a [`Target`](mcpscope_transport::Target), runs the handshake its era
//! calls for (legacy `initialize`, modern `server/discover`, or the Auto probe), and then sends
//! requests with the era's envelope, correlates answers, resets timeouts on progress, drives
//! `input_required` rounds and tasks, and hands every frame and derived event to an [`Observer`].
//! What the server asks of the client goes to a [`Responder`].
//!
//! ```no_run
//! # async fn f() -> Result<(), mcpscope_client::ClientError> {
//! use mcpscope_client::{ClientOptions, DeclineAll, NoObserver, Session};
//! use mcpscope_transport::Target;
//! use std::sync::Arc;
//! let target = Target::Stdio { command: "mcpscope".into(), args: vec!["demo-server".into()], env: vec![], cwd: None };
//! let session = Session::connect(target, ClientOptions::default(), Arc::new(DeclineAll), Arc::new(NoObserver)).await?;
//! let tools = session.list_all("tools/list", "tools", None).await?;
//! session.close().await;
//! # Ok(()) }
//! ```

mod control;
mod error;
mod events;
mod responder;
mod session;

pub use control::RequestControl;
pub use error::ClientError;
pub use events::{NoObserver, Observer, Recorded, SessionEvent};
pub use responder::{
    DeclineAll, RequestOrigin, Responder, ServerRequest, decline, full_capabilities, without_apps,
};
pub use session::{
    ClientOptions, Exchanged, ListStop, Listing, MAX_LIST_PAGES, RequestOptions, ServerInfo,
    Session,
};
