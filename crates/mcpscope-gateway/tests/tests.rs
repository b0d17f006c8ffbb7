//! The gateway mode's tests: the router over real TCP against fake MCP gateways that record
#![allow(missing_docs)]
//! what they received (`support.rs`).

mod config_file;
mod relay;
mod schema;
mod sessions;
mod support;
mod team;
