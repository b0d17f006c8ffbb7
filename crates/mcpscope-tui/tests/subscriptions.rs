//! The Subscriptions tab: the core's panel drawn (stream, filter, URIs, transitions, rejected),
//! replaced whole by `subscriptions` events; the filter toggles, Listen again, Cancel stream.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use serde_json::{Value, json};

fn view(status: &str) -> Value {
    json!({
        "server": "demo", "era": "modern", "version": 7,
        "desired": {"toolsListChanged": true, "promptsListChanged": false,
            "resourcesListChanged": true, "resourceSubscriptions": ["demo://counter"]},
        "stream": {"number": 2, "status": status, "subscriptionId": 41, "idSource": "reported",
            "requested": {"toolsListChanged": true, "promptsListChanged": false,
                "resourcesListChanged": true, "resourceSubscriptions": ["demo://counter"]},
            "acknowledged": {"toolsListChanged": true, "promptsListChanged": false,
                "resourcesListChanged": false, "resourceSubscriptions": ["demo://counter"]},
            "notHonoured": ["resourcesListChanged"],
            "closeReason": if status == "closedByServer" { json!("the server sent its result (complete)") } else { Value::Null },
            "openedUs": NOW_US - 60_000_000, "closedUs": null, "notifications": 5, "historyId": 12},
        "relistens": 1,
        "uris": [{"uri": "demo://counter", "subscribed": true, "pending": null, "error": null,
            "updates": 3, "updated": true, "lastUpdatedUs": NOW_US - 2_000_000}],
        "urisOmitted": 0,
        "history": [
            {"timeUs": NOW_US - 60_000_000, "kind": "opening", "message": "listen #2 sent", "uri": null, "subscriptionId": null},
            {"timeUs": NOW_US - 59_000_000, "kind": "active", "message": "acknowledged", "uri": null, "subscriptionId": 41},
            {"timeUs": NOW_US - 3_000_000, "kind": "rejected", "message": "notifications/resources/updated for a URI not watched", "uri": "demo://other", "subscriptionId": 41},
        ],
        "historyOmitted": 0, "rejected": 1, "updates": 3,
    })
}

fn route_of(e: &[Effect]) -> Route {
    match e {
        [Effect::Run { route, .. }, ..] => route.clone(),
        other => panic!("{other:?}"),
    }
}

fn opened(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("modern"))], size);
    let e = press(&mut s, KeyCode::Char('s'));
    let route = route_of(&e);
    send(
        &mut s,
        Msg::Done(Done {
            route,
            result: Ok(view("active")),
            was_call: false,
        }),
    );
    s
}

#[test]
fn the_panel() {
    for size in SIZES {
        let s = opened(size);
        insta::assert_snapshot!(format!("subscriptions_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn an_event_replaces_the_panel() {
    let mut s = opened((80, 24));
    core(&mut s, "subscriptions", view("closedByServer"));
    let v = s.tabs["demo"]
        .subscriptions
        .view()
        .cloned()
        .unwrap_or_default();
    assert_eq!(v["stream"]["status"], "closedByServer");
    insta::assert_snapshot!("subscriptions_closed_80x24", draw(&s));
}

#[test]
fn keys_listen_cancel_and_toggle_the_filter() {
    let mut s = opened((80, 24));
    assert_eq!(route_of(&press(&mut s, KeyCode::Char('u'))).tag, "listen");
    assert_eq!(route_of(&press(&mut s, KeyCode::Char('x'))).tag, "cancel");
    assert_eq!(route_of(&press(&mut s, KeyCode::Char('P'))).tag, "filter");
}

#[test]
fn a_hostile_view_is_bounded() {
    let mut s = opened((80, 24));
    let mut v = view("active");
    v["uris"] = Value::Array(
        (0..5_000)
            .map(|i| json!({"uri": format!("demo://{i}/{}", "x".repeat(10_000)), "subscribed": false, "updates": 1}))
            .collect(),
    );
    core(&mut s, "subscriptions", v);
    let kept = s.tabs["demo"]
        .subscriptions
        .view()
        .cloned()
        .unwrap_or_default();
    let uris = kept["uris"].as_array().map_or(0, Vec::len);
    assert!(uris <= 500, "{uris}");
    assert!(
        kept["uris"][0]["uri"]
            .as_str()
            .is_some_and(|u| u.chars().count() < 400)
    );
    draw(&s);
}

/// Against the real demo server (modern): T opens a listen for tools list changes through the
/// core, the panel shows it acknowledged; x cancels it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_listen_opened_and_cancelled() {
    let (dir, i) = crate::real_core::inspector("subscriptions");
    i.connect("demo", None).await.expect("connect");
    let mut s = AppState::new(&i.servers().await, (120, 35), false);
    let e = press(&mut s, KeyCode::Char('s'));
    crate::real_core::pump(&mut s, &i, e).await;
    let e = press(&mut s, KeyCode::Char('T'));
    crate::real_core::pump(&mut s, &i, e).await;
    // The acknowledgement may come after the listen's answer: read the panel until it has.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let v = s.tabs["demo"]
            .subscriptions
            .view()
            .cloned()
            .unwrap_or_default();
        if v["stream"]["status"] == "active" {
            assert_eq!(v["stream"]["requested"]["toolsListChanged"], true, "{v}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "acknowledged: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let e = press(&mut s, KeyCode::Char('s'));
        crate::real_core::pump(&mut s, &i, e).await;
    }
    let e = press(&mut s, KeyCode::Char('x'));
    crate::real_core::pump(&mut s, &i, e).await;
    let v = s.tabs["demo"]
        .subscriptions
        .view()
        .cloned()
        .unwrap_or_default();
    assert_eq!(v["stream"]["status"], "cancelledLocally", "{v}");
    assert!(draw(&s).contains("cancelled here"));
    i.shutdown().await;
    drop(dir);
}
