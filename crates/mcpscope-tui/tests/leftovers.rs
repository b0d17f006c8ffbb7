//! Issue 24's terminal-UI leftovers, through the real reducer: the server list's long error read
//! whole in the pager; Protocol's filter with History's `method:` / `status:` words; counts on
//! the Logs, History and Protocol labels; no `completion/complete` to a server that does not
//! declare `completions`; no subscribe without `resources.subscribe`; a tool form typed into
//! at once and forgotten after a reconnect in another era; each tool's result under its own
//! form, naming its tool.

use crate::protocol::{frames, with_frames};
use crate::support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_tui::modals::Modal;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::TabId;
use serde_json::{Value, json};

/// The tab bar (the screen's second line).
fn tab_bar(s: &AppState) -> String {
    draw(s).lines().nth(1).unwrap_or_default().to_string()
}

fn calls(e: &[Effect]) -> Vec<String> {
    e.iter()
        .filter_map(|e| match e {
            Effect::Call { call, .. } => Some(call.method.clone()),
            _ => None,
        })
        .collect()
}

fn answer(tab: TabId, tag: &'static str, key: &str, result: Value) -> Msg {
    Msg::Done(Done {
        route: Route::new("demo", tab, tag, key),
        result: Ok(json!({"historyId": 1, "result": result})),
        was_call: true,
    })
}

fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    send(
        s,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    )
}

// --- item 2 of the issue: the server list's error ---

/// A failed server whose error is longer than the list's four rows: the list ends in
/// "… i: whole error", the footer offers `i`, and `i` from the list opens Info with the whole
/// error in the pager on top (its last words included); Esc leaves Info.
#[test]
fn a_long_error_in_the_server_list_is_read_whole_in_the_pager() {
    let mut c = card("fails", "failed", None);
    let error = "spawning the server failed: the command printed on stderr: Traceback (most \
                 recent call last): File \"server.py\", line 3, in <module>: import missing_module \
                 ModuleNotFoundError: No module named 'missing_module' THE-LAST-WORDS";
    c["error"] = json!({"code": "spawn_failed", "message": error});
    let mut s = state(&[c], (80, 24));
    let screen = draw(&s);
    assert!(screen.contains("… i: whole error"), "{screen}");
    let footer = screen.lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("i the whole error"), "{footer}");
    press(&mut s, KeyCode::Char('i'));
    assert_eq!(s.tab, TabId::Info);
    let Some(Modal::Pager(p)) = &s.modal else {
        panic!("the pager, got {:?}", s.modal)
    };
    assert!(p.text().contains("THE-LAST-WORDS"), "{:?}", p.lines);
    let screen = draw(&s);
    assert!(
        screen.contains("fails: why the connection failed"),
        "{screen}"
    );
    press(&mut s, KeyCode::Esc);
    assert!(s.modal.is_none());
    assert_eq!(s.tab, TabId::Info);
}

// --- item 8: Protocol's filter and the tab counts ---

/// A request never answered (seq 7) and an error answer (seq 9 to request 8) after the demo's
/// stdio frames.
fn more_frames() -> Vec<Value> {
    let mut all = frames("stdio");
    let base = all[4].clone();
    let mut pending = base.clone();
    pending["seq"] = json!(7);
    pending["method"] = json!("tools/call");
    pending["id"] = json!(3);
    let mut asked = base.clone();
    asked["seq"] = json!(8);
    asked["method"] = json!("tools/call");
    asked["id"] = json!(4);
    let mut failed = all[5].clone();
    failed["seq"] = json!(9);
    failed["method"] = json!("tools/call");
    failed["id"] = json!(4);
    failed["message"] = json!("error");
    all.extend([pending, asked, failed]);
    all
}

#[test]
fn protocol_filters_with_historys_method_and_status_words() {
    let mut s = with_frames((160, 45), "stdio", &more_frames());
    let shown = |s: &AppState| s.tabs["demo"].protocol.shown();
    let filter = |s: &mut AppState, text: &str| {
        press(s, KeyCode::Char('/'));
        ctrl(s, 'u');
        type_text(s, text);
        press(s, KeyCode::Enter);
    };
    filter(&mut s, "method:tools/list");
    assert_eq!(shown(&s), 2, "the request and its answer");
    filter(&mut s, "m:tools/");
    assert_eq!(shown(&s), 5, "a prefix ending in /");
    filter(&mut s, "method:tools/call status:pending");
    assert_eq!(shown(&s), 1, "the request never answered");
    filter(&mut s, "status:error");
    assert_eq!(shown(&s), 1, "the error answer");
    filter(&mut s, "s:ok method:initialize");
    assert_eq!(shown(&s), 1, "initialize's answer");
    filter(&mut s, "status:error initialize");
    assert_eq!(shown(&s), 0, "words and status together");
    let footer = draw(&s).lines().last().unwrap_or_default().to_string();
    assert!(
        footer.contains("filter (method: status:)"),
        "the footer says the words: {footer}"
    );
}

#[test]
fn logs_history_and_protocol_labels_count_what_they_list() {
    let mut s = with_frames((160, 45), "stdio", &frames("stdio"));
    assert!(tab_bar(&s).contains("Protocol 6"), "{}", tab_bar(&s));
    core(
        &mut s,
        "log",
        json!({"server": "demo", "level": "info", "logger": null, "data": "hello",
            "historyId": null, "timeUs": NOW_US}),
    );
    assert!(tab_bar(&s).contains("Logs 1"), "{}", tab_bar(&s));
    let e = press(&mut s, KeyCode::Char('h'));
    let [Effect::History { route, .. }] = &e[..] else {
        panic!("{e:?}")
    };
    let entry = |id: i64| {
        json!({"id": id, "server": "demo", "method": "tools/list", "params": {}, "status": "ok",
            "result": {}, "error": null, "startedAt": "2026-05-28T20:26:40Z",
            "startedAtUs": NOW_US, "durationMs": 1, "pinned": false, "label": null,
            "era": "legacy", "parentId": null, "requestId": null, "truncated": false,
            "resultSize": 2})
    };
    send(
        &mut s,
        Msg::Done(Done {
            route: route.clone(),
            result: Ok(json!({"entries": [entry(2), entry(1)], "nextBefore": 1})),
            was_call: false,
        }),
    );
    // Older pages wait: `2+`.
    assert!(tab_bar(&s).contains("History 2+"), "{}", tab_bar(&s));
    // At 80 columns every count does not fit: the open tab keeps its own.
    s.size = (80, 24);
    let bar = tab_bar(&s);
    assert!(bar.contains("Hist 2+"), "{bar}");
    assert!(bar.chars().count() <= 80, "{bar}");
}

// --- the newcomer run: completion and subscribe follow the capabilities ---

fn prompt_list() -> Value {
    json!({"prompts": [{"name": "hello", "description": "Say hello",
        "arguments": [{"name": "name", "required": true}]}]})
}

/// FastMCP without a completion handler declares no `completions`: its prompt form sends no
/// `completion/complete` (each was a -32601 in History and Protocol) and says why; a server
/// that declares it is asked.
#[test]
fn completion_is_asked_only_of_a_server_that_declares_it() {
    for (caps, asks) in [
        (json!({"prompts": {}, "resources": {}}), false),
        (json!({"prompts": {}, "completions": {}}), true),
    ] {
        let mut s = state(&[card("demo", "connected", Some("legacy"))], (160, 45));
        declare(&mut s, "demo", caps.clone());
        press(&mut s, KeyCode::Char('m'));
        send(&mut s, answer(TabId::Prompts, "list", "", prompt_list()));
        let mut sent = calls(&press(&mut s, KeyCode::Enter));
        for c in ['A', 'd'] {
            sent.extend(calls(&press(&mut s, KeyCode::Char(c))));
        }
        assert_eq!(
            sent.contains(&"completion/complete".to_string()),
            asks,
            "{caps}: {sent:?}"
        );
        let screen = draw(&s);
        assert_eq!(
            screen.contains("does not declare completions"),
            !asks,
            "{screen}"
        );
    }
}

/// The capabilities come with the connection: read when the status turns `connected`, kept
/// while it stays, gone with it.
#[test]
fn capabilities_are_read_at_connect() {
    let mut s = state(&[card("demo", "disconnected", None)], (80, 24));
    let e = core(&mut s, "status", card("demo", "connected", Some("legacy")));
    assert!(
        e.iter()
            .any(|e| matches!(e, Effect::ServerInfo { route } if route.tag == "capabilities")),
        "{e:?}"
    );
    assert!(!s.servers[0].declares("/completions"), "not read yet");
    declare(&mut s, "demo", json!({"completions": {}}));
    assert!(s.servers[0].declares("/completions"));
    core(&mut s, "status", card("demo", "connected", Some("legacy")));
    assert!(
        s.servers[0].declares("/completions"),
        "kept while connected"
    );
    core(&mut s, "status", card("demo", "disconnected", None));
    assert!(!s.servers[0].declares("/completions"));
}

/// Without `resources.subscribe` (FastMCP's resources) `b` is not offered, and pressed it says
/// why instead of sending anything.
#[test]
fn subscribe_is_not_offered_without_resources_subscribe() {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], (160, 45));
    declare(&mut s, "demo", json!({"resources": {"listChanged": true}}));
    press(&mut s, KeyCode::Char('r'));
    let list = json!({"resources": [{"uri": "testenv://readme", "name": "readme",
        "mimeType": "text/plain"}]});
    send(&mut s, answer(TabId::Resources, "list", "", list));
    send(
        &mut s,
        answer(
            TabId::Resources,
            "templates",
            "",
            json!({"resourceTemplates": []}),
        ),
    );
    let screen = draw(&s);
    let footer = screen.lines().last().unwrap_or_default();
    assert!(!footer.contains("subscribe"), "{footer}");
    assert!(!screen.contains("b subscribe"), "{screen}");
    let e = press(&mut s, KeyCode::Char('b'));
    assert!(e.is_empty(), "nothing sent: {e:?}");
    let toast = s.toast.as_ref().map(|t| t.text.clone()).unwrap_or_default();
    assert!(toast.contains("resources.subscribe"), "{toast}");
}

// --- the Tools tab's forms and results ---

fn tools() -> Value {
    json!([
        {"name": "echo", "description": "Echo the text back.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "add", "description": "Add two integers.",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
    ])
}

/// The Tools tab of `demo` connected in `era`, its list answered.
fn tools_listed(era: &str) -> AppState {
    let mut s = state(&[card("demo", "connected", Some(era))], (160, 45));
    press(&mut s, KeyCode::Char('t'));
    list_answered(&mut s);
    s
}

fn list_answered(s: &mut AppState) {
    send(
        s,
        Msg::Done(Done {
            route: Route::new("demo", TabId::Tools, "list", ""),
            result: Ok(json!({"historyId": 1, "result": {"tools": tools()}})),
            was_call: true,
        }),
    );
}

/// The tool `name`'s form, from wherever the Tools tab is (Esc back to its list, `/` search,
/// Enter keeps the filter, Enter opens).
fn open_tool(s: &mut AppState, name: &str) {
    for _ in 0..3 {
        let screen = draw(s);
        if screen
            .lines()
            .last()
            .unwrap_or_default()
            .contains("open the tool's form")
        {
            break;
        }
        press(s, KeyCode::Esc);
    }
    press(s, KeyCode::Char('/'));
    ctrl(s, 'u');
    type_text(s, name);
    press(s, KeyCode::Enter);
    press(s, KeyCode::Enter);
    assert!(draw(s).contains(&format!("│{name} ")), "{}", draw(s));
}

/// Ctrl-R, answered with `text` as history entry `history`; the call's arguments.
fn run(s: &mut AppState, text: &str, history: i64) -> Value {
    let e = ctrl(s, 'r');
    let [Effect::Call { call, route }] = &e[..] else {
        panic!("{e:?}")
    };
    let args = call.params.as_ref().unwrap()["arguments"].clone();
    let v = json!({"historyId": history, "result": {"content": [{"type": "text", "text": text}]}});
    send(
        s,
        Msg::Done(Done {
            route: route.clone(),
            result: Ok(v),
            was_call: true,
        }),
    );
    args
}

/// Letters typed on a focused text field go into it at once (no Enter first), and the app's
/// letter keys stay out of the way (`h` is typed, not History).
#[test]
fn a_tool_form_field_is_typed_into_at_once() {
    let mut s = tools_listed("legacy");
    open_tool(&mut s, "echo");
    type_text(&mut s, "hello");
    assert_eq!(s.tab, TabId::Tools, "h was typed, not History");
    let args = run(&mut s, "hello", 7);
    assert_eq!(args, json!({"text": "hello"}));
    let footer = draw(&s);
    assert!(footer.contains("Result of echo"), "{footer}");
}

/// Arguments typed survive a reconnect in the same era and are forgotten after one in
/// another era (another catalog: values would be appended to stale ones).
#[test]
fn a_reconnect_in_another_era_forgets_the_forms() {
    let mut s = tools_listed("legacy");
    open_tool(&mut s, "echo");
    type_text(&mut s, "old");
    press(&mut s, KeyCode::Esc);
    press(&mut s, KeyCode::Esc);
    // Same era: kept.
    core(&mut s, "reset", json!({"server": "demo"}));
    press(&mut s, KeyCode::Char('t'));
    list_answered(&mut s);
    open_tool(&mut s, "echo");
    assert!(draw(&s).contains("old"), "{}", draw(&s));
    // The era key: reset, then connected in 2026-07-28.
    core(&mut s, "reset", json!({"server": "demo"}));
    core(&mut s, "status", card("demo", "connected", Some("modern")));
    press(&mut s, KeyCode::Char('t'));
    list_answered(&mut s);
    open_tool(&mut s, "echo");
    type_text(&mut s, "new");
    let args = run(&mut s, "new", 8);
    assert_eq!(args, json!({"text": "new"}), "not \"oldnew\"");
}

/// A result stays with its tool: another tool's form shows none (or its own last one), and
/// back on the first tool its result is there again, its title naming the tool and entry.
#[test]
fn each_tool_shows_its_own_last_result() {
    let mut s = tools_listed("legacy");
    open_tool(&mut s, "echo");
    type_text(&mut s, "from echo");
    run(&mut s, "ECHOED", 7);
    let screen = draw(&s);
    assert!(screen.contains("Result of echo · History #7"), "{screen}");
    assert!(screen.contains("ECHOED"), "{screen}");
    open_tool(&mut s, "add");
    let screen = draw(&s);
    assert!(
        !screen.contains("ECHOED"),
        "echo's result under add's form: {screen}"
    );
    assert!(!screen.contains("Result of"), "{screen}");
    open_tool(&mut s, "echo");
    let screen = draw(&s);
    assert!(
        screen.contains("ECHOED"),
        "echo's last result again: {screen}"
    );
    assert!(screen.contains("Result of echo"), "{screen}");
}
