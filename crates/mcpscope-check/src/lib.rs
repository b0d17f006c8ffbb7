//! `mcpscope check`: a verdict on any MCP server for its author's CI. It connects in every era
//! the server offers, runs every check of the catalogue that applies to that server — judged on
//! the server's own tools, prompts and resources, never on a fixture's — and reports each as pass,
//! warn, fail or skipped (always saying why), with the frames that prove it and a command that
//! reproduces it.
//!
//! - [`catalog`]: every check once, with its spec sentence (`docs/checks.md` is its copy).
//! - [`run`]: the eras, the sessions, the run's timeout; `checks/`: one file per area.
//! - [`verdict`]: what a check concludes; [`report`]: text, JSON and JUnit; [`baseline`]: the
//!   expected failures.

pub mod baseline;
pub mod catalog;
mod checks;
mod probe;
mod raw_http;
mod recorder;
pub mod report;
pub mod run;
pub mod verdict;

pub use run::{Options, Report, RunError, run};
