//! mcpscope-testkit: real, deliberately misbehaving MCP servers for mcpscope's tests.
//!
//! An inspector must never hang or lose a byte on a bad server, and only a real bad server proves
//! it. This crate holds two families of them:
//!
//! - **stdio**: the `mcpscope-testkit` binary, one subcommand per [`StdioMode`] (garbage on stdout,
//!   silence, early exits, huge lines, floods, endless progress, a modern-era server, …), written
//!   with plain tokio and serde_json so that no SDK tidies up the bytes. Tests spawn it through
//!   [`bin_path`] and [`StdioMode::args`]; the same servers also run in-process over any pipes with
//!   [`run_stdio_on`].
//! - **HTTP**: [`serve_http`] / [`HttpFixture`] serve one [`HttpMode`] (500s, HTML, expiring
//!   sessions, redirects, SSE that drops and resumes, 401, the deprecated HTTP+SSE transport, a
//!   server that never sends headers) on a loopback listener, with [`HttpStats`] counting what
//!   arrived.
//! - **OAuth**: [`OAuthFixture`] is an authorization server and the MCP server it protects, with
//!   knobs for expiring refresh tokens, revoked clients, a slow token endpoint and a login page on
//!   another host ([`OAuthOptions`]), and [`OAuthStats`] counting grants.
//!
//! ```no_run
//! # async fn f() -> mcpscope_testkit::Result<()> {
//! use mcpscope_testkit::{HttpFixture, HttpMode, StdioMode};
//!
//! // A stdio server that prints noise before every response:
//! let mut child = StdioMode::Garbage.command()?.spawn()?;
//!
//! // An HTTP server whose sessions expire after two requests:
//! let http = HttpFixture::spawn(HttpMode::SessionExpiring { requests_per_session: 2 }).await?;
//! println!("connect to {}", http.entry_url());
//! # drop(child); Ok(()) }
//! ```

mod bin;
mod error;
mod http;
mod jsonrpc;
mod oauth;
mod stdio;

pub use bin::{BIN_ENV, BIN_NAME, bin_path};
pub use error::{Error, Result};
pub use http::{HttpFixture, HttpFlaw, HttpMode, HttpStats, serve_http, serve_http_with_stats};
pub use oauth::{OAuthFixture, OAuthOptions, OAuthStats};
pub use stdio::{
    Flaw, GARBAGE_NOISE, JUNK_LINE, LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, ModernFlaw,
    STRAY_ID, StdioMode, TERMINAL_ESCAPES, run_stdio, run_stdio_on,
};
