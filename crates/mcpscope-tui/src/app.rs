//! The loop: wait for a key, the mouse, a resize, the core's events or an effect's answer; apply
//! each to the state (`update.rs`); perform what it asks (`effects.rs`); redraw. Generic over
//! ratatui's `Backend` and over where input comes from, so tests drive it with a `TestBackend`
//! and a channel, and `mcpscope --tui` with crossterm.

use crate::msg::{CoreEvent, Effect, Msg};
use crate::state::AppState;
use crate::{effects, render, update};
use futures::{Stream, StreamExt};
use mcpscope_inspect::Inspector;
use ratatui::Terminal;
use ratatui::backend::Backend;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Events read from the bus per wake-up before the screen is drawn again: a flooding server
/// cannot keep the keyboard waiting for long.
const EVENTS_PER_DRAW: usize = 2_000;

/// The file a copy is written to when the clipboard cannot be reached (in the working
/// directory, where `w` saves too).
pub const CLIPBOARD_FILE: &str = "mcpscope-clipboard.txt";

/// What the loop does with the terminal-side effects.
pub trait Host {
    /// Put `text` on the clipboard (OSC 52 on a real terminal); `Err` says why it would not
    /// arrive (the loop then writes it to [`CLIPBOARD_FILE`]).
    fn copy(&mut self, text: &str) -> Result<(), String>;
    /// Open `url` in a browser; `Err` says why not.
    fn open_url(&mut self, url: &str) -> Result<(), String>;
}

/// A host that does nothing (tests).
#[derive(Debug, Default)]
pub struct NoHost {
    /// What was copied, last first.
    pub copied: Vec<String>,
    /// What was opened.
    pub opened: Vec<String>,
}

impl Host for NoHost {
    fn copy(&mut self, text: &str) -> Result<(), String> {
        self.copied.push(text.to_string());
        Ok(())
    }
    fn open_url(&mut self, url: &str) -> Result<(), String> {
        self.opened.push(url.to_string());
        Ok(())
    }
}

/// Now, in µs since the Unix epoch.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// Run until the user quits; the state as it was at the end.
pub async fn run<B, I, H>(
    terminal: &mut Terminal<B>,
    inspector: Arc<Inspector>,
    mut state: AppState,
    mut input: I,
    host: &mut H,
) -> std::io::Result<AppState>
where
    B: Backend,
    I: Stream<Item = Msg> + Unpin,
    H: Host,
    std::io::Error: From<B::Error>,
{
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Msg>();
    let bus = inspector.events().clone();
    let mut latest = bus.subscribe();
    let mut next_event = 1u64;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    for i in inspector.interactions() {
        if let Ok(v) = serde_json::to_value(&i) {
            let m = Msg::Core(CoreEvent {
                name: "interactionOpened".into(),
                data: v,
            });
            let effects = update::update(&mut state, m, now_us());
            start(&inspector, effects, &tx, host, &mut state);
        }
    }
    let first = update::started(&state);
    start(&inspector, first, &tx, host, &mut state);
    terminal.draw(|f| render::render(&state, f))?;
    loop {
        let mut msgs = Vec::new();
        tokio::select! {
            m = input.next() => match m {
                Some(m) => msgs.push(m),
                None => break,
            },
            Some(m) = rx.recv() => msgs.push(m),
            changed = latest.changed() => {
                if changed.is_err() || bus.is_closed() {
                    break;
                }
            }
            _ = tick.tick() => msgs.push(Msg::Tick),
        }
        while let Ok(m) = rx.try_recv() {
            msgs.push(m);
        }
        let (events, lost) = bus.since(next_event, EVENTS_PER_DRAW);
        if lost > 0 {
            state.toast(
                format!("{lost} events were lost in a flood: lists may be behind; reopen the tab"),
                true,
            );
        }
        for e in &events {
            next_event = e.id + 1;
            if let Ok(data) = serde_json::from_str(&e.data) {
                msgs.push(Msg::Core(CoreEvent {
                    name: e.name.to_string(),
                    data,
                }));
            }
        }
        if events.len() == EVENTS_PER_DRAW {
            // More are waiting: come round again at once rather than on the next publish.
            latest.mark_changed();
        }
        for m in msgs {
            let effects = update::update(&mut state, m, now_us());
            start(&inspector, effects, &tx, host, &mut state);
        }
        if state.quit {
            break;
        }
        terminal.draw(|f| render::render(&state, f))?;
    }
    Ok(state)
}

/// Perform `effects`; the terminal-side ones here.
fn start<H: Host>(
    inspector: &Arc<Inspector>,
    effects: Vec<Effect>,
    tx: &tokio::sync::mpsc::UnboundedSender<Msg>,
    host: &mut H,
    state: &mut AppState,
) {
    for e in effects {
        match e {
            Effect::Quit => state.quit = true,
            Effect::Copy(text) => match host.copy(&text) {
                Ok(()) => state.toast(
                    format!("copied {} bytes to the clipboard", text.len()),
                    false,
                ),
                Err(why) => {
                    let server = state.current().map(|r| r.name.clone()).unwrap_or_default();
                    let save = Effect::SaveFile {
                        route: crate::msg::Route {
                            key: why,
                            ..crate::msg::Route::app(&server, "copy")
                        },
                        path: CLIPBOARD_FILE.to_string(),
                        bytes: text.into_bytes(),
                    };
                    effects::perform(inspector, save, tx);
                }
            },
            // Every URL the TUI opens came from a server (a login, a URL elicitation): the one
            // rule decides before the host hands it to `$BROWSER` / `xdg-open`.
            Effect::OpenUrl(url) => match mcpscope_proto::openable::openable(&url) {
                Err(why) => state.toast(format!("not opened ({why}): {url}"), true),
                Ok(_) => match host.open_url(&url) {
                    Ok(()) => state.toast(format!("opened {url}"), false),
                    Err(why) => state.toast(format!("cannot open a browser ({why}): {url}"), true),
                },
            },
            other => effects::perform(inspector, other, tx),
        }
    }
}
