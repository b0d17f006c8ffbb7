//! `mcpscope --tui` in a real terminal (tmux, `tui_tmux_support`): the journeys a user makes,
//! asserted on captured screens. The issue's journey (a tool searched and called through its
//! form, progress then cancel, an elicitation and a sampling request answered, a resource read
//! through a template with completion, a prompt, the calls in History, quit) against the demo in
//! both eras and at 80×24, and against server-everything (a server not built by us). Around it:
//! the seeded catalog connected with `c`, Info naming the server, `?` help, a resize that still
//! draws, the mouse on the tab bar, `NO_COLOR`, `q` asking first while a call runs, and quitting
//! with the terminal given back. Then the era key cycling on a connected server, Protocol's
//! filter and pager, the Logs level, a tool run as a task in the Tasks tab, the Auth tab of a
//! server without OAuth, a tool's image drawn as halfblocks, and mouse clicks on list rows. And
//! the Auth tab against the Python SDK's OAuth server: a login through the loopback callback,
//! Re-authorize, Forget.

use crate::peers_support::{EVERYTHING, Peers};
use crate::tui_tmux_support::{Start, Tui, framed, sets_colour, sgr_params};

/// Every line of `screen` fits in `columns` (tmux cuts trailing spaces).
fn fits(screen: &str, columns: usize) -> bool {
    screen.lines().all(|l| l.chars().count() <= columns)
}

/// The seeded catalog (the demo server), connected with `c`: the keyboard goes to the Tools tab
/// (its search takes `/`), the footer says where the keys go; Tab gives them to the server
/// list, whose footer offers to disconnect. Info names the server; `?` lists
/// the keys and Esc closes it; the terminal shrunk to 80×24 and grown to 160×45 is drawn again
/// at each size; `q` quits and the shell gets its terminal back.
#[test]
fn catalog_connect_info_help_resize_quit() {
    let Some(t) = Tui::start("catalog_connect_info_help_resize_quit", Start::new(&[])) else {
        return;
    };
    t.wait_for(&[
        "Servers (1)",
        "demo",
        "disconnected",
        "Servers │",
        "c connect",
    ]);
    t.keys(&["c"]);
    t.wait_for(&["● connected", "2026-07-28"]);
    // The keyboard follows what is shown: the Tools tab, its list, its search (the footer
    // says so), not the server list (where `s` `a` `m` `p` would switch tabs).
    tools_listed(&t);
    t.wait_for(&["Tools │"]);
    t.keys(&["/"]);
    t.type_text("samp");
    t.wait_for(&["/samp", " shown", "Tools │ Enter keep the filter"]);
    t.keys(&["Escape"]);
    t.wait_for(&[TOOL_LIST]);
    // The tab bar counts the tools; `+` hides the server list, and the tab, now wide enough
    // for the list and a pane beside it, previews the highlighted tool; `+` shows the list again.
    let s = t.screen();
    let bar = s
        .lines()
        .find(|l| l.contains("Info") && l.contains("Hist"))
        .expect("tab bar");
    let after = &bar[bar.find("Tools").expect("Tools in the tab bar") + "Tools".len()..];
    assert!(
        after.starts_with(' ') && after[1..].starts_with(|c: char| c.is_ascii_digit()),
        "the Tools tab's label counts them: {bar}"
    );
    t.keys(&["+"]);
    let s = t.wait_for(&["Input schema", "Enter opens its form"]);
    assert!(!s.contains("Servers (1)"), "{}", framed(&s));
    t.keys(&["+"]);
    t.wait_for(&["Servers (1)"]);
    // Tab gives the keyboard to the server list; its footer offers to disconnect.
    t.keys(&["Tab"]);
    t.wait_for(&["Servers │", "c disconnect"]);
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

/// server-everything (the official TypeScript reference server, stdio, 2025-11-25) ad hoc at
/// 160×45, as a user runs `mcpscope --tui node …/index.js stdio`, first pinned to the modern era
/// it does not speak: the failure says to press `e` (not the command line's flag), and `e`
/// connects it in 2025-11-25; Info names it. Its Tools header counts a lint finding, and the
/// tool's row shows it too. `q` quits.
#[test]
fn everything_connects_and_quits() {
    let Some(peers) = Peers::get("everything_connects_and_quits") else {
        return;
    };
    let cmd = peers.node_stdio(EVERYTHING, &[], &["stdio"]);
    let at = cmd.iter().position(|a| a == "--").expect("--") + 1;
    let mut args: Vec<&str> = vec!["--protocol-era", "modern"];
    args.extend(cmd[at..].iter().map(String::as_str));
    let how = Start::new(&args).size(160, 45);
    let Some(t) = Tui::start("everything_connects_and_quits", how) else {
        return;
    };
    t.wait_for(&["✗ failed"]);
    t.keys(&["i"]);
    // A long error opens whole in the pager over Info (the list shortens it): Esc closes it.
    let s = t.wait_for(&["press e for another era (2025-11-25, or auto)"]);
    assert!(!s.contains("--protocol-era"), "{}", framed(&s));
    if s.contains("why the connection failed") {
        t.keys(&["Escape"]);
    }
    let s = t.wait_for(&["error:", "press e for another era (2025-11-25, or auto)"]);
    assert!(!s.contains("--protocol-era"), "{}", framed(&s));
    t.keys(&["e"]);
    t.wait_for(&["● connected", "2025-11-25 (era: 2025-11-25)"]);
    t.keys(&["i"]);
    t.wait_for(&["everything", "Capabilities", "legacy"]);
    t.keys(&["t"]);
    let s = t.wait("the tool list with its lint count", |s| {
        s.contains(TOOL_LIST) && s.lines().any(|l| l.contains("Tools (") && l.contains('!'))
    });
    let header = s
        .lines()
        .find(|l| l.contains("Tools ("))
        .expect("the header");
    let count = header
        .split_whitespace()
        .find_map(|w| w.strip_prefix('!'))
        .expect("a warning count");
    // Each row's `!N` (the list is the left column), summed, is the header's count.
    let rows: usize = s
        .lines()
        .filter(|l| !l.contains("Tools ("))
        .filter_map(|l| {
            // Past the server list (its two borders); the findings' `!N` words of the row.
            l.split('│')
                .skip(2)
                .flat_map(str::split_whitespace)
                .find_map(|w| w.strip_prefix('!')?.parse::<usize>().ok())
        })
        .sum();
    assert_eq!(
        rows.to_string(),
        count,
        "the header counts !{count}, the rows show {rows}:\n{}",
        framed(&s)
    );
    t.quit();
}

/// The tool list's footer (the Tools tab's list has the keyboard).
const TOOL_LIST: &str = "Enter open the tool's form";
/// The form's footer.
const TOOL_FORM: &str = "Ctrl-R run the tool";

/// The Tools tab shows its list, and the list has come (`Tools (…)` until then): a search
/// typed before it filters nothing, and Enter opens nothing.
fn tools_listed(t: &Tui) {
    t.wait("the tool list", |s| {
        s.contains(TOOL_LIST) && s.contains("Tools (") && !s.contains("Tools (…)")
    });
}

/// From the Tools tab's list: search `name` with `/`, open the first match's form. At most 20
/// characters of the name are typed: the search field scrolls a longer text out of view.
fn open_tool(t: &Tui, name: &str) {
    let query: String = name.chars().take(20).collect();
    tools_listed(t);
    t.keys(&["/"]);
    t.keys(&["C-u"]);
    t.type_text(&query);
    t.wait_for(&[&format!("/{query}"), " shown"]);
    // The list's footer comes back only once the search box has let go of the keyboard.
    t.keys(&["Enter"]);
    t.wait_for(&[TOOL_LIST]);
    t.keys(&["Enter"]);
    // The form's header starts with the name (a list row with a mark or spaces before it);
    // a long name with its title may push the header's keys out of an 80-column line.
    t.wait(&format!("the form of {name}"), |s| {
        s.contains(TOOL_FORM) && s.lines().any(|l| l.contains(&format!("│{name} ")))
    });
}

/// In a form whose field `field` has the cursor: type `value` into it (replacing what is there).
fn fill(t: &Tui, field: &str, value: &str) {
    t.wait_for(&[&format!("› {field}")]);
    t.keys(&["Enter"]);
    t.keys(&["BSpace"; 12]);
    t.type_text(value);
    t.keys(&["Enter"]);
    t.wait_for(&[field, value]);
}

/// From a tool's outcome back to the list (Esc: the form; Esc: the list).
fn back_to_tools(t: &Tui) {
    t.keys(&["Escape"]);
    t.wait_for(&[TOOL_FORM]);
    t.keys(&["Escape"]);
    t.wait_for(&[TOOL_LIST]);
}

/// The issue's journey against the demo in `era`: search and call a tool through its form, see
/// progress and cancel, answer an elicitation and a sampling request, read a resource through
/// a template (completion offered), get a prompt, find the call in History, quit.
fn demo_journey(test: &str, era: &str, size: (u16, u16)) {
    let how = Start::new(&["--demo", "--protocol-era", era]).size(size.0, size.1);
    let Some(t) = Tui::start(test, how) else {
        return;
    };
    let version = if era == "modern" {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    t.wait_for(&["● connected", version]);
    t.keys(&["t"]);
    tools_listed(&t);

    // A tool through its form: the required field flagged until filled, then the answer.
    open_tool(&t, "echo");
    t.wait_for(&["message *", "required"]);
    fill(&t, "message *", "hello from tmux");
    t.wait_for(&["✓ valid"]);
    t.keys(&["C-r"]);
    t.wait_for(&["✓ success", "Echo: hello from tmux"]);
    back_to_tools(&t);

    // Progress, then cancel: 30 steps over 30 s.
    open_tool(&t, "slow");
    fill(&t, "durationMs", "30000");
    t.keys(&["Down"]);
    fill(&t, "steps", "30");
    t.keys(&["C-r"]);
    t.wait("a progress step of the slow tool", |s| {
        s.contains("running…") && (1..30).any(|n| s.contains(&format!(" {n}/30")))
    });
    t.keys(&["x"]);
    t.wait_for(&["Cancelled after"]);
    back_to_tools(&t);

    // An elicitation: the form over the tab, the required email typed, accepted.
    open_tool(&t, "elicit-form");
    t.keys(&["C-r"]);
    t.wait_for(&["Full name *", "Email *", "accept"]);
    t.keys(&["Tab"]);
    t.type_text("ada@example.com");
    // Back to the email by Shift-Tab then Tab: Ctrl-U clears it as it would while typing, so
    // the address typed again replaces it.
    t.keys(&["BTab"]);
    t.keys(&["Tab", "C-u"]);
    t.type_text("grace@example.com");
    t.keys(&["Enter"]);
    let s = t.wait_for(&["action: accept", "grace@example.com"]);
    assert!(!s.contains("ada@example.com"), "{}", framed(&s));
    back_to_tools(&t);

    // A sampling request: the server's message shown, a response typed and sent.
    open_tool(&t, "sample");
    fill(&t, "prompt *", "a haiku about terminals");
    t.keys(&["C-r"]);
    t.wait_for(&["a haiku about terminals", "^S send"]);
    t.type_text("Green text on black");
    t.keys(&["C-s"]);
    t.wait_for(&["✓ success", "Green text on black"]);

    // A resource through a template: completion offers Grace for "Gr"; read it.
    // Both lists, not only the templates: resources answering after the templates put their
    // rows above, and a cursor still on the first row stays at the top, on another item.
    t.keys(&["r"]);
    t.wait_for(&["demo://readme", "Templates (2)", "demo://greeting/{name}"]);
    select(&t, "▸", "demo://greeting/{name}");
    t.keys(&["Enter"]);
    t.wait_for(&["name * [", "URI: demo://greeting/"]);
    t.type_text("Gr");
    t.wait_for(&["URI: demo://greeting/Gr", "Grace"]);
    t.type_text("ace");
    t.keys(&["Enter"]);
    t.wait_for(&["Hello, Grace!"]);
    // Esc leaves the read for the list (not for the form, where `m` would be typed).
    t.keys(&["Escape"]);

    // A prompt with an argument: its messages.
    t.keys(&["m"]);
    t.wait_for(&["Prompts (4)", "Greet someone"]);
    select(&t, "▸", "Greet someone");
    t.keys(&["Enter"]);
    t.wait_for(&["Who to greet"]);
    t.type_text("Grace");
    t.keys(&["Enter"]);
    t.wait_for(&["Say hello to Grace"]);

    // Every request of the journey is in History: the newest at the top; the tool calls found
    // by its full-text search (at 80×24 they are below the fold).
    t.keys(&["h"]);
    t.wait_for(&["prompts/get greet", "resources/read"]);
    t.keys(&["/"]);
    t.type_text("tools/call");
    t.keys(&["Enter"]);
    t.wait_for(&["tools/call echo", "tools/call slow", "tools/call sample"]);
    // The filter applies as it is typed, by method and status too: the cancelled call goes.
    t.keys(&["/", "C-u"]);
    t.type_text("m:tools/call s:ok");
    t.wait("the calls that succeeded", |s| {
        s.contains("tools/call echo") && !s.contains("tools/call slow")
    });
    t.keys(&["Enter"]);
    t.quit();
}

/// The line of `screen` that holds the cursor `marker` (`›`, `▸`), if any.
fn selected(screen: &str, marker: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.contains(marker))
        .map(str::to_string)
}

/// Move the cursor down (at most 20 lines) until its line holds `text`.
fn select(t: &Tui, marker: &str, text: &str) {
    for _ in 0..20 {
        let now = selected(&t.screen(), marker);
        if now.as_deref().is_some_and(|l| l.contains(text)) {
            return;
        }
        t.keys(&["Down"]);
        t.wait(&format!("the cursor moved from {now:?}"), |s| {
            selected(s, marker) != now
        });
    }
    panic!(
        "the cursor never reached {text:?}:\n{}",
        framed(&t.screen())
    );
}

/// The journey in the modern era (input_required rounds answer the questions).
#[test]
fn demo_journey_modern() {
    demo_journey("demo_journey_modern", "modern", (120, 35));
}

/// The journey in the legacy era (server-to-client requests), at 160×45.
#[test]
fn demo_journey_legacy() {
    demo_journey("demo_journey_legacy", "legacy", (160, 45));
}

/// The journey against server-everything (the official reference server, stdio, 2025-11-25;
/// not built by us) at 80×24: echo through its form (its text result saved with `w`, and `y`
/// under tmux's default clipboard setting written to a file and said how to let copies
/// through), trigger-long-running-operation's progress then
/// cancel, its elicitation (a name typed, accepted) and its sampling request (a response sent),
/// the calls in History, quit.
#[test]
fn everything_journey() {
    let Some(peers) = Peers::get("everything_journey") else {
        return;
    };
    let cmd = peers.node_stdio(EVERYTHING, &[], &["stdio"]);
    let at = cmd.iter().position(|a| a == "--").expect("--") + 1;
    let args: Vec<&str> = cmd[at..].iter().map(String::as_str).collect();
    // At 80×24: the smallest size promised, where long result lines must wrap to be read.
    let how = Start::new(&args).size(80, 24);
    let Some(t) = Tui::start("everything_journey", how) else {
        return;
    };
    t.wait_for(&["● connected", "2025-11-25"]);
    t.keys(&["t"]);
    t.wait_for(&["trigger-long-running-operation"]);

    open_tool(&t, "echo");
    fill(&t, "message *", "hello everything");
    t.keys(&["C-r"]);
    t.wait_for(&["✓ success", "Echo: hello everything"]);
    // `w` saves a text result (as text), in the working directory.
    t.keys(&["w"]);
    let s = t.wait_for(&["saved echo-"]);
    let saved = saved_file(&t, &s, "saved ");
    assert!(saved.contains("Echo: hello everything"), "{saved}");
    // `y` under tmux's default `set-clipboard` (the copy would not arrive): says how to let
    // it through, and writes the text to a file instead.
    t.keys(&["y"]);
    let s = t.wait_for(&["set-clipboard on", "wrote "]);
    let copied = saved_file(&t, &s, "wrote ");
    assert!(copied.contains("Echo: hello everything"), "{copied}");
    back_to_tools(&t);

    // Its defaults: 10 s in 5 steps.
    open_tool(&t, "trigger-long-running-operation");
    t.keys(&["C-r"]);
    t.wait("a progress step of the long-running operation", |s| {
        s.contains("running…") && (1..5).any(|n| s.contains(&format!(" {n}/5")))
    });
    t.keys(&["x"]);
    t.wait_for(&["Cancelled after"]);
    back_to_tools(&t);

    open_tool(&t, "trigger-elicitation-request");
    t.keys(&["C-r"]);
    t.wait_for(&["Elicitation Request", "String *", "accept"]);
    t.type_text("Ada Lovelace");
    t.keys(&["Enter"]);
    t.wait_for(&["✓ success", "Name: Ada Lovelace"]);
    back_to_tools(&t);

    open_tool(&t, "trigger-sampling-request");
    fill(&t, "prompt *", "a haiku about terminals");
    t.keys(&["C-r"]);
    t.wait_for(&["a haiku about terminals", "^S send"]);
    t.type_text("Green text on black");
    t.keys(&["C-s"]);
    // The answer is far along one long line of the result: it wraps into view.
    t.wait_for(&["✓ success", "Green text on black"]);

    t.keys(&["h"]);
    t.wait_for(&["History", "tools/call"]);
    t.keys(&["/"]);
    t.type_text("tools/call");
    t.keys(&["Enter"]);
    // At 80 columns the long names are cut: their starts.
    t.wait_for(&[
        "tools/call echo",
        "tools/call trigger-lon",
        "tools/call trigger-eli",
        "tools/call trigger-sam",
    ]);
    t.quit();
}

/// The file a toast names after `prefix` (`saved NAME (…)`, `wrote NAME …`), read from the TUI's
/// working directory.
fn saved_file(t: &Tui, screen: &str, prefix: &str) -> String {
    let line = screen
        .lines()
        .find(|l| l.contains(prefix))
        .expect("the toast");
    let name = line[line.find(prefix).expect("prefix") + prefix.len()..]
        .split_whitespace()
        .next()
        .expect("a file name")
        .trim_end_matches([',', ':', ';']);
    let path = t.workdir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{} was not written ({e}):\n{}",
            path.display(),
            framed(screen)
        )
    })
}

/// At 80×24: `q` while a call runs asks first (any other key keeps running), `y` quits, and the
/// running call does not keep the terminal: the shell gets it back.
#[test]
fn quit_asks_while_a_call_runs_at_80x24() {
    let how = Start::new(&["--demo"]).size(80, 24);
    let Some(t) = Tui::start("quit_asks_while_a_call_runs_at_80x24", how) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["t"]);
    tools_listed(&t);
    open_tool(&t, "slow");
    fill(&t, "durationMs", "60000");
    t.keys(&["C-r"]);
    t.wait_for(&["running…"]);
    // The form's fields take letters as typed: Esc leaves it (the call runs on), then `q`.
    t.keys(&["Escape"]);
    t.wait_for(&[TOOL_LIST]);
    t.keys(&["q"]);
    t.wait_for(&["still running. Quit anyway?"]);
    t.keys(&["n"]);
    let s = t.wait_gone("Quit anyway?");
    assert!(s.contains("⟳ 1 running"), "{}", framed(&s));
    t.keys(&["q"]);
    t.wait_for(&["still running. Quit anyway?"]);
    t.keys(&["y"]);
    t.assert_exited_cleanly();
}

/// The whole demo journey at 80×24, the smallest size the TUI promises.
#[test]
fn demo_journey_at_80x24() {
    demo_journey("demo_journey_at_80x24", "modern", (80, 24));
}

/// The count of entries in the Logs tab's title (`… · N of M entries`): M.
fn entries(screen: &str) -> Option<usize> {
    let line = screen.lines().find(|l| l.contains(" entries"))?;
    let before = &line[..line.find(" entries")?];
    before.rsplit(' ').next()?.parse().ok()
}

/// The line of `screen` holding `text`, and where: (row, column of its first character).
fn find(screen: &str, text: &str) -> Option<(u16, u16)> {
    screen.lines().enumerate().find_map(|(row, l)| {
        let at = l.find(text)?;
        Some((row as u16, l[..at].chars().count() as u16))
    })
}

/// A catalog of the demo alone, as `--config` reads it.
fn demo_config() -> String {
    let mcpscope = crate::tui_tmux_support::MCPSCOPE;
    serde_json::json!({"mcpServers": {"demo": {"command": mcpscope, "args": ["demo-server"]}}})
        .to_string()
}

/// `--config mcp.json` (read-only: the era chosen cannot be saved there), `c`, then `e` four
/// times cycles Auto → 2026-07-28 → 2025-11-25 → Auto → 2026-07-28: each reconnects in that era
/// (the header says which was asked and which was negotiated, Info the same) and the lists are
/// read again (the Tools list comes back).
#[test]
fn era_key_cycles_and_the_lists_reload() {
    let how = Start::new(&["--config", "mcp.json"]).file("mcp.json", &demo_config());
    let Some(t) = Tui::start("era_key_cycles_and_the_lists_reload", how) else {
        return;
    };
    t.wait_for(&["Servers (1)", "demo", "disconnected"]);
    t.keys(&["c"]);
    t.wait_for(&["● connected", "(era: auto)"]);
    for (asked, version, era) in [
        ("2026-07-28", "2026-07-28", "modern"),
        ("2025-11-25", "2025-11-25", "legacy"),
        ("auto", "2026-07-28", "modern"),
        ("2026-07-28", "2026-07-28", "modern"),
    ] {
        t.keys(&["e"]);
        t.wait_for(&["● connected", &format!("{version} (era: {asked})")]);
        t.keys(&["t"]);
        tools_listed(&t);
        t.keys(&["i"]);
        t.wait_for(&[
            "mcpscope-demo",
            era,
            &format!("(asked: {asked}; protocol version {version})"),
        ]);
    }
    t.quit();
}

/// Protocol: every frame; `f` narrows to one source, `/` to a method; Enter opens the selected
/// frame's whole body in the pager, Esc closes it; Esc clears the filters.
#[test]
fn protocol_filter_and_pager() {
    let Some(t) = Tui::start("protocol_filter_and_pager", Start::new(&["--demo"])) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["t"]);
    tools_listed(&t);
    t.keys(&["p"]);
    t.wait_for(&["[all sources]", "spawned pid"]);
    t.keys(&["f"]);
    t.wait_for(&["[jsonrpc]"]);
    t.keys(&["/"]);
    t.type_text("tools/list");
    t.keys(&["Enter"]);
    let s = t.wait_for(&["[jsonrpc]", "/tools/list", "Enter body"]);
    assert!(!s.contains("spawned pid"), "{}", framed(&s));
    t.keys(&["Enter"]);
    t.wait_for(&["frame ", "Body (", "\"jsonrpc\": \"2.0\""]);
    t.keys(&["Escape"]);
    t.wait_gone("Body (");
    t.keys(&["Escape"]);
    t.wait_for(&["[all sources]", "spawned pid"]);
    t.quit();
}

/// Logs on 2025-11-25: the demo's log-every-level sends one entry per level while no level is
/// set; `V` sets the server's level (logging/setLevel) to emergency, and the same call then
/// brings only the emergency entry.
#[test]
fn logs_level_change() {
    let how = Start::new(&["--demo", "--protocol-era", "legacy"]);
    let Some(t) = Tui::start("logs_level_change", how) else {
        return;
    };
    t.wait_for(&["● connected", "2025-11-25"]);
    t.keys(&["t"]);
    tools_listed(&t);
    open_tool(&t, "log-every-level");
    t.keys(&["C-r"]);
    t.wait_for(&["✓ success"]);
    t.keys(&["l"]);
    let s = t.wait_for(&["level not set", "DEBUG", "EMERGENCY"]);
    // However many the demo had logged before, the call brought one per level.
    let n = entries(&s).expect("the Logs title");
    t.keys(&["V"]);
    t.wait_for(&[&format!("level emergency · {n} of {n} entries")]);
    t.keys(&["t"]);
    t.wait_for(&["✓ success"]);
    t.keys(&["C-r"]);
    t.wait_for(&["✓ success"]);
    t.keys(&["l"]);
    let m = n + 1;
    t.wait_for(&[&format!("level emergency · {m} of {m} entries")]);
    t.quit();
}

/// A tool run as a task (Ctrl-K in its form): the Tasks tab lists it, follows it to
/// completed, and Enter shows its detail with the result.
#[test]
fn a_tool_run_as_a_task_in_the_tasks_tab() {
    let how = Start::new(&["--demo"]);
    let Some(t) = Tui::start("a_tool_run_as_a_task_in_the_tasks_tab", how) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["t"]);
    tools_listed(&t);
    open_tool(&t, "research");
    fill(&t, "topic *", "otters");
    t.keys(&["C-k"]);
    t.wait_for(&["started: Esc, then k shows it"]);
    // The form's text field takes letters: Esc leaves the form first.
    t.keys(&["Escape"]);
    t.wait_for(&[TOOL_LIST]);
    t.keys(&["k"]);
    t.wait_for(&["Tasks of demo", "research", "completed"]);
    t.keys(&["Enter"]);
    t.wait_for(&["Esc back", "Research on otters"]);
    t.quit();
}

/// The Auth tab of a stdio server says OAuth does not apply to it.
#[test]
fn auth_tab_of_a_server_without_oauth() {
    let Some(t) = Tui::start(
        "auth_tab_of_a_server_without_oauth",
        Start::new(&["--demo"]),
    ) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["a"]);
    t.wait_for(&["OAuth does not apply to this server"]);
    t.quit();
}

/// The demo's get-image in colour, inside tmux: drawn as halfblocks (tmux is not asked for a
/// pixel protocol), said so under its description.
#[test]
fn a_tool_image_drawn_as_halfblocks() {
    let Some(t) = Tui::start("a_tool_image_drawn_as_halfblocks", Start::new(&["--demo"])) else {
        return;
    };
    t.wait_for(&["● connected"]);
    t.keys(&["t"]);
    tools_listed(&t);
    open_tool(&t, "get-image");
    t.keys(&["C-r"]);
    t.wait("the image drawn as halfblocks", |s| {
        s.contains("16×16 PNG · drawn as halfblocks") && (s.contains('▀') || s.contains('▄'))
    });
    t.quit();
}

/// Clicks on list rows: in History a click selects an entry and a second opens its detail; in
/// Resources a click selects the template's row and a second opens its form.
#[test]
fn mouse_selects_rows_in_resources_and_history() {
    let how = Start::new(&["--demo"]);
    let Some(t) = Tui::start("mouse_selects_rows_in_resources_and_history", how) else {
        return;
    };
    t.wait_for(&["● connected"]);
    tools_listed(&t);
    t.keys(&["h"]);
    let s = t.wait_for(&["History", "tools/list"]);
    let (row, col) = find(&s, "tools/list").expect("its history row");
    t.click(col, row);
    t.click(col, row);
    t.wait_for(&["Esc back · x replay", "tools/list"]);
    t.keys(&["Escape"]);
    t.wait_gone("Esc back · x replay");

    t.keys(&["r"]);
    // Both lists (see demo_journey): a row clicked before the resources come would move.
    let s = t.wait_for(&["demo://readme", "Templates (2)", "demo://greeting/{name}"]);
    let (row, col) = find(&s, "demo://greeting/{name}").expect("the template's row");
    t.click(col + 2, row);
    t.wait("the template's row selected", |s| {
        selected(s, "▸").is_some_and(|l| l.contains("demo://greeting/{name}"))
    });
    t.click(col + 2, row);
    t.wait_for(&["Template demo://greeting/{name}", "name * ["]);
    // Its field has the letters (q would be typed): Ctrl-C quits from anywhere.
    t.keys(&["C-c"]);
    t.assert_exited_cleanly();
}

/// The person at the browser: open `authorization_url`, follow every redirect (the Python SDK's
/// consent page approves on a plain GET) and land on the TUI's loopback `callback`, which must
/// answer 200.
async fn approve_as_a_browser(authorization_url: &str, callback: &str) {
    let page = reqwest::Client::new()
        .get(authorization_url)
        .send()
        .await
        .unwrap_or_else(|e| panic!("the browser cannot open {authorization_url}: {e}"));
    assert!(
        page.url().as_str().starts_with(callback),
        "the redirects end on the TUI's callback, not {}",
        page.url()
    );
    let status = page.status().as_u16();
    let text = page.text().await.unwrap_or_default();
    assert_eq!(status, 200, "the loopback callback answers: {text}");
}

/// What `mcpscope --cli --list-stored-auth` says the TUI's secret store holds: each grant's
/// `tokens` (null once forgotten; never the tokens themselves).
fn stored_tokens(t: &Tui) -> Vec<serde_json::Value> {
    let out = std::process::Command::new(crate::tui_tmux_support::MCPSCOPE)
        .args(["--cli", "--list-stored-auth", "--format", "json"])
        .env("MCPSCOPE_DATA_DIR", t.data_dir())
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .env_remove("MCPSCOPE_SECRET_FILE")
        .env_remove("MCPSCOPE_AUTH_PROFILE")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run mcpscope --list-stored-auth");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "--list-stored-auth printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(doc["secretStore"]["kind"], "file", "{doc}");
    doc["storedAuth"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|g| g["tokens"].clone())
        .collect()
}

/// The Auth tab against a protected server not built by us: the official Python SDK's own
/// authorization server (`testenv/peers/python/oauth_server.py`). `mcpscope --tui URL` with a
/// `--callback-url` of its own and a recording `BROWSER`: the tab shows the login waiting (its
/// URL whole, the authorization server discovery found), the browser was asked to open that
/// URL, and approving it as a browser would (following the redirects to the callback) makes
/// the state authorized with the granted scope and the token's expiry; the tools list over the
/// token. `u` goes through a login again; `D D` forgets: the state back to none and no tokens
/// left in the secret store.
#[test]
fn auth_tab_logs_in_reauthorizes_and_forgets_against_the_python_sdk() {
    const NAME: &str = "auth_tab_logs_in_reauthorizes_and_forgets_against_the_python_sdk";
    let Some(peers) = Peers::get(NAME) else {
        return;
    };
    // Multi-threaded: it keeps draining the peer's stderr while this thread drives tmux.
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let server = rt.block_on(peers.serve("python/oauth_server.sh", "http"));
    let url = format!("{}/mcp", server.base);
    let callback = format!(
        "http://127.0.0.1:{}/oauth/callback",
        crate::tui_tmux_support::free_port()
    );
    let how = Start::new(&[&url, "--callback-url", &callback])
        .env("MCPSCOPE_SECRET_STORE", "file")
        .recording_browser();
    let Some(t) = Tui::start(NAME, how) else {
        return;
    };
    // The server is named after its host; its header line says the state.
    let state = |s: &str| format!("Authorization of 127.0.0.1  {s}");

    // Connecting is refused 401: discovery, registration, then a login waits for a person.
    // A key pressed before the TUI draws would be echoed by the terminal still in cooked mode.
    t.wait_for(&["Servers (1)"]);
    t.keys(&["a"]);
    let s = t.wait_for(&[&state("authorizing"), "A login waits for you", &callback]);
    assert!(
        s.contains(&format!("Authorization server  {}", server.base)),
        "what discovery found is shown before the login:\n{}",
        framed(&s)
    );
    assert!(!s.contains("No tokens"), "{}", framed(&s));
    let first = t.wait_opened(1);
    assert!(
        first.starts_with(&format!("{}/authorize?", server.base)) && first.contains("state="),
        "{first}"
    );
    rt.block_on(approve_as_a_browser(&first, &callback));
    let s = t.wait_for(&[&state("authorized"), "Granted scopes", "● connected"]);
    for shown in ["mcp:read", "Bearer · expires in ", "refresh token"] {
        assert!(s.contains(shown), "{shown:?} not shown:\n{}", framed(&s));
    }
    let stored = stored_tokens(&t);
    assert!(
        stored.len() == 1 && stored[0].is_object(),
        "the tokens are in the store: {stored:?}"
    );

    t.keys(&["t"]);
    t.wait_for(&["Tools (2)", "echo", "whoami"]);

    // Re-authorize: a login again, with a new state, approved the same way.
    t.keys(&["a"]);
    t.wait_for(&[&state("authorized")]);
    t.keys(&["u"]);
    t.wait_for(&[&state("authorizing"), "A login waits for you"]);
    let second = t.wait_opened(2);
    assert_ne!(second, first, "a new login, not the first one again");
    rt.block_on(approve_as_a_browser(&second, &callback));
    t.wait_for(&[&state("authorized"), "Bearer · expires in "]);

    // Forget: D asks, the second D forgets.
    t.keys(&["D"]);
    t.wait_for(&["Press D again to forget the tokens"]);
    t.keys(&["D"]);
    let s = t.wait_for(&[&state("none"), "No tokens"]);
    assert!(!s.contains("Granted scopes"), "{}", framed(&s));
    let stored = stored_tokens(&t);
    assert!(
        stored.iter().all(serde_json::Value::is_null),
        "no tokens left in the secret store: {stored:?}"
    );
    t.quit();
    // Killed (kill_on_drop) inside the runtime its process belongs to.
    rt.block_on(async move { drop(server) });
}
