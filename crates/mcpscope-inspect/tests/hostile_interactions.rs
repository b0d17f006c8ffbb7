//! What a hostile server asks, through the web UI's default policy (the testkit's
//! `hostile-interactions` on 2025-11-25 and `modern` on 2026-07-28, over stdio): a request
//! method nobody knows is answered method-not-found with a warning that names it; a thousand
//! questions at once fill the queue to its bound and the rest are declined at once and counted;
//! an answer to a question that is no longer waiting is told so; a modern round that asks
//! nothing is named in a warning and ended by the round limit — never a hang.

use crate::inspector::{TempDir, eventually, inspector_over};
use mcpscope_inspect::interactions::{Answer, MAX_PENDING};
use mcpscope_inspect::{Call, CallOutcome, Inspector};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn setup(name: &str) -> (TempDir, Arc<Inspector>) {
    let dir = TempDir::new(name);
    let bin = mcpscope_testkit::bin_path().expect("testkit binary");
    let entry = |mode: StdioMode, era: &str| json!({"type": "stdio", "command": bin, "args": mode.args(), "protocolEra": era});
    let servers = vec![
        ("hostile", entry(StdioMode::HostileInteractions, "legacy")),
        ("modern", entry(StdioMode::Modern, "modern")),
    ];
    let app = inspector_over(&dir, servers, 1000);
    (dir, app)
}

/// `tools/call` of `tool` on `server`, in the background.
fn call(
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

fn text(out: &CallOutcome) -> String {
    let r = out.result.as_ref().expect("a result");
    r.pointer("/content/0/text")
        .and_then(Value::as_str)
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

async fn ended(h: tokio::task::JoinHandle<CallOutcome>) -> CallOutcome {
    tokio::time::timeout(Duration::from_secs(60), h)
        .await
        .expect("the call ends")
        .expect("call task")
}

#[tokio::test]
async fn an_unknown_request_method_is_answered_method_not_found_and_named() {
    let (_dir, app) = setup("hostile-unknown");
    app.connect("hostile", None).await.expect("connect");
    let out = ended(call(&app, "hostile", "unknown-request", json!({}))).await;
    assert_eq!(text(&out), "unknown-request: 1 answered: error -32601 1");
    let closed = events(&app, "interactionClosed");
    assert_eq!(closed.len(), 1, "{closed:?}");
    assert_eq!(closed[0]["kind"], "other");
    assert_eq!(closed[0]["method"], "x-vendor/frobnicate");
    let warned: Vec<String> = events(&app, "warning")
        .iter()
        .filter_map(|w| w["message"].as_str().map(str::to_owned))
        .filter(|m| m.contains("x-vendor/frobnicate"))
        .collect();
    let [warning] = warned.as_slice() else {
        panic!("one warning naming the method: {warned:?}")
    };
    assert!(
        warning.contains("does not know") && warning.contains("-32601"),
        "{warning}"
    );
    assert!(app.interactions().is_empty(), "no card left waiting");
    app.disconnect("hostile").await.expect("disconnect");
}

#[tokio::test]
async fn a_thousand_questions_at_once_are_bounded_counted_and_answerable() {
    let (_dir, app) = setup("hostile-thousand");
    app.connect("hostile", None).await.expect("connect");
    let asked = call(&app, "hostile", "questions", json!({"count": 1000}));
    let refused = eventually("the queue to fill and the rest to be refused", || async {
        let refused: Vec<Value> = events(&app, "interactionClosed")
            .into_iter()
            .filter(|c| {
                c["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("refused"))
            })
            .collect();
        (app.interactions().len() == MAX_PENDING && refused.len() == 1000 - MAX_PENDING)
            .then_some(refused)
    })
    .await;
    assert!(refused.iter().all(|c| c["outcome"] == "declined"));
    let last = refused.last().unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        last.contains(&format!("{} refused so far", 1000 - MAX_PENDING)),
        "{last}"
    );
    // The ones kept are answerable, in order; the call then ends with every answer.
    for i in app.interactions() {
        app.answer_interaction(i.id, Answer::Decline)
            .expect("answer");
    }
    let out = ended(asked).await;
    assert_eq!(text(&out), "questions: 1000 answered: decline 1000");
    app.disconnect("hostile").await.expect("disconnect");
}

#[tokio::test]
async fn an_answer_to_a_question_no_longer_waiting_is_told_so() {
    let (_dir, app) = setup("hostile-late");
    app.connect("hostile", None).await.expect("connect");
    let _asked = call(&app, "hostile", "questions", json!({"count": 1}));
    let q = eventually("the question", || async { app.interactions().pop() }).await;
    // The connection goes: the question is abandoned; an answer after that is refused by name.
    app.disconnect("hostile").await.expect("disconnect");
    let late = app
        .answer_interaction(q.id, Answer::Accept(json!({"answer": "x"})))
        .expect_err("no longer waiting");
    assert_eq!(late.code.code(), "not_found", "{late:?}");
    assert!(late.message.contains("no interaction"), "{}", late.message);
    // The close reaches the bus through the queue's sink, which may publish a moment later.
    let closed = eventually("the abandoned question's close", || async {
        let closed = events(&app, "interactionClosed");
        (!closed.is_empty()).then_some(closed)
    })
    .await;
    assert_eq!(closed[0]["outcome"], "abandoned", "{closed:?}");
}

#[tokio::test]
async fn a_modern_round_that_asks_nothing_is_named_and_ends_at_the_round_limit() {
    let (_dir, app) = setup("hostile-empty-round");
    app.connect("modern", None).await.expect("connect");
    let out = ended(call(&app, "modern", "empty-round", json!({}))).await;
    let err = out.result.expect_err("never completes");
    assert!(err.message.contains("round"), "{}", err.message);
    let warned: Vec<String> = events(&app, "warning")
        .iter()
        .filter_map(|w| w["message"].as_str().map(str::to_owned))
        .filter(|m| m.contains("empty inputRequests"))
        .collect();
    assert!(!warned.is_empty(), "each empty round is said");
    assert!(warned[0].contains("round 1"), "{warned:?}");
    assert!(
        app.interactions().is_empty(),
        "no blank card: nothing was asked"
    );
    app.disconnect("modern").await.expect("disconnect");
}
