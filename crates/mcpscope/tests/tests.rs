//! The mcpscope crate's one integration-test binary: the real `mcpscope` executable driven the
//! way users and CI drive it, against real servers. One binary, so cargo links once and the
//! test harness schedules every module's tests together.

// The CLI against the testkit's misbehaving servers; shared plumbing first.
mod misbehaving_support;
// stdio: noise, silence, early exits, wrong version, phantom capabilities, 100 MB, 1,000 tools,
// 100,000 notifications, unterminated last line, stderr chatter, request timeout.
mod misbehaving_stdio;
// Progress resetting the request timeout, and Ctrl-C (SIGINT) cancelling without orphans.
mod misbehaving_signals;
// HTTP fixtures: 500, HTML, expiring sessions, redirects, SSE resume, 401, HTTP+SSE, no headers.
mod misbehaving_http;
// Eras: the modern fixture pinned and auto-detected, input_required rounds, legacy fallback.
mod misbehaving_era;
// Lists that never end on their own: a repeated cursor, more pages than the engine walks.
mod misbehaving_pagination;
// `mcpscope check` for CI: clean real servers (exact warnings, JUnit read back), the testkit's
// flawed server failing one check per flaw, baselines, --strict, exits 3 and 4, --timeout.
mod check;

// The CLI against the built-in demo server, both eras × stdio, Streamable HTTP and HTTP+SSE;
// shared plumbing first.
mod demo_harness;
// tools/list and tools/call: every content type, isError and unknown tools, --format json.
mod demo_tools;
// What goes on the wire: the modern _meta envelope and Mcp-* headers, legacy sessions, HTTP+SSE.
mod demo_frames;
// Resources (pagination, templates, subscribe, listen), prompts and completion.
mod demo_resources;
// Elicitation, sampling and roots: legacy server→client requests, modern input_required rounds.
mod demo_interaction;
// ping, logging, progress, tasks, arbitrary methods, --lint, and `mcpscope demo-server`.
mod demo_utilities;
// MCP Apps in the CLI: --app-info (exit 2 without an app), NDJSON for tools/list, --advertise-apps
// and the visibility rule; the npm example app servers (peers_apps).
mod apps;
mod peers_apps;
// OAuth against the testkit's authorization server: login, storage, refresh, revocation, limits.
mod oauth;
// OAuth against the Python SDK's and FastMCP's own authorization servers (testenv/peers/python).
mod oauth_python;
// Real peers from npm (testenv/install.sh): server-everything and a TypeScript SDK v2 server.
mod peers_everything;
// server-everything's sampling tool answered by Testing Profiles through the inspector core.
mod peers_everything_profiles;
// server-everything's resources/subscribe in the Subscriptions panel (legacy), through the core.
mod peers_everything_subscriptions;
mod peers_support;
mod peers_ts_sdk;
// The TypeScript SDK v1 over all its transports; server-filesystem (roots) and server-memory.
mod peers_npm_servers;
mod peers_tool_lint;
// server-filesystem answered from configured roots: --config, and the core following an edit.
mod peers_filesystem_roots;
mod peers_ts_sdk_v1;
// Python peers (testenv/peers/python): the SDK's MCPServer and low-level Server, and FastMCP,
// over stdio, Streamable HTTP (stateful/stateless × SSE/JSON) and HTTP+SSE, both eras.
mod peers_fastmcp;
mod peers_python;
// The web UI as `mcpscope` starts it: token URL, seeded demo catalog, a call over stdio, pins
// across a process restart, the refused wildcard bind, a read-only --config.
mod web_ui;
// `mcpscope gateway` as started: the printed token URL, a relay to the demo server over HTTP,
// a method refused, no single-user route, a bad gateways file naming its line.
mod gateway_mode;
// The stand-in gateway (testenv/peers/gateway-standin.py: FastMCP mounting 002's two demo
// backends on the Python SDK) through the CLI — both eras, Auto, HTTPS with a private CA, a bearer
// — and through `mcpscope gateway`'s relay.
mod gateway_standin;
// --trace: redaction of credentials and secret-store values, --trace-secrets, and a trace that
// survives SIGTERM and SIGKILL.
mod trace;
// A private CA (MCPSCOPE_EXTRA_CA_CERTS) and a forward proxy (HTTPS_PROXY, NO_PROXY), made here.
mod network;
// One catalog parser: an odd VS Code settings.json gives the same entry in the CLI and the web UI.
mod catalog_dialects;
// --config honours the entry's roots (both eras, stdio and HTTP); --root wins; a bad root refused.
mod config_roots;
// `mcpscope --tui` in a real terminal (tmux): the journeys asserted on captured screens; the
// harness (own tmux server, fixed size, own data dir, wait-for-screen) first.
mod tui_tmux;
mod tui_tmux_support;
// `mcpscope check` on Streamable HTTP servers: the demo, the testkit's conforming server and each of
// its flaws, the Python SDK, FastMCP and the TypeScript SDK (the http checks, issue 26).
mod check_http;
// `mcpscope check` on protected servers: the authorization checks without credentials (exit 3
// after reporting them), each testkit flaw failing its own check, a login, the Python servers.
mod check_auth;
// `mcpscope check` and the official conformance suite on one requirement both make: an empty
// contents for a missing resource (SEP-2164) fails both; bench/agreement.py compares the rest.
mod check_agreement;
// `mcpscope check`'s 2026-07-28 specifics and conduct checks: the demo (with its own rounds, logs
// and slow tool), the Python SDK and FastMCP, and each flaw of the testkit's flawed-modern and
// flawed servers failing its own check.
mod check_modern;
