//! Finding the `mcpscope-testkit` binary from another crate's tests.
//!
//! Cargo only hands `CARGO_BIN_EXE_*` to the tests of the crate that owns the binary, so other
//! crates ask [`bin_path`]: it builds the binary once per test process with the same cargo and
//! target directory and takes the executable's path from cargo's own JSON messages (no guessing
//! at `target/debug`).

use crate::{Error, Result};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The binary's name, as cargo builds it.
pub const BIN_NAME: &str = "mcpscope-testkit";

/// Environment variable that, when set, names a ready binary and skips the build (CI can build
/// once and point every job at it).
pub const BIN_ENV: &str = "MCPSCOPE_TESTKIT_BIN";

/// Path to an up-to-date `mcpscope-testkit` binary.
///
/// Uses [`BIN_ENV`] when set; otherwise runs `cargo build --bin mcpscope-testkit` once per process
/// (a no-op when nothing changed) and returns the executable cargo reports.
///
/// ```no_run
/// let bin = mcpscope_testkit::bin_path()?;
/// let args = mcpscope_testkit::StdioMode::Silent.args();
/// let child = std::process::Command::new(bin).args(args).spawn()?;
/// # drop(child); Ok::<(), mcpscope_testkit::Error>(())
/// ```
pub fn bin_path() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(BIN_ENV) {
        return Ok(PathBuf::from(path));
    }
    // The build is cached per process: every test calling this must not each pay for cargo's
    // start-up, and a failure is reported identically to all of them.
    static BUILT: OnceLock<std::result::Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(build).clone().map_err(Error::Build)
}

fn build() -> std::result::Result<PathBuf, String> {
    // Prefer the cargo that is running the tests, so toolchain and target dir match.
    let cargo = std::env::var_os("CARGO")
        .or_else(|| option_env!("CARGO").map(OsString::from))
        .unwrap_or_else(|| OsString::from("cargo"));
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = Command::new(&cargo)
        .args([
            "build",
            // Status lines would clutter every test's output; errors still show.
            "--quiet",
            "--message-format=json-render-diagnostics",
            "--bin",
            BIN_NAME,
        ])
        .arg("--manifest-path")
        .arg(manifest)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running {}: {e}", cargo.to_string_lossy()))?;
    if !output.status.success() {
        return Err(format!("cargo build exited with {}", output.status));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == BIN_NAME)
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo reported no executable for mcpscope-testkit".to_owned())
}
