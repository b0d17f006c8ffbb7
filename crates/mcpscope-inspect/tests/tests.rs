//! The mcpscope-inspect crate's one integration-test binary: the core on its own, against the
//! real demo server, with no HTTP server in between.

mod typescript;

// Shared: an Inspector in a temp directory over the demo server (Streamable HTTP), both eras.
mod inspector;
// A list's pages as a view asks for them: the first, after a cursor, all under the list key.
mod pages;
// Reading traffic back: pages across the window/SQLite boundary, a frame's whole body.
mod traffic;
// The log level in both eras: logging/setLevel (legacy) or _meta on every request (modern).
mod log_level;
// Server questions as pending interactions: answered by a view, declined, timed out, abandoned.
mod interactions;
// A connection, a call with progress on the bus, its history entry read back after a restart.
mod lifecycle;
// One number per frame from the engine to the view: warnings name the frame the traffic shows.
mod numbering;
// The Experimental panel: messages sent by hand (enveloped or raw) and advertised capabilities.
mod experimental;
// Tasks in both eras: run as a task and followed to its result, cancelled, an unknown id.
mod tasks;
// Tasks from a hostile server: never ending, going back, absurd poll intervals, 10,000 listed.
mod hostile_tasks;
// A hostile server's questions: an unknown method, 1,000 at once, a late answer, an empty round.
mod hostile_interactions;
// Requests of several questions: input_required rounds (one with three keys), -32042, Replay.
mod rounds;
// Testing Profiles answering the demo's sample tool: auto-respond, delay, reject, pre-fill, restart.
mod profiles;
// The Roots editor: edited roots listed by the demo in both eras, list_changed, bad URIs, mcp.json.
mod roots;
// The Subscriptions panel: a modern stream opened, updated, closed gracefully vs dropped,
// cancelled, re-listened; legacy subscribe/unsubscribe.
mod subscriptions;
// Import server.json's value verification against a scripted npm/PyPI registry and remotes.
mod registry_verify;
