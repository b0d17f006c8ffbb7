//! The Logs tab: `log` events (`LogEvent`) coloured by level, the text and lowest-level filters,
//! follow, the bound, and the level key sending `SetLogLevel` through the core.

use super::with_frames;
use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::{Done, Effect, Msg};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::logs::{Logs, MAX_ENTRIES};
use serde_json::{Value, json};

/// A `log` event as the core sends it.
fn log(n: u64, level: &str, logger: Option<&str>, data: Value) -> Value {
    json!({"server": "demo", "level": level, "logger": logger, "data": data,
        "historyId": if n.is_multiple_of(2) { json!(n) } else { Value::Null },
        "timeUs": NOW_US - 3_000_000 + n * 250_000})
}

fn logs(s: &AppState) -> &Logs {
    &s.tabs["demo"].logs
}

fn open(size: (u16, u16)) -> AppState {
    let mut s = with_frames(size, "stdio", &[]);
    press(&mut s, KeyCode::Char('l'));
    let events = [
        log(1, "debug", Some("demo"), json!("tick 1")),
        log(2, "info", Some("tools"), json!("echo called")),
        log(3, "notice", None, json!({"counter": 3})),
        log(4, "warning", Some("slow"), json!("the call took 2 s")),
        log(5, "error", Some("weather"), json!("no such city: Atlantis")),
        log(6, "emergency", None, json!("disk on fire\nreally")),
    ];
    for e in events {
        core(&mut s, "log", e);
    }
    s
}

#[test]
fn entries_by_level() {
    assert_eq!(logs(&open((80, 24))).len(), 6);
    for size in SIZES {
        insta::assert_snapshot!(format!("logs_{}x{}", size.0, size.1), draw(&open(size)));
    }
}

#[test]
fn the_filters_and_the_bound() {
    let mut s = open((80, 24));
    press(&mut s, KeyCode::Char('f'));
    press(&mut s, KeyCode::Char('f'));
    press(&mut s, KeyCode::Char('f'));
    assert_eq!(logs(&s).shown(), 3, "warning and above");
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "atlantis");
    assert_eq!(logs(&s).shown(), 1);
    press(&mut s, KeyCode::Enter);
    insta::assert_snapshot!("logs_filtered_80x24", draw(&s));
    press(&mut s, KeyCode::Esc);
    assert_eq!(logs(&s).shown(), 6);
    for n in 0..MAX_ENTRIES as u64 {
        core(
            &mut s,
            "log",
            log(n, "info", None, json!("y".repeat(10_000))),
        );
    }
    assert_eq!(logs(&s).len(), MAX_ENTRIES);
}

#[test]
fn v_sets_the_servers_level_through_the_core() {
    let mut s = open((80, 24));
    let e = press(&mut s, KeyCode::Char('v'));
    let Some(Effect::SetLogLevel { route, level }) = e.first() else {
        panic!("{e:?}");
    };
    assert_eq!(
        level, "debug",
        "from no level, v starts at the most verbose"
    );
    send(
        &mut s,
        Msg::Done(Done {
            route: route.clone(),
            result: Ok(json!({"level": "debug", "applied": "logging/setLevel", "result": {}})),
            was_call: false,
        }),
    );
    assert_eq!(logs(&s).level(), Some("debug"));
    assert!(
        s.toast
            .as_ref()
            .is_some_and(|t| t.text.contains("logging/setLevel"))
    );
    let e = press(&mut s, KeyCode::Char('v'));
    assert!(matches!(&e[..], [Effect::SetLogLevel { level, .. }] if level == "info"));
    let mut off = state(&[card("demo", "disconnected", None)], (80, 24));
    press(&mut off, KeyCode::Char('l'));
    assert!(
        press(&mut off, KeyCode::Char('v')).is_empty(),
        "not connected: said"
    );
}
