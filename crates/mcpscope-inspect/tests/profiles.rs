//! Testing Profiles against the real demo server's `sample` tool, which asks the client's model
//! as a legacy `sampling/createMessage` or a 2026-07-28 `input_required` round: with the web
//! UI's default policy, a server whose active profile has Auto-respond and "without stopping" on
//! is answered by it (the tool's result shows the profile's text, the closed interaction names
//! the profile); a delay profile answers after its delay unless a view answers first; a reject
//! profile gives the server an error; with "without stopping" off the request waits for its card
//! and the profile's answer is one call away; the profiles survive a restart in `profiles.json`.

use crate::inspector::{TempDir, demo_in_both_eras, inspector_with};
use mcpscope_inspect::profiles::{ActiveProfile, PROFILES_FILE, Profile, Strategy};
use mcpscope_inspect::{Answer, Call, CallOutcome, Inspector, Options};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Setup {
    app: Arc<Inspector>,
    dir: TempDir,
    _demo: mcpscope_demo::LoopbackDemo,
}

/// The web UI's inspector (default policy) over the demo in both eras, history in `dir`.
fn inspector(dir: &TempDir, url: &str) -> Arc<Inspector> {
    inspector_with(dir, demo_in_both_eras(url), Options::default())
}

async fn setup(name: &str) -> Setup {
    let dir = TempDir::new(&format!("profiles-{name}"));
    let demo = mcpscope_demo::on_loopback().await.expect("start the demo");
    let app = inspector(&dir, &demo.url);
    for server in ["legacy", "modern"] {
        app.connect(server, None).await.expect("connect");
    }
    Setup {
        app,
        dir,
        _demo: demo,
    }
}

fn profile(name: &str, strategy: Strategy) -> Profile {
    Profile {
        name: name.into(),
        strategy,
        model: "mock-model".into(),
        stop_reason: None,
    }
}

/// Make `p` the active profile of both servers with the two switches.
async fn choose(app: &Inspector, p: Profile, without_stopping: bool) {
    let name = p.name.clone();
    app.put_profile(&name, p).await.expect("put profile");
    for server in ["legacy", "modern"] {
        let choice = ActiveProfile {
            profile: Some(name.clone()),
            auto_respond: true,
            without_stopping,
        };
        app.set_active_profile(server, choice)
            .await
            .expect("choose");
    }
}

fn sample(
    app: &Arc<Inspector>,
    server: &'static str,
    prompt: &str,
) -> tokio::task::JoinHandle<CallOutcome> {
    let app = app.clone();
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "sample", "arguments": {"prompt": prompt}})),
        ..Default::default()
    };
    tokio::spawn(async move { app.call(server, c).await.expect("call") })
}

/// The tool result's text, or the call's error message.
fn shown(out: &CallOutcome) -> String {
    match &out.result {
        Ok(r) => r["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        Err(e) => format!("error: {}", e.message),
    }
}

fn closed(app: &Inspector) -> Vec<Value> {
    let (all, _) = app.events().since(1, usize::MAX);
    all.iter()
        .filter(|e| e.name == "interactionClosed")
        .map(|e| serde_json::from_str(&e.data).expect("event JSON"))
        .collect()
}

/// The one sampling interaction `server` has waiting.
async fn waiting(app: &Inspector, server: &str) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(i) = app.interactions().into_iter().find(|i| i.server == server) {
            return i.id;
        }
        assert!(Instant::now() < deadline, "{server} never asked");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn auto_respond_answers_the_sample_tool_in_both_eras_and_names_the_profile() {
    let s = setup("fixed").await;
    let text = "This is a mock LLM response for testing purposes.";
    let fixed = Strategy::Fixed { text: text.into() };
    choose(&s.app, profile("Quick Mock", fixed), true).await;
    for server in ["legacy", "modern"] {
        let out = sample(&s.app, server, "Capital of France?").await.unwrap();
        assert_eq!(shown(&out), text, "{server}");
    }
    let ended = closed(&s.app);
    assert_eq!(ended.len(), 2, "{ended:?}");
    for e in &ended {
        assert_eq!(e["outcome"], "accepted");
        assert_eq!(e["reason"], "answered by Testing Profile «Quick Mock»");
        assert_eq!(e["answer"]["result"]["model"], "mock-model");
    }
    // Echo sends the prompt back.
    choose(&s.app, profile("Echo", Strategy::Echo), true).await;
    for server in ["legacy", "modern"] {
        let out = sample(&s.app, server, "say <this> back").await.unwrap();
        assert_eq!(shown(&out), "say <this> back", "{server}");
    }
    s.app.shutdown().await;
}

#[tokio::test]
async fn a_delay_profile_answers_after_its_delay_and_a_view_answering_first_wins() {
    let s = setup("delay").await;
    let slow = Strategy::Delay {
        ms: 800,
        text: "late answer".into(),
    };
    choose(&s.app, profile("Slow", slow), true).await;
    for server in ["legacy", "modern"] {
        let started = Instant::now();
        let call = sample(&s.app, server, "wait for it");
        // Pending (its card shows) while the delay runs.
        waiting(&s.app, server).await;
        let out = call.await.unwrap();
        assert!(
            started.elapsed() >= Duration::from_millis(800),
            "{server}: answered early"
        );
        assert_eq!(shown(&out), "late answer", "{server}");
    }
    let slower = Strategy::Delay {
        ms: 20_000,
        text: "too late".into(),
    };
    choose(&s.app, profile("Slower", slower), true).await;
    for server in ["legacy", "modern"] {
        let started = Instant::now();
        let call = sample(&s.app, server, "a person answers");
        let id = waiting(&s.app, server).await;
        let by_hand = json!({"role": "assistant", "content": {"type": "text", "text": "by hand"}, "model": "me"});
        s.app
            .answer_interaction(id, Answer::Accept(by_hand))
            .expect("the view answers");
        let out = call.await.unwrap();
        assert_eq!(shown(&out), "by hand", "{server}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{server}: waited for the delay"
        );
    }
    let ended = closed(&s.app);
    let reasons: Vec<&Value> = ended.iter().map(|e| &e["reason"]).collect();
    assert_eq!(
        reasons,
        [
            &json!("answered by Testing Profile «Slow»"),
            &json!("answered by Testing Profile «Slow»"),
            &Value::Null,
            &Value::Null
        ],
        "the delayed answer closes nothing the view closed first"
    );
    s.app.shutdown().await;
}

#[tokio::test]
async fn a_reject_profile_gives_the_server_an_error() {
    let s = setup("reject").await;
    choose(&s.app, profile("No", Strategy::Reject), true).await;
    let legacy = sample(&s.app, "legacy", "x").await.unwrap();
    assert!(
        shown(&legacy).contains("the client's answer was an error"),
        "{}",
        shown(&legacy)
    );
    let modern = sample(&s.app, "modern", "x").await.unwrap();
    assert!(shown(&modern).starts_with("error:"), "{}", shown(&modern));
    for e in closed(&s.app) {
        assert_eq!(e["outcome"], "declined");
        assert_eq!(e["answer"]["error"]["code"], -1);
        assert_eq!(e["reason"], "answered by Testing Profile «No»");
    }
    s.app.shutdown().await;
}

#[tokio::test]
async fn without_stopping_off_the_request_waits_and_the_profile_answers_in_one_call() {
    let s = setup("prefill").await;
    let fixed = Strategy::Fixed {
        text: "pre-filled".into(),
    };
    choose(&s.app, profile("Card", fixed), false).await;
    for server in ["legacy", "modern"] {
        let call = sample(&s.app, server, "hi");
        let id = waiting(&s.app, server).await;
        // Nothing answers by itself: the card waits with the profile's answer.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(s.app.interactions().len(), 1);
        let pre = s.app.profile_answer(id).expect("the profile's answer");
        assert_eq!(pre.answer["action"], "accept");
        assert_eq!(pre.answer["content"]["content"]["text"], "pre-filled");
        let ended = s.app.answer_with_profile(id).expect("answered");
        assert_eq!(
            ended.reason.as_deref(),
            Some("answered by Testing Profile «Card»")
        );
        assert_eq!(shown(&call.await.unwrap()), "pre-filled", "{server}");
    }
    s.app.shutdown().await;
}

#[tokio::test]
async fn profiles_and_choices_survive_a_restart_in_the_data_directory() {
    let s = setup("persist").await;
    let fixed = Strategy::Fixed {
        text: "kept".into(),
    };
    choose(&s.app, profile("Kept", fixed), true).await;
    let file = s.dir.path().join(PROFILES_FILE);
    assert!(file.exists(), "written beside the history");
    s.app.shutdown().await;
    let again = inspector(&s.dir, &s._demo.url);
    let view = again.profiles();
    assert_eq!(view.profiles.len(), 1);
    assert_eq!(view.profiles[0].name, "Kept");
    assert!(view.servers["legacy"].auto_respond);
    // Deleting the profile leaves the servers with none.
    again.delete_profile("Kept").await.expect("delete");
    let servers = again.profiles().servers;
    assert_eq!(servers["legacy"].profile, None, "{servers:?}");
    assert!(
        servers["legacy"].auto_respond,
        "the switches stay for the next profile"
    );
    let unknown = ActiveProfile {
        profile: Some("Nope".into()),
        ..Default::default()
    };
    let refused = again
        .set_active_profile("legacy", unknown)
        .await
        .unwrap_err();
    assert!(
        refused.message.contains("no Testing Profile named"),
        "{}",
        refused.message
    );
    again.shutdown().await;
}
