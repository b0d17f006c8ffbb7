//! Property and fuzz tests for what in `mcpscope-proto` reads bytes a server controls: the
//! JSON-RPC classifier, the `Mcp-Param-*` encoder and decoder and `x-mcp-header` walk, the schema
//! → form model and the validator, and the schema lint. A panic, a hang or growth past a stated
//! bound fails. Case counts and time: see `budget.rs`; the long run is `bench/fuzz.sh`.

mod budget;
mod form;
mod generate;
mod headers;
mod jsonrpc;
mod lint;
