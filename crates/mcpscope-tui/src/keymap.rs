//! The app's own keys, as data: what each does, in which focus, with its help line. A tab's keys
//! are its own (`Tab::bindings`); the app asks the focused tab first, unless it is a modal's turn.
//! The letters follow the official Inspector's TUI (`c`, `i a r m t p n o`, `q`); the tabs it
//! lacks take letters no tab uses (`k` tasks, `s` subscriptions, `l` logs, `h` history).

use crate::tabs::{Binding, TabId};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What an app key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Global {
    /// Leave (asking first while something runs).
    Quit,
    /// Leave at once (Ctrl-C).
    QuitNow,
    /// The key help.
    Help,
    /// Connect the selected server, or disconnect it.
    Connect,
    /// Open a tab.
    Tab(TabId),
    /// The next tab.
    NextTab,
    /// The previous tab.
    PrevTab,
    /// Move the keyboard between the server list and the tab.
    SwitchFocus,
    /// Cycle the era: Auto → 2026-07-28 → 2025-11-25 (reconnects).
    CycleEra,
    /// Open the oldest question a server waits on.
    Interactions,
    /// Hide the server list, the tab taking the whole width; and back.
    Zoom,
    /// Up the server list.
    Up,
    /// Down the server list.
    Down,
    /// Into the tab (connecting when disconnected).
    Enter,
}

/// One app key.
struct Key {
    code: KeyCode,
    ctrl: bool,
    action: Global,
}

const fn key(code: KeyCode, action: Global) -> Key {
    Key {
        code,
        ctrl: false,
        action,
    }
}

/// The app's keys in every focus.
const KEYS: &[Key] = &[
    Key {
        code: KeyCode::Char('c'),
        ctrl: true,
        action: Global::QuitNow,
    },
    key(KeyCode::Char('q'), Global::Quit),
    key(KeyCode::Char('?'), Global::Help),
    key(KeyCode::Char('c'), Global::Connect),
    key(KeyCode::Char('e'), Global::CycleEra),
    key(KeyCode::Char('!'), Global::Interactions),
    key(KeyCode::Char('+'), Global::Zoom),
    key(KeyCode::Tab, Global::SwitchFocus),
    key(KeyCode::BackTab, Global::SwitchFocus),
    key(KeyCode::Char(']'), Global::NextTab),
    key(KeyCode::Char('['), Global::PrevTab),
];

/// Keys only the server list has.
const LIST_KEYS: &[Key] = &[
    key(KeyCode::Up, Global::Up),
    key(KeyCode::Down, Global::Down),
    key(KeyCode::Enter, Global::Enter),
    key(KeyCode::Right, Global::Enter),
];

/// The app's action for `k`, given where the keyboard is. A tab's letter keys work from both.
pub fn global(k: KeyEvent, in_list: bool) -> Option<Global> {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let table = KEYS
        .iter()
        .chain(if in_list { LIST_KEYS } else { &[] }.iter());
    for b in table {
        if b.code == k.code && b.ctrl == ctrl {
            return Some(b.action);
        }
    }
    match k.code {
        KeyCode::Char(c) if !ctrl => TabId::for_key(c).map(Global::Tab),
        _ => None,
    }
}

/// The app's keys for the `?` screen.
pub const HELP: &[Binding] = &[
    Binding {
        keys: "↑ ↓  Enter",
        what: "choose a server, open it (connects it)",
    },
    Binding {
        keys: "c",
        what: "connect / disconnect the selected server",
    },
    Binding {
        keys: "e",
        what: "era: Auto → 2026-07-28 → 2025-11-25 (reconnects)",
    },
    Binding {
        keys: "i a r m t",
        what: "Info, Auth, Resources, Prompts, Tools",
    },
    Binding {
        keys: "k s l",
        what: "Tasks, Subscriptions, Logs",
    },
    Binding {
        keys: "p n o h",
        what: "Protocol, Network, Console (stderr), History",
    },
    Binding {
        keys: "[  ]",
        what: "previous / next tab",
    },
    Binding {
        keys: "Tab",
        what: "move between the server list and the tab",
    },
    Binding {
        keys: "+",
        what: "zoom: hide the server list (the tab takes the width), and back",
    },
    Binding {
        keys: "/",
        what: "search the focused list",
    },
    Binding {
        keys: "Enter  Esc",
        what: "open, go back",
    },
    Binding {
        keys: "!",
        what: "answer the server's waiting question",
    },
    Binding {
        keys: "?",
        what: "this help",
    },
    Binding {
        keys: "q  Ctrl-C",
        what: "quit (q asks first while a call runs)",
    },
];

/// The keys of the server's questions (elicitation, sampling, roots, URL), for the `?` screen:
/// a dialog takes typed characters, so its own line shows the first few and this lists them all.
pub const DIALOG_HELP: &[Binding] = &[
    Binding {
        keys: "Enter  ^S",
        what: "form: accept (Enter closes an open list of choices first; ^S in the JSON editor)",
    },
    Binding {
        keys: "^D  d  Esc",
        what: "decline (d in roots and URL questions), cancel (the server is told which)",
    },
    Binding {
        keys: "Tab  ↑ ↓",
        what: "form: next / previous field",
    },
    Binding {
        keys: "type",
        what: "form: edits the text or number field in focus",
    },
    Binding {
        keys: "Space  ← →",
        what: "form: next choice; on a list Space opens it, ticks, Enter closes",
    },
    Binding {
        keys: "Del",
        what: "form: unset an optional field",
    },
    Binding {
        keys: "^T",
        what: "form: edit the answer as JSON, and back",
    },
    Binding {
        keys: "^S  ^P  ^F",
        what: "sampling: send, a Testing Profile answers, fills the reply",
    },
    Binding {
        keys: "Enter  e",
        what: "roots: send them, edit them (^S sends the edited list)",
    },
    Binding {
        keys: "o  y  a",
        what: "URL: open in the browser, copy (OSC 52), accept",
    },
    Binding {
        keys: "PgUp  PgDn",
        what: "scroll a long question (↑ ↓ where it has no fields)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn k(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn tab_letters_do_not_clash_with_app_keys() {
        for t in TabId::ALL {
            assert_eq!(global(k(t.key()), false), Some(Global::Tab(t)), "{t:?}");
        }
        let mut letters: Vec<char> = TabId::ALL.iter().map(|t| t.key()).collect();
        letters.extend(['q', 'c', 'e', '?', '!', '[', ']', '+']);
        let n = letters.len();
        letters.sort();
        letters.dedup();
        assert_eq!(letters.len(), n, "two actions share a key");
    }
}
