//! The pending-interaction queue against the real demo server (its `elicit-form`, `sample` and
//! `list-roots` tools ask the client, as legacy server requests or modern `input_required`
//! rounds), with no HTTP server of ours: a view answers one with content and the server's result
//! shows it, a view declines one, one times out (the reason named, the server declined), and the
//! history reads each back as a row of the request that caused it, with its outcome.

use mcpscope_inspect::interactions::WaitForView;
use mcpscope_inspect::{
    Answer, Call, CallOutcome, Catalog, CatalogEntry, Inspector, Interaction, InteractionKind,
    Options,
};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An inspector whose views must answer (no policy) within `timeout`, over the demo in both eras.
struct Setup {
    app: Arc<Inspector>,
    dir: PathBuf,
    _demo: mcpscope_demo::LoopbackDemo,
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn setup(name: &str, timeout: Duration) -> Setup {
    let dir = std::env::temp_dir().join(format!(
        "mcpscope-inspect-interactions-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let demo = mcpscope_demo::on_loopback().await.expect("start the demo");
    let url = demo.url.clone();
    let entry = |era: &str| -> CatalogEntry {
        serde_json::from_value(json!({"type": "http", "url": url, "protocolEra": era}))
            .expect("entry")
    };
    let catalog = Catalog::in_memory(vec![
        ("legacy".into(), entry("legacy")),
        ("modern".into(), entry("modern")),
    ]);
    let store = HistoryStore::open(&dir.join("history.sqlite"), Retention::default())
        .expect("history database");
    let options = Options {
        ping_interval: None,
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.join("secrets.enc"),
            None,
        )),
        interaction_policy: Arc::new(WaitForView),
        interaction_timeout: timeout,
        ..Options::default()
    };
    let app = Inspector::new(catalog, store, options);
    for server in ["legacy", "modern"] {
        app.connect(server, None)
            .await
            .expect("connect to the demo");
    }
    Setup {
        app,
        dir,
        _demo: demo,
    }
}

/// Call `tool` on `server` in the background.
fn call_tool(
    app: &Arc<Inspector>,
    server: &'static str,
    tool: &str,
    arguments: Value,
) -> tokio::task::JoinHandle<CallOutcome> {
    let app = app.clone();
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": tool, "arguments": arguments})),
        ..Default::default()
    };
    tokio::spawn(async move { app.call(server, c).await.expect("call") })
}

/// The one interaction `server` has waiting (generous deadline: 2 loaded cores).
async fn waiting(app: &Inspector, server: &str) -> Interaction {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut open: Vec<Interaction> = app
            .interactions()
            .into_iter()
            .filter(|i| i.server == server)
            .collect();
        if let Some(i) = open.pop() {
            assert!(open.is_empty(), "one interaction at a time: {open:?}");
            return i;
        }
        assert!(Instant::now() < deadline, "{server} never asked");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The tool result's text.
fn text(out: &CallOutcome) -> String {
    let result = out.result.as_ref().expect("a result");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The bodies of the events named `name` so far.
fn events(app: &Inspector, name: &str) -> Vec<Value> {
    let (all, _) = app.events().since(1, usize::MAX);
    all.iter()
        .filter(|e| e.name == name)
        .map(|e| serde_json::from_str(&e.data).expect("event JSON"))
        .collect()
}

/// The `serverRequest` rows of history entry `id`, read back from SQLite.
async fn rows(app: &Inspector, id: i64) -> Vec<Value> {
    let entry = app.history_entry(id).await.expect("history entry");
    entry["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter(|c| c["kind"] == "serverRequest")
        .map(|c| c["data"].clone())
        .collect()
}

#[tokio::test]
async fn a_view_accepts_a_legacy_elicitation_and_the_server_shows_the_content() {
    let s = setup("accept", Duration::from_secs(60)).await;
    let call = call_tool(&s.app, "legacy", "elicit-form", json!({}));
    let asked = waiting(&s.app, "legacy").await;
    assert_eq!(asked.kind, InteractionKind::ElicitationForm);
    assert_eq!(asked.round, None, "a legacy server request has no round");
    assert!(asked.deadline_us > asked.opened_at_us);
    let content = json!({"name": "Grace Hopper", "guests": 3});
    let closed = s
        .app
        .answer_interaction(asked.id, Answer::Accept(content))
        .expect("answer");
    assert_eq!(
        closed.answer,
        json!({"result": {"action": "accept", "content": {"name": "Grace Hopper", "guests": 3}}})
    );
    let out = call.await.expect("call task");
    let shown = text(&out);
    assert!(shown.contains("action: accept"), "{shown}");
    assert!(shown.contains("\"Grace Hopper\""), "{shown}");
    // The cause is known: the interaction, its events and its row name the call's entry.
    let opened = events(&s.app, "interactionOpened");
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0]["historyId"], out.history_id);
    let ended = events(&s.app, "interactionClosed");
    assert_eq!(ended[0]["outcome"], "accepted");
    let [row] = rows(&s.app, out.history_id)
        .await
        .try_into()
        .expect("one row");
    assert_eq!(row["interactionId"], asked.id);
    assert_eq!(row["outcome"], "accepted");
    assert_eq!(row["kind"], "elicitationForm");
    s.app.shutdown().await;
}

#[tokio::test]
async fn a_question_sits_in_history_when_it_was_asked_not_when_it_was_answered() {
    let s = setup("asked-at", Duration::from_secs(60)).await;
    let call = call_tool(&s.app, "legacy", "elicit-form", json!({}));
    let asked = waiting(&s.app, "legacy").await;
    // The user takes a while to answer: the point of this test, not a wait for a condition.
    let think = Duration::from_millis(1500);
    tokio::time::sleep(think).await;
    s.app
        .answer_interaction(asked.id, Answer::Decline)
        .expect("decline");
    let out = call.await.expect("call task");
    let entry = s.app.history_entry(out.history_id).await.expect("entry");
    let child = entry["children"]
        .as_array()
        .expect("children")
        .iter()
        .find(|c| c["kind"] == "serverRequest")
        .expect("the question's row")
        .clone();
    // Its offset is when it was asked (as Traffic shows it), measured from the call's start.
    let started_us = entry["startedAtUs"].as_u64().expect("startedAtUs");
    let asked_after_ms = asked.opened_at_us.saturating_sub(started_us) as f64 / 1000.0;
    let offset = child["offsetMs"].as_f64().expect("offsetMs");
    assert!(
        offset < asked_after_ms + 500.0,
        "asked {asked_after_ms} ms after the call began, but placed at {offset} ms: {child}"
    );
    let answered_after = child["data"]["answeredAfterMs"]
        .as_f64()
        .expect("answeredAfterMs");
    assert!(answered_after >= think.as_millis() as f64, "{child}");
    s.app.shutdown().await;
}

#[tokio::test]
async fn a_view_declines_a_modern_input_required_round() {
    let s = setup("decline", Duration::from_secs(60)).await;
    let call = call_tool(&s.app, "modern", "elicit-form", json!({}));
    let asked = waiting(&s.app, "modern").await;
    assert_eq!(asked.round, Some(1), "the first input_required round");
    assert!(asked.origin.contains("input_required"), "{}", asked.origin);
    s.app
        .answer_interaction(asked.id, Answer::Decline)
        .expect("decline");
    let out = call.await.expect("call task");
    assert!(text(&out).contains("action: decline"), "{}", text(&out));
    let [row] = rows(&s.app, out.history_id)
        .await
        .try_into()
        .expect("one row");
    assert_eq!(row["outcome"], "declined");
    assert_eq!(row["round"], 1);
    // Answered once: a second answer names why it is refused.
    let again = s.app.answer_interaction(asked.id, Answer::Decline);
    assert!(again.unwrap_err().message.contains("no interaction"));
    s.app.shutdown().await;
}

#[tokio::test]
async fn an_unanswered_sampling_request_times_out_with_its_reason_and_the_server_is_declined() {
    let s = setup("timeout", Duration::from_millis(400)).await;
    let call = call_tool(&s.app, "legacy", "sample", json!({"prompt": "hello"}));
    let out = call.await.expect("call task");
    // The demo reports the client's error answer as the tool's error text.
    let shown = text(&out);
    assert!(
        shown.contains("the client's answer was an error"),
        "{shown}"
    );
    let ended = events(&s.app, "interactionClosed");
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0]["outcome"], "timedOut");
    assert_eq!(ended[0]["kind"], "sampling");
    let reason = ended[0]["reason"].as_str().expect("a reason");
    assert!(
        reason.contains("timed out") && reason.contains("400ms"),
        "{reason}"
    );
    assert_eq!(ended[0]["answer"]["error"]["code"], -1);
    let [row] = rows(&s.app, out.history_id)
        .await
        .try_into()
        .expect("one row");
    assert_eq!(row["outcome"], "timedOut");
    assert!(s.app.interactions().is_empty());
    s.app.shutdown().await;
}

#[tokio::test]
async fn a_disconnect_abandons_what_is_still_waiting() {
    let s = setup("abandon", Duration::from_secs(60)).await;
    let _call = call_tool(&s.app, "legacy", "list-roots", json!({}));
    let asked = waiting(&s.app, "legacy").await;
    assert_eq!(asked.kind, InteractionKind::Roots);
    s.app.disconnect("legacy").await.expect("disconnect");
    assert!(s.app.interactions().is_empty());
    let deadline = Instant::now() + Duration::from_secs(30);
    let ended = loop {
        let ended = events(&s.app, "interactionClosed");
        if !ended.is_empty() || Instant::now() > deadline {
            break ended;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(ended[0]["outcome"], "abandoned");
    assert!(
        ended[0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("disconnect")
    );
    s.app.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_call_between_input_required_rounds_ends_it_at_once() {
    let s = setup("cancel-round", Duration::from_secs(60)).await;
    let app = s.app.clone();
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "elicit-form", "arguments": {}})),
        request_id: Some("cancel-me".into()),
        ..Default::default()
    };
    let call = tokio::spawn(async move { app.call("modern", c).await.expect("call") });
    let asked = waiting(&s.app, "modern").await;
    assert_eq!(asked.round, Some(1));
    let started = Instant::now();
    assert!(s.app.cancel("cancel-me"), "the call is in flight");
    // Nothing of ours is on the wire between rounds: the engine must stop waiting for the
    // person (not the 60 s interaction timeout) and abandon the question.
    let out = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the cancelled call ends without waiting for the answer")
        .expect("call task");
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = out.result.expect_err("a cancelled call has no result");
    assert!(err.message.contains("cancel"), "{}", err.message);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !s.app.interactions().is_empty() {
        assert!(Instant::now() < deadline, "the question is still pending");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ended = events(&s.app, "interactionClosed");
    assert_eq!(ended[0]["outcome"], "abandoned", "{ended:?}");
    s.app.shutdown().await;
}
