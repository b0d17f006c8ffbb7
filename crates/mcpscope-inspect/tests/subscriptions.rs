//! The Subscriptions panel's core against the real demo (Streamable HTTP), both eras. Modern: a
//! stream opened, acknowledged (with the interest the demo does not honour named), the counter
//! updated on it, then ended by the server gracefully and — a different status — dropped
//! (remote close), cancelled locally, and re-listened when the filter changes. Legacy: subscribe,
//! the counter updated, a re-read clears it, unsubscribe; each answer from the server. The
//! panel reaches views as `subscriptions` events.

use crate::inspector::{eventually, setup};
use mcpscope_inspect::subscriptions::{
    Filter, IdSource, StreamStatus, SubscriptionsView, TransitionKind,
};
use mcpscope_inspect::{Call, Inspector};
use serde_json::{Value, json};
use std::sync::Arc;

const COUNTER: &str = "demo://counter";

fn watching(uris: &[&str]) -> Filter {
    Filter {
        tools_list_changed: true,
        prompts_list_changed: true,
        resource_subscriptions: uris.iter().map(|u| u.to_string()).collect(),
        ..Filter::default()
    }
}

/// The panel once `f` holds of it.
async fn panel_when(
    app: &Arc<Inspector>,
    name: &str,
    what: &str,
    f: impl Fn(&SubscriptionsView) -> bool,
) -> SubscriptionsView {
    eventually(what, || async {
        let v = app.subscriptions(name);
        f(&v).then_some(v)
    })
    .await
}

fn status(v: &SubscriptionsView) -> Option<StreamStatus> {
    v.stream.as_ref().map(|s| s.status)
}

async fn end_subscriptions(app: &Arc<Inspector>, how: &str) -> Value {
    let call = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "end-subscriptions", "arguments": {"how": how}})),
        ..Call::default()
    };
    app.call("modern", call)
        .await
        .expect("call")
        .result
        .expect("result")
}

/// Open a stream watching the counter and wait until it delivered an update.
async fn active_with_update(app: &Arc<Inspector>) -> SubscriptionsView {
    app.set_subscription_filter("modern", watching(&[COUNTER]))
        .await
        .expect("listen");
    panel_when(app, "modern", "an acknowledged stream and an update", |v| {
        status(v) == Some(StreamStatus::Active)
            && v.uris.iter().any(|u| u.uri == COUNTER && u.updated)
    })
    .await
}

#[tokio::test]
async fn a_modern_stream_is_acknowledged_updated_and_closed_by_the_server() {
    let s = setup("subs-graceful", 10_000).await;
    let app = &s.inspector;
    app.connect("modern", None).await.expect("connect");
    let v = active_with_update(app).await;
    let stream = v.stream.as_ref().expect("a stream");
    assert_eq!(stream.id_source, Some(IdSource::Reported), "{v:?}");
    assert!(stream.subscription_id.is_some(), "{v:?}");
    // The demo's prompts never change, so it does not honour that interest.
    assert_eq!(stream.not_honoured, vec!["prompts/list_changed"], "{v:?}");
    let ack = stream.acknowledged.as_ref().expect("acknowledged");
    assert_eq!(ack.resource_subscriptions, vec![COUNTER]);
    assert!(ack.tools_list_changed && !ack.prompts_list_changed);
    assert!(v.history.iter().any(|t| t.kind == TransitionKind::Updated));

    // A re-read clears the mark; the next update sets it again.
    let seen = app.subscription_seen("modern", COUNTER);
    assert!(seen.uris.iter().any(|u| u.uri == COUNTER && !u.updated));

    let said = end_subscriptions(app, "graceful").await;
    assert!(said.to_string().contains("ended gracefully"), "{said}");
    let v = panel_when(app, "modern", "the graceful close", |v| {
        status(v) == Some(StreamStatus::ClosedByServer)
    })
    .await;
    let reason = v.stream.as_ref().and_then(|s| s.close_reason.clone());
    assert!(
        reason.as_deref().unwrap_or("").contains("complete"),
        "{v:?}"
    );
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::ClosedByServer)
            && !v
                .history
                .iter()
                .any(|t| t.kind == TransitionKind::ConnectionLost),
        "{:?}",
        v.history
    );
    // Views saw it live.
    let (events, _) = app.events().since(1, usize::MAX);
    assert!(
        events
            .iter()
            .any(|e| e.name == "subscriptions" && e.data.contains("closedByServer"))
    );
    app.shutdown().await;
}

#[tokio::test]
async fn a_dropped_stream_is_a_remote_close_not_a_graceful_one() {
    let s = setup("subs-drop", 10_000).await;
    let app = &s.inspector;
    app.connect("modern", None).await.expect("connect");
    active_with_update(app).await;
    let said = end_subscriptions(app, "drop").await;
    assert!(said.to_string().contains("dropped"), "{said}");
    let v = panel_when(app, "modern", "the remote close", |v| {
        status(v) == Some(StreamStatus::ConnectionLost)
    })
    .await;
    assert!(
        !v.history
            .iter()
            .any(|t| t.kind == TransitionKind::ClosedByServer),
        "{:?}",
        v.history
    );
    // The connection itself lives on: listening again works.
    let v = app.listen_again("modern").await.expect("listen again");
    assert_eq!(v.relistens, 1, "{v:?}");
    panel_when(app, "modern", "the new stream", |v| {
        status(v) == Some(StreamStatus::Active)
    })
    .await;
    app.shutdown().await;
}

#[tokio::test]
async fn a_new_filter_re_listens_and_cancel_ends_the_stream_locally() {
    let s = setup("subs-relisten", 10_000).await;
    let app = &s.inspector;
    app.connect("modern", None).await.expect("connect");
    let first = active_with_update(app).await;
    let first_id = first
        .stream
        .as_ref()
        .and_then(|s| s.subscription_id.clone());

    let mut filter = watching(&[COUNTER]);
    filter.prompts_list_changed = false;
    app.set_subscription_filter("modern", filter.clone())
        .await
        .expect("re-listen");
    let v = panel_when(app, "modern", "the second stream acknowledged", |v| {
        v.stream.as_ref().is_some_and(|s| s.number == 2) && status(v) == Some(StreamStatus::Active)
    })
    .await;
    assert_eq!(v.relistens, 1);
    let stream = v.stream.as_ref().expect("stream");
    assert_ne!(stream.subscription_id, first_id, "a new subscription");
    assert!(stream.not_honoured.is_empty(), "{v:?}");
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::CancelledLocally
                && t.message.contains("filter changed")),
        "{:?}",
        v.history
    );

    // The same filter again changes nothing.
    let same = app
        .set_subscription_filter("modern", filter)
        .await
        .expect("same");
    assert_eq!(same.relistens, 1);

    let v = app.cancel_subscription_stream("modern").expect("cancel");
    assert_eq!(status(&v), Some(StreamStatus::CancelledLocally), "{v:?}");
    assert!(
        app.cancel_subscription_stream("modern").is_err(),
        "nothing left to cancel"
    );
    // The listen's history entry ends as cancelled.
    let hist = v
        .stream
        .as_ref()
        .and_then(|s| s.history_id)
        .expect("history id");
    eventually("the listen's entry cancelled", || async {
        let e = app.history_entry(hist).await.ok()?;
        (e["status"] == "cancelled").then_some(())
    })
    .await;
    app.shutdown().await;
}

#[tokio::test]
async fn legacy_subscribe_update_and_unsubscribe() {
    let s = setup("subs-legacy", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");
    // The modern command is refused on legacy, saying what to use instead.
    let e = app
        .set_subscription_filter("legacy", watching(&[COUNTER]))
        .await
        .expect_err("no listen on legacy");
    assert!(e.message.contains("resources/subscribe"), "{e:?}");

    let out = app
        .subscribe_resource("legacy", COUNTER)
        .await
        .expect("subscribe");
    assert_eq!(out["result"], json!({}), "{out}");
    assert!(out["historyId"].is_i64());
    let v = panel_when(app, "legacy", "an update", |v| {
        v.uris
            .iter()
            .any(|u| u.uri == COUNTER && u.subscribed && u.updated)
    })
    .await;
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::Subscribed)
    );
    assert_eq!(v.rejected, 0, "{:?}", v.history);

    app.unsubscribe_resource("legacy", COUNTER)
        .await
        .expect("unsubscribe");
    let v = app.subscription_seen("legacy", COUNTER);
    let counter = v.uris.iter().find(|u| u.uri == COUNTER);
    assert!(counter.is_none_or(|u| !u.subscribed), "{v:?}");
    assert!(
        v.history
            .iter()
            .any(|t| t.kind == TransitionKind::Unsubscribed)
    );

    // A resource the demo does not have: the server's error, shown beside the URI.
    let e = app
        .subscribe_resource("legacy", "demo://nowhere")
        .await
        .expect_err("no such resource");
    assert!(e.message.contains("demo://nowhere"), "{e:?}");
    let v = app.subscriptions("legacy");
    let nowhere = v
        .uris
        .iter()
        .find(|u| u.uri == "demo://nowhere")
        .expect("kept");
    assert!(!nowhere.subscribed && nowhere.error.is_some(), "{v:?}");
    app.shutdown().await;
}

/// What the hostile tests listen for: tool list changes and one URI (no prompts: the server's
/// prompts/list_changed is then unrequested).
fn tools_and(uri: &str) -> Filter {
    Filter {
        tools_list_changed: true,
        resource_subscriptions: vec![uri.to_string()],
        ..Filter::default()
    }
}

/// The testkit's hostile server over stdio, pinned to 2026-07-28.
fn hostile(updates: usize) -> Value {
    let bin = mcpscope_testkit::bin_path().expect("testkit binary");
    let mode = mcpscope_testkit::StdioMode::HostileSubscriptions { updates };
    json!({"type": "stdio", "command": bin, "args": mode.args(), "protocolEra": "modern"})
}

#[tokio::test]
async fn what_a_hostile_server_should_not_send_is_rejected_and_a_flood_stays_bounded() {
    use mcpscope_inspect::subscriptions::{MAX_HISTORY, MAX_URIS};
    let dir = crate::inspector::TempDir::new("subs-hostile");
    // Five times the URIs kept: enough to show the bound (every update counted, URIs past it
    // counted only), without writing 100,000 frames to SQLite in a unit of CI time.
    let updates = 5 * MAX_URIS;
    let app = &crate::inspector::inspector_over(&dir, vec![("hostile", hostile(updates))], 10_000);
    app.connect("hostile", None).await.expect("connect");
    let watched = "hostile://watched";
    app.set_subscription_filter("hostile", tools_and(watched))
        .await
        .expect("listen");
    let v = panel_when(app, "hostile", "every update counted", |v| {
        v.updates == updates as u64
    })
    .await;
    let rejected: Vec<&str> = (v.history.iter())
        .filter(|t| t.kind == TransitionKind::Rejected)
        .map(|t| t.message.as_str())
        .collect();
    // The four bad ones; the flood's good updates pushed them out of the history, but the count
    // keeps them.
    assert_eq!(v.rejected, 4, "{rejected:?}");
    assert!(
        v.history.len() <= MAX_HISTORY && v.history_omitted > 0,
        "{v:?}"
    );
    assert!(v.uris.len() <= MAX_URIS, "{}", v.uris.len());
    assert_eq!(
        v.uris.len() as u64 + v.uris_omitted,
        updates as u64 + 1,
        "each URI tracked or counted (and the watched one)"
    );
    assert_eq!(
        status(&v),
        Some(StreamStatus::Active),
        "the stream lives on"
    );
    app.shutdown().await;
}

#[tokio::test]
async fn each_rule_a_hostile_server_breaks_is_named() {
    let dir = crate::inspector::TempDir::new("subs-hostile-rules");
    let app = &crate::inspector::inspector_over(&dir, vec![("hostile", hostile(0))], 10_000);
    app.connect("hostile", None).await.expect("connect");
    app.set_subscription_filter("hostile", tools_and("hostile://watched"))
        .await
        .expect("listen");
    let v = panel_when(app, "hostile", "four rejections", |v| v.rejected == 4).await;
    let messages: Vec<&str> = (v.history.iter())
        .filter(|t| t.kind == TransitionKind::Rejected)
        .map(|t| t.message.as_str())
        .collect();
    for said in [
        "notifications/prompts/list_changed: not in the filter",
        "hostile://not-watched: not in the filter",
        "subscription id 999999, which no open listen has",
        "without a subscriptionId",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(said)),
            "{said:?} in {messages:?}"
        );
    }
    assert_eq!(v.updates, 0, "nothing rejected was acted on");
    // Views saw the rejections.
    let (events, _) = app.events().since(1, usize::MAX);
    assert!(
        events
            .iter()
            .any(|e| e.name == "subscriptions" && e.data.contains("999999"))
    );
    app.shutdown().await;
}

#[tokio::test]
async fn on_stdio_a_server_s_notifications_cancelled_is_a_graceful_close() {
    // The testkit's modern fixture acknowledges tool list changes only, sends one, then ends the
    // listen the stdio way (notifications/cancelled naming it).
    let dir = crate::inspector::TempDir::new("subs-stdio-cancelled");
    let bin = mcpscope_testkit::bin_path().expect("testkit binary");
    let entry = json!({"type": "stdio", "command": bin,
        "args": mcpscope_testkit::StdioMode::Modern.args(), "protocolEra": "modern"});
    let app = &crate::inspector::inspector_over(&dir, vec![("fixture", entry)], 10_000);
    app.connect("fixture", None).await.expect("connect");
    app.set_subscription_filter("fixture", tools_and("file:///nowhere"))
        .await
        .expect("listen");
    let v = panel_when(app, "fixture", "the server's close", |v| {
        status(v) == Some(StreamStatus::ClosedByServer)
    })
    .await;
    let s = v.stream.as_ref().expect("stream");
    assert!(
        s.close_reason
            .as_deref()
            .unwrap_or("")
            .contains("notifications/cancelled"),
        "{v:?}"
    );
    assert_eq!(
        s.not_honoured,
        vec!["resources/updated file:///nowhere"],
        "{v:?}"
    );
    assert_eq!(s.notifications, 1, "the one tools/list_changed: {v:?}");
    assert_eq!(v.rejected, 0, "{:?}", v.history);
    app.shutdown().await;
}
