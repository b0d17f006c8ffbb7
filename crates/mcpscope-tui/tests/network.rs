//! The Network tab: the demo's HTTP frames (modern era) as one row per exchange, the filter,
//! `Enter` asking the core for both bodies and showing headers and bodies in the pager; a stdio
//! server says it has no HTTP.

use super::{frames, with_frames};
use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::modals::Modal;
use mcpscope_tui::msg::{Done, Effect, Msg};
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::network::Network;
use serde_json::json;

fn network(s: &AppState) -> &Network {
    &s.tabs["demo"].network
}

fn open(size: (u16, u16)) -> AppState {
    let mut s = with_frames(size, "http", &frames("http"));
    press(&mut s, KeyCode::Char('n'));
    s
}

#[test]
fn one_row_per_exchange() {
    let s = open((160, 45));
    let n = network(&s);
    assert_eq!(
        n.len(),
        3,
        "server/discover, tools/list, subscriptions/listen"
    );
    let x: Vec<_> = n.exchanges().collect();
    assert_eq!(x[1].rpc.as_deref(), Some("tools/list"));
    assert_eq!(x[1].status, Some(200));
    assert_eq!(x[1].events, 1);
    assert_eq!((x[1].req_seq, x[1].res_seq), (Some(6), Some(8)));
    assert!(x[1].end_us.is_some_and(|e| e > x[1].start_us));
    assert!(
        x[1].req_headers
            .iter()
            .any(|(k, v)| &**k == "Mcp-Method" && &**v == "tools/list")
    );
    for size in SIZES {
        insta::assert_snapshot!(format!("network_{}x{}", size.0, size.1), draw(&open(size)));
    }
}

#[test]
fn the_filter_and_a_stdio_server() {
    let mut s = open((80, 24));
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "listen");
    assert_eq!(network(&s).shown(), 1);
    press(&mut s, KeyCode::Esc);
    assert_eq!(network(&s).shown(), 3);
    let mut s = with_frames((80, 24), "stdio", &frames("stdio"));
    press(&mut s, KeyCode::Char('n'));
    assert!(network(&s).is_empty());
    insta::assert_snapshot!("network_stdio_80x24", draw(&s));
}

#[test]
fn enter_shows_headers_and_both_bodies() {
    let mut s = open((160, 45));
    press(&mut s, KeyCode::Up);
    assert_eq!(network(&s).selected().map(|x| x.number), Some(2));
    let e = press(&mut s, KeyCode::Enter);
    assert_eq!(e.len(), 2, "{e:?}");
    let all = frames("http");
    for eff in e {
        let Effect::FrameBody { route, seq } = eff else {
            panic!("{eff:?}");
        };
        let f = all.iter().find(|f| f["seq"] == seq).expect("the frame");
        let text = f["text"].as_str().unwrap_or("").to_string();
        let body = json!({"seq": seq, "json": text.starts_with('{'),
            "text": text, "size": f["size"]});
        assert!(s.modal.is_none(), "the pager waits for both bodies");
        send(
            &mut s,
            Msg::Done(Done {
                route,
                result: Ok(body),
                was_call: false,
            }),
        );
    }
    let Some(Modal::Pager(p)) = &s.modal else {
        panic!("no pager");
    };
    let t = p.text();
    assert!(t.contains("Request headers"), "{t}");
    assert!(t.contains("  Mcp-Method: tools/list"), "{t}");
    assert!(
        t.contains("\"method\": \"tools/list\""),
        "the request body, pretty: {t}"
    );
    assert!(t.contains("content-type: text/event-stream"), "{t}");
    assert!(t.contains("1 SSE events followed"), "{t}");
    insta::assert_snapshot!("network_pager_160x45", draw(&s));
}
