//! The mcpscope-inspect crate's one integration-test binary: the core on its own, against the
//! real demo server, with no HTTP server in between.

mod typescript;
