//! `mcpscope --tui` in a real terminal (tmux, `tui_tmux_support`): the journeys a user makes,
//! asserted on captured screens. The seeded catalog's demo server connected with `c`; the demo
//! ad hoc in both eras (`--demo --protocol-era modern|legacy`), one of them at 80×24;
//! server-everything (a server not built by us) ad hoc; Info naming the server, `?` help, a
//! resize that still draws, the mouse on the tab bar, `NO_COLOR`, and quitting with the terminal
//! given back.

use crate::peers_support::{EVERYTHING, Peers};
use crate::tui_tmux_support::{Start, Tui, framed, sets_colour, sgr_params};

/// Every line of `screen` fits in `columns` (tmux cuts trailing spaces).
fn fits(screen: &str, columns: usize) -> bool {
    screen.lines().all(|l| l.chars().count() <= columns)
}

/// The seeded catalog (the demo server), connected with `c`; Info names the server; `?` lists
/// the keys and Esc closes it; the terminal shrunk to 80×24 and grown to 160×45 is drawn again
/// at each size; `q` quits and the shell gets its terminal back.
#[test]
fn catalog_connect_info_help_resize_quit() {
    let Some(t) = Tui::start("catalog_connect_info_help_resize_quit", Start::new(&[])) else {
        return;
    };
    t.wait_for(&["Servers (1)", "demo", "disconnected"]);
    t.keys(&["c"]);
    t.wait_for(&["● connected", "2026-07-28"]);
    t.keys(&["i"]);
    t.wait_for(&["Info", "mcpscope-demo", "Capabilities", "modern"]);
    t.keys(&["?"]);
    t.wait_for(&["Keys", "this help", "connect / disconnect"]);
    t.keys(&["Escape"]);
    t.wait_gone("this help");
    t.resize(80, 24);
    let small = t.wait("the frame redrawn at 80×24", |s| {
        s.lines().count() == 24 && fits(s, 80) && s.contains("mcpscope-demo")
    });
    assert!(small.contains("demo"), "{}", framed(&small));
    t.resize(160, 45);
    t.wait("the frame redrawn at 160×45", |s| {
        s.lines().count() == 45
            && s.lines().any(|l| l.chars().count() > 120)
            && s.contains("mcpscope-demo")
    });
    t.quit();
}

/// The demo ad hoc in the legacy era at 80×24 (the smallest size the TUI promises): it connects
/// at once, the header says 2025-11-25, Info says how the era was decided; `q` quits.
#[test]
fn demo_legacy_at_80x24() {
    let how = Start::new(&["--demo", "--protocol-era", "legacy"]).size(80, 24);
    let Some(t) = Tui::start("demo_legacy_at_80x24", how) else {
        return;
    };
    let s = t.wait_for(&["● connected", "2025-11-25"]);
    assert!(fits(&s, 80), "{}", framed(&s));
    t.keys(&["i"]);
    let s = t.wait_for(&["mcpscope-demo", "legacy"]);
    assert!(fits(&s, 80) && s.lines().count() == 24, "{}", framed(&s));
    t.quit();
}

/// The demo ad hoc in the modern era: 2026-07-28 in the header and in Info.
#[test]
fn demo_modern() {
    let how = Start::new(&["--demo", "--protocol-era", "modern"]);
    let Some(t) = Tui::start("demo_modern", how) else {
        return;
    };
    t.wait_for(&["● connected", "2026-07-28"]);
    t.keys(&["i"]);
    t.wait_for(&["mcpscope-demo", "modern", "2026-07-28"]);
    t.quit();
}

/// A click on the tab bar's "Info" opens Info (the TUI asked the terminal for mouse reports);
/// the wheel over it scrolls its JSON.
#[test]
fn mouse_opens_a_tab_and_scrolls() {
    let Some(t) = Tui::start("mouse_opens_a_tab_and_scrolls", Start::new(&["--demo"])) else {
        return;
    };
    let s = t.wait_for(&["● connected", "Info"]);
    let (row, line) = s
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("Info") && l.contains("History"))
        .expect("the tab bar");
    let column = line.find("Info").expect("Info in the tab bar");
    let column = line[..column].chars().count() as u16;
    t.click(column + 1, row as u16);
    let s = t.wait_for(&["mcpscope-demo", "Capabilities", "\"serverInfo\""]);
    // The wheel scrolls Info's JSON (its summary lines above it stay).
    let row_of = |s: &str| s.lines().position(|l| l.contains("\"serverInfo\""));
    let before = row_of(&s).expect("serverInfo in Info");
    for _ in 0..3 {
        t.wheel(60, before as u16, true);
    }
    t.wait(&format!("Info's JSON scrolled up from row {before}"), |s| {
        row_of(s).is_none_or(|r| r < before)
    });
    t.quit();
}

/// Colours by default; with `NO_COLOR` none at all (bold and reverse still mark things).
#[test]
fn no_color_draws_without_colours() {
    let Some(t) = Tui::start("no_color (colour run)", Start::new(&["--demo"])) else {
        return;
    };
    t.wait_for(&["● connected"]);
    let coloured = sgr_params(&t.screen_ansi());
    assert!(
        sets_colour(&coloured),
        "the default run should draw some colour (SGR {coloured:?})"
    );
    t.quit();
    drop(t);

    let Some(t) = Tui::start("no_color", Start::new(&["--demo"]).no_color()) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["?"]);
    t.wait_for(&["this help"]);
    let ansi = t.screen_ansi();
    let params = sgr_params(&ansi);
    assert!(
        !sets_colour(&params),
        "NO_COLOR set, yet a colour was drawn (SGR {params:?}):\n{ansi}"
    );
    assert!(
        params.iter().any(|p| matches!(p, 1 | 4 | 7)),
        "NO_COLOR still marks things with bold, underline or reverse (SGR {params:?})"
    );
    t.keys(&["Escape"]);
    t.wait_gone("this help");
    t.quit();
}

/// server-everything (the official TypeScript reference server, stdio, 2025-11-25) ad hoc, as a
/// user runs `mcpscope --tui node …/index.js stdio`: connected, Info names it, `q` quits.
#[test]
fn everything_connects_and_quits() {
    let Some(peers) = Peers::get("everything_connects_and_quits") else {
        return;
    };
    let cmd = peers.node_stdio(EVERYTHING, &[], &["stdio"]);
    let at = cmd.iter().position(|a| a == "--").expect("--") + 1;
    let args: Vec<&str> = cmd[at..].iter().map(String::as_str).collect();
    let Some(t) = Tui::start("everything_connects_and_quits", Start::new(&args)) else {
        return;
    };
    t.wait_for(&["● connected", "2025-11-25"]);
    t.keys(&["i"]);
    t.wait_for(&["everything", "Capabilities", "legacy"]);
    t.quit();
}
