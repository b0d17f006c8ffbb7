//! A server not built by us answered by a Testing Profile: `@modelcontextprotocol/server-everything`
//! over stdio, driven by the inspector core exactly as the web UI runs it (its default policy),
//! with profiles chosen for it. Its `trigger-sampling-request` tool parses our answer with the
//! TypeScript SDK's own `CreateMessageResultSchema` and returns it, so a malformed result fails
//! there, not in our code: a fixed-text profile's answer comes back whole (model, stop reason),
//! an echo profile sends the prompt back, and a reject profile gives the tool the error.

use crate::peers_support::Peers;
use mcpscope_inspect::profiles::{ActiveProfile, Profile, Strategy};
use mcpscope_inspect::{Call, Inspector};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// Make `strategy` the server's profile, answering without stopping.
async fn answer_with(app: &Inspector, name: &str, strategy: Strategy) {
    let p = Profile {
        name: name.into(),
        strategy,
        model: "mock-llm".into(),
        stop_reason: Some("endTurn".into()),
    };
    app.put_profile(name, p).await.expect("put profile");
    let choice = ActiveProfile {
        profile: Some(name.into()),
        auto_respond: true,
        without_stopping: true,
    };
    app.set_active_profile("everything", choice)
        .await
        .expect("choose");
}

/// `trigger-sampling-request` with `prompt`: the tool's text and whether it is an error.
async fn sample(app: &Arc<Inspector>, prompt: &str) -> (String, bool) {
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "trigger-sampling-request", "arguments": {"prompt": prompt}})),
        ..Default::default()
    };
    let out = app.call("everything", c).await.expect("call");
    match out.result {
        Ok(r) => (
            r["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            r["isError"] == json!(true),
        ),
        Err(e) => (e.message, true),
    }
}

/// The JSON the tool prints after its `LLM sampling result:` line.
fn sampled(text: &str) -> Value {
    let json = text
        .split_once('\n')
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("no sampling result in {text:?}"));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn server_everything_is_answered_by_testing_profiles() {
    let Some(peers) = Peers::get("server_everything_is_answered_by_testing_profiles") else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("peers-everything-profiles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let app = peers.everything_in_core(&dir).await;

    let fixed = Strategy::Fixed {
        text: "a mock answer".into(),
    };
    answer_with(&app, "Quick Mock", fixed).await;
    let (text, failed) = sample(&app, "Say hi").await;
    assert!(!failed, "{text}");
    assert_eq!(
        sampled(&text),
        json!({"role": "assistant", "content": {"type": "text", "text": "a mock answer"},
               "model": "mock-llm", "stopReason": "endTurn"}),
        "the SDK's schema kept our result whole"
    );

    answer_with(&app, "Echo", Strategy::Echo).await;
    let (text, failed) = sample(&app, "repeat <me>").await;
    assert!(!failed, "{text}");
    assert_eq!(
        sampled(&text)["content"]["text"],
        "Resource trigger-sampling-request context: repeat <me>",
        "the last user message, as the server wrote it"
    );

    answer_with(&app, "No", Strategy::Reject).await;
    let (text, failed) = sample(&app, "refuse this").await;
    assert!(failed, "the rejection reaches the tool as an error: {text}");
    assert!(text.contains("User rejected sampling request"), "{text}");

    app.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
