//! The Console tab: stderr lines (and the transport's lifecycle notes, dimmed) as the core's
//! `stderr-line` frames bring them; the filter, follow, the bound, the whole line in the pager.

use super::{frames, with_frames};
use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::Effect;
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::console::{Console, MAX_LINES};
use serde_json::{Value, json};

/// A `stderr-line` frame as the core sends it.
fn stderr(seq: u64, text: &str) -> Value {
    json!({"seq": seq, "server": "demo", "timeUs": NOW_US - 4_000_000 + seq * 1_000,
        "direction": "in", "kind": "stderr-line", "source": "stderr", "meta": {},
        "message": null, "method": null, "id": null, "durationMs": null, "lint": null,
        "headers": null, "text": text, "base64": null, "size": text.len(), "truncated": false})
}

fn console(s: &AppState) -> &Console {
    &s.tabs["demo"].console
}

fn open(size: (u16, u16)) -> AppState {
    let mut all = frames("stdio");
    all.push(stderr(7, "demo-server: listening on stdio"));
    all.push(stderr(8, "warning: slow tool called with a 10 s delay"));
    all.push(stderr(
        9,
        "Traceback (most recent call last):\tat line 3\x1b[2J",
    ));
    let mut exit = all[0].clone();
    exit["seq"] = json!(10);
    exit["meta"] = json!({"note": "process exited with status 1"});
    all.push(exit);
    let mut s = with_frames(size, "stdio", &all);
    press(&mut s, KeyCode::Char('o'));
    s
}

#[test]
fn stderr_lines_and_lifecycle_notes() {
    let s = open((80, 24));
    assert_eq!(console(&s).len(), 5, "the spawn, three lines, the exit");
    for size in SIZES {
        let screen = draw(&open(size));
        assert!(
            !screen.contains('\x1b'),
            "control characters never reach the terminal"
        );
        insta::assert_snapshot!(format!("console_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn filter_follow_pager_and_bound() {
    let mut s = open((80, 24));
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "WARNING");
    assert_eq!(console(&s).shown(), 1);
    press(&mut s, KeyCode::Enter);
    let e = press(&mut s, KeyCode::Enter);
    assert!(
        matches!(&e[..], [Effect::FrameBody { seq: 8, .. }]),
        "{e:?}"
    );
    press(&mut s, KeyCode::Esc);
    assert_eq!(console(&s).shown(), 5);
    press(&mut s, KeyCode::Up);
    core(&mut s, "frame", stderr(11, "later"));
    assert_eq!(console(&s).selected().map(|l| l.seq), Some(9), "paused");
    press(&mut s, KeyCode::End);
    assert_eq!(console(&s).selected().map(|l| l.seq), Some(11));
    for seq in 12..12 + MAX_LINES as u64 {
        core(&mut s, "frame", stderr(seq, &"x".repeat(5_000)));
    }
    assert_eq!(console(&s).len(), MAX_LINES);
    let l = console(&s).selected().expect("a line");
    assert!(l.text.chars().count() <= mcpscope_tui::tabs::console::LINE_CHARS + 1);
}
