//! OAuth through the web backend against the testkit's authorization server: the login in the
//! browser (played here by following the authorization URL by hand, as a browser would), the
//! callback route and what it refuses, step-up, Re-authorize, Forget, cancellation, and that no
//! credential reaches the Traffic view or the history database.

use crate::support::{Backend, Options, TempDir, start};
use mcpscope_testkit::{OAuthFixture, OAuthOptions};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Poll `GET /auth` until it has a pending login; returns its authorization URL.
async fn pending_login(b: &Backend, name: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = b.get(&format!("/api/servers/{name}/auth")).await.body;
        if !v["pending"].is_null() {
            return v;
        }
        assert!(Instant::now() < deadline, "no pending login: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Play the browser: open the authorization URL (the fixture approves at once and redirects to
/// the callback), then follow that redirect to the backend's callback route.
async fn approve_in_browser(b: &Backend, authorization_url: &str) -> crate::support::Reply {
    let r = b.send(b.http.get(authorization_url)).await;
    assert_eq!(
        r.status, 302,
        "the authorization endpoint redirects back: {}",
        r.text
    );
    let location = r.headers["location"].to_str().unwrap().to_string();
    assert!(
        location.starts_with(&format!("{}/oauth/callback?", b.base)),
        "redirected to our callback: {location}"
    );
    // A browser following a redirect from another site says so; the callback admits it.
    b.send(b.http.get(&location).header("sec-fetch-site", "cross-site"))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_in_the_browser_step_up_reauthorize_and_forget() {
    let fixture = OAuthFixture::spawn(OAuthOptions {
        jwt_access_tokens: true,
        tool_scopes: vec![("admin-echo".into(), vec!["mcp:admin".into()])],
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = TempDir::new("oauth");
    let b = start(
        dir.path(),
        vec![(
            "notes".into(),
            json!({"type": "http", "url": fixture.mcp_url(), "protocolEra": "legacy"}),
        )],
        Options::default(),
    )
    .await;
    let events = b.events(None).await;

    // Before anything: OAuth applies, nothing is known.
    let v = b.get("/api/servers/notes/auth").await.body;
    assert_eq!(v["applies"], true, "{v}");
    assert_eq!(v["state"], "none", "{v}");
    assert_eq!(
        v["callbackUrl"],
        format!(
            "{}/oauth/callback",
            b.base.replace("localhost", "127.0.0.1")
        ),
        "{v}"
    );

    // Connect: the server answers 401, the flow needs a person, the page is told.
    let connect = b.spawn_post("/api/servers/notes/connect", json!({}));
    let v = pending_login(&b, "notes").await;
    assert_eq!(v["state"], "authorizing", "{v}");
    assert_eq!(v["pending"]["reason"], "login", "{v}");
    let url = v["pending"]["url"].as_str().unwrap().to_string();
    assert!(url.contains("code_challenge_method=S256"), "{url}");

    // A callback with a state nobody waits for is refused and changes nothing.
    let wrong = b
        .send(
            b.http
                .get(b.url("/oauth/callback?code=stolen&state=not-ours"))
                .header("sec-fetch-site", "cross-site"),
        )
        .await;
    assert_eq!(wrong.status, 400, "{}", wrong.text);
    assert!(
        wrong.text.contains("does not belong to a login"),
        "{}",
        wrong.text
    );
    assert!(!b.get("/api/servers/notes/auth").await.body["pending"].is_null());

    // The callback route is on the backend but outside /api: no token needed, the state is.
    let page = approve_in_browser(&b, &url).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(
        page.text.contains("Authorization received"),
        "{}",
        page.text
    );
    let (status, text) = connect.await.unwrap();
    assert_eq!(status, 200, "the connect went on with the token: {text}");

    // The same state cannot be used twice.
    let again = b
        .send(b.http.get(format!(
            "{}/oauth/callback?code=x&{}",
            b.base,
            url::Url::parse(&url)
                .unwrap()
                .query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(k, v)| format!("{k}={v}"))
                .unwrap()
        )))
        .await;
    assert_eq!(again.status, 400, "{}", again.text);

    let v = b.get("/api/servers/notes/auth").await.body;
    assert_eq!(v["state"], "authorized", "{v}");
    assert!(v["pending"].is_null(), "{v}");
    assert_eq!(
        v["summary"]["client"]["registration"], "dynamic client registration",
        "{v}"
    );
    assert_eq!(v["secretStore"]["kind"], "file", "{v}");
    let token = b.get("/api/servers/notes/auth/token").await.body;
    let access = token["accessToken"].as_str().unwrap().to_string();
    assert_eq!(access.split('.').count(), 3, "a JWT: {access}");

    // A call with the token works.
    let r = b
        .ok(
            "/api/servers/notes/request",
            json!({"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        )
        .await;
    assert!(r["result"].is_object(), "{r}");

    // Step-up: admin-echo needs mcp:admin; the page is offered a login for the union.
    let call = b.spawn_post(
        "/api/servers/notes/request",
        json!({"method": "tools/call",
               "params": {"name": "admin-echo", "arguments": {"text": "root"}}}),
    );
    let v = pending_login(&b, "notes").await;
    assert_eq!(v["pending"]["reason"], "step-up", "{v}");
    let scopes: Vec<&str> = v["pending"]["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(scopes.contains(&"mcp:admin"), "{v}");
    let page = approve_in_browser(&b, v["pending"]["url"].as_str().unwrap()).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let (status, text) = call.await.unwrap();
    assert_eq!(status, 200, "{text}");
    let v = b.get("/api/servers/notes/auth").await.body;
    assert!(
        v["summary"]["scope"]
            .as_str()
            .unwrap_or("")
            .contains("mcp:admin"),
        "{v}"
    );

    // Re-authorize with one more scope: a login the page starts.
    let reauth = b.spawn_post("/api/servers/notes/auth", json!({"scopes": ["mcp:write"]}));
    let v = pending_login(&b, "notes").await;
    assert_eq!(v["pending"]["reason"], "login", "{v}");
    approve_in_browser(&b, v["pending"]["url"].as_str().unwrap()).await;
    let (status, text) = reauth.await.unwrap();
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let granted = v["summary"]["scope"].as_str().unwrap_or("");
    assert!(
        granted.contains("mcp:write") && granted.contains("mcp:admin"),
        "{v}"
    );
    let newest = b.get("/api/servers/notes/auth/token").await.body["accessToken"]
        .as_str()
        .unwrap()
        .to_string();

    // No credential in the Traffic view: OAuth frames are there, tokens and codes are not.
    let frames = b
        .get("/api/servers/notes/frames?source=oauth&limit=2000")
        .await;
    assert!(
        frames.body["frames"].as_array().unwrap().len() > 10,
        "{}",
        frames.text
    );
    assert!(frames.text.contains("oauth-step"), "{}", frames.text);
    let all = b.get("/api/servers/notes/frames?limit=5000").await.text;
    for secret in [&access, &newest] {
        assert!(
            !all.contains(secret.as_str()),
            "a token leaked into the Traffic view"
        );
    }
    assert!(all.contains("…redacted"), "redactions are visible");
    // Nor in the history database (frames are written there in the background).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let db = std::fs::read(dir.path().join("history.sqlite")).unwrap_or_default();
    let wal = std::fs::read(dir.path().join("history.sqlite-wal")).unwrap_or_default();
    for secret in [&access, &newest] {
        let needle = secret.as_bytes();
        for bytes in [&db, &wal] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle),
                "a token reached the history database"
            );
        }
    }

    // Every change reached the page as an `auth` event.
    let seen: Vec<Value> = events
        .all()
        .into_iter()
        .filter(|e| e.name == "auth")
        .map(|e| e.data)
        .collect();
    assert!(
        seen.iter().any(|e| e["pending"]["reason"] == "step-up"),
        "{seen:?}"
    );
    assert!(seen.iter().any(|e| e["state"] == "authorized"));

    // Forget: memory and secret store; the next connection must log in again.
    let v = b
        .send(
            b.http
                .delete(b.url("/api/servers/notes/auth"))
                .header(mcpscope_server::TOKEN_HEADER, format!("Bearer {}", b.token)),
        )
        .await;
    assert_eq!(v.status, 200, "{}", v.text);
    assert!(v.body["summary"].is_null(), "{}", v.text);
    assert_eq!(v.body["revocationFailures"], json!([]), "{}", v.text);
    assert_eq!(b.get("/api/servers/notes/auth/token").await.status, 404);
    // ... and revoked at the authorization server (RFC 7009), visibly in Traffic's OAuth source.
    assert_eq!(
        fixture.stats().revoked_refresh_tokens,
        1,
        "{:?}",
        fixture.stats()
    );
    let oauth = b
        .get("/api/servers/notes/frames?limit=2000&source=oauth")
        .await
        .body;
    assert!(
        oauth
            .to_string()
            .contains("revocation of the refresh token"),
        "{oauth}"
    );
    // The revocation requests carried the tokens; what the page and the database keep must not.
    let mut bodies = oauth.to_string();
    for f in oauth["frames"].as_array().unwrap() {
        let body = b
            .get(&format!("/api/servers/notes/frames/{}/body", f["seq"]))
            .await;
        bodies.push_str(&body.text);
    }
    assert!(bodies.contains("token_type_hint=refresh_token"), "{bodies}");
    assert!(
        !bodies.contains(newest.as_str()),
        "the revoked access token is in the OAuth frames"
    );
    b.stop().await;
}

/// Tokens stored by an earlier run show in the Authorization panel before the server connects,
/// and Forget works on them there too: revoked at the authorization server, gone from the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_tokens_show_before_connecting_and_can_be_forgotten_there() {
    let fixture = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = TempDir::new("oauth-stored");
    let servers = || {
        vec![(
            "notes".to_string(),
            json!({"type": "http", "url": fixture.mcp_url(), "protocolEra": "legacy"}),
        )]
    };
    let b = start(dir.path(), servers(), Options::default()).await;
    let connect = b.spawn_post("/api/servers/notes/connect", json!({}));
    let v = pending_login(&b, "notes").await;
    let page = approve_in_browser(&b, v["pending"]["url"].as_str().unwrap()).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let (status, text) = connect.await.unwrap();
    assert_eq!(status, 200, "{text}");
    b.stop().await;

    // A new launch: nothing loaded, but the store's grant is described (never its tokens).
    let b = start(dir.path(), servers(), Options::default()).await;
    let v = b.get("/api/servers/notes/auth").await.body;
    assert!(v["summary"].is_null(), "{v}");
    assert_eq!(v["stored"]["issuer"], fixture.issuer(), "{v}");
    assert_eq!(v["stored"]["refreshToken"], true, "{v}");
    assert_eq!(v["stored"]["profile"], "default", "{v}");
    assert!(
        !v.to_string().contains("access-"),
        "no token in the view: {v}"
    );

    let forgot = b
        .send(
            b.http
                .delete(b.url("/api/servers/notes/auth"))
                .header(mcpscope_server::TOKEN_HEADER, format!("Bearer {}", b.token)),
        )
        .await;
    assert_eq!(forgot.status, 200, "{}", forgot.text);
    assert_eq!(
        forgot.body["revocationFailures"],
        json!([]),
        "{}",
        forgot.text
    );
    assert_eq!(
        fixture.stats().revoked_refresh_tokens,
        1,
        "{:?}",
        fixture.stats()
    );
    let v = b.get("/api/servers/notes/auth").await.body;
    assert!(v["stored"].is_null(), "{v}");
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_login_fails_the_connect_with_the_reason() {
    let fixture = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = TempDir::new("oauth-cancel");
    let b = start(
        dir.path(),
        vec![(
            "notes".into(),
            json!({"type": "http", "url": fixture.mcp_url(), "protocolEra": "legacy"}),
        )],
        Options::default(),
    )
    .await;
    let connect = b.spawn_post("/api/servers/notes/connect", json!({}));
    pending_login(&b, "notes").await;
    b.ok("/api/servers/notes/auth/cancel", json!({})).await;
    let (status, text) = connect.await.unwrap();
    assert_eq!(status, 502, "{text}");
    assert!(text.contains("cancelled in the web UI"), "{text}");
    let v = b.get("/api/servers/notes/auth").await.body;
    assert_eq!(v["state"], "failed", "{v}");
    assert!(v["pending"].is_null(), "{v}");
    // Re-authorize before any authorization is known is refused with what to do.
    let r = b.post("/api/servers/notes/auth", json!({})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_env_values_live_in_the_secret_store_and_reach_the_process() {
    let dir = TempDir::new("secret-env");
    let b = start(dir.path(), vec![], Options::default()).await;
    let script = "echo \"token=$MY_SECRET plain=$PLAIN\" >&2; sleep 3";
    let added = b
        .ok(
            "/api/servers",
            json!({"name": "envy", "entry": {
                "command": "sh", "args": ["-c", script],
                "env": {"MY_SECRET": {"secret": "s3cr3t-value"}, "PLAIN": "visible"},
                "connectionTimeout": 1500, "protocolEra": "legacy"}}),
        )
        .await;
    // The catalog holds a reference, not the value.
    let reference = added["entry"]["env"]["MY_SECRET"]["secretRef"]
        .as_str()
        .unwrap_or_else(|| panic!("{added}"))
        .to_string();
    assert!(reference.starts_with("catalog-value/"), "{added}");
    assert_eq!(added["entry"]["env"]["PLAIN"], "visible");
    let listed = b.get("/api/servers").await.text;
    assert!(!listed.contains("s3cr3t-value"), "{listed}");
    // The store is the encrypted file: the value is not readable in it.
    let file = std::fs::read(dir.path().join("secrets.enc")).unwrap();
    assert!(!file.windows(12).any(|w| w == b"s3cr3t-value"));
    // Connecting gives the process the value (it prints it on stderr, a frame of its own, where
    // the value shows as the secret it is: the marker replaces exactly the value it was given).
    let r = b.post("/api/servers/envy/connect", json!({})).await;
    assert_ne!(r.status, 200, "sh is no MCP server: {}", r.text);
    let stderr = b.get("/api/servers/envy/frames?source=stderr").await.text;
    assert!(
        stderr.contains("token=«secret MY_SECRET» plain=visible"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cr3t-value"), "{stderr}");
    // Editing with the reference keeps the value; removing the server forgets it.
    let edited = b
        .put(
            "/api/servers/envy",
            json!({"entry": {"command": "sh", "args": ["-c", script],
                   "env": {"MY_SECRET": {"secretRef": reference}, "PLAIN": "changed"}}}),
        )
        .await;
    assert_eq!(edited.status, 200, "{}", edited.text);
    assert_eq!(
        edited.body["entry"]["env"]["MY_SECRET"]["secretRef"],
        json!(reference)
    );
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        dir.path().join("secrets.enc"),
        None,
    ))
    .unwrap();
    assert_eq!(
        store.get(&reference).unwrap().as_deref(),
        Some("s3cr3t-value")
    );
    assert_eq!(b.delete("/api/servers/envy").await.status, 200);
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        dir.path().join("secrets.enc"),
        None,
    ))
    .unwrap();
    assert_eq!(store.get(&reference).unwrap(), None);
    b.stop().await;
}
