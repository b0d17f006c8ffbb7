//! Team mode: identity from a trusted proxy, gateways per user, sessions that stay their user's.

use crate::support::*;
use serde_json::{Value, json};

fn team_file(addr: std::net::SocketAddr) -> Value {
    json!({"gateways": {
        "shared": {"url": format!("http://{addr}/mcp")},
        "ada-only": {"url": format!("http://{addr}/mcp"), "users": ["ada"]},
        "platform": {"url": format!("http://{addr}/mcp"), "groups": ["platform"]}
    }})
}

async fn list(gw: &Under, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut r = gw.client.get(format!("{}/api/gateways", gw.base()));
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.send().await.unwrap()
}

fn names(v: &Value) -> Vec<String> {
    v["gateways"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn two_users_see_their_own_gateways_and_never_each_others_sessions() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(team_file(addr), &[], |o| {
        o.trusted_proxies = vec!["127.0.0.1/32".into()]
    })
    .await;
    assert!(gw.started.token.is_none());
    let ada: Value = list(&gw, &[("x-forwarded-user", "ada")])
        .await
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap();
    assert_eq!(names(&ada), ["ada-only", "shared"]);
    assert_eq!(ada["user"]["name"], "ada");
    let bob: Value = list(
        &gw,
        &[
            ("x-forwarded-user", "bob"),
            ("x-forwarded-groups", "sales, platform"),
        ],
    )
    .await
    .bytes()
    .await
    .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
    .unwrap();
    assert_eq!(names(&bob), ["platform", "shared"]);
    // Bob cannot use a gateway the file does not give him.
    let (status, rule, _) = rule_of(
        gw.post("ada-only", initialize(), &[("x-forwarded-user", "bob")])
            .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (404, "gateway-unknown"));
    // Ada opens a session; Bob presenting its id is refused and the gateway never sees it. The
    // relay keeps no owner to tell "another user's" from "unknown": both are an expired session
    // (404), which a client answers by starting its own.
    let resp = gw
        .post("shared", initialize(), &[("x-forwarded-user", "ada")])
        .await;
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let before = fake.seen().len();
    let (status, rule, body) = rule_of(
        gw.post(
            "shared",
            request(2, "tools/list", json!({})),
            &[("x-forwarded-user", "bob"), ("mcp-session-id", &session)],
        )
        .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (404, "session-owner"));
    assert!(
        !body.to_string().contains(&session),
        "the session id is not in the error"
    );
    assert_eq!(fake.seen().len(), before);
    // Nor on another gateway, even for Ada.
    let (_, rule, _) = rule_of(
        gw.post(
            "ada-only",
            request(2, "tools/list", json!({})),
            &[("x-forwarded-user", "ada"), ("mcp-session-id", &session)],
        )
        .await,
    )
    .await;
    assert_eq!(rule, "session-owner");
    let ok = gw
        .post(
            "shared",
            request(2, "tools/list", json!({})),
            &[("x-forwarded-user", "ada"), ("mcp-session-id", &session)],
        )
        .await;
    assert_eq!(ok.status(), 200);
    // The identity headers of ours never reach the gateway.
    for s in fake.seen() {
        assert!(s.header("x-forwarded-user").is_none() && s.header("x-forwarded-groups").is_none());
    }
}

#[tokio::test]
async fn a_request_without_the_identity_or_from_an_untrusted_peer_is_refused() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(team_file(addr), &[], |o| {
        o.trusted_proxies = vec!["127.0.0.1".into()]
    })
    .await;
    let (status, rule, _) = rule_of(gw.post("shared", initialize(), &[]).await).await;
    assert_eq!((status, rule.as_str()), (401, "identity-missing"));
    let (status, rule, _) = rule_of(list(&gw, &[("x-forwarded-user", "")]).await).await;
    assert_eq!((status, rule.as_str()), (401, "identity-missing"));
    // A page of another origin.
    let (status, rule, _) = rule_of(
        gw.post(
            "shared",
            initialize(),
            &[
                ("x-forwarded-user", "ada"),
                ("origin", "https://evil.example"),
            ],
        )
        .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (403, "origin"));
    // Health needs nothing.
    let h = gw
        .client
        .get(format!("{}/healthz", gw.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(h.status(), 200);
    // The proxy is elsewhere: this peer (127.0.0.1) is refused whatever it claims.
    let gw = gateway(team_file(addr), &[], |o| {
        o.trusted_proxies = vec!["10.0.0.0/8".into()]
    })
    .await;
    let (status, rule, _) = rule_of(
        gw.post("shared", initialize(), &[("x-forwarded-user", "ada")])
            .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (403, "trusted-proxy"));
    let h = gw
        .client
        .get(format!("{}/readyz", gw.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(h.status(), 200, "health answers any peer (the kubelet)");
    assert!(fake.seen().is_empty());
}

#[tokio::test]
async fn binding_beyond_loopback_needs_a_guard() {
    let dir = TempDir::new("bind");
    let cfg = dir.path().join("g.json");
    std::fs::write(&cfg, r#"{"gateways": {}}"#).unwrap();
    let mut o = mcpscope_gateway::Options::new(cfg.clone());
    o.host = "0.0.0.0".into();
    o.port = 0;
    let e = mcpscope_gateway::start(o.clone(), mcpscope_gateway::Settings::default())
        .await
        .unwrap_err();
    assert!(
        e.contains("--trusted-proxy") && e.contains("MCP_INSPECTOR_API_TOKEN"),
        "{e}"
    );
    let settings = mcpscope_gateway::Settings {
        api_token: Some("a-token-the-administrator-chose-0123456789".into()),
        ..Default::default()
    };
    let started = mcpscope_gateway::start(o, settings).await.unwrap();
    assert!(
        !started.url.contains("token="),
        "an administrator's token is not printed"
    );
    started.stop().await.unwrap();
}
