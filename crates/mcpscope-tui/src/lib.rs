//! mcpscope-tui: the terminal UI (`mcpscope --tui`) over the inspector core.
//!
//! Layered as `../docs/architecture.md` says: one [`state::AppState`]; a pure reducer
//! (`update.rs`: a message → the new state and the [`msg::Effect`]s to perform); pure drawing
//! (`render/`, each tab's `render`); and a thin loop (`app.rs`) that reads the keyboard, the mouse
//! and the core's event bus, performs effects on the [`mcpscope_inspect::Inspector`]
//! (`effects.rs`) and redraws. No protocol logic lives here: every request goes through the core
//! and the engine, so it shows in Protocol and History like the web UI's.

pub mod app;
pub mod effects;
pub mod keymap;
pub mod modals;
pub mod msg;
pub mod render;
pub mod state;
pub mod strings;
pub mod tabs;
pub mod update;
pub mod widgets;

use futures::StreamExt;
use mcpscope_inspect::Inspector;
use std::sync::Arc;

/// How to start the terminal UI.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Connect this server at start (the ad-hoc server of `mcpscope --tui COMMAND`).
    pub connect: Option<String>,
    /// The catalog file shown in Info (`None`: ad hoc).
    pub catalog: Option<String>,
}

/// The real terminal's host: OSC 52 for the clipboard, the system browser for URLs.
struct TerminalHost {
    /// Why an OSC 52 copy would not reach the clipboard (tmux not letting it through), found
    /// once at start.
    clipboard_blocked: Option<String>,
}

impl app::Host for TerminalHost {
    fn copy(&mut self, text: &str) -> Result<(), String> {
        use base64::Engine;
        use std::io::Write;
        if let Some(why) = &self.clipboard_blocked {
            return Err(why.clone());
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        let mut out = std::io::stdout();
        let _ = write!(out, "\x1b]52;c;{b64}\x07");
        let _ = out.flush();
        Ok(())
    }
    fn open_url(&mut self, url: &str) -> Result<(), String> {
        webbrowser::open(url).map_err(|e| e.to_string())
    }
}

/// Why an OSC 52 copy would not arrive, if we can tell: inside tmux (`TMUX` set) whose
/// `set-clipboard` is not `on` (its default, `external`, drops what applications send).
fn clipboard_blocked() -> Option<String> {
    std::env::var_os("TMUX")?;
    let out = std::process::Command::new("tmux")
        .args(["show-options", "-gv", "set-clipboard"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let value = String::from_utf8_lossy(&out.stdout).trim().to_string();
    // Short: the footer says it after the file's name, at 80 columns too.
    (out.status.success() && value != "on")
        .then(|| "tmux drops copies (set -g set-clipboard on)".to_string())
}

/// Take over the terminal and run until the user quits; the terminal is given back as it was,
/// also on a panic. Every connection is closed before this returns.
pub async fn run(inspector: Arc<Inspector>, opts: TuiOptions) -> std::io::Result<()> {
    use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, EventStream};
    let servers = inspector.servers().await;
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut terminal = ratatui::try_init()?;
    let _ = crossterm::execute!(std::io::stdout(), EnableMouseCapture);
    // Before input is read: a `query` there writes to the terminal and reads its answer.
    widgets::image::init(widgets::image::at_start(color));
    let size = terminal.size()?;
    let mut state = state::AppState::new(&servers, (size.width, size.height), color);
    state.catalog = opts.catalog.clone();
    let input = EventStream::new().filter_map(|e| async move {
        match e {
            Ok(Event::Key(k)) => Some(msg::Msg::Key(k)),
            Ok(Event::Mouse(m)) => Some(msg::Msg::Mouse(m)),
            Ok(Event::Resize(w, h)) => Some(msg::Msg::Resize(w, h)),
            _ => None,
        }
    });
    if let Some(name) = &opts.connect {
        let i = inspector.clone();
        let name = name.clone();
        tokio::spawn(async move { i.connect(&name, None).await });
        state.focus = state::Focus::Tab;
    }
    let result = app::run(
        &mut terminal,
        inspector.clone(),
        state,
        Box::pin(input),
        &mut TerminalHost {
            clipboard_blocked: clipboard_blocked(),
        },
    )
    .await;
    let _ = crossterm::execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    inspector.shutdown().await;
    result.map(|_| ())
}
