//! OAuth through the real CLI against the testkit's own authorization server: a login recorded
//! step by step and stored (encrypted), stored tokens reused and refreshed, an expired refresh
//! token, a revoked client, a slow token endpoint, a redirect to a login page on another host,
//! two profiles for one server. Each test has a secret store of its own (an encrypted file in a
//! scratch directory); `--headless-auth` stands in for the browser, as the fixture approves at
//! once.

use crate::misbehaving_support::{MCPSCOPE, Scratch, body, read_trace};
use mcpscope_testkit::{OAuthFixture, OAuthOptions};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One CLI run.
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
    trace: Vec<Value>,
    elapsed: Duration,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.dump()))
    }

    fn error(&self) -> Value {
        let last = self.stderr.lines().last().unwrap_or_default();
        serde_json::from_str::<Value>(last)
            .unwrap_or_else(|e| panic!("last stderr line is not JSON ({e}): {}", self.dump()))["error"]
            .clone()
    }

    fn message(&self) -> String {
        self.error()["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The `Authorization` header of every MCP POST, in order (`None`: sent without).
    fn mcp_authorizations(&self) -> Vec<Option<String>> {
        self.trace
            .iter()
            .filter(|f| f["kind"] == "http-request" && f["meta"]["method"] == "POST")
            .map(|f| header(f, "authorization"))
            .collect()
    }

    /// The notes of the OAuth HTTP requests, in order.
    fn oauth_requests(&self) -> Vec<String> {
        self.trace
            .iter()
            .filter(|f| f["kind"] == "oauth-request")
            .map(|f| f["meta"]["note"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Every OAuth step note, joined, for "did it say so" assertions.
    fn steps(&self) -> String {
        self.trace
            .iter()
            .filter(|f| f["kind"] == "oauth-step")
            .filter_map(|f| f["meta"]["note"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn dump(&self) -> String {
        format!(
            "exit {} after {:?}\nstdout: {}\nstderr: {}\nsteps:\n{}",
            self.code,
            self.elapsed,
            self.stdout,
            self.stderr,
            self.steps()
        )
    }
}

fn header(frame: &Value, name: &str) -> Option<String> {
    frame["meta"]["headers"].as_array()?.iter().find_map(|h| {
        let pair = h.as_array()?;
        (pair[0].as_str()?.eq_ignore_ascii_case(name)).then(|| pair[1].as_str().unwrap().to_owned())
    })
}

/// `mcpscope --cli --trace … <args>` with its secret store in `store`.
async fn mcpscope(store: &Path, args: &[&str]) -> Out {
    static N: AtomicUsize = AtomicUsize::new(0);
    let trace = store.join(format!("trace-{}.ndjson", N.fetch_add(1, Ordering::SeqCst)));
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new(MCPSCOPE);
    cmd.arg("--cli")
        .arg("--trace")
        .arg(&trace)
        // These tests compare the tokens on the wire with the stored ones: a byte-exact trace.
        .arg("--trace-secrets")
        .args(args)
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_DATA_DIR", store)
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .env_remove("MCPSCOPE_SECRET_FILE")
        .env_remove("MCPSCOPE_AUTH_PROFILE")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .expect("mcpscope must not hang")
        .expect("run mcpscope");
    Out {
        code: out.status.code().expect("exited"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        trace: if trace.exists() {
            read_trace(&trace)
        } else {
            vec![]
        },
        elapsed: started.elapsed(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_is_recorded_step_by_step_stored_encrypted_and_reused() {
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = Scratch::new("oauth-login");
    let url = f.mcp_url();
    let first = mcpscope(
        &dir.path(""),
        &[
            &url,
            "--method",
            "initialize",
            "--format",
            "json",
            "--headless-auth",
        ],
    )
    .await;
    assert_eq!(first.code, 0, "{}", first.dump());

    // Every step, in the specification's order, each a recorded exchange.
    let steps = first.oauth_requests();
    let order = [
        "protected resource metadata",
        "authorization server metadata (RFC 8414)",
        "dynamic client registration",
        "authorization request",
        "token request (authorization code)",
    ];
    let mut at = 0;
    for want in order {
        at += steps[at..]
            .iter()
            .position(|s| s.contains(want))
            .unwrap_or_else(|| panic!("no {want:?} after step {at} in {steps:?}"));
    }
    assert!(
        first.trace.iter().any(|f| f["kind"] == "oauth-response"
            && f["meta"]["note"]
                .as_str()
                .unwrap_or("")
                .starts_with("token request")
            && f["meta"]["status"] == 200),
        "the token response is recorded"
    );
    let auths = first.mcp_authorizations();
    assert_eq!(auths[0], None, "the first request goes out without a token");
    let bearer = auths[1]
        .clone()
        .expect("the re-sent initialize carries the token");
    assert!(bearer.starts_with("Bearer access-"), "{bearer}");
    assert!(
        auths[1..]
            .iter()
            .all(|a| a.as_deref() == Some(bearer.as_str()))
    );

    // What initialize reports: the store and why, what the authorization established.
    let doc = first.json();
    assert_eq!(doc["secretStore"]["kind"], "file", "{doc}");
    assert!(
        doc["secretStore"]["location"]
            .as_str()
            .unwrap()
            .ends_with("secrets.enc")
    );
    assert_eq!(doc["secretStore"]["reason"], "MCPSCOPE_SECRET_STORE=file");
    let auth = &doc["auth"];
    assert_eq!(auth["issuer"], f.issuer(), "{auth}");
    assert_eq!(auth["resource"], url);
    assert_eq!(
        auth["client"]["registration"],
        "dynamic client registration"
    );
    assert_eq!(auth["scope"], "mcp:read mcp:write offline_access");
    assert_eq!(auth["refreshToken"], true);
    let token = bearer.trim_start_matches("Bearer ");
    assert!(
        !first.stdout.contains(token),
        "initialize must not print the token"
    );

    // Stored encrypted: the token is not in the file.
    let raw = std::fs::read_to_string(dir.path("secrets.enc")).unwrap();
    assert!(!raw.contains(token) && !raw.contains("refresh-"), "{raw}");

    // A second run uses the stored token from its first request: no discovery, no login.
    let before = f.stats();
    let second = mcpscope(
        &dir.path(""),
        &[
            &url,
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
            "--stored-auth-only",
        ],
    )
    .await;
    assert_eq!(second.code, 0, "{}", second.dump());
    assert_eq!(
        second.mcp_authorizations()[0].as_deref(),
        Some(bearer.as_str())
    );
    assert!(
        second.oauth_requests().is_empty(),
        "{:?}",
        second.oauth_requests()
    );
    assert_eq!(f.stats().authorizations, before.authorizations);
    assert_eq!(f.stats().registrations, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_tokens_are_refreshed_and_an_expired_refresh_token_means_a_new_login() {
    // Short-lived access tokens, so the stored one has expired by the next run.
    let ttl = Duration::from_secs(2);
    let f = OAuthFixture::spawn(OAuthOptions {
        access_token_ttl: ttl,
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = Scratch::new("oauth-refresh");
    let url = f.mcp_url();
    let login = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--headless-auth"],
    )
    .await;
    assert_eq!(login.code, 0, "{}", login.dump());
    tokio::time::sleep(ttl + Duration::from_millis(500)).await;

    let refreshed = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--stored-auth-only"],
    )
    .await;
    assert_eq!(refreshed.code, 0, "{}", refreshed.dump());
    assert_eq!(f.stats().refresh_grants, 1);
    assert_eq!(f.stats().authorizations, 1, "a refresh, not a login");
    assert!(
        refreshed
            .oauth_requests()
            .iter()
            .any(|s| s == "token request (refresh)"),
        "{:?}",
        refreshed.oauth_requests()
    );

    f.expire_refresh_tokens();
    tokio::time::sleep(ttl + Duration::from_millis(500)).await;
    let refused = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--stored-auth-only"],
    )
    .await;
    assert_eq!(refused.code, 3, "{}", refused.dump());
    assert_eq!(refused.error()["code"], "auth_required");
    let msg = refused.message();
    assert!(msg.contains("refresh was refused"), "{msg}");
    assert!(msg.contains("the refresh token has expired"), "{msg}");
    assert!(msg.contains("--stored-auth-only forbids a login"), "{msg}");
    assert_eq!(f.stats().refused_refreshes, 1);

    let again = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--headless-auth"],
    )
    .await;
    assert_eq!(again.code, 0, "{}", again.dump());
    assert_eq!(
        f.stats().authorizations,
        2,
        "a new login after the refused refresh"
    );
}

/// `--relogin` revokes the stored tokens at the authorization server (RFC 7009: the refresh
/// token, then the access token, each a recorded exchange) before logging in again;
/// `--no-revoke` only forgets them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relogin_revokes_the_stored_tokens_unless_told_not_to() {
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = Scratch::new("oauth-relogin");
    let url = f.mcp_url();
    let login = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--headless-auth"],
    )
    .await;
    assert_eq!(login.code, 0, "{}", login.dump());

    let relogin = mcpscope(
        &dir.path(""),
        &[
            &url,
            "--method",
            "tools/list",
            "--headless-auth",
            "--relogin",
        ],
    )
    .await;
    assert_eq!(relogin.code, 0, "{}", relogin.dump());
    assert_eq!(
        relogin.oauth_requests()[..2],
        [
            "revocation of the refresh token (RFC 7009)",
            "revocation of the access token (RFC 7009)"
        ],
        "{}",
        relogin.dump()
    );
    assert!(
        relogin.steps().contains("tokens revoked at"),
        "{}",
        relogin.dump()
    );
    let stats = f.stats();
    assert_eq!(stats.revoked_refresh_tokens, 1, "{stats:?}");
    assert_eq!(stats.authorizations, 2, "{stats:?}");

    let kept = mcpscope(
        &dir.path(""),
        &[
            &url,
            "--method",
            "tools/list",
            "--headless-auth",
            "--relogin",
            "--no-revoke",
        ],
    )
    .await;
    assert_eq!(kept.code, 0, "{}", kept.dump());
    assert!(
        !kept
            .oauth_requests()
            .iter()
            .any(|r| r.starts_with("revocation")),
        "{}",
        kept.dump()
    );
    let stats = f.stats();
    assert_eq!(stats.revoked_refresh_tokens, 1, "{stats:?}");
    assert_eq!(stats.authorizations, 3, "{stats:?}");
    // Without --relogin, --no-revoke means nothing: a usage error, not a silent no-op.
    let alone = mcpscope(
        &dir.path(""),
        &[&url, "--method", "tools/list", "--no-revoke"],
    )
    .await;
    assert_eq!(alone.code, 1, "{}", alone.dump());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_client_is_registered_again() {
    for refresh_tokens in [true, false] {
        let f = OAuthFixture::spawn(OAuthOptions {
            refresh_tokens,
            ..Default::default()
        })
        .await
        .unwrap();
        let dir = Scratch::new("oauth-revoked");
        let url = f.mcp_url();
        let login = mcpscope(
            &dir.path(""),
            &[&url, "--method", "tools/list", "--headless-auth"],
        )
        .await;
        assert_eq!(login.code, 0, "{}", login.dump());
        f.revoke_clients();
        // With a refresh token the token endpoint says invalid_client; without one the
        // authorization endpoint does. Either way: forget the registration, register again.
        let run = mcpscope(
            &dir.path(""),
            &[
                &url,
                "--method",
                "tools/list",
                "--headless-auth",
                "--use-stored-auth",
            ],
        )
        .await;
        assert_eq!(
            run.code,
            0,
            "refresh_tokens={refresh_tokens}: {}",
            run.dump()
        );
        let s = f.stats();
        assert_eq!(s.registrations, 2, "refresh_tokens={refresh_tokens}: {s:?}");
        assert!(s.invalid_client >= 1, "{s:?}");
        assert!(
            run.steps().contains("no longer knows the client")
                || run.steps().contains("registration is forgotten"),
            "{}",
            run.steps()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_token_endpoint_is_named_not_waited_on() {
    let f = OAuthFixture::spawn(OAuthOptions {
        token_delay: Duration::from_secs(30),
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = Scratch::new("oauth-slow");
    let run = mcpscope(
        &dir.path(""),
        &[
            &f.mcp_url(),
            "--method",
            "tools/list",
            "--headless-auth",
            "--request-timeout",
            "2000",
        ],
    )
    .await;
    assert_eq!(run.code, 3, "{}", run.dump());
    let msg = run.message();
    assert!(msg.contains("token request"), "{msg}");
    assert!(msg.contains("no answer within 2000 ms"), "{msg}");
    assert!(
        run.elapsed < Duration::from_secs(20),
        "took {:?}",
        run.elapsed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_login_page_on_another_host_is_not_followed() {
    let f = OAuthFixture::spawn(OAuthOptions {
        authorize_redirect_to: Some("https://login.example.net/sso?session=42".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = Scratch::new("oauth-foreign");
    let run = mcpscope(
        &dir.path(""),
        &[&f.mcp_url(), "--method", "tools/list", "--headless-auth"],
    )
    .await;
    assert_eq!(run.code, 3, "{}", run.dump());
    let msg = run.message();
    assert!(
        msg.contains("redirected to https://login.example.net/sso?session=42"),
        "{msg}"
    );
    assert!(
        msg.contains("run without it to log in in the browser"),
        "{msg}"
    );
    assert_eq!(f.stats().code_grants, 0);
    let authorize = run
        .trace
        .iter()
        .find(|f| f["kind"] == "oauth-response" && f["meta"]["status"] == 302)
        .expect("the redirect is recorded");
    assert_eq!(
        header(authorize, "location").as_deref(),
        Some("https://login.example.net/sso?session=42")
    );
    assert!(
        !run.trace.iter().any(|f| f["meta"]["url"]
            .as_str()
            .unwrap_or("")
            .contains("example.net")
            && f["kind"] == "oauth-request"),
        "nothing was sent to the foreign host"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_profiles_for_one_server_keep_their_own_tokens() {
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = Scratch::new("oauth-profiles");
    let url = f.mcp_url();
    let mut tokens = vec![];
    for profile in ["alice", "bob"] {
        let run = mcpscope(
            &dir.path(""),
            &[
                &url,
                "--method",
                "tools/list",
                "--headless-auth",
                "--auth-profile",
                profile,
            ],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.dump());
        tokens.push(run.mcp_authorizations().last().cloned().flatten().unwrap());
    }
    assert_ne!(tokens[0], tokens[1]);
    assert_eq!(f.stats().registrations, 2, "a registration per profile");
    for (profile, token) in ["alice", "bob"].iter().zip(&tokens) {
        let run = mcpscope(
            &dir.path(""),
            &[
                &url,
                "--method",
                "tools/list",
                "--stored-auth-only",
                "--auth-profile",
                profile,
            ],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.dump());
        assert_eq!(
            run.mcp_authorizations()[0].as_ref(),
            Some(token),
            "profile {profile} got another profile's token"
        );
    }
    // A profile that never logged in has nothing, and says so.
    let carol = mcpscope(
        &dir.path(""),
        &[
            &url,
            "--method",
            "tools/list",
            "--stored-auth-only",
            "--auth-profile",
            "carol",
        ],
    )
    .await;
    assert_eq!(carol.code, 3, "{}", carol.dump());
    assert!(carol.message().contains("\"carol\""), "{}", carol.message());

    // --list-stored-auth names both, with their authorization server and scope, never a token.
    let list = mcpscope(&dir.path(""), &["--list-stored-auth", "--format", "json"]).await;
    assert_eq!(list.code, 0, "{}", list.dump());
    let doc: Value = serde_json::from_str(&list.stdout).expect("one JSON document");
    let grants = doc["storedAuth"].as_array().unwrap();
    let profiles: Vec<&str> = grants
        .iter()
        .map(|g| g["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles, ["alice", "bob"], "{doc}");
    for g in grants {
        assert_eq!(g["server"], url, "{doc}");
        assert_eq!(g["issuer"], f.issuer(), "{doc}");
        assert_eq!(g["tokens"]["refreshToken"], true, "{doc}");
    }
    assert_eq!(doc["secretStore"]["kind"], "file", "{doc}");
    for token in &tokens {
        let bare = token.trim_start_matches("Bearer ");
        assert!(!list.stdout.contains(bare), "a token was listed: {doc}");
    }
    let text = mcpscope(&dir.path(""), &["--list-stored-auth"]).await;
    assert_eq!(text.code, 0, "{}", text.dump());
    assert!(
        text.stdout.lines().filter(|l| l.contains(&url)).count() == 2,
        "{}",
        text.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_up_asks_for_the_union_of_scopes() {
    let f = OAuthFixture::spawn(OAuthOptions {
        resource_scopes: vec!["mcp:read".into()],
        call_scopes: vec!["mcp:write".into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let dir = Scratch::new("oauth-stepup");
    let run = mcpscope(
        &dir.path(""),
        &[
            &f.mcp_url(),
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=up",
            "--headless-auth",
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(f.stats().authorizations, 2);
    let scopes: Vec<String> = run
        .trace
        .iter()
        .filter(|f| {
            f["kind"] == "oauth-request"
                && f["meta"]["note"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("authorization request")
        })
        .map(|f| {
            let u = url::Url::parse(f["meta"]["url"].as_str().unwrap()).unwrap();
            u.query_pairs()
                .find(|(k, _)| k == "scope")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        scopes,
        vec![
            "mcp:read offline_access",
            "mcp:read offline_access mcp:write"
        ],
        "{}",
        run.steps()
    );
    // The answer came back on the re-sent call, which carried the stepped-up token.
    let last = run
        .trace
        .iter()
        .rev()
        .find(|f| f["kind"] == "http-response")
        .unwrap();
    assert!(String::from_utf8_lossy(&body(last)).contains("\"up\""));
}

#[test]
fn a_callback_url_off_this_machine_is_a_usage_error() {
    let out = std::process::Command::new(MCPSCOPE)
        .args([
            "--cli",
            "http://127.0.0.1:9/mcp",
            "--method",
            "tools/list",
            "--callback-url",
            "http://example.com/cb",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a loopback address"), "{stderr}");
}

/// A one-request HTTP server on loopback: answers with `response` and hands back the request head.
async fn one_shot(response: String) -> (String, tokio::task::JoinHandle<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        s.write_all(response.as_bytes()).await.unwrap();
        let _ = s.shutdown().await;
        String::from_utf8_lossy(&head).into_owned()
    });
    (url, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_do_not_follow_a_redirect_to_another_origin() {
    let (other, seen_there) = one_shot(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .into(),
    )
    .await;
    let (first, seen_first) = one_shot(format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: {other}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ))
    .await;
    let dir = Scratch::new("oauth-redirect");
    let run = mcpscope(
        &dir.path(""),
        &[
            &first,
            "--method",
            "tools/list",
            "--header",
            "Authorization: Bearer user-secret",
        ],
    )
    .await;
    assert_ne!(run.code, 0);
    let first_head = seen_first.await.unwrap().to_ascii_lowercase();
    assert!(
        first_head.contains("authorization: bearer user-secret"),
        "{first_head}"
    );
    let other_head = seen_there.await.unwrap().to_ascii_lowercase();
    assert!(
        !other_head.contains("authorization"),
        "forwarded to another origin:\n{other_head}"
    );
    assert!(
        run.trace.iter().any(|f| f["meta"]["note"]
            .as_str()
            .is_some_and(|n| n.contains("the Authorization header is not sent there"))),
        "the trace says why"
    );
}

/// `GET url` over a raw connection (no redirect following): status and `Location`.
async fn raw_get(url: &str) -> (u16, Option<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let u = url::Url::parse(url).unwrap();
    let mut s = tokio::net::TcpStream::connect((u.host_str().unwrap(), u.port().unwrap()))
        .await
        .unwrap();
    let target = match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_string(),
    };
    s.write_all(
        format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            u.host_str().unwrap()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    let location = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(|l| l.trim().to_string());
    (status, location)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_login_lands_on_the_loopback_callback() {
    use tokio::io::AsyncBufReadExt;
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let dir = Scratch::new("oauth-browser");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let callback = format!("http://127.0.0.1:{port}/oauth/callback");
    let mut child = tokio::process::Command::new(MCPSCOPE)
        .args([
            "--cli",
            &f.mcp_url(),
            "--method",
            "tools/list",
            "--format",
            "json",
        ])
        .args(["--print-auth-url", "--callback-url", &callback])
        // Shorter than the login takes: timeouts must wait while a person logs in.
        .args(["--request-timeout", "500", "--connect-timeout", "500"])
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_DATA_DIR", dir.path(""))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let authorize = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(u) = line.trim().strip_prefix("http") {
                return format!("http{u}");
            }
        }
        panic!("mcpscope printed no authorization URL");
    })
    .await
    .expect("the authorization URL is printed");
    assert!(
        authorize.contains("code_challenge_method=S256"),
        "{authorize}"
    );
    // The person takes longer than the request timeout to log in.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, location) = raw_get(&authorize).await;
    assert_eq!(status, 302);
    let back = location.expect("redirect to the callback");
    assert!(back.starts_with(&callback), "{back}");
    // A request without this login's state (a page on another site, a stale tab) is refused
    // and does not end the login (issue 24 item 28); before, it ended it in a CSRF failure.
    let (status, _) = raw_get(&format!("{callback}?code=forged&state=not-this-login")).await;
    assert_eq!(status, 400, "a foreign state is refused");
    let (status, _) = raw_get(&callback).await;
    assert_eq!(status, 400, "no state at all is refused");
    let (status, _) = raw_get(&back).await;
    assert_eq!(status, 200, "the loopback callback answers the browser");
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("mcpscope exits after the login")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["result"]["tools"][0]["name"], "echo");
    assert_eq!(f.stats().code_grants, 1);
}

/// A `--config` entry whose env value the web UI put in the secret store (`{"secretRef": …}`)
/// reaches the server process; a reference the store does not hold is a usage error that says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_env_value_from_the_secret_store_reaches_the_server() {
    let dir = Scratch::new("secret-ref");
    let store_dir = dir.path("");
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        dir.path("secrets.enc"),
        None,
    ))
    .unwrap();
    store.set("catalog-value/t1", "hello-secret").unwrap();
    drop(store);
    let script = format!("echo got=$TOKEN >&2; exec '{MCPSCOPE}' demo-server");
    let config = dir.path("mcp.json");
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {
            "s": {"command": "sh", "args": ["-c", script],
                  "env": {"TOKEN": {"secretRef": "catalog-value/t1"}}},
            "gone": {"command": "sh", "args": ["-c", script],
                     "env": {"TOKEN": {"secretRef": "catalog-value/missing"}}}}})
        .to_string(),
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let out = mcpscope(
        &store_dir,
        &["--config", cfg, "--server", "s", "--method", "tools/list"],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.dump());
    let stderr_lines: Vec<String> = out
        .trace
        .iter()
        .filter(|f| f["kind"] == "stderr-line")
        .map(|f| String::from_utf8_lossy(&body(f)).into_owned())
        .collect();
    assert!(
        stderr_lines.iter().any(|l| l == "got=hello-secret"),
        "{stderr_lines:?}"
    );
    let out = mcpscope(
        &store_dir,
        &[
            "--config",
            cfg,
            "--server",
            "gone",
            "--method",
            "tools/list",
        ],
    )
    .await;
    assert_eq!(out.code, 1, "{}", out.dump());
    assert!(
        out.message().contains("catalog-value/missing"),
        "{}",
        out.dump()
    );
}

/// Run `mcpscope` in a pseudo-terminal (Python's `pty`), answering the passphrase prompt with
/// `answer`; returns everything the terminal showed and the exit code.
fn in_a_terminal(store_file: &Path, answer: &str, args: &[&str]) -> (String, i32) {
    const DRIVER: &str = r#"
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out, sent = b"", False
while True:
    ready, _, _ = select.select([fd], [], [], 60)
    if not ready:
        break
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not sent and b"passphrase for the secrets file" in out:
        os.write(fd, (os.environ["ANSWER"] + "\n").encode())
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .arg(MCPSCOPE)
        .args(args)
        .env("ANSWER", answer)
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_SECRET_FILE", store_file)
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .output()
        .expect("python3 runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A passphrase-protected secrets file opens with a passphrase typed at the terminal prompt
/// (not echoed); a wrong one is refused; without a terminal the error says what to set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_passphrase_is_asked_for_at_the_terminal() {
    let dir = Scratch::new("prompt");
    let file = dir.path("secrets.enc");
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        &file,
        Some("correct horse"),
    ))
    .unwrap();
    store.set("probe", "x").unwrap();
    drop(store);
    let args = [
        "--cli",
        "--demo",
        "--method",
        "initialize",
        "--format",
        "json",
    ];
    let (shown, code) = in_a_terminal(&file, "correct horse", &args);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("passphrase for the secrets file"), "{shown}");
    assert!(
        !shown.contains("correct horse"),
        "the passphrase was echoed: {shown}"
    );
    assert!(shown.contains("passphrase (argon2id"), "{shown}");
    let (shown, _) = in_a_terminal(&file, "wrong horse", &args);
    assert!(shown.contains("wrong passphrase"), "{shown}");
    // No terminal: no prompt, and the reason names the variable.
    let out = std::process::Command::new(MCPSCOPE)
        .args(args)
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_SECRET_FILE", &file)
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MCPSCOPE_SECRET_PASSPHRASE"), "{text}");
}

/// Issue 24 item 22 (the CVE-2025-6514 class): a hostile authorization server names an
/// `authorization_endpoint` of another scheme (or plain http off this machine). The CLI refuses
/// the login with the reason, and the browser (`$BROWSER`, here a script that records what it is
/// asked to open) is never run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_endpoint_of_another_scheme_is_never_opened() {
    use std::os::unix::fs::PermissionsExt;
    for (hostile, why) in [
        ("file:///etc/passwd", "the file: scheme is refused"),
        ("javascript:alert(1)", "the javascript: scheme is refused"),
        (
            "http://auth.example.com/authorize",
            "http: is opened only on this machine",
        ),
    ] {
        let f = OAuthFixture::spawn(OAuthOptions {
            authorization_endpoint: Some(hostile.into()),
            ..Default::default()
        })
        .await
        .unwrap();
        let dir = Scratch::new("oauth-hostile-endpoint");
        let opened = dir.path("opened.txt");
        let browser = dir.path("browser.sh");
        std::fs::write(
            &browser,
            format!("#!/bin/sh\necho \"$1\" >> '{}'\n", opened.display()),
        )
        .unwrap();
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let callback = format!("http://127.0.0.1:{port}/oauth/callback");
        let out = tokio::process::Command::new(MCPSCOPE)
            .args(["--cli", &f.mcp_url(), "--method", "tools/list"])
            .args(["--callback-url", &callback])
            .env("BROWSER", &browser)
            .env("MCPSCOPE_SECRET_STORE", "file")
            .env("MCPSCOPE_DATA_DIR", dir.path(""))
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        // Before the fix the login waited on its callback after the browser was run.
        let out = tokio::time::timeout(Duration::from_secs(30), out)
            .await
            .unwrap_or_else(|_| panic!("{hostile}: mcpscope waited for a login it must refuse"))
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{hostile}: {stderr}");
        assert!(
            stderr.contains("authorization_endpoint") && stderr.contains(why),
            "{hostile}: the refusal says why: {stderr}"
        );
        assert!(
            !opened.exists(),
            "{hostile}: the browser was run with {:?}",
            std::fs::read_to_string(&opened).unwrap_or_default()
        );
        assert_eq!(f.stats().authorizations, 0);
    }
}
