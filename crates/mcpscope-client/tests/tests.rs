//! The session engine's one integration-test binary: a real `Session` against the testkit's real
//! stdio servers, with a view's `Responder` and `Observer` as the CLI or web UI would give it.

// Shared plumbing: spawning a testkit mode, an observer that keeps every frame and warning.
mod support;
// Server→client requests: the answer is on the wire before `close()` ends the connection.
mod server_requests;
// Pagination: a repeated cursor and the page limit, named, with every item kept.
mod pagination;
// Answers that do not parse (too deep, not UTF-8) fail their request at once.
mod unreadable;
