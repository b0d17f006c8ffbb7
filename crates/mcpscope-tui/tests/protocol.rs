//! The Protocol tab: frames as the core shapes them (copied from the demo server's traffic,
//! over stdio and Streamable HTTP) through the real reducer — rows, the duplicate seq replaced,
//! the source and text filters, follow, the request ↔ response jump, the detail area, the pager
//! opening, the bound, 100,000 frames — and, against the real demo server, its frames arriving.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::modals::Modal;
use mcpscope_tui::msg::{Done, Effect, Msg};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::protocol::Protocol;
use serde_json::{Value, json};

/// Frames of the demo server as the core sent them (`MCPSCOPE_DUMP_EVENTS=1` prints them from
/// the demo tests below), times moved to just before [`NOW_US`] and long bodies cut: over stdio
/// in the legacy era (spawn, initialize, tools/list), and over Streamable HTTP in the modern
/// era (the outgoing frames twice: again with their header verdicts completed).
pub(crate) fn frames(which: &str) -> Vec<Value> {
    let text = match which {
        "stdio" => include_str!("protocol_stdio.ndjson"),
        _ => include_str!("protocol_http.ndjson"),
    };
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a frame"))
        .collect()
}

/// A state with the demo connected over `transport`, the Protocol tab open and focused, and
/// `frames` fed to it.
pub(crate) fn with_frames(size: (u16, u16), transport: &str, frames: &[Value]) -> AppState {
    let mut c = card("demo", "connected", Some("legacy"));
    c["transport"] = json!(transport);
    let mut s = state(&[c], size);
    press(&mut s, KeyCode::Char('p'));
    for f in frames {
        core(&mut s, "frame", f.clone());
    }
    s
}

fn protocol(s: &AppState) -> &Protocol {
    &s.tabs["demo"].protocol
}

fn select_seq(s: &mut AppState, seq: u64) {
    press(s, KeyCode::Home);
    for _ in 0..100 {
        if protocol(s).selected().map(|r| r.seq) == Some(seq) {
            return;
        }
        press(s, KeyCode::Down);
    }
    panic!("frame {seq} not reached");
}

#[test]
fn rows_of_the_demo_over_stdio_and_http() {
    for size in SIZES {
        let s = with_frames(size, "stdio", &frames("stdio"));
        insta::assert_snapshot!(format!("protocol_stdio_{}x{}", size.0, size.1), draw(&s));
        let s = with_frames(size, "http", &frames("http"));
        insta::assert_snapshot!(format!("protocol_http_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn a_frame_that_comes_again_replaces_its_row() {
    let all = frames("http");
    let unique: std::collections::BTreeSet<u64> =
        all.iter().map(|f| f["seq"].as_u64().unwrap()).collect();
    assert!(unique.len() < all.len(), "the fixture has frames twice");
    let s = with_frames((160, 45), "http", &all);
    let p = protocol(&s);
    assert_eq!(p.len(), unique.len());
    let discover = p.row(2).expect("server/discover");
    let (_, verdict) = discover.verdict.as_ref().expect("verdicts");
    assert!(
        verdict.starts_with("HTTP 200"),
        "the second copy's: {verdict}"
    );
    assert_eq!(discover.partner, Some(4), "its answer came in an SSE event");
}

#[test]
fn the_source_and_text_filters() {
    let mut s = with_frames((160, 45), "http", &frames("http"));
    let all = protocol(&s).shown();
    press(&mut s, KeyCode::Char('f'));
    assert_eq!(
        protocol(&s).shown(),
        6,
        "jsonrpc: the requests and their SSE answers"
    );
    press(&mut s, KeyCode::Char('f'));
    let http = protocol(&s).shown();
    assert_eq!(http, 11, "http: every exchange frame, the SSE closes too");
    insta::assert_snapshot!("protocol_source_http_160x45", draw(&s));
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "TOOLS/");
    assert_eq!(
        protocol(&s).shown(),
        2,
        "http ∩ 'tools/': request and answer"
    );
    press(&mut s, KeyCode::Enter);
    insta::assert_snapshot!("protocol_filtered_80x24", {
        let mut t = with_frames((80, 24), "http", &frames("http"));
        press(&mut t, KeyCode::Char('/'));
        type_text(&mut t, "tools/");
        draw(&t)
    });
    press(&mut s, KeyCode::Esc);
    assert_eq!(protocol(&s).shown(), all, "Esc clears both filters");
}

#[test]
fn follow_pauses_when_moving_up_and_resumes_with_g() {
    let mut s = with_frames((80, 24), "stdio", &frames("stdio"));
    assert!(protocol(&s).following());
    assert_eq!(protocol(&s).selected().map(|r| r.seq), Some(6));
    press(&mut s, KeyCode::Up);
    assert!(!protocol(&s).following());
    let mut more = frames("stdio")[4].clone();
    more["seq"] = json!(7);
    core(&mut s, "frame", more);
    assert_eq!(
        protocol(&s).selected().map(|r| r.seq),
        Some(5),
        "paused: it stays"
    );
    press(&mut s, KeyCode::Char('G'));
    assert!(protocol(&s).following());
    assert_eq!(protocol(&s).selected().map(|r| r.seq), Some(7));
}

#[test]
fn j_jumps_between_a_request_and_its_response() {
    let mut s = with_frames((160, 45), "stdio", &frames("stdio"));
    select_seq(&mut s, 2);
    assert_eq!(protocol(&s).selected().unwrap().partner, Some(3));
    press(&mut s, KeyCode::Char('j'));
    assert_eq!(protocol(&s).selected().map(|r| r.seq), Some(3));
    insta::assert_snapshot!("protocol_pair_detail_160x45", draw(&s));
    press(&mut s, KeyCode::Char('j'));
    assert_eq!(protocol(&s).selected().map(|r| r.seq), Some(2));
    select_seq(&mut s, 4);
    let e = press(&mut s, KeyCode::Char('j'));
    assert!(
        matches!(&e[..], []),
        "a notification has no partner: said, not an effect"
    );
    assert!(s.toast.is_some());
}

#[test]
fn the_detail_shows_header_verdicts_and_lint() {
    let mut all = frames("http");
    let nine = all.iter().position(|f| f["seq"] == 9).unwrap();
    all[nine]["lint"] = json!([{"path": "/result/tools/0/inputSchema", "message": "no type"}]);
    let mut s = with_frames((160, 45), "http", &all);
    select_seq(&mut s, 6);
    let screen = draw(&s);
    assert!(
        screen.contains("✓ Mcp-Method: body says tools/list, sent tools/list"),
        "{screen}"
    );
    select_seq(&mut s, 9);
    let screen = draw(&s);
    assert!(
        screen.contains("⚠ /result/tools/0/inputSchema: no type"),
        "{screen}"
    );
    insta::assert_snapshot!("protocol_lint_detail_160x45", screen);
}

/// Issue 24 (item 19 in the TUI): a 400 is what the server answered — its status and the start
/// of its body — and only an exchange with no answer is a transport failure.
#[test]
fn a_failed_exchange_says_what_the_server_answered() {
    let mut all = frames("http");
    // The last copy of frame 2: the one with its answer filled in.
    let two = all.iter().rposition(|f| f["seq"] == 2).unwrap();
    let mut refused = all[two].clone();
    let h = &mut all[two]["headers"];
    h["status"] = json!(400);
    h["failed"] = json!(true);
    h["responseExcerpt"] = json!("{\"error\":\"Bad Request: no session\"}");
    refused["seq"] = json!(1000);
    refused["headers"]["status"] = Value::Null;
    refused["headers"]["failed"] = json!(true);
    refused["headers"]["transportError"] = json!("connection refused");
    all.push(refused);
    let s = with_frames((160, 45), "http", &all);
    let verdict = |seq: u64| {
        let row = protocol(&s).row(seq).expect("the row");
        row.verdict.as_ref().expect("verdicts").1.to_string()
    };
    assert_eq!(
        verdict(2),
        "HTTP 400 · {\"error\":\"Bad Request: no session\"}"
    );
    assert_eq!(verdict(1000), "transport failure · connection refused");
}

#[test]
fn enter_opens_the_body_in_the_pager() {
    let mut s = with_frames((80, 24), "stdio", &frames("stdio"));
    select_seq(&mut s, 5);
    let e = press(&mut s, KeyCode::Enter);
    let Some(Effect::FrameBody { route, seq: 5 }) = e.first() else {
        panic!("{e:?}");
    };
    let body = frames("stdio")[4]["text"].as_str().unwrap().to_string();
    let answer = json!({"seq": 5, "json": true,
        "text": body, "size": 46});
    send(
        &mut s,
        Msg::Done(Done {
            route: route.clone(),
            result: Ok(answer),
            was_call: false,
        }),
    );
    let Some(Modal::Pager(p)) = &s.modal else {
        panic!("no pager");
    };
    assert!(p.title.contains("tools/list"), "{}", p.title);
    assert!(
        p.text().contains("\"method\": \"tools/list\""),
        "pretty: {}",
        p.text()
    );
    insta::assert_snapshot!("protocol_pager_80x24", draw(&s));
}

/// A frame like the demo's, numbered `seq`: a request at each even seq, its response next.
fn synthetic(template: &[Value], seq: u64) -> Value {
    let mut f = template[(seq % 2) as usize].clone();
    f["seq"] = json!(seq);
    f["id"] = json!(seq / 2);
    f["timeUs"] = json!(NOW_US + seq);
    f
}

/// 100,000 frames through the reducer: one compact row each, the filter index kept as they
/// come; a screen draws only its rows, well within a frame's time; past 200,000 the oldest go.
#[test]
fn a_hundred_thousand_frames_then_the_bound() {
    let f = frames("stdio");
    let template = [f[4].clone(), f[5].clone()]; // tools/list: request (even seq), response
    let mut s = with_frames((200, 60), "stdio", &[]);
    let t = std::time::Instant::now();
    for seq in 1..=100_000u64 {
        core(&mut s, "frame", synthetic(&template, seq));
    }
    let fed = t.elapsed();
    let p = protocol(&s);
    assert_eq!(p.len(), 100_000);
    assert_eq!(p.shown(), 100_000);
    assert!(
        p.row(99_999).unwrap().partner.is_some(),
        "paired as they came"
    );
    assert_eq!(
        p.details(),
        (0, 0),
        "frames without lint or headers keep no detail"
    );
    assert!(std::mem::size_of::<mcpscope_tui::tabs::protocol::row::Row>() <= 160);
    let list = 60 - 3 - 2 - 1 - 12;
    assert_eq!(p.visible_seqs(list).len(), list, "only the window is drawn");
    let t = std::time::Instant::now();
    let screen = draw(&s);
    let drawn = t.elapsed();
    assert!(screen.contains("100000 of 100000 frames"), "{screen}");
    assert!(drawn.as_millis() < 200, "one screen in {drawn:?}");
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "initialize");
    assert_eq!(protocol(&s).shown(), 0);
    press(&mut s, KeyCode::Esc);
    for seq in 100_001..=200_010u64 {
        core(&mut s, "frame", synthetic(&template, seq));
    }
    let p = protocol(&s);
    assert_eq!(p.len(), mcpscope_tui::tabs::protocol::MAX_ROWS);
    assert_eq!(p.dropped(), 10);
    assert!(p.row(10).is_none() && p.row(11).is_some());
    assert!(draw(&s).contains("(10 oldest dropped)"));
    println!("fed 100,000 frames in {fed:?}; drew 200×60 in {drawn:?}");
}

/// The real demo server (`target/debug/mcpscope demo-server` over stdio, built first with
/// `cargo build -p mcpscope`): an Inspector connects it and lists its tools; the bus's events go
/// through the reducer as the loop hands them over, and Protocol, Console and Network show
/// what came.
pub(crate) mod demo {
    use super::*;
    use mcpscope_inspect::{Call, Catalog, CatalogEntry, Inspector, Options};
    use mcpscope_tui::msg::CoreEvent;
    use std::sync::Arc;

    /// A directory removed when dropped.
    pub(crate) struct Dir(pub(crate) std::path::PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// An inspector over `entry` (a catalog entry) named `demo`, in a temp directory.
    pub(crate) fn inspector(name: &str, entry: Value) -> (Dir, Arc<Inspector>) {
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-tui-{name}-{}-{}",
            std::process::id(),
            mcpscope_tui::app::now_us()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let store = mcpscope_store::HistoryStore::open(
            &dir.join("history.sqlite"),
            mcpscope_store::Retention::default(),
        )
        .expect("history");
        let entry: CatalogEntry = serde_json::from_value(entry).expect("entry");
        let options = Options {
            ping_interval: None,
            secrets: Some(mcpscope_store::SecretStoreConfig::file(
                dir.join("secrets.enc"),
                None,
            )),
            ..Options::default()
        };
        let catalog = Catalog::in_memory(vec![("demo".to_string(), entry.normalized())]);
        (Dir(dir), Inspector::new(catalog, store, options))
    }

    /// The demo binary.
    pub(crate) fn binary() -> String {
        let p =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/mcpscope");
        assert!(p.exists(), "build it first: cargo build -p mcpscope");
        p.display().to_string()
    }

    /// Every event of the bus from `from` on into the reducer, as the loop does; the next id.
    pub(crate) fn feed(s: &mut AppState, i: &Arc<Inspector>, from: u64) -> u64 {
        let (events, _) = i.events().since(from, 100_000);
        let mut next = from;
        for e in events {
            next = e.id + 1;
            if std::env::var_os("MCPSCOPE_DUMP_EVENTS").is_some() {
                println!("{} {}", e.name, e.data);
            }
            let data = serde_json::from_str(&e.data).expect("an event is JSON");
            send(
                s,
                Msg::Core(CoreEvent {
                    name: e.name.to_string(),
                    data,
                }),
            );
        }
        next
    }

    /// Connect, list the tools, feed the events until `done` says the state has what it needs.
    pub(crate) async fn run(
        s: &mut AppState,
        i: &Arc<Inspector>,
        done: impl Fn(&AppState) -> bool,
    ) {
        i.connect("demo", None).await.expect("connect");
        let call = Call {
            method: "tools/list".into(),
            ..Default::default()
        };
        i.call("demo", call)
            .await
            .expect("call")
            .result
            .expect("tools/list");
        let mut next = 1;
        for _ in 0..200 {
            next = feed(s, i, next);
            if done(s) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the events never came");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_demo_servers_frames_arrive_in_protocol_paired() {
        let (_dir, i) = inspector(
            "protocol",
            json!({"command": binary(), "args": ["demo-server"], "protocolEra": "legacy"}),
        );
        let mut s = state(&i.servers().await, (160, 45));
        let answered = |s: &AppState| {
            let p = protocol(s);
            (1..=p.len() as u64 * 4).any(|seq| {
                p.row(seq)
                    .is_some_and(|r| &*r.summary == "tools/list" && r.partner.is_some())
            })
        };
        run(&mut s, &i, answered).await;
        let p = protocol(&s);
        let req = (1..=10_000)
            .filter_map(|seq| p.row(seq))
            .find(|r| &*r.summary == "tools/list")
            .expect("the tools/list request");
        let res = p.row(req.partner.expect("paired")).expect("its response");
        assert_eq!(res.partner, Some(req.seq));
        assert!(
            res.duration_ms.is_some(),
            "the response says how long it took"
        );
        assert_eq!(res.id, req.id);
        assert!(res.size > 100, "the tools are listed");
        i.shutdown().await;
    }
}

/// The Network tab.
#[path = "network.rs"]
mod network;

/// The Console tab.
#[path = "console.rs"]
mod console;

/// The Logs tab.
#[path = "logs.rs"]
mod logs;
