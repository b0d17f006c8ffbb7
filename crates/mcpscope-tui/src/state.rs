//! The one state of the terminal UI: the servers, which one and which tab has the keyboard, each
//! server's tabs, the questions servers are waiting on, the modal on top, the toast. Changed only
//! by `update.rs`; drawn by `render/`.

use crate::modals::Modal;
use crate::tabs::{TabId, Tabs};
use serde_json::Value;
use std::collections::BTreeMap;

/// Characters kept of a server's error (the pager shows it whole up to this).
const MAX_ERROR_CHARS: usize = 16_384;

/// A server of the list, as its `status` events describe it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerRow {
    /// Its name in the catalog.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The command line or URL.
    pub target: String,
    /// `disconnected`, `connecting`, `connected` or `failed`.
    pub status: String,
    /// Why the last connection failed.
    pub error: Option<String>,
    /// The last ping's round trip.
    pub latency_ms: Option<u64>,
    /// The era while connected (`2026-07-28`, `2025-11-25`).
    pub era: Option<String>,
    /// The era asked for (`auto` or a revision): the catalog entry's `protocolEra`.
    pub era_choice: String,
    /// The negotiated protocol version.
    pub protocol_version: Option<String>,
    /// The catalog entry's `roots` (`[{uri, name?}]`, or null): what a roots dialog offers.
    pub roots: Value,
    /// The capabilities the server declared on this connection, once read (`None`: not
    /// connected, or not read yet). What the tabs offer follows them: no `completion/complete`
    /// without `completions`, no subscribe without `resources.subscribe`.
    pub capabilities: Option<Value>,
}

impl ServerRow {
    /// A row from a server card (`ServerView`).
    pub fn from_view(v: &Value) -> ServerRow {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        ServerRow {
            name: s("name").unwrap_or_default(),
            transport: s("transport").unwrap_or_default(),
            target: s("target").unwrap_or_default(),
            status: s("status").unwrap_or_else(|| "disconnected".into()),
            error: v.get("error").and_then(|e| {
                e.get("message")
                    .or(Some(e))
                    .and_then(Value::as_str)
                    // A server's stderr may be in it: the terminal rule, bounded.
                    .map(|m| {
                        mcpscope_proto::terminal::clean(
                            &crate::strings::era_advice_for_tui(m),
                            MAX_ERROR_CHARS,
                        )
                    })
            }),
            latency_ms: v.get("latencyMs").and_then(Value::as_u64),
            era: s("era"),
            era_choice: match v.pointer("/entry/protocolEra").and_then(Value::as_str) {
                Some("modern" | "2026-07-28") => "2026-07-28",
                Some("legacy" | "2025-11-25") => "2025-11-25",
                _ => "auto",
            }
            .to_string(),
            protocol_version: s("protocolVersion"),
            roots: v.pointer("/entry/roots").cloned().unwrap_or(Value::Null),
            capabilities: None,
        }
    }

    /// True when the server declared the capability at `pointer` (`/completions`,
    /// `/resources/subscribe`): present, and neither null nor false.
    pub fn declares(&self, pointer: &str) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.pointer(pointer))
            .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
    }

    /// True while connected.
    pub fn connected(&self) -> bool {
        self.status == "connected"
    }
}

/// Where the keyboard is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The server list (the start).
    #[default]
    Servers,
    /// The open tab.
    Tab,
}

/// A line at the bottom that says what just happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toast {
    /// The text.
    pub text: String,
    /// An error (drawn red).
    pub error: bool,
    /// When it goes (µs since the epoch).
    pub until_us: u64,
}

/// The whole state.
#[derive(Debug, Default)]
pub struct AppState {
    /// The servers, in catalog order.
    pub servers: Vec<ServerRow>,
    /// The server list's cursor.
    pub selected: usize,
    /// Each server's tabs, by name.
    pub tabs: BTreeMap<String, Tabs>,
    /// The open tab.
    pub tab: TabId,
    /// Where the keyboard is.
    pub focus: Focus,
    /// The modal on top, if any.
    pub modal: Option<Modal>,
    /// Questions servers wait on (`Interaction` bodies), oldest first.
    pub interactions: Vec<Value>,
    /// Which of our calls in flight caused which question (a cancelled call dismisses them).
    pub causes: crate::modals::interaction::causes::Causes,
    /// Calls in flight (quitting asks first while there are any).
    pub running: usize,
    /// The line at the bottom.
    pub toast: Option<Toast>,
    /// The terminal's size (columns, rows).
    pub size: (u16, u16),
    /// Colours allowed (`NO_COLOR` unset).
    pub color: bool,
    /// Now (µs since the epoch), from the last message: rendering stays pure.
    pub now_us: u64,
    /// Set when the user asked to leave.
    pub quit: bool,
    /// The catalog file, for the Info line (`None`: an ad-hoc server).
    pub catalog: Option<String>,
    /// The server list is hidden and the tab takes the whole width (`+`).
    pub zoomed: bool,
}

impl AppState {
    /// A state for `servers` (server cards) on a terminal of `size`.
    pub fn new(servers: &[Value], size: (u16, u16), color: bool) -> AppState {
        let mut s = AppState {
            size,
            color,
            ..AppState::default()
        };
        s.set_servers(servers);
        s
    }

    /// Replace the server list (a `catalog` event), keeping the cursor on the same name.
    pub fn set_servers(&mut self, servers: &[Value]) {
        let current = self.current().map(|r| r.name.clone());
        let old = std::mem::take(&mut self.servers);
        self.servers = servers.iter().map(ServerRow::from_view).collect();
        // A connection's capabilities stay while it does (a catalog event is not a reconnect).
        for row in self.servers.iter_mut().filter(|r| r.connected()) {
            row.capabilities = old
                .iter()
                .find(|o| o.name == row.name && o.connected())
                .and_then(|o| o.capabilities.clone());
        }
        for row in &self.servers {
            self.tabs.entry(row.name.clone()).or_default();
        }
        let names: Vec<&str> = self.servers.iter().map(|r| r.name.as_str()).collect();
        self.tabs.retain(|n, _| names.contains(&n.as_str()));
        self.selected = current
            .and_then(|c| self.servers.iter().position(|r| r.name == c))
            .unwrap_or(0)
            .min(self.servers.len().saturating_sub(1));
    }

    /// The selected server.
    pub fn current(&self) -> Option<&ServerRow> {
        self.servers.get(self.selected)
    }

    /// The row named `name`.
    pub fn row_mut(&mut self, name: &str) -> Option<&mut ServerRow> {
        self.servers.iter_mut().find(|r| r.name == name)
    }

    /// Show `text` at the bottom for a few seconds.
    pub fn toast(&mut self, text: impl Into<String>, error: bool) {
        self.toast = Some(Toast {
            text: text.into(),
            error,
            until_us: self.now_us + if error { 8_000_000 } else { 4_000_000 },
        });
    }
}
