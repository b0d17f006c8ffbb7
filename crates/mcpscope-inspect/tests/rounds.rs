//! Requests that take several questions, against the real demo in both eras: the demo's
//! `onboard` asks in three `input_required` rounds (2026-07-28; the second round holds three
//! keys, all asked at once so a view can walk them as one dialog) or five `elicitation/create`
//! requests (2025-11-25); `elicit-url-required` fails with `-32042` naming a URL until its consent
//! completes (2025-11-25). Each interaction says its round, key, the round's number of keys and
//! the engine's limit; history holds one row per question under the request, with its round;
//! the entry keeps the caller's params, so a Replay asks again instead of resending old answers.

use crate::inspector::{TempDir, demo_in_both_eras, inspector_with};
use mcpscope_inspect::interactions::WaitForView;
use mcpscope_inspect::{Answer, Call, CallOutcome, Inspector, Interaction, Options};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Setup {
    app: Arc<Inspector>,
    _dir: TempDir,
    _demo: mcpscope_demo::LoopbackDemo,
}

/// An inspector whose views answer everything (no policy), over the demo in both eras.
async fn setup(name: &str) -> Setup {
    let dir = TempDir::new(&format!("rounds-{name}"));
    let demo = mcpscope_demo::on_loopback().await.expect("start the demo");
    let options = Options {
        interaction_policy: Arc::new(WaitForView),
        interaction_timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let app = inspector_with(&dir, demo_in_both_eras(&demo.url), options);
    for server in ["legacy", "modern"] {
        app.connect(server, None)
            .await
            .expect("connect to the demo");
    }
    Setup {
        app,
        _dir: dir,
        _demo: demo,
    }
}

fn call_tool(
    app: &Arc<Inspector>,
    server: &'static str,
    tool: &str,
) -> tokio::task::JoinHandle<CallOutcome> {
    let app = app.clone();
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": tool, "arguments": {}})),
        ..Default::default()
    };
    tokio::spawn(async move { app.call(server, c).await.expect("call") })
}

/// The `n` interactions `server` has waiting once there are `n` (a round's keys all open at once).
async fn waiting(app: &Inspector, server: &str, n: usize) -> Vec<Interaction> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let open: Vec<Interaction> = app
            .interactions()
            .into_iter()
            .filter(|i| i.server == server)
            .collect();
        if open.len() >= n {
            assert_eq!(open.len(), n, "{open:?}");
            return open;
        }
        assert!(
            Instant::now() < deadline,
            "{server} asked {open:?}, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Accept `i` with `{key: value}` (each demo question has one field, named as its key).
fn accept(app: &Inspector, i: &Interaction, field: &str, value: Value) {
    app.answer_interaction(i.id, Answer::Accept(json!({ field: value })))
        .expect("answer");
}

fn text(out: &CallOutcome) -> String {
    let result = out.result.as_ref().expect("a result");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Answer the five onboarding questions of the modern demo, round by round.
async fn onboard_modern(app: &Inspector) {
    let [name] = <[Interaction; 1]>::try_from(waiting(app, "modern", 1).await).unwrap();
    assert_eq!(
        (
            name.round,
            name.key.as_deref(),
            name.round_keys,
            name.max_rounds
        ),
        (Some(1), Some("name"), Some(1), Some(10)),
        "round 1 asks one key, and the engine's limit is told: {name:?}"
    );
    accept(app, &name, "name", json!("Ada"));
    let second = waiting(app, "modern", 3).await;
    let keys: Vec<_> = second.iter().map(|i| i.key.clone().unwrap()).collect();
    assert_eq!(
        keys,
        ["email", "newsletter", "team"],
        "all three at once, in order"
    );
    assert!(
        second
            .iter()
            .all(|i| i.round == Some(2) && i.round_keys == Some(3))
    );
    // Answered out of order: the retry waits for all three.
    accept(app, &second[2], "team", json!("apps"));
    accept(app, &second[0], "email", json!("ada@example.com"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        app.interactions().len(),
        1,
        "no retry before the round's last answer"
    );
    accept(app, &second[1], "newsletter", json!(true));
    let [confirm] = <[Interaction; 1]>::try_from(waiting(app, "modern", 1).await).unwrap();
    assert_eq!(
        (confirm.round, confirm.key.as_deref()),
        (Some(3), Some("confirm"))
    );
    accept(app, &confirm, "confirm", json!(true));
}

const ONBOARDED: &str =
    "onboarded Ada to team apps (ada@example.com); newsletter: true; confirmed: true";

#[tokio::test]
async fn modern_three_rounds_one_with_three_keys_and_history_nests_each_under_its_round() {
    let s = setup("modern").await;
    let call = call_tool(&s.app, "modern", "onboard");
    onboard_modern(&s.app).await;
    let out = call.await.unwrap();
    assert_eq!(text(&out), ONBOARDED);
    let entry = s.app.history_entry(out.history_id).await.unwrap();
    let rounds: Vec<(Value, Value)> = entry["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "serverRequest")
        .map(|c| (c["data"]["round"].clone(), c["data"]["outcome"].clone()))
        .collect();
    let accepted = || json!("accepted");
    assert_eq!(
        rounds,
        [
            (json!(1), accepted()),
            (json!(2), accepted()),
            (json!(2), accepted()),
            (json!(2), accepted()),
            (json!(3), accepted())
        ]
        .to_vec(),
        "one row per question, each with its round: {entry}"
    );
    // The entry keeps what the caller sent: replaying it starts over and asks again.
    assert_eq!(entry["params"], json!({"name": "onboard", "arguments": {}}));
    let replay = call_tool(&s.app, "modern", "onboard");
    let [again] = <[Interaction; 1]>::try_from(waiting(&s.app, "modern", 1).await).unwrap();
    assert_eq!(again.round, Some(1), "a replay asks round 1 again");
    s.app
        .answer_interaction(again.id, Answer::Decline)
        .expect("decline");
    let stopped = replay.await.unwrap();
    assert_eq!(
        text(&stopped),
        "onboarding stopped: \"name\" was answered decline"
    );
}

#[tokio::test]
async fn legacy_asks_the_same_five_questions_one_at_a_time() {
    let s = setup("legacy").await;
    let call = call_tool(&s.app, "legacy", "onboard");
    let answers = [
        ("name", json!("Ada")),
        ("team", json!("apps")),
        ("email", json!("ada@example.com")),
        ("newsletter", json!(true)),
        ("confirm", json!(true)),
    ];
    for (field, value) in answers {
        let [i] = <[Interaction; 1]>::try_from(waiting(&s.app, "legacy", 1).await).unwrap();
        assert_eq!(
            (i.round, i.key.as_deref(), i.max_rounds),
            (None, None, None)
        );
        let schema = &i.payload["requestedSchema"]["properties"];
        assert!(schema.get(field).is_some(), "{field}: {}", i.payload);
        accept(&s.app, &i, field, value);
    }
    assert_eq!(text(&call.await.unwrap()), ONBOARDED);
}

#[tokio::test]
async fn legacy_url_elicitation_required_names_the_url_and_the_retry_goes_through_once_complete() {
    let s = setup("required").await;
    let first = call_tool(&s.app, "legacy", "elicit-url-required")
        .await
        .unwrap();
    let err = first.result.expect_err("-32042 is the call's error");
    assert_eq!(err.extra["rpcCode"], json!(-32042), "{err:?}");
    let wanted = &err.extra["data"]["elicitations"][0];
    assert_eq!(wanted["mode"], "url");
    let id = wanted["elicitationId"].as_str().expect("an elicitation id");
    assert!(
        wanted["url"]
            .as_str()
            .unwrap()
            .starts_with("https://example.com/demo-consent?elicitation="),
        "{wanted}"
    );
    // The demo completes the consent by itself and says so.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (all, _) = s.app.events().since(1, usize::MAX);
        let done = all.iter().any(|e| {
            e.name == "notification"
                && e.data.contains("notifications/elicitation/complete")
                && e.data.contains(id)
        });
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no notifications/elicitation/complete"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let retried = call_tool(&s.app, "legacy", "elicit-url-required")
        .await
        .unwrap();
    assert!(text(&retried).contains(&format!("elicitation {id} completed")));
}

#[tokio::test]
async fn modern_url_elicitation_required_asks_in_a_round_instead() {
    let s = setup("required-modern").await;
    let call = call_tool(&s.app, "modern", "elicit-url-required");
    let [i] = <[Interaction; 1]>::try_from(waiting(&s.app, "modern", 1).await).unwrap();
    assert_eq!(i.payload["mode"], "url", "{i:?}");
    assert_eq!(i.round, Some(1));
    s.app
        .answer_interaction(i.id, Answer::Accept(Value::Null))
        .unwrap();
    assert!(text(&call.await.unwrap()).starts_with("action: accept"));
}

/// Send `method` with `params` on `server` in the background.
fn request(
    app: &Arc<Inspector>,
    server: &'static str,
    method: &str,
    params: Value,
) -> tokio::task::JoinHandle<CallOutcome> {
    let app = app.clone();
    let c = Call {
        method: method.into(),
        params: Some(params),
        ..Default::default()
    };
    tokio::spawn(async move { app.call(server, c).await.expect("call") })
}

#[tokio::test]
async fn prompts_get_and_resources_read_ask_too_in_both_eras_tied_to_their_request() {
    let s = setup("prompt-read").await;
    for (server, round) in [("modern", Some(1)), ("legacy", None)] {
        let get = request(&s.app, server, "prompts/get", json!({"name": "ask-topic"}));
        let [topic] = <[Interaction; 1]>::try_from(waiting(&s.app, server, 1).await).unwrap();
        assert_eq!(
            (topic.round, topic.kind),
            (round, mcpscope_inspect::InteractionKind::ElicitationForm)
        );
        accept(&s.app, &topic, "topic", json!("tea"));
        let out = get.await.unwrap();
        assert_eq!(
            topic.history_id,
            Some(out.history_id),
            "{server}: the question names its request"
        );
        let result = out.result.expect("a prompt");
        assert_eq!(
            result["messages"][0]["content"]["text"], "Write three sentences about tea.",
            "{server}: {result}"
        );

        let uri = "demo://files/private/notes.txt";
        let read = request(&s.app, server, "resources/read", json!({"uri": uri}));
        let [allow] = <[Interaction; 1]>::try_from(waiting(&s.app, server, 1).await).unwrap();
        assert_eq!(allow.round, round);
        accept(&s.app, &allow, "allow", json!(true));
        let out = read.await.unwrap();
        assert_eq!(allow.history_id, Some(out.history_id));
        let contents = out.result.expect("contents");
        assert!(
            contents["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("the answer is 42"),
            "{server}: {contents}"
        );
        let refused = request(&s.app, server, "resources/read", json!({"uri": uri}));
        let [again] = <[Interaction; 1]>::try_from(waiting(&s.app, server, 1).await).unwrap();
        s.app.answer_interaction(again.id, Answer::Decline).unwrap();
        let err = refused
            .await
            .unwrap()
            .result
            .expect_err("a declined read fails");
        assert!(
            err.message.contains("the question was answered decline"),
            "{server}: {err:?}"
        );
    }
}
