//! The web backend's OAuth against the official Python SDK's own authorization server
//! (`testenv/peers/python/oauth_server.py`): the login the page offers, approved by following the
//! authorization URL as a browser would (the SDK's /authorize, the server's consent page, our
//! `/oauth/callback`), a tool call with the token, a new launch that reuses the stored grant
//! without a login — and a client refused right after its registration, which fails the connect
//! with the reason instead of offering a second login.
//!
//! The peer comes from `testenv/install.sh` (the `.peers/python` venv); like the CLI's real-peer
//! tests (`crates/mcpscope/tests/peers_support.rs`) these fail when it is missing, saying what to
//! run, and `MCPSCOPE_SKIP_PEERS=1` skips them on purpose.

use crate::peers::{Peer, launch};
use crate::support::{Backend, Options, TempDir, start};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// `testenv/peers/python/oauth_server.sh MODE 0` (killed when dropped), or `None` (after a
/// notice) when `MCPSCOPE_SKIP_PEERS=1`; panics, saying what to run, when the venv is missing.
async fn python_peer(test: &str, mode: &str) -> Option<Peer> {
    launch(test, "python/oauth_server.sh", mode, "python/bin/python").await
}

fn catalog(url: &str) -> Vec<(String, Value)> {
    vec![(
        "py".to_string(),
        json!({"type": "http", "url": url, "protocolEra": "legacy"}),
    )]
}

/// Poll `GET /auth` until it offers a login other than `seen`; its authorization URL.
async fn next_login(b: &Backend, seen: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = b.get("/api/servers/py/auth").await.body;
        if let Some(url) = v["pending"]["url"].as_str()
            && Some(url) != seen
        {
            return url.to_owned();
        }
        assert!(Instant::now() < deadline, "no pending login: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Play the browser: follow the redirects from the authorization URL (the SDK's /authorize, the
/// consent page) until they reach the backend's callback, and open that.
async fn approve_in_browser(b: &Backend, authorization_url: &str) -> crate::support::Reply {
    let callback = format!("{}/oauth/callback?", b.base);
    let mut at = authorization_url.to_owned();
    for _ in 0..5 {
        let r = b.send(b.http.get(&at)).await;
        assert_eq!(r.status, 302, "{at} redirects: {}", r.text);
        at = r.headers["location"].to_str().unwrap().to_owned();
        if at.starts_with(&callback) {
            // A browser following a redirect from another site says so; the callback admits it.
            return b
                .send(b.http.get(&at).header("sec-fetch-site", "cross-site"))
                .await;
        }
    }
    panic!("the redirects never reached {callback}: last {at}");
}

/// The connect's answer once the login at `first` is done; a second login offered meanwhile is
/// the defect itself (the page would wait for a person with no reason to approve it).
async fn connect_result(
    b: &Backend,
    connect: tokio::task::JoinHandle<(u16, String)>,
    first: &str,
) -> (u16, String) {
    tokio::select! {
        done = connect => done.unwrap(),
        second = next_login(b, Some(first)) => panic!("a second login was offered: {second}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_login_in_the_browser_then_the_stored_grant_on_a_new_launch() {
    let Some(peer) = python_peer("python_sdk_login_in_the_browser", "http").await else {
        return;
    };
    let dir = TempDir::new("oauth-python");
    let b = start(dir.path(), catalog(&peer.url), Options::default()).await;
    let connect = b.spawn_post("/api/servers/py/connect", json!({}));
    let url = next_login(&b, None).await;
    let page = approve_in_browser(&b, &url).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(
        page.text.contains("Authorization received"),
        "{}",
        page.text
    );
    let (status, text) = connect_result(&b, connect, &url).await;
    assert_eq!(status, 200, "the connect went on with the token: {text}");
    let v = b.get("/api/servers/py/auth").await.body;
    assert_eq!(v["state"], "authorized", "{v}");
    assert_eq!(
        v["summary"]["client"]["tokenEndpointAuthMethod"], "client_secret_basic",
        "{v}"
    );
    let r = b
        .ok(
            "/api/servers/py/request",
            json!({"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}),
        )
        .await;
    let who = r["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(who.contains("mcp:read"), "{r}");
    b.stop().await;

    // A new launch connects on the stored grant: no login is offered.
    let b = start(dir.path(), catalog(&peer.url), Options::default()).await;
    let r = b.post("/api/servers/py/connect", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let v = b.get("/api/servers/py/auth").await.body;
    assert_eq!(v["state"], "authorized", "{v}");
    assert!(v["pending"].is_null(), "{v}");
    let r = b
        .ok(
            "/api/servers/py/request",
            json!({"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}),
        )
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"], who,
        "the same grant: {r}"
    );
    b.stop().await;
}

/// A client refused `invalid_client` right after its registration (whatever the method): the
/// connect fails with the step, the methods and the SDK's words; no second login is offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_client_refused_by_the_python_sdk_fails_the_connect_without_a_second_login() {
    let Some(peer) = python_peer("python_sdk_refused_in_the_browser", "rotated-secret").await
    else {
        return;
    };
    let dir = TempDir::new("oauth-python-refused");
    let b = start(dir.path(), catalog(&peer.url), Options::default()).await;
    let connect = b.spawn_post("/api/servers/py/connect", json!({}));
    let first = next_login(&b, None).await;
    let page = approve_in_browser(&b, &first).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let (status, text) = connect_result(&b, connect, &first).await;
    assert_ne!(status, 200, "{text}");
    for said in [
        "token request (authorization code)",
        "client_secret_basic",
        "client_secret_post",
        "Invalid client_secret",
        "no second login",
    ] {
        assert!(text.contains(said), "{said:?} not in {text}");
    }
    let v = b.get("/api/servers/py/auth").await.body;
    assert!(v["pending"].is_null(), "{v}");
    b.stop().await;
}
