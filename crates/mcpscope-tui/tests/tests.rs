//! The terminal UI's one test binary. Each module is one area; snapshots (insta) of the drawn
//! screens live in `snapshots/`, at 80×24 and 160×45.

/// Builders of states and the drawing of a state into a `TestBackend` as text.
#[allow(dead_code)] // each module uses what it needs of it
mod support;

/// The frame around every tab: header, tab bar, server list, footer, help, quit.
mod screens;

/// Answering the server: the interaction modals (elicitation form and URL, sampling, roots,
/// other), their answers, and the demo server getting them.
mod interactions;

/// The Resources tab: lists, search, template forms with completion, reads, subscriptions.
mod resources;

/// The Prompts tab: list, search, the argument form with completion, the messages.
mod prompts;

/// The traffic tabs: Protocol (rows, filters, follow, pairs, detail, pager, the bound, 100,000
/// frames, the demo server's frames), and the Network, Console and Logs tabs.
mod protocol;

/// The Tools tab: list with badges, search, the form, a run with progress and cancel, the
/// outcomes, and the demo server called through the form.
mod tools;

/// Images in a tool's result: drawn as halfblocks, described under NO_COLOR, hostile ones
/// refused with the reason.
mod images;

/// The schema form widget: every field kind, validation, arrays, JSON mode both ways.
mod form;

/// The real core under the tests: an Inspector over the demo server, effects performed on it.
#[allow(dead_code)] // each module uses what it needs of it
mod real_core;

/// History: list, detail, search, this/all, pin, replay, live rows, paging; against the demo.
mod history;

/// Tasks: the core's tasks with progress, detail, cancel, tasks/list, events.
mod tasks;

/// Subscriptions: the core's panel, events, filter toggles, listen again, cancel, bounds.
mod subscriptions;

/// Auth: the OAuth state, a login's URL opened, copied and shown, re-authorize, forget.
mod auth;

/// Issue 24's leftovers: the long error in the pager, Protocol's filter words, label counts,
/// completion and subscribe as declared, a tool form typed into at once, results per tool.
mod leftovers;
