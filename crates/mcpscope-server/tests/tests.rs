//! The mcpscope-server crate's one integration-test binary: a real backend on a loopback port,
//! driven over HTTP with reqwest, against the real demo server.

// A backend in a temp directory, the demo over Streamable HTTP, an API client, event collection.
mod support;
// The attacks (no token, wrong token, foreign Origin, rebinding Host, cross-site) and the launch URL.
mod security;
// Catalog and imports; connect, lists, progress and cancel, history, pins across a restart,
// header verdicts, frame paging, event replay.
mod api;
// The real world: one Content-Type rule, duplicate guarded headers, wrong tokens slowed, no open
// redirect, JSON errors everywhere, catalog edits that keep a text editor's changes.
mod hardening;
// OAuth: the login in the browser, the callback, step-up, Re-authorize, Forget, redaction.
mod oauth;
// OAuth against the Python SDK's own authorization server (testenv/peers/python), and no loop.
mod oauth_python;
// Secret header and env values: never in frames, history, SQLite (file and WAL) or exports.
mod secrets_redaction;
// POST /api/form with a recursive fan-out schema: answered with the cut, the backend stays up.
mod form_budget;
// One error-code table: a refused input_required round is input_refused, as in the CLI.
mod error_codes;
// One pagination: a repeated cursor named in the /list answer and a warning event.
mod pagination;
// The pending-interaction queue over the API: list, accept, decline, a closed id, the guards.
mod interactions;
// A JSON body of the wrong shape is 400 `usage` naming the field, on every route; malformed 400.
mod body_shape;
// The Experimental panel: a message sent by hand (request, notification, raw), client capabilities.
mod experimental;
// Tasks: run as a task and followed to its result, cancelled, unknown ids, bad bodies.
mod tasks;
// Testing Profiles: made, chosen and answering the demo's sample tool; pre-fill; rename, delete.
mod profiles;
// The Roots editor: roots saved, listed by the demo in both eras, list_changed to legacy; bad bodies.
mod roots;
// Tool quality findings: a `lint` beside each tools/list answer; a bad-tools stdio server, the demo.
mod tool_lint;
// The Subscriptions panel's routes: a modern stream and its events, cancel; legacy subscribe; bad bodies.
mod subscriptions;
// MCP Apps: advertised and switched off, app tools, a checked UI resource, visibility refused both
// ways, app frames recorded and bounded, the sandbox listener's page and 404s.
mod apps;
// Real peers (testenv/peers): the TypeScript SDK v1 refusing a 2026-07-28 connect names the era;
// FastMCP (no resources.subscribe) is not sent resources/subscribe.
mod peers;
// The listener: slowloris and idle keep-alive closed, the event stream outlives the timeouts, the
// connection cap makes room for the UI, HTTPS (Secure cookie, https origin, certificate reload).
mod listen;
