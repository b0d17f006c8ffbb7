//! Testing Profiles through the web API, against the real demo server's `sample` tool in both
//! eras, with the web UI's own policy: a profile made with `PUT /api/profiles/{name}`, chosen
//! with `PUT /api/servers/{name}/profile` (Auto-respond, without stopping) answers the tool by
//! itself and the closed event names it; with "without stopping" off the request waits and
//! `GET`/`POST /api/interactions/{id}/profile` give the card its pre-fill and its one-click
//! answer; a rename follows into the choices, a delete clears them; bad bodies and unknown names
//! are refused with the reason; `profiles.json` is written in the data directory.

use crate::support::{Backend, Events, Options, TempDir, both_eras, demo, start};
use serde_json::{Value, json};

async fn backend(dir: &TempDir, url: &str) -> Backend {
    let b = start(dir.path(), both_eras(url), Options::default()).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
    }
    b
}

/// `PUT` that must succeed.
async fn put_ok(b: &Backend, path: &str, body: Value) -> Value {
    let r = b.put(path, body).await;
    assert_eq!(r.status, 200, "PUT {path}: {}", r.text);
    r.body
}

fn sample(b: &Backend, server: &str, prompt: &str) -> tokio::task::JoinHandle<(u16, String)> {
    b.spawn_post(
        &format!("/api/servers/{server}/request"),
        json!({"method": "tools/call", "params": {"name": "sample", "arguments": {"prompt": prompt}}}),
    )
}

async fn tool_text(call: tokio::task::JoinHandle<(u16, String)>) -> String {
    let (status, text) = call.await.expect("call task");
    assert_eq!(status, 200, "{text}");
    let body: Value = serde_json::from_str(&text).expect("JSON");
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn choose(b: &Backend, profile: &str, without_stopping: bool) {
    for server in ["legacy", "modern"] {
        let choice =
            json!({"profile": profile, "autoRespond": true, "withoutStopping": without_stopping});
        let kept = put_ok(b, &format!("/api/servers/{server}/profile"), choice.clone()).await;
        assert_eq!(kept, choice);
    }
}

async fn opened(events: &Events, server: &str) -> u64 {
    let ev = events
        .wait("interactionOpened", |e| {
            e.name == "interactionOpened" && e.data["server"] == server
        })
        .await;
    ev.data["id"].as_u64().expect("id")
}

#[tokio::test]
async fn a_profile_made_and_chosen_over_the_api_answers_the_sample_tool_in_both_eras() {
    let dir = TempDir::new("profiles-auto");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    let mock = json!({"strategy": {"kind": "fixed", "text": "This is a mock LLM response."},
                      "model": "mock-llm", "stopReason": "endTurn"});
    let kept = put_ok(&b, "/api/profiles/Quick%20Mock", mock).await;
    assert_eq!(kept["name"], "Quick Mock", "the path names it");
    choose(&b, "Quick Mock", true).await;
    let events = b.events(None).await;
    for server in ["legacy", "modern"] {
        let text = tool_text(sample(&b, server, "Capital of France?")).await;
        assert_eq!(text, "This is a mock LLM response.", "{server}");
        let closed = events
            .wait("interactionClosed", |e| {
                e.name == "interactionClosed" && e.data["server"] == server
            })
            .await;
        assert_eq!(
            closed.data["reason"],
            "answered by Testing Profile «Quick Mock»"
        );
        assert_eq!(closed.data["answer"]["result"]["model"], "mock-llm");
    }
    let listed = b.get("/api/profiles").await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body["profiles"][0]["name"], "Quick Mock");
    assert_eq!(listed.body["servers"]["modern"]["profile"], "Quick Mock");
    let file = listed.body["file"].as_str().expect("kept in a file");
    assert!(
        file.ends_with("profiles.json") && std::path::Path::new(file).exists(),
        "{file}"
    );
    assert!(
        file.starts_with(&dir.path().display().to_string()),
        "in the data directory: {file}"
    );
    b.stop().await;
}

#[tokio::test]
async fn without_stopping_off_the_card_gets_the_pre_fill_and_a_one_click_answer() {
    let dir = TempDir::new("profiles-card");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    put_ok(
        &b,
        "/api/profiles/Echo",
        json!({"strategy": {"kind": "echo"}}),
    )
    .await;
    choose(&b, "Echo", false).await;
    let events = b.events(None).await;
    for server in ["legacy", "modern"] {
        let call = sample(&b, server, "repeat after me");
        let id = opened(&events, server).await;
        let pre = b.get(&format!("/api/interactions/{id}/profile")).await;
        assert_eq!(pre.status, 200, "{}", pre.text);
        assert_eq!(pre.body["profile"]["name"], "Echo");
        assert_eq!(pre.body["answer"]["action"], "accept");
        assert_eq!(
            pre.body["answer"]["content"]["content"]["text"],
            "repeat after me"
        );
        assert_eq!(pre.body["answer"]["content"]["model"], "mcpscope-profile");
        assert_eq!(pre.body["delayMs"], 0);
        let closed = b
            .ok(&format!("/api/interactions/{id}/profile"), json!({}))
            .await;
        assert_eq!(closed["reason"], "answered by Testing Profile «Echo»");
        assert_eq!(tool_text(call).await, "repeat after me", "{server}");
        let again = b.get(&format!("/api/interactions/{id}/profile")).await;
        assert_eq!(again.status, 404, "answered: {}", again.text);
    }
    b.stop().await;
}

#[tokio::test]
async fn renames_deletes_and_bad_bodies_are_handled_with_reasons() {
    let dir = TempDir::new("profiles-crud");
    let d = demo().await;
    let b = backend(&dir, &d.url).await;
    put_ok(
        &b,
        "/api/profiles/A",
        json!({"strategy": {"kind": "reject"}}),
    )
    .await;
    choose(&b, "A", true).await;
    let renamed = put_ok(
        &b,
        "/api/profiles/A",
        json!({"name": "B", "strategy": {"kind": "reject"}}),
    )
    .await;
    assert_eq!(renamed["name"], "B");
    let choice = b.get("/api/servers/legacy/profile").await;
    assert_eq!(choice.body["profile"], "B", "the choice follows the rename");
    // A bad strategy, a delay past the bound, a tool-use input that is not an object.
    for (body, says) in [
        (
            json!({"strategy": {"kind": "telepathy"}}),
            "unknown variant",
        ),
        (
            json!({"strategy": {"kind": "delay", "ms": 900000, "text": "x"}}),
            "longer than 300000 ms",
        ),
        (
            json!({"strategy": {"kind": "toolUse", "tool": "t", "input": [1]}}),
            "JSON object",
        ),
        (json!({"strategy": "fixed"}), "a profile is"),
    ] {
        let r = b.put("/api/profiles/C", body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text);
        assert_eq!(r.body["error"]["code"], "usage");
        let message = r.body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{body}: {message}");
    }
    let unknown = b
        .put(
            "/api/servers/legacy/profile",
            json!({"profile": "Nope", "autoRespond": true}),
        )
        .await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);
    let no_server = b
        .put("/api/servers/ghost/profile", json!({"profile": null}))
        .await;
    assert_eq!(no_server.status, 404, "{}", no_server.text);
    let deleted = b.delete("/api/profiles/B").await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    let after = b.get("/api/servers/legacy/profile").await;
    assert_eq!(after.body["profile"], Value::Null);
    let gone = b.delete("/api/profiles/B").await;
    assert_eq!(gone.status, 404);
    // With no profile chosen, a sampling request waits for its card as before.
    let events = b.events(None).await;
    let call = sample(&b, "legacy", "hi");
    let id = opened(&events, "legacy").await;
    let none = b.get(&format!("/api/interactions/{id}/profile")).await;
    assert_eq!(none.status, 404, "{}", none.text);
    b.ok(
        &format!("/api/interactions/{id}"),
        json!({"action": "decline"}),
    )
    .await;
    call.await.expect("call task");
    b.stop().await;
}
