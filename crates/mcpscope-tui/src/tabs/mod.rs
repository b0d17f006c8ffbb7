//! The tabs of a server, each a [`Tab`]: its own state, what its keys do, what it makes of the
//! core's events and of the answers to what it asked, and how it draws. A tab never does I/O: it
//! returns [`Effect`]s. This file says which tabs exist, their keys and titles, and dispatches.

use crate::msg::{CoreEvent, Done, Effect};
use crate::state::ServerRow;
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use serde_json::Value;

pub mod auth;
pub mod console;
pub mod history;
pub mod info;
pub mod logs;
pub mod network;
pub mod prompts;
pub mod protocol;
pub mod resources;
pub mod subscriptions;
pub mod tasks;
pub mod tools;

/// A server's tabs, in the order the tab bar shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TabId {
    /// Capabilities, instructions, how the era was decided.
    Info,
    /// The OAuth state.
    Auth,
    /// Resources and templates.
    Resources,
    /// Prompts.
    Prompts,
    /// Tools (the tab a server opens on).
    #[default]
    Tools,
    /// Tasks.
    Tasks,
    /// Subscriptions.
    Subscriptions,
    /// `notifications/message`.
    Logs,
    /// Every frame.
    Protocol,
    /// HTTP exchanges.
    Network,
    /// The server's stderr.
    Console,
    /// The history of requests.
    History,
}

impl TabId {
    /// Every tab, in tab-bar order.
    pub const ALL: [TabId; 12] = [
        TabId::Info,
        TabId::Auth,
        TabId::Resources,
        TabId::Prompts,
        TabId::Tools,
        TabId::Tasks,
        TabId::Subscriptions,
        TabId::Logs,
        TabId::Protocol,
        TabId::Network,
        TabId::Console,
        TabId::History,
    ];

    /// The key that opens it (the official Inspector's TUI for the first eight).
    pub fn key(self) -> char {
        match self {
            TabId::Info => 'i',
            TabId::Auth => 'a',
            TabId::Resources => 'r',
            TabId::Prompts => 'm',
            TabId::Tools => 't',
            TabId::Protocol => 'p',
            TabId::Network => 'n',
            TabId::Console => 'o',
            TabId::Tasks => 'k',
            TabId::Subscriptions => 's',
            TabId::Logs => 'l',
            TabId::History => 'h',
        }
    }

    /// Its title in the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            TabId::Info => "Info",
            TabId::Auth => "Auth",
            TabId::Resources => "Resources",
            TabId::Prompts => "Prompts",
            TabId::Tools => "Tools",
            TabId::Tasks => "Tasks",
            TabId::Subscriptions => "Subscriptions",
            TabId::Logs => "Logs",
            TabId::Protocol => "Protocol",
            TabId::Network => "Network",
            TabId::Console => "Console",
            TabId::History => "History",
        }
    }

    /// The tab whose key is `c`, if any.
    pub fn for_key(c: char) -> Option<TabId> {
        TabId::ALL.into_iter().find(|t| t.key() == c)
    }
}

/// What a tab sees of the rest of the app while it acts or draws.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The server the tab belongs to.
    pub server: &'a ServerRow,
    /// Now, in µs since the Unix epoch (from the last tick: render stays pure).
    pub now_us: u64,
    /// Colours allowed (`NO_COLOR` unset).
    pub color: bool,
    /// True when the tab has the keyboard (not the server list).
    pub focused: bool,
    /// Where the tab is drawn (the body of the last layout): a list sizes its page and keeps
    /// its scroll stable by it, in `key` as in `render`.
    pub area: Rect,
}

/// What a tab made of a key.
#[derive(Debug, Default)]
pub enum Handled {
    /// Not its key: the app's keymap may have it.
    #[default]
    No,
    /// Taken, with what to do.
    Yes(Vec<Effect>),
}

impl Handled {
    /// Taken, nothing to do.
    pub fn done() -> Handled {
        Handled::Yes(Vec::new())
    }
}

/// One line of the `?` screen and the footer: keys and what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// The keys, as shown (`Enter`, `/`, `Ctrl-x`).
    pub keys: &'static str,
    /// What they do.
    pub what: &'static str,
}

/// The footer while a list's `/` search box has the keyboard: letters go into the box, so the
/// list's own keys would mislead (and a journey can see when the box has let go).
pub const SEARCH_KEYS: &[Binding] = &[
    Binding {
        keys: "Enter",
        what: "keep the filter",
    },
    Binding {
        keys: "Esc",
        what: "clear the search",
    },
    Binding {
        keys: "←→ Home End",
        what: "move in the text",
    },
];

/// A tab's footer keys: [`SEARCH_KEYS`] while its search box is `typing`, else its own `keys`.
pub fn or_search_keys(typing: bool, keys: &'static [Binding]) -> &'static [Binding] {
    if typing { SEARCH_KEYS } else { keys }
}

/// A server's tab. Every method but `render` has a default that does nothing, so a tab says only
/// what it does.
pub trait Tab {
    /// True while a text field has the keyboard: the app's own letter keys are then typed into
    /// it (only `Ctrl-C` and the modal keys stay the app's).
    fn captures(&self) -> bool {
        false
    }
    /// A key, while the tab has the keyboard (the app asks the tab first).
    fn key(&mut self, _ctx: &Ctx, _key: KeyEvent) -> Handled {
        Handled::No
    }
    /// The mouse wheel over the tab (`down` away from the top): what it asks for (the next
    /// page of a list scrolled past its end).
    fn scroll(&mut self, _ctx: &Ctx, _down: bool) -> Vec<Effect> {
        Vec::new()
    }
    /// A click at column `col` of line `row` of the tab's area (0, 0 = its top left): a list
    /// selects the row drawn there.
    fn click(&mut self, _ctx: &Ctx, _col: u16, _row: u16) -> Vec<Effect> {
        Vec::new()
    }
    /// The terminal was resized (`ctx.area` is the new body): what was made for the old size
    /// may be asked again (a picture).
    fn resized(&mut self, _ctx: &Ctx) -> Vec<Effect> {
        Vec::new()
    }
    /// The tab was opened (or its server connected while it was open): load what it shows.
    fn entered(&mut self, _ctx: &Ctx) -> Vec<Effect> {
        Vec::new()
    }
    /// An event of the core about this tab's server.
    fn core(&mut self, _ctx: &Ctx, _event: &CoreEvent) -> Vec<Effect> {
        Vec::new()
    }
    /// The answer to an effect this tab asked for.
    fn done(&mut self, _ctx: &Ctx, _done: Done) -> Vec<Effect> {
        Vec::new()
    }
    /// Another tab sent the user here, to `item` (a resource URI, a history id, …).
    fn goto(&mut self, _ctx: &Ctx, _item: &str) -> Vec<Effect> {
        Vec::new()
    }
    /// The server's era changed or it disconnected: forget its lists (not its logs).
    fn reset(&mut self) {}
    /// Its keys, for `?` and the footer.
    fn bindings(&self) -> &'static [Binding] {
        &[]
    }
    /// How many items it lists, for its label in the tab bar (`None`: not a list, or not
    /// listed yet).
    fn count(&self) -> Option<usize> {
        None
    }
    /// True when more exist than [`Tab::count`] counts (History's older pages, frames
    /// dropped past a bound): the label says `N+`.
    fn count_partial(&self) -> bool {
        false
    }
    /// Draw it into `area`.
    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect);
}

/// Every tab of one server.
#[derive(Debug, Default)]
pub struct Tabs {
    /// Info.
    pub info: info::Info,
    /// Auth.
    pub auth: auth::Auth,
    /// Resources.
    pub resources: resources::Resources,
    /// Prompts.
    pub prompts: prompts::Prompts,
    /// Tools.
    pub tools: tools::Tools,
    /// Tasks.
    pub tasks: tasks::Tasks,
    /// Subscriptions.
    pub subscriptions: subscriptions::Subscriptions,
    /// Logs.
    pub logs: logs::Logs,
    /// Protocol.
    pub protocol: protocol::Protocol,
    /// Network.
    pub network: network::Network,
    /// Console.
    pub console: console::Console,
    /// History.
    pub history: history::History,
}

impl Tabs {
    /// The tab `id`.
    pub fn get(&self, id: TabId) -> &dyn Tab {
        match id {
            TabId::Info => &self.info,
            TabId::Auth => &self.auth,
            TabId::Resources => &self.resources,
            TabId::Prompts => &self.prompts,
            TabId::Tools => &self.tools,
            TabId::Tasks => &self.tasks,
            TabId::Subscriptions => &self.subscriptions,
            TabId::Logs => &self.logs,
            TabId::Protocol => &self.protocol,
            TabId::Network => &self.network,
            TabId::Console => &self.console,
            TabId::History => &self.history,
        }
    }

    /// The tab `id`, to change.
    pub fn get_mut(&mut self, id: TabId) -> &mut dyn Tab {
        match id {
            TabId::Info => &mut self.info,
            TabId::Auth => &mut self.auth,
            TabId::Resources => &mut self.resources,
            TabId::Prompts => &mut self.prompts,
            TabId::Tools => &mut self.tools,
            TabId::Tasks => &mut self.tasks,
            TabId::Subscriptions => &mut self.subscriptions,
            TabId::Logs => &mut self.logs,
            TabId::Protocol => &mut self.protocol,
            TabId::Network => &mut self.network,
            TabId::Console => &mut self.console,
            TabId::History => &mut self.history,
        }
    }
}

/// `v[key]` as text, or "".
pub fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}
