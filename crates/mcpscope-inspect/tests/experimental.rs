//! The Experimental panel's commands against the real demo (Streamable HTTP, both eras): a
//! request sent by hand with the era's envelope, a notification, a method the server does not
//! know (-32601 named as such), raw bodies (not JSON, a request with its own id, one that draws
//! no answer), a 10 MB answer cut for the view, and the client capabilities a connection
//! advertises — what the initialize frame and every modern `_meta` carry.

use crate::inspector::{eventually, parsed, setup};
use mcpscope_inspect::capabilities::AdvertisedCapabilities;
use mcpscope_inspect::{FramePage, HandSent, Inspector, SendKind};
use mcpscope_proto::era::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The JSON-RPC messages `name` sent, parsed from the traffic.
async fn sent(app: &Arc<Inspector>, name: &str) -> Vec<Value> {
    let q = FramePage {
        after: Some(0),
        limit: Some(10_000),
        sources: vec!["jsonrpc".into()],
        ..Default::default()
    };
    parsed(&app.frames(name, q).await.expect("frames"))
        .into_iter()
        .filter(|f| f["direction"] == "out")
        .filter_map(|f| serde_json::from_str(f["text"].as_str()?).ok())
        .collect()
}

fn request(method: &str, params: Value) -> HandSent {
    HandSent {
        method: method.into(),
        params: Some(params),
        ..Default::default()
    }
}

fn raw(text: &str, timeout_ms: u64) -> HandSent {
    HandSent {
        raw: Some(text.into()),
        timeout: Some(Some(Duration::from_millis(timeout_ms))),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_request_gets_the_eras_envelope_a_history_entry_and_its_answer() {
    let s = setup("exp-request", 10_000).await;
    let app = &s.inspector;
    for name in ["legacy", "modern"] {
        app.connect(name, None).await.expect("connect");
        let v = app
            .send_by_hand(
                name,
                request(
                    "tools/call",
                    json!({"name": "echo", "arguments": {"message": "hi"}}),
                ),
            )
            .await
            .expect("send");
        assert_eq!(v["outcome"], "result", "{v}");
        assert_eq!(v["kind"], "request", "{v}");
        assert_eq!(
            v["response"]["result"]["content"][0]["text"], "Echo: hi",
            "{v}"
        );
        assert!(v["durationMs"].as_f64().unwrap() > 0.0, "{v}");
        let id = v["id"].clone();
        assert!(id.is_number(), "the engine's id: {v}");
        assert_eq!(v["response"]["id"], id, "{v}");
        // What the view shows as sent is what went on the wire, envelope and all.
        let shown: Value = serde_json::from_str(v["sent"]["text"].as_str().unwrap()).unwrap();
        assert_eq!(shown["jsonrpc"], "2.0");
        assert_eq!(shown["id"], id);
        let wire = sent(app, name).await;
        assert!(wire.contains(&shown), "{shown} not in the traffic");
        let modern_meta = shown["params"]["_meta"]
            .get(META_PROTOCOL_VERSION)
            .is_some();
        assert_eq!(modern_meta, name == "modern", "{name}: {shown}");
        let hist = v["historyId"].as_i64().expect("history");
        let entry = eventually("the entry to finish", || async {
            let e = app.history_entry(hist).await.ok()?;
            (e["status"] == "ok").then_some(e)
        })
        .await;
        assert_eq!(entry["method"], "tools/call", "{entry}");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn an_unknown_method_is_named_as_a_json_rpc_error() {
    let s = setup("exp-unknown", 10_000).await;
    let app = &s.inspector;
    for name in ["legacy", "modern"] {
        app.connect(name, None).await.expect("connect");
        let v = app
            .send_by_hand(
                name,
                request("experimental/myMethod", json!({"key": "value"})),
            )
            .await
            .expect("send");
        assert_eq!(v["outcome"], "error", "{name}: {v}");
        assert_eq!(v["rpcError"]["code"], -32601, "{name}: {v}");
        assert_eq!(v["rpcError"]["name"], "Method not found", "{name}: {v}");
        assert_eq!(v["response"]["error"]["code"], -32601, "{v}");
        assert!(
            v["summary"]
                .as_str()
                .unwrap()
                .contains("-32601 Method not found"),
            "{v}"
        );
        let hist = v["historyId"].as_i64().unwrap();
        let entry = eventually("the entry to finish", || async {
            let e = app.history_entry(hist).await.ok()?;
            (e["status"] == "error").then_some(e)
        })
        .await;
        assert_eq!(entry["error"]["rpcCode"], -32601, "{entry}");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn a_notification_is_sent_and_nothing_awaited() {
    let s = setup("exp-notify", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    let m = HandSent {
        kind: SendKind::Notification,
        method: "notifications/experimental/poke".into(),
        params: Some(json!({"n": 1})),
        ..Default::default()
    };
    let v = app.send_by_hand("legacy", m).await.expect("send");
    assert_eq!(v["outcome"], "sent", "{v}");
    assert_eq!(v["kind"], "notification", "{v}");
    assert!(v["id"].is_null(), "{v}");
    let wire = sent(app, "legacy").await;
    let n = wire
        .iter()
        .find(|m| m["method"] == "notifications/experimental/poke")
        .expect("on the wire");
    assert_eq!(
        *n,
        json!({"jsonrpc": "2.0", "method": "notifications/experimental/poke", "params": {"n": 1}})
    );
    app.shutdown().await;
}

#[tokio::test]
async fn raw_bodies_go_as_typed_and_what_came_back_is_said() {
    let s = setup("exp-raw", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    // Not JSON: the demo's HTTP front refuses it with a 415 in plain text, answering no id.
    let v = app
        .send_by_hand("legacy", raw("this is {not json", 10_000))
        .await
        .expect("send");
    assert_eq!(v["outcome"], "reply", "{v}");
    assert_eq!(v["kind"], "message", "{v}");
    assert_eq!(v["sent"]["text"], "this is {not json", "{v}");
    assert_eq!(v["reply"]["meta"]["status"], 415, "{v}");
    assert!(v["summary"].as_str().unwrap().contains("HTTP 415"), "{v}");
    let frames = parsed(
        &app.frames(
            "legacy",
            FramePage {
                after: Some(0),
                limit: Some(10_000),
                ..Default::default()
            },
        )
        .await
        .unwrap(),
    );
    assert!(
        frames
            .iter()
            .any(|f| f["direction"] == "out" && f["text"] == "this is {not json"),
        "the bytes as typed are in the traffic"
    );
    // A request with its own id: answered by that id, exactly as typed (no _meta added).
    let typed = r#"{"jsonrpc":"2.0","id":"mine-1","method":"experimental/nothing"}"#;
    let v = app
        .send_by_hand("legacy", raw(typed, 10_000))
        .await
        .expect("send");
    assert_eq!(v["outcome"], "error", "{v}");
    assert_eq!(v["id"], "mine-1", "{v}");
    assert_eq!(v["rpcError"]["code"], -32601, "{v}");
    assert_eq!(v["sent"]["text"], typed, "{v}");
    // A response to nothing: the server has nothing to say, and the view is told so.
    let v = app
        .send_by_hand(
            "legacy",
            raw(r#"{"jsonrpc":"2.0","id":424242,"result":{}}"#, 700),
        )
        .await
        .expect("send");
    assert_eq!(v["outcome"], "noReply", "{v}");
    assert_eq!(v["waitedMs"], 700, "{v}");
    app.shutdown().await;
}

#[tokio::test]
async fn a_ten_megabyte_answer_is_cut_for_the_view() {
    let s = setup("exp-big", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    let v = app
        .send_by_hand(
            "legacy",
            request(
                "tools/call",
                json!({"name": "big", "arguments": {"bytes": 10_000_000}}),
            ),
        )
        .await
        .expect("send");
    assert_eq!(v["outcome"], "result");
    assert_eq!(v["truncated"], true);
    assert!(v["response"].is_null());
    assert!(v["responseSize"].as_u64().unwrap() > 10_000_000);
    assert!(v["responseText"].as_str().unwrap().len() <= mcpscope_inspect::RESULT_CAP);
    app.shutdown().await;
}

#[tokio::test]
async fn chosen_client_capabilities_are_what_the_next_connection_advertises() {
    let s = setup("exp-caps", 10_000).await;
    let app = &s.inspector;
    let settings: AdvertisedCapabilities = serde_json::from_value(json!({
        "standard": {"sampling": false, "elicitation.url": false},
        "experimental": {"custom_analytics": {"version": 2}},
    }))
    .unwrap();
    for name in ["legacy", "modern"] {
        let v = app
            .set_client_capabilities(name, settings.clone())
            .await
            .expect("set");
        assert_eq!(v["persisted"], true, "{v}");
        assert!(v["advertised"]["legacy"].get("sampling").is_none(), "{v}");
        app.connect(name, None).await.expect("connect");
        let caps = eventually("a frame that declares capabilities", || async {
            sent(app, name).await.into_iter().find_map(|m| {
                let c = if name == "legacy" {
                    (m["method"] == "initialize").then(|| m["params"]["capabilities"].clone())
                } else {
                    m["params"]["_meta"].get(META_CLIENT_CAPABILITIES).cloned()
                };
                c.filter(|c| !c.is_null())
            })
        })
        .await;
        assert_eq!(
            caps["experimental"],
            json!({"custom_analytics": {"version": 2}}),
            "{name}: {caps}"
        );
        assert!(caps.get("sampling").is_none(), "{name}: {caps}");
        assert_eq!(caps["elicitation"], json!({"form": {}}), "{name}: {caps}");
        assert!(caps.get("roots").is_some(), "{name}: defaults stay: {caps}");
        let info = app.server_info(name).expect("info");
        assert_eq!(
            info["clientCapabilities"], caps,
            "Server Info shows what was declared"
        );
        let view = app.client_capabilities(name).await.unwrap();
        assert_eq!(view["current"], caps, "{view}");
    }
    // Kept in the catalog entry, beside protocolEra; back to the defaults, the entry loses it.
    let entry_of = |servers: Vec<Value>| {
        let legacy = servers.into_iter().find(|v| v["name"] == "legacy").unwrap();
        legacy["entry"].clone()
    };
    let entry = entry_of(app.servers().await);
    assert_eq!(
        entry["clientCapabilities"]["experimental"],
        json!({"custom_analytics": {"version": 2}}),
        "{entry}"
    );
    app.set_client_capabilities("legacy", AdvertisedCapabilities::default())
        .await
        .unwrap();
    let entry = entry_of(app.servers().await);
    assert!(entry.get("clientCapabilities").is_none(), "{entry}");
    app.shutdown().await;
}

#[tokio::test]
async fn bad_capability_settings_are_refused_with_the_reason() {
    let s = setup("exp-caps-bad", 10_000).await;
    let settings: AdvertisedCapabilities =
        serde_json::from_value(json!({"experimental": {"x": true}})).unwrap();
    let e = s
        .inspector
        .set_client_capabilities("legacy", settings)
        .await
        .expect_err("refused");
    assert_eq!(e.code.code(), "usage");
    assert!(e.message.contains("must be an object"), "{}", e.message);
}
