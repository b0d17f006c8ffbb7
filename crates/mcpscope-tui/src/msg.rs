//! What flows through the loop: [`Msg`] in (keys, mouse, the core's events, the answers to
//! effects) and [`Effect`] out (what the reducer asks the core to do). The reducer never does I/O;
//! the loop performs each effect (`effects.rs`) and feeds its answer back as [`Msg::Done`].

use crate::tabs::TabId;
use crossterm::event::{KeyEvent, MouseEvent};
use mcpscope_inspect::{Answer, Call};
use mcpscope_store::HistoryQuery;
use serde_json::Value;

/// Everything that can change the state.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// A mouse click or scroll.
    Mouse(MouseEvent),
    /// The terminal was resized to (columns, rows).
    Resize(u16, u16),
    /// An event of the core's bus: its name (`frame`, `status`, …) and body.
    Core(CoreEvent),
    /// The answer to an effect, routed back to whoever asked.
    Done(Done),
    /// About four times a second: elapsed times and deadlines move on.
    Tick,
}

/// One event of the core's bus ([`mcpscope_inspect::Event`]), as the web UI gets it.
#[derive(Debug, Clone)]
pub struct CoreEvent {
    /// The event's name.
    pub name: String,
    /// Its body.
    pub data: Value,
}

/// Who asked for an effect's answer: a tab and what the tab meant by it (`tag`, and `key` to tell
/// two answers of one kind apart, e.g. the tool a call was for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The server the effect was for.
    pub server: String,
    /// The tab that asked (`None`: the app itself).
    pub tab: Option<TabId>,
    /// What the tab asked for.
    pub tag: &'static str,
    /// Which one.
    pub key: String,
}

impl Route {
    /// A route to `tab` of `server`.
    pub fn new(server: &str, tab: TabId, tag: &'static str, key: impl Into<String>) -> Route {
        Route {
            server: server.to_string(),
            tab: Some(tab),
            tag,
            key: key.into(),
        }
    }

    /// A route to the app itself (connect, disconnect, …).
    pub fn app(server: &str, tag: &'static str) -> Route {
        Route {
            server: server.to_string(),
            tab: None,
            tag,
            key: String::new(),
        }
    }
}

/// The answer to an effect.
#[derive(Debug, Clone)]
pub struct Done {
    /// Who asked.
    pub route: Route,
    /// The core's answer as the web API would give it, or why there is none.
    pub result: Result<Value, Failure>,
    /// It answers an [`Effect::Call`] (the count of calls running goes down).
    pub was_call: bool,
}

/// Why an effect failed: the core's error code and message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The error code (`timeout`, `unreachable`, …).
    pub code: String,
    /// What went wrong, in words.
    pub message: String,
    /// The whole error object (`{code, message, rpcCode?, data?, …}`).
    pub body: Value,
}

impl Failure {
    /// The failure of a core error.
    pub fn of(e: &mcpscope_inspect::Error) -> Failure {
        Failure {
            code: e.code.code().to_string(),
            message: e.message.clone(),
            body: e.body(),
        }
    }
}

/// The future a [`Job`] makes: the core's answer.
pub type JobFuture = futures::future::BoxFuture<'static, Result<Value, mcpscope_inspect::Error>>;

/// A core command as a tab writes it: given the inspector, a future of its answer.
#[derive(Clone)]
pub struct Job(
    pub  std::sync::Arc<
        dyn Fn(std::sync::Arc<mcpscope_inspect::Inspector>) -> JobFuture + Send + Sync,
    >,
);

impl Job {
    /// A job from an async closure over the inspector.
    pub fn new<F, Fut>(f: F) -> Job
    where
        F: Fn(std::sync::Arc<mcpscope_inspect::Inspector>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Value, mcpscope_inspect::Error>> + Send + 'static,
    {
        Job(std::sync::Arc::new(move |i| Box::pin(f(i))))
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

/// What the reducer asks the loop to do. Each one that answers comes back as [`Msg::Done`] with
/// its route.
// Every `route` is who asks (and which server); the other fields are named in their variant's
// line, so they are not documented one by one.
#[allow(missing_docs)]
#[derive(Debug, Clone)]
pub enum Effect {
    /// Connect a server (an era to force, else the catalog's).
    Connect { route: Route, era: Option<String> },
    /// Disconnect it.
    Disconnect { route: Route },
    /// Switch its protocol era (`auto`, `2026-07-28`, `2025-11-25`): reconnects it.
    SetEra { route: Route, era: String },
    /// Its server info (`Inspector::server_info`).
    ServerInfo { route: Route },
    /// Send a request through the engine (`Inspector::call`). Answers
    /// `{historyId, result | error, lint?, pagination?}`.
    Call { route: Route, call: Call },
    /// Cancel the request the view called `request_id`.
    Cancel { request_id: String },
    /// Answer a server's question.
    Answer { id: u64, answer: Answer },
    /// Answer it with the server's Testing Profile.
    AnswerWithProfile { id: u64 },
    /// Set the server's log level (`logging/setLevel` or `_meta`, as its era says).
    SetLogLevel { route: Route, level: String },
    /// A frame's whole body (`Inspector::frame_body`).
    FrameBody { route: Route, seq: u64 },
    /// Frames older than the ones held (`Inspector::frames`).
    Frames {
        route: Route,
        before: Option<u64>,
        limit: usize,
    },
    /// A page of the history (`Inspector::history`).
    History { route: Route, query: HistoryQuery },
    /// One history entry with its children and frames.
    HistoryEntry { route: Route, id: i64 },
    /// Pin (with a label) or unpin a history entry.
    Pin {
        route: Route,
        id: i64,
        pin: Option<String>,
    },
    /// Any other core command, written by the tab that wants it (so this enum does not grow
    /// one variant per screen); answered like the others. The reducer only describes it: the
    /// loop runs it.
    Run { route: Route, job: Job },
    /// Put text on the terminal's clipboard (OSC 52: works over SSH).
    Copy(String),
    /// Open a URL in the browser (or say it cannot be).
    OpenUrl(String),
    /// Write bytes to a file; answers `{path, bytes}`.
    SaveFile {
        route: Route,
        path: String,
        bytes: Vec<u8>,
    },
    /// Leave: disconnect everything and restore the terminal.
    Quit,
    /// Open `tab` of the current server on `item` (a resource URI, a history id, a tool
    /// name): the reducer keeps this one and calls the tab's `goto`.
    Goto { tab: TabId, item: String },
    /// Say something in the footer (the reducer keeps this one).
    Toast { text: String, error: bool },
    /// Show text in the pager modal (the reducer keeps this one).
    ShowPager(crate::widgets::pager::Pager),
}
