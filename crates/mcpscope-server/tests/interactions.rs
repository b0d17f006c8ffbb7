//! The pending-interaction queue through the web API, against the real demo server (its
//! `elicit-form` tool asks the client: a legacy `elicitation/create` request, or a modern
//! `input_required` round). The backend's policy is `WaitForView`, so each question waits for
//! `POST /api/interactions/{id}`: one accepted (the tool's result shows the content), one
//! declined, each seen on `/api/events`, listed by `GET /api/interactions` and read back as the
//! `serverRequest` row of the call's history entry; an answer to a closed id is `not_found`, a
//! body of the wrong shape `usage`, and the routes sit behind the token and the Origin check.

use crate::support::{Backend, Events, Options, TempDir, both_eras, demo, start};
use mcpscope_inspect::interactions::WaitForView;
use mcpscope_server::TOKEN_HEADER;
use serde_json::{Value, json};
use std::sync::Arc;

/// A backend over the demo in both eras whose views answer every server question.
async fn waiting_backend(dir: &TempDir, url: &str) -> Backend {
    let opts = Options {
        interaction_policy: Some(Arc::new(WaitForView)),
        ..Options::default()
    };
    let b = start(dir.path(), both_eras(url), opts).await;
    for server in ["legacy", "modern"] {
        let info = b
            .ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        assert_eq!(info["era"], server, "{info}");
    }
    b
}

/// Call the demo's `elicit-form` on `server` in the background: `(status, body)` when it ends.
fn elicit(b: &Backend, server: &str) -> tokio::task::JoinHandle<(u16, String)> {
    b.spawn_post(
        &format!("/api/servers/{server}/request"),
        json!({"method": "tools/call", "params": {"name": "elicit-form", "arguments": {}}}),
    )
}

/// The `interactionOpened` event of `server`, and `GET /api/interactions` saying the same.
async fn opened(b: &Backend, events: &Events, server: &str) -> Value {
    let ev = events
        .wait("interactionOpened", |e| {
            e.name == "interactionOpened" && e.data["server"] == server
        })
        .await;
    let listed = b.get("/api/interactions").await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let [waiting] = listed.body["interactions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .try_into()
        .unwrap_or_else(|v| panic!("one interaction waits: {v:?}"));
    assert_eq!(waiting, ev.data, "the list holds the event's interaction");
    waiting
}

/// The finished call's body (it must have succeeded).
async fn finished(call: tokio::task::JoinHandle<(u16, String)>) -> Value {
    let (status, text) = call.await.expect("call task");
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).expect("JSON")
}

/// The `serverRequest` rows of history entry `id`.
async fn rows(b: &Backend, id: &Value) -> Vec<Value> {
    let entry = b.get(&format!("/api/history/{id}")).await;
    assert_eq!(entry.status, 200, "{}", entry.text);
    entry.body["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter(|c| c["kind"] == "serverRequest")
        .map(|c| c["data"].clone())
        .collect()
}

/// The tool result's text.
fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::test]
async fn a_legacy_elicitation_accepted_over_the_api_reaches_the_server() {
    let dir = TempDir::new("interaction-accept");
    let d = demo().await;
    let b = waiting_backend(&dir, &d.url).await;
    let events = b.events(None).await;
    let call = elicit(&b, "legacy");
    let asked = opened(&b, &events, "legacy").await;
    assert_eq!(asked["kind"], "elicitationForm");
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["round"], Value::Null, "a legacy server request");
    assert!(asked["payload"]["requestedSchema"].is_object(), "{asked}");
    let id = asked["id"].as_u64().expect("id");
    let content = json!({"name": "Grace Hopper", "guests": 3});
    let closed = b
        .ok(
            &format!("/api/interactions/{id}"),
            json!({"action": "accept", "content": content}),
        )
        .await;
    assert_eq!(closed["outcome"], "accepted");
    assert_eq!(
        closed["answer"],
        json!({"result": {"action": "accept", "content": content}})
    );
    let body = finished(call).await;
    assert!(text(&body).contains("action: accept"), "{body}");
    assert!(text(&body).contains("\"Grace Hopper\""), "{body}");
    assert_eq!(
        asked["historyId"], body["historyId"],
        "its cause is the call"
    );
    let ev = events
        .wait("interactionClosed", |e| e.name == "interactionClosed")
        .await;
    assert_eq!(ev.data["id"], id);
    assert_eq!(ev.data["outcome"], "accepted");
    assert_eq!(ev.data["answer"], closed["answer"]);
    let [row] = rows(&b, &body["historyId"])
        .await
        .try_into()
        .expect("one serverRequest row");
    assert_eq!(row["interactionId"], id);
    assert_eq!(row["outcome"], "accepted");
    assert_eq!(row["kind"], "elicitationForm");
    assert_eq!(row["answer"], closed["answer"]);
    assert!(b.get("/api/interactions").await.body["interactions"] == json!([]));
    // Answered once: the id is closed now.
    let again = b
        .post(
            &format!("/api/interactions/{id}"),
            json!({"action": "decline"}),
        )
        .await;
    assert_eq!(again.status, 404, "{}", again.text);
    assert_eq!(again.body["error"]["code"], "not_found");
    assert!(
        again.body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains(&format!("no interaction {id} is waiting")),
        "{}",
        again.text
    );
    b.stop().await;
}

#[tokio::test]
async fn a_modern_input_required_round_declined_over_the_api() {
    let dir = TempDir::new("interaction-decline");
    let d = demo().await;
    let b = waiting_backend(&dir, &d.url).await;
    let events = b.events(None).await;
    let call = elicit(&b, "modern");
    let asked = opened(&b, &events, "modern").await;
    assert_eq!(asked["round"], 1, "the first input_required round");
    let id = asked["id"].as_u64().expect("id");
    // A body of the wrong shape is refused and leaves the interaction waiting.
    for bad in [
        json!({"action": "maybe"}),
        json!({"content": {}}),
        json!([]),
    ] {
        let r = b.post(&format!("/api/interactions/{id}"), bad).await;
        assert_eq!(r.status, 400, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "usage", "{}", r.text);
    }
    let r = b
        .post("/api/interactions/first", json!({"action": "decline"}))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.body["error"]["code"], "usage", "{}", r.text);
    assert_eq!(
        b.get("/api/interactions").await.body["interactions"][0]["id"],
        id
    );
    let closed = b
        .ok(
            &format!("/api/interactions/{id}"),
            json!({"action": "decline"}),
        )
        .await;
    assert_eq!(closed["outcome"], "declined");
    assert_eq!(closed["round"], 1);
    let body = finished(call).await;
    assert!(text(&body).contains("action: decline"), "{body}");
    let ev = events
        .wait("interactionClosed", |e| e.name == "interactionClosed")
        .await;
    assert_eq!(ev.data["outcome"], "declined");
    let [row] = rows(&b, &body["historyId"])
        .await
        .try_into()
        .expect("one serverRequest row");
    assert_eq!(row["interactionId"], id);
    assert_eq!(row["outcome"], "declined");
    assert_eq!(row["round"], 1);
    // An id that never was is not found either.
    let never = b
        .post("/api/interactions/999999", json!({"action": "cancel"}))
        .await;
    assert_eq!(never.status, 404, "{}", never.text);
    assert_eq!(never.body["error"]["code"], "not_found");
    b.stop().await;
}

/// The security layers cover the new routes as every other: no token or a wrong one is 401, a
/// foreign Origin 403, and a refused answer leaves the interaction waiting.
#[tokio::test]
async fn the_interaction_routes_need_the_token_and_our_origin() {
    let dir = TempDir::new("interaction-security");
    let d = demo().await;
    let b = waiting_backend(&dir, &d.url).await;
    let events = b.events(None).await;
    let call = elicit(&b, "legacy");
    let asked = opened(&b, &events, "legacy").await;
    let id = asked["id"].as_u64().expect("id");
    let answer_url = b.url(&format!("/api/interactions/{id}"));
    let list_url = b.url("/api/interactions");
    let good = format!("Bearer {}", b.token);
    let decline = json!({"action": "decline"}).to_string();
    let post = |auth: Option<&str>| {
        let rb = b
            .http
            .post(&answer_url)
            .header("content-type", "application/json")
            .body(decline.clone());
        match auth {
            Some(a) => rb.header(TOKEN_HEADER, a),
            None => rb,
        }
    };
    let attacks: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        ("list without a token", b.http.get(&list_url), 401),
        (
            "list with a wrong token",
            b.http.get(&list_url).header(TOKEN_HEADER, "Bearer guess"),
            401,
        ),
        ("answer without a token", post(None), 401),
        ("answer with a wrong token", post(Some("Bearer guess")), 401),
        (
            "answer from a foreign Origin with the token",
            post(Some(&good)).header("origin", "http://evil.example"),
            403,
        ),
        (
            "answer cross-site with the token",
            post(Some(&good)).header("sec-fetch-site", "cross-site"),
            403,
        ),
    ];
    for (what, rb, want) in attacks {
        let r = b.send(rb).await;
        assert_eq!(r.status, want, "{what}: {}", r.text);
        let code = if want == 401 {
            "unauthorized"
        } else {
            "forbidden"
        };
        assert_eq!(r.body["error"]["code"], code, "{what}: {}", r.text);
    }
    assert_eq!(
        b.get("/api/interactions").await.body["interactions"][0]["id"],
        id,
        "no refused request answered it"
    );
    // Positive control: the same answer with the token and our own Origin is taken.
    let r = b
        .send(post(Some(&good)).header("origin", format!("http://127.0.0.1:{}", b.port)))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["outcome"], "declined");
    assert!(text(&finished(call).await).contains("action: decline"));
    b.stop().await;
}
