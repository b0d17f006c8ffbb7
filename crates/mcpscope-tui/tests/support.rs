//! What the tests share: server cards as the core sends them, a state built from them by the
//! real reducer, and a state drawn into a `TestBackend` as plain lines (styles dropped, so a
//! snapshot reads like the terminal).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_tui::msg::{CoreEvent, Effect, Msg};
use mcpscope_tui::state::AppState;
use mcpscope_tui::update::update;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

/// A fixed clock: snapshots must not move.
pub(crate) const NOW_US: u64 = 1_780_000_000_000_000;

/// The two sizes every screen is drawn at.
pub(crate) const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// A server card (`ServerView`) as the core publishes it.
pub(crate) fn card(name: &str, status: &str, era: Option<&str>) -> Value {
    json!({
        "name": name,
        "entry": {"command": "mcpscope", "args": ["demo-server"]},
        "transport": "stdio",
        "target": "mcpscope demo-server",
        "status": status,
        "error": null,
        "latencyMs": if status == "connected" { json!(3) } else { Value::Null },
        "era": era,
        "protocolVersion": era.map(|e| if e == "modern" { "2026-07-28" } else { "2025-11-25" }),
    })
}

/// What the demo server declares (both eras), as a connected row's capabilities.
pub(crate) fn demo_capabilities() -> Value {
    json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true},
        "prompts": {}, "completions": {}, "logging": {}})
}

/// A state over `cards` at `size`, colours off (snapshots are text); a connected server has
/// declared what the demo server declares (as read at connect).
pub(crate) fn state(cards: &[Value], size: (u16, u16)) -> AppState {
    let mut s = AppState::new(cards, size, false);
    s.now_us = NOW_US;
    for row in s.servers.iter_mut().filter(|r| r.connected()) {
        row.capabilities = Some(demo_capabilities());
    }
    s
}

/// The server `name` declared `capabilities` (its info read at connect, through the reducer).
pub(crate) fn declare(s: &mut AppState, name: &str, capabilities: Value) -> Vec<Effect> {
    send(
        s,
        Msg::Done(mcpscope_tui::msg::Done {
            route: mcpscope_tui::msg::Route::app(name, "capabilities"),
            result: Ok(json!({"capabilities": capabilities})),
            was_call: false,
        }),
    )
}

/// Apply `msg` through the real reducer.
pub(crate) fn send(s: &mut AppState, msg: Msg) -> Vec<Effect> {
    update(s, msg, NOW_US)
}

/// Press `code`.
pub(crate) fn press(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    send(s, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

/// Type each character of `text`.
pub(crate) fn type_text(s: &mut AppState, text: &str) {
    for c in text.chars() {
        press(s, KeyCode::Char(c));
    }
}

/// A core event.
pub(crate) fn core(s: &mut AppState, name: &str, data: Value) -> Vec<Effect> {
    send(
        s,
        Msg::Core(CoreEvent {
            name: name.into(),
            data,
        }),
    )
}

/// The screen as text, one line per row, trailing spaces cut.
pub(crate) fn draw(s: &AppState) -> String {
    let backend = TestBackend::new(s.size.0, s.size.1);
    let mut t = Terminal::new(backend).expect("test terminal");
    t.draw(|f| mcpscope_tui::render::render(s, f))
        .expect("draw");
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A mouse event of `kind` at (`col`, `row`) of the open tab's body (0, 0: its top left).
pub(crate) fn mouse_at(
    s: &mut AppState,
    kind: crossterm::event::MouseEventKind,
    col: u16,
    row: u16,
) -> Vec<Effect> {
    let body = mcpscope_tui::render::layout(s.size).body;
    send(
        s,
        Msg::Mouse(crossterm::event::MouseEvent {
            kind,
            column: body.x + col,
            row: body.y + row,
            modifiers: KeyModifiers::NONE,
        }),
    )
}

/// A left click at (`col`, `row`) of the open tab's body.
pub(crate) fn click(s: &mut AppState, col: u16, row: u16) -> Vec<Effect> {
    let kind = crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left);
    mouse_at(s, kind, col, row)
}

/// The line of the screen drawn at `row` of the open tab's body.
pub(crate) fn body_line(s: &AppState, row: u16) -> String {
    let body = mcpscope_tui::render::layout(s.size).body;
    draw(s)
        .lines()
        .nth((body.y + row) as usize)
        .unwrap_or_default()
        .to_string()
}
