//! Property and fuzz tests for what in `mcpscope-proto` reads bytes a server controls: the
//! JSON-RPC classifier, the `Mcp-Param-*` encoder and decoder and `x-mcp-header` walk, the schema
//! → form model and the validator, and the schema lint. A panic, a hang or growth past a stated
//! bound fails. Case counts, time bounds and the hang watchdog are the `mcpscope-fuzz` runner's;
//! the long run is `python3 bench/fuzz.py`.

mod form;
mod generate;
mod headers;
mod jsonrpc;
mod lint;
