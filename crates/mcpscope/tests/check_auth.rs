//! `mcpscope check` on protected servers: the authorization checks (issue 26) as the real binary
//! reports them in `--format json`. Without credentials the server refuses every era's
//! handshake, so only these checks run, and the run ends with exit 3 and `authRequired` after
//! reporting them. The testkit's authorization server + protected MCP server passes them all;
//! each flaw of its options changes its own check's verdict and no other. With a login
//! (`--headless-auth`, the testkit approves at once) the session's checks run as usual and the
//! accepted JWT's audience is judged too. The Python SDK's and FastMCP's own OAuth servers are
//! checked as they ship.

use crate::misbehaving_support::{MCPSCOPE, Scratch};
use crate::peers_support::Peers;
use mcpscope_testkit::{OAuthFixture, OAuthOptions};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt as _;

/// The authorization checks, in catalogue order.
const AUTH_CHECKS: &[&str] = &[
    "auth-www-authenticate",
    "auth-www-authenticate-scope",
    "auth-protected-resource-metadata",
    "auth-server-metadata",
    "auth-pkce-s256",
    "auth-https-endpoints",
    "auth-registration",
    "auth-token-audience",
    "auth-resource-indicator",
];
const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// `mcpscope check ARGS --format json` with its data (and secret store) in `data`, bounded:
/// (exit code, the report, stderr).
async fn check(data: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut child = tokio::process::Command::new(MCPSCOPE)
        .arg("check")
        .args(args)
        .args(["--format", "json", "--timeout", "60"])
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_DATA_DIR", data)
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .env_remove("MCPSCOPE_SECRET_FILE")
        .env_remove("MCPSCOPE_AUTH_PROFILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn mcpscope check");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let done = tokio::time::timeout(Duration::from_secs(120), async {
        let (a, b, status) = tokio::join!(
            out.read_to_end(&mut stdout),
            err.read_to_end(&mut stderr),
            child.wait()
        );
        a.and(b).and(status)
    })
    .await;
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    let status = match done {
        Ok(Ok(s)) => s,
        other => panic!("mcpscope check {args:?} did not finish: {other:?}\n{stderr}"),
    };
    let report = serde_json::from_slice(&stdout).unwrap_or_else(|e| {
        panic!(
            "mcpscope check {args:?}: stdout is not JSON ({e}): {}\n{stderr}",
            String::from_utf8_lossy(&stdout)
        )
    });
    (status.code().unwrap_or(-1), report, stderr)
}

/// The one verdict of `id` in `era`.
fn verdict<'a>(report: &'a Value, id: &str, era: &str) -> &'a Value {
    let found: Vec<&Value> = report["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .filter(|v| v["id"] == id && v["era"] == era)
        .collect();
    assert_eq!(found.len(), 1, "{id} [{era}]: {report:#}");
    found[0]
}

/// Each authorization check's outcome in `eras`: `(id, era, outcome)`.
fn auth_outcomes(report: &Value, eras: &[&str]) -> Vec<(String, String, String)> {
    eras.iter()
        .flat_map(|era| AUTH_CHECKS.iter().map(move |id| (*id, *era)))
        .map(|(id, era)| {
            let v = verdict(report, id, era);
            (
                id.to_string(),
                era.to_string(),
                v["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The outcomes a server should get in `eras`: `pass`, `auth-resource-indicator` as `token`
/// says, `auth-https-endpoints` skipped (every server here is on loopback), and `except` where it
/// says otherwise (`(id, outcome)`, every era).
fn expected(eras: &[&str], token: &str, except: &[(&str, &str)]) -> Vec<(String, String, String)> {
    eras.iter()
        .flat_map(|era| AUTH_CHECKS.iter().map(move |id| (*id, *era)))
        .map(|(id, era)| {
            let outcome = except
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, o)| *o)
                .unwrap_or(match id {
                    "auth-resource-indicator" => token,
                    "auth-https-endpoints" => "skipped",
                    _ => "pass",
                });
            (id.to_string(), era.to_string(), outcome.to_string())
        })
        .collect()
}

/// The testkit's fixture as a careful server runs it: the challenge names its scope too.
fn clean() -> OAuthOptions {
    OAuthOptions {
        challenge_scope: Some("mcp:read".into()),
        ..OAuthOptions::default()
    }
}

/// Without credentials: every era refused, only the authorization checks, each passing with its
/// evidence, then exit 3 with `authRequired` — the report is printed all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protected_server_without_credentials_gets_the_authorization_checks_then_exit_3() {
    let f = OAuthFixture::spawn(clean()).await.unwrap();
    let dir = Scratch::new("check-auth-clean");
    let url = f.mcp_url();
    let junit = dir.path("auth.xml").display().to_string();
    let (code, report, stderr) = check(&dir.path(""), &[&url, "--junit", &junit]).await;
    assert_eq!(code, 3, "{report:#}\n{stderr}");
    // CI sees them too: one JUnit suite, a test case per check and era, the skips saying why.
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file is written");
    let cases = AUTH_CHECKS.len() * 2;
    assert!(
        xml.contains(&format!(
            "<testsuite name=\"authorization\" tests=\"{cases}\" failures=\"0\""
        )),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), cases, "{xml}");
    assert!(
        report["authRequired"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{report:#}"
    );
    assert_eq!(
        auth_outcomes(&report, &[LEGACY, MODERN]),
        expected(&[LEGACY, MODERN], "skipped", &[]),
        "{report:#}"
    );
    let ids: Vec<&str> = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["id"].as_str())
        .collect();
    assert!(
        ids.iter().all(|id| id.starts_with("auth-")),
        "nothing else could run: {ids:?}"
    );
    // What each pass saw, in the server's own values.
    let prm = verdict(&report, "auth-protected-resource-metadata", LEGACY);
    assert!(
        prm["message"].as_str().unwrap().contains(&f.issuer()),
        "{prm}"
    );
    let audience = verdict(&report, "auth-token-audience", LEGACY);
    assert!(
        audience["message"]
            .as_str()
            .unwrap()
            .contains("refused with 401"),
        "{audience}"
    );
    let why = verdict(&report, "auth-resource-indicator", LEGACY)["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("needs a token"), "{why}");
    // Nothing was logged in: the fixture saw no registration and no token request.
    let stats = f.stats();
    assert_eq!(
        (stats.registrations, stats.code_grants),
        (0, 0),
        "{stats:?}"
    );
    assert_eq!(stats.mcp_authorized, 0, "{stats:?}");

    // The text form says what ran and how to give credentials.
    let out = tokio::process::Command::new(MCPSCOPE)
        .args(["check", &url, "--timeout", "60"])
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_DATA_DIR", dir.path(""))
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("only the authorization checks ran")
            && text.contains("--header \"Authorization: Bearer …\""),
        "{text}"
    );
}

/// Each flaw breaks one rule: its check's verdict changes, and no other's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_authorization_flaw_fails_its_own_check_and_no_other() {
    type Flaw = (
        &'static str,
        fn(&mut OAuthOptions),
        &'static [(&'static str, &'static str)],
    );
    let flaws: &[Flaw] = &[
        (
            "a bare 401",
            |o| o.www_authenticate = false,
            // No challenge: its scope cannot be read either.
            &[
                ("auth-www-authenticate", "fail"),
                ("auth-www-authenticate-scope", "skipped"),
            ],
        ),
        (
            "no MCP authorization at all (a bare 401, no metadata): a SHOULD, not every MUST",
            |o| {
                o.www_authenticate = false;
                o.protected_resource_metadata = false;
            },
            &[
                ("auth-www-authenticate", "warn"),
                ("auth-www-authenticate-scope", "skipped"),
                ("auth-protected-resource-metadata", "skipped"),
                ("auth-server-metadata", "skipped"),
                ("auth-pkce-s256", "skipped"),
                ("auth-https-endpoints", "skipped"),
                ("auth-registration", "skipped"),
            ],
        ),
        (
            "a Bearer challenge, but no metadata anywhere",
            |o| o.protected_resource_metadata = false,
            &[
                ("auth-www-authenticate", "pass"),
                ("auth-protected-resource-metadata", "fail"),
                ("auth-server-metadata", "skipped"),
                ("auth-pkce-s256", "skipped"),
                ("auth-https-endpoints", "skipped"),
                ("auth-registration", "skipped"),
            ],
        ),
        (
            "no resource_metadata (the well-known URI still serves it)",
            |o| o.resource_metadata_in_challenge = false,
            &[("auth-www-authenticate", "warn")],
        ),
        (
            "no scope in the challenge",
            |o| o.challenge_scope = None,
            &[("auth-www-authenticate-scope", "warn")],
        ),
        (
            "PRM resource of another server",
            |o| o.prm_resource = Some("http://mcp.example.com/mcp".into()),
            &[("auth-protected-resource-metadata", "fail")],
        ),
        (
            "no S256",
            |o| o.code_challenge_methods = vec!["plain".into()],
            &[("auth-pkce-s256", "fail")],
        ),
        (
            "no code_challenge_methods_supported",
            |o| o.code_challenge_methods = vec![],
            &[("auth-pkce-s256", "fail")],
        ),
        (
            "an authorization endpoint over plain http on another host",
            |o| o.authorization_endpoint = Some("http://login.example.com/authorize".into()),
            &[("auth-https-endpoints", "fail")],
        ),
        (
            "no registration_endpoint",
            |o| o.registration_endpoint = false,
            &[("auth-registration", "warn")],
        ),
        (
            "any token accepted",
            |o| o.accept_any_token = true,
            &[("auth-token-audience", "fail")],
        ),
    ];
    for (what, flaw, except) in flaws {
        let mut opts = clean();
        flaw(&mut opts);
        let f = OAuthFixture::spawn(opts).await.unwrap();
        let dir = Scratch::new("check-auth-flaw");
        let (code, report, stderr) = check(&dir.path(""), &[&f.mcp_url()]).await;
        assert_eq!(code, 3, "{what}: {report:#}\n{stderr}");
        assert_eq!(
            auth_outcomes(&report, &[LEGACY, MODERN]),
            expected(&[LEGACY, MODERN], "skipped", except),
            "{what}: {report:#}"
        );
        // A failure or warning shows the exchange that proves it and how to make it again.
        for (id, outcome) in except.iter().filter(|(_, o)| *o == "fail" || *o == "warn") {
            let v = verdict(&report, id, LEGACY);
            assert_eq!(v["outcome"], *outcome, "{what}: {v}");
            assert!(
                v["evidence"].as_array().is_some_and(|e| !e.is_empty()),
                "{what}: {v}"
            );
            assert!(
                v["reproduce"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("curl ")),
                "{what}: {v}"
            );
        }
    }
}

/// With a login the session's checks run, the run is not `authRequired`, the unauthenticated
/// probes still run, and the accepted JWT's `aud` names the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_login_the_session_checks_run_and_the_tokens_audience_is_judged() {
    let f = OAuthFixture::spawn(OAuthOptions {
        jwt_access_tokens: true,
        ..clean()
    })
    .await
    .unwrap();
    let dir = Scratch::new("check-auth-login");
    let url = f.mcp_url();
    let args = [
        url.as_str(),
        "--login",
        "--headless-auth",
        "--requirements",
        LEGACY,
    ];
    let (code, report, stderr) = check(&dir.path(""), &args).await;
    assert_ne!(code, 3, "{report:#}\n{stderr}");
    assert!(report["authRequired"].is_null(), "{report:#}");
    assert_eq!(
        auth_outcomes(&report, &[LEGACY]),
        expected(&[LEGACY], "pass", &[]),
        "{report:#}"
    );
    assert!(
        report["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["id"] == "ping" || v["id"].as_str().is_some_and(|i| i.starts_with("tools-"))),
        "the session's checks ran: {report:#}"
    );
    assert!(f.stats().mcp_authorized > 0, "{:?}", f.stats());

    // The next run finds the stored token without a login; an opaque one cannot be read.
    let f2 = OAuthFixture::spawn(clean()).await.unwrap();
    let url2 = f2.mcp_url();
    let (_, first, stderr) = check(
        &dir.path(""),
        &[
            &url2,
            "--login",
            "--headless-auth",
            "--requirements",
            LEGACY,
        ],
    )
    .await;
    let v = verdict(&first, "auth-resource-indicator", LEGACY);
    assert_eq!(v["outcome"], "skipped", "{v}\n{stderr}");
    assert!(v["message"].as_str().unwrap().contains("opaque"), "{v}");
}

/// An access token from the fixture, got as a client would but by hand (RFC 7591 registration,
/// the authorization code with PKCE S256 and the `resource` indicator, redeemed): what a CI job
/// keeps in a secret.
async fn token_by_hand(f: &OAuthFixture) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let issuer = f.issuer();
    let redirect = "http://127.0.0.1:9/callback";
    let registration =
        serde_json::json!({"redirect_uris": [redirect], "token_endpoint_auth_method": "none"});
    let client = http
        .post(format!("{issuer}/register"))
        .header("content-type", "application/json")
        .body(registration.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let client: Value = serde_json::from_str(&client).unwrap();
    let client_id = client["client_id"].as_str().unwrap().to_string();
    let pkce = mcpscope_auth::pkce::Pkce::new();
    let mut authorize = url::Url::parse(&format!("{issuer}/authorize")).unwrap();
    authorize
        .query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &client_id)
        .append_pair("redirect_uri", redirect)
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "s")
        .append_pair("scope", "mcp:read")
        .append_pair("resource", &f.mcp_url());
    let back = http.get(authorize).send().await.unwrap();
    let location = back.headers()["location"].to_str().unwrap().to_string();
    let code = url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no code in {location}"));
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "authorization_code")
        .append_pair("code", &code)
        .append_pair("redirect_uri", redirect)
        .append_pair("client_id", &client_id)
        .append_pair("code_verifier", &pkce.verifier)
        .append_pair("resource", &f.mcp_url())
        .finish();
    let token = http
        .post(format!("{issuer}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let token: Value = serde_json::from_str(&token).unwrap();
    token["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no access_token: {token}"))
        .to_string()
}

/// A token in `--header`, as a CI job gives one from a secret: the session's checks run, the
/// authorization checks beside them, and the JWT's audience is this server. The same header on a
/// server that takes any token: the foreign tokens are accepted and the run's token, issued for
/// another audience, too — both found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_in_a_header_runs_everything_and_its_audience_is_judged() {
    let f = OAuthFixture::spawn(OAuthOptions {
        jwt_access_tokens: true,
        ..clean()
    })
    .await
    .unwrap();
    let token = token_by_hand(&f).await;
    let dir = Scratch::new("check-auth-header");
    let header = format!("Authorization: Bearer {token}");
    let url = f.mcp_url();
    let args = [url.as_str(), "--header", &header, "--requirements", LEGACY];
    let (code, report, stderr) = check(&dir.path(""), &args).await;
    assert_ne!(code, 3, "{report:#}\n{stderr}");
    assert!(report["authRequired"].is_null(), "{report:#}");
    assert_eq!(
        auth_outcomes(&report, &[LEGACY]),
        expected(&[LEGACY], "pass", &[]),
        "{report:#}"
    );
    assert_eq!(
        verdict(&report, "ping", LEGACY)["outcome"],
        "pass",
        "{report:#}"
    );
    // The token is not in the report: request frames show Authorization as "…".
    assert!(
        !report.to_string().contains(&token),
        "the token leaked into the report"
    );

    // A server that takes any token took the foreign ones, and a token for another audience.
    let lax = OAuthFixture::spawn(OAuthOptions {
        accept_any_token: true,
        ..clean()
    })
    .await
    .unwrap();
    let url = lax.mcp_url();
    let args = [url.as_str(), "--header", &header, "--requirements", LEGACY];
    let (code, report, stderr) = check(&dir.path(""), &args).await;
    assert_eq!(code, 6, "{report:#}\n{stderr}");
    assert_eq!(
        auth_outcomes(&report, &[LEGACY]),
        expected(
            &[LEGACY],
            "pass",
            &[
                ("auth-token-audience", "fail"),
                ("auth-resource-indicator", "fail")
            ]
        ),
        "{report:#}"
    );
}

/// The official Python SDK's own authorization server and FastMCP's, as they ship.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_and_fastmcp_oauth_servers_as_they_ship() {
    let Some(peers) = Peers::get("check_auth_python") else {
        return;
    };
    for (script, except) in [
        ("python/oauth_server.sh", PYTHON_SDK_FINDINGS),
        ("python/oauth_fastmcp.sh", FASTMCP_FINDINGS),
    ] {
        let server = peers.serve(script, "http").await;
        let url = format!("{}/mcp", server.base);
        let dir = Scratch::new("check-auth-python");
        let (code, report, stderr) = check(&dir.path(""), &[&url, "--requirements", LEGACY]).await;
        assert_eq!(code, 3, "{script}: {report:#}\n{stderr}");
        assert_eq!(
            auth_outcomes(&report, &[LEGACY]),
            expected(&[LEGACY], "skipped", except),
            "{script}: {report:#}"
        );
    }
}

/// What the Python SDK (mcp 2.3.0) gets: its 401 names no scope although the server is
/// configured with `required_scopes` (docs/checks.md).
const PYTHON_SDK_FINDINGS: &[(&str, &str)] = &[("auth-www-authenticate-scope", "warn")];
/// What FastMCP 4.2.3 gets: see docs/checks.md.
const FASTMCP_FINDINGS: &[(&str, &str)] = &[];

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The TypeScript SDK v1's own OAuth example as it ships (`simpleStreamableHttp.js --oauth`: its
/// demo authorization server on a port of its own, `mcpAuthMetadataRouter`, `requireBearerAuth`
/// with token introspection), run from the peers' node_modules.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_oauth_example_as_it_ships() {
    let Some(peers) = Peers::get("check_auth_ts_sdk") else {
        return;
    };
    let run = peers.node_stdio(
        "@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
        &[],
        &["--oauth"],
    );
    let (mcp, auth) = (free_port(), free_port());
    let _server = tokio::process::Command::new(&run[1])
        .args(&run[2..])
        .env("MCP_PORT", mcp.to_string())
        .env("MCP_AUTH_PORT", auth.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the TypeScript SDK's example");
    for port in [mcp, auth] {
        let up = tokio::time::timeout(Duration::from_secs(30), async {
            while tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_err()
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
        .await;
        assert!(up.is_ok(), "the example never listened on {port}");
    }
    // Its resource is http://localhost:PORT/mcp: checked under that name.
    let url = format!("http://localhost:{mcp}/mcp");
    let dir = Scratch::new("check-auth-ts");
    let (code, report, stderr) = check(&dir.path(""), &[&url, "--requirements", LEGACY]).await;
    assert_eq!(code, 3, "{report:#}\n{stderr}");
    assert_eq!(
        auth_outcomes(&report, &[LEGACY]),
        expected(&[LEGACY], "skipped", TS_SDK_FINDINGS),
        "{report:#}"
    );
    let v = verdict(&report, "auth-token-audience", LEGACY);
    let said = v["message"].as_str().unwrap();
    assert!(
        said.contains("HTTP 500") && said.contains("server_error"),
        "{v}"
    );
}

/// What the TypeScript SDK v1 (1.32.2) example gets: no scope in its 401, and a token it does not
/// know answered 500, not 401 — its verifier throws a plain `Error`, which `requireBearerAuth`
/// turns into `server_error` (docs/checks.md).
const TS_SDK_FINDINGS: &[(&str, &str)] = &[
    ("auth-www-authenticate-scope", "warn"),
    ("auth-token-audience", "fail"),
];
