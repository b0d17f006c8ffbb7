//! The crate's one error type: what can go wrong while preparing a fixture (never while a fixture
//! misbehaves on purpose — that is its job, not an error).

use std::io;

/// A fixture could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Binding a listener, spawning a process or talking to cargo failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// `cargo build` of the `mcpscope-testkit` binary failed or named no executable.
    #[error(
        "could not build the mcpscope-testkit binary: {0}\n\nset MCPSCOPE_TESTKIT_BIN to a built binary to skip the build"
    )]
    Build(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
