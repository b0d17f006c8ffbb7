//! The testkit's one integration-test binary: each fixture checked against its documentation at
//! the byte level, through the real binary (stdio) or a real socket (HTTP).

// Drives the `mcpscope-testkit` binary over pipes, one test per stdio mode.
mod stdio;
// Speaks raw HTTP/1.1 to each HTTP mode, so nothing between the test and the bytes is lenient.
mod http;
// The OAuth fixture: the code flow with PKCE, and what it refuses.
mod oauth;
// Spawning, line reading with timeouts, and a tiny HTTP client shared by both.
mod support;
