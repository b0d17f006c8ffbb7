//! Each relay rule of `docs/gateway.md`, asserted on what the gateway actually received.

use crate::support::*;
use serde_json::{Value, json};

fn one(addr: std::net::SocketAddr, path: &str) -> Value {
    json!({"gateways": {"g": {"url": format!("http://{addr}{path}")}}})
}

#[tokio::test]
async fn the_happy_path_relays_mcp_and_only_the_listed_headers() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(one(addr, "/mcp"), &[], |_| {}).await;
    let health = gw
        .client
        .get(format!("{}/healthz", gw.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    let ready = gw
        .client
        .get(format!("{}/readyz", gw.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), 200);
    let browser = [
        ("cookie", "mcpscope_token=abc; other=1"),
        ("authorization", "Bearer browser-secret"),
        ("x-forwarded-for", "10.9.9.9"),
        ("user-agent", "Mozilla/5.0"),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-method", "initialize"),
        ("mcp-param-region", "eu"),
        ("x-custom", "no"),
    ];
    let resp = gw.post("g", initialize(), &browser).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("x-mcpscope-refusal").is_none());
    assert!(
        resp.headers().get("set-cookie").is_none(),
        "the gateway's cookie is not relayed"
    );
    assert!(resp.headers().get("x-gateway-internal").is_none());
    assert_eq!(resp.headers()["mcp-protocol-version"], "2025-11-25");
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body: Value = resp
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap();
    assert_eq!(body["result"]["serverInfo"]["name"], "fake");
    let seen = fake.seen_on("/mcp");
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].header_names(),
        [
            "accept",
            "content-length",
            "content-type",
            "host",
            "mcp-method",
            "mcp-param-region",
            "mcp-protocol-version"
        ],
        "{:?}",
        seen[0].headers
    );
    assert_eq!(seen[0].header("host"), Some(addr.to_string().as_str()));
    assert_eq!(seen[0].header("mcp-param-region"), Some("eu"));
    assert_eq!(seen[0].body, initialize().to_string());
    // The body goes as the browser wrote it, not re-serialised.
    let odd = "{ \"jsonrpc\" : \"2.0\", \"id\": 1.50, \"method\": \"tools/list\" }";
    let resp = gw
        .client
        .post(format!("{}/api/gateways/g/mcp", gw.base()))
        .header(
            "x-mcp-remote-auth",
            format!("Bearer {}", gw.started.token.clone().unwrap()),
        )
        .header("content-type", "application/json")
        .body(odd)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(fake.seen_on("/mcp").pop().unwrap().body, odd);
    fake.seen.lock().unwrap().pop();
    // The session the gateway opened is usable by its user.
    let resp = gw
        .post(
            "g",
            request(2, "tools/list", json!({})),
            &[("mcp-session-id", &session)],
        )
        .await;
    assert_eq!(resp.status(), 200);
    let body: Value = resp
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap();
    assert_eq!(body["result"]["tools"][0]["name"], "toystore_greet");
    // The browser holds the id sealed (tests/sessions.rs); the gateway gets its own back.
    assert_ne!(session, "sess-0");
    assert_eq!(
        fake.seen_on("/mcp")[1].header("mcp-session-id"),
        Some("sess-0")
    );
    // Ending it is relayed, with the gateway's own id.
    let del = gw
        .client
        .delete(format!("{}/api/gateways/g/mcp", gw.base()))
        .header(
            "x-mcp-remote-auth",
            format!("Bearer {}", gw.started.token.clone().unwrap()),
        )
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(del.status(), 200);
    assert_eq!(fake.seen_on("/mcp")[2].method, "DELETE");
    assert_eq!(
        fake.seen_on("/mcp")[2].header("mcp-session-id"),
        Some("sess-0")
    );
    // Nothing else exists in this mode.
    for path in [
        "/api/servers",
        "/api/events",
        "/troubleshooting",
        "/oauth/callback",
    ] {
        let r = gw
            .client
            .get(format!("{}{path}", gw.base()))
            .header(
                "x-mcp-remote-auth",
                format!("Bearer {}", gw.started.token.clone().unwrap()),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{path}");
    }
    let stream = gw
        .client
        .get(format!("{}/api/gateways/g/mcp", gw.base()))
        .header(
            "x-mcp-remote-auth",
            format!("Bearer {}", gw.started.token.clone().unwrap()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(rule_of(stream).await.0, 405);
}

#[tokio::test]
async fn the_token_model_refuses_a_request_without_the_token() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(one(addr, "/mcp"), &[], |_| {}).await;
    let resp = gw
        .client
        .post(format!("{}/api/gateways/g/mcp", gw.base()))
        .header("content-type", "application/json")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    // Our refusal, named as ours: the page must not take it for the gateway asking for a bearer.
    assert_eq!(resp.headers()["x-mcpscope-refusal"], "token");
    let list = gw
        .client
        .get(format!("{}/api/gateways", gw.base()))
        .header(
            "x-mcp-remote-auth",
            format!("Bearer {}", gw.started.token.clone().unwrap()),
        )
        .send()
        .await
        .unwrap();
    let list: Value = list
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap();
    assert_eq!(list["user"]["name"], "local");
    assert_eq!(list["gateways"][0]["name"], "g");
    assert!(fake.seen().is_empty());
}

#[tokio::test]
async fn a_method_off_the_allowlist_is_refused_unless_the_file_adds_it() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(one(addr, "/mcp"), &[], |_| {}).await;
    for method in ["resources/list", "ping", "completion/complete", "tasks/get"] {
        let (status, rule, body) =
            rule_of(gw.post("g", request(1, method, json!({})), &[]).await).await;
        assert_eq!(
            (status, rule.as_str()),
            (403, "method-allowlist"),
            "{method}"
        );
        assert_eq!(body["error"]["code"], "forbidden");
    }
    let (status, rule, _) = rule_of(gw.post("g", json!([initialize()]), &[]).await).await;
    assert_eq!((status, rule.as_str()), (400, "jsonrpc"));
    assert!(fake.seen().is_empty(), "nothing reached the gateway");
    let mut file = one(addr, "/mcp");
    file["methods"] = json!(["ping"]);
    let gw = gateway(file, &[], |_| {}).await;
    assert_eq!(
        gw.post("g", request(1, "ping", json!({})), &[])
            .await
            .status(),
        200
    );
    assert_eq!(fake.seen().len(), 1);
}

#[tokio::test]
async fn request_and_response_sizes_are_capped() {
    let (fake, addr) = fake_gateway().await;
    let mut file = json!({"gateways": {
        "g": {"url": format!("http://{addr}/mcp")},
        "big": {"url": format!("http://{addr}/big/mcp")},
        "ssebig": {"url": format!("http://{addr}/ssebig/mcp")}
    }});
    file["limits"] = json!({"requestBytes": 1000, "responseBytes": 10000});
    let gw = gateway(file, &[], |_| {}).await;
    let large = request(
        1,
        "tools/call",
        json!({"name": "t", "arguments": {"x": "z".repeat(2000)}}),
    );
    let (status, rule, _) = rule_of(gw.post("g", large, &[]).await).await;
    assert_eq!((status, rule.as_str()), (413, "request-size"));
    assert!(fake.seen().is_empty());
    let (status, rule, _) = rule_of(
        gw.post("big", request(1, "tools/list", json!({})), &[])
            .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (502, "response-size"));
    // A stream over the cap ends there: at most the cap arrives.
    let resp = gw
        .post(
            "ssebig",
            request(1, "tools/call", json!({"name": "t"})),
            &[],
        )
        .await;
    assert_eq!(resp.status(), 200);
    let body = resp.bytes().await.unwrap();
    assert_eq!(body.len(), 10000);
}

#[tokio::test]
async fn a_redirect_is_refused_naming_its_location_and_never_followed() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(one(addr, "/redirect/mcp"), &[], |_| {}).await;
    let resp = gw.post("g", initialize(), &[]).await;
    assert!(
        resp.headers().get("location").is_none(),
        "never passed to the browser as a redirect"
    );
    let (status, rule, body) = rule_of(resp).await;
    assert_eq!((status, rule.as_str()), (502, "redirect"));
    assert_eq!(
        body["error"]["location"],
        format!("http://{addr}/elsewhere")
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/elsewhere")
    );
    assert_eq!(fake.seen_on("/redirect/mcp").len(), 1);
    assert!(fake.seen_on("/elsewhere").is_empty(), "not followed");
}

#[tokio::test]
async fn a_bearer_token_goes_only_over_https_unless_insecure_auth_is_allowed() {
    let (fake, addr) = fake_gateway().await;
    let file = one(addr, "/auth/mcp");
    let gw = gateway(file.clone(), &[], |_| {}).await;
    // Without a token: the gateway's 401 as it came, with its WWW-Authenticate, not ours.
    let resp = gw.post("g", initialize(), &[]).await;
    assert_eq!(resp.status(), 401);
    assert!(resp.headers().get("x-mcpscope-refusal").is_none());
    assert_eq!(resp.headers()["www-authenticate"], "Bearer realm=\"fake\"");
    let (status, rule, body) = rule_of(
        gw.post("g", initialize(), &[("x-mcp-gateway-token", "good")])
            .await,
    )
    .await;
    assert_eq!((status, rule.as_str()), (403, "bearer-over-https"));
    assert!(
        !body.to_string().contains("good"),
        "the token is not in the error"
    );
    assert_eq!(fake.seen().len(), 1, "the refused one never left");
    let gw = gateway(file, &[("MCP_PROXY_ALLOW_INSECURE_AUTH", "true")], |_| {}).await;
    let resp = gw
        .post("g", initialize(), &[("x-mcp-gateway-token", "good")])
        .await;
    assert_eq!(resp.status(), 200);
    let seen = fake.seen();
    assert_eq!(
        seen.last().unwrap().header("authorization"),
        Some("Bearer good")
    );
    assert!(seen.last().unwrap().header("x-mcp-gateway-token").is_none());
}

#[tokio::test]
async fn https_gateways_are_trusted_through_the_ca_file_and_get_the_bearer() {
    let dir = TempDir::new("ca");
    let (ca, cert, key) = make_ca(dir.path());
    let (fake, addr) = fake_tls_gateway(&cert, &key).await;
    let file =
        json!({"gateways": {"g": {"url": format!("https://localhost:{}/auth/mcp", addr.port())}}});
    let gw = gateway(
        file.clone(),
        &[("MCP_PROXY_CA_FILE", ca.to_str().unwrap())],
        |_| {},
    )
    .await;
    let resp = gw
        .post("g", initialize(), &[("x-mcp-gateway-token", "Bearer good")])
        .await;
    assert_eq!(resp.status(), 200, "{:?}", resp.text().await);
    assert_eq!(fake.seen()[0].header("authorization"), Some("Bearer good"));
    // Without the CA the certificate is not trusted: unreachable, and nothing was received.
    let gw = gateway(file, &[], |_| {}).await;
    let (status, rule, _) = rule_of(gw.post("g", initialize(), &[]).await).await;
    assert_eq!((status, rule.as_str()), (502, "unreachable"));
    assert_eq!(fake.seen().len(), 1);
    // An unreadable or invalid CA file fails start-up naming it.
    let bad = dir.path().join("bad.pem");
    std::fs::write(&bad, "not a certificate").unwrap();
    for path in [bad.clone(), dir.path().join("missing.pem")] {
        let settings = mcpscope_gateway::Settings::from_lookup(|k| {
            (k == "MCP_PROXY_CA_FILE").then(|| path.display().to_string())
        })
        .unwrap();
        let cfg = dir.path().join("g.json");
        std::fs::write(&cfg, r#"{"gateways": {}}"#).unwrap();
        let mut o = mcpscope_gateway::Options::new(cfg);
        o.port = 0;
        let e = mcpscope_gateway::start(o, settings).await.unwrap_err();
        assert!(
            e.contains("MCP_PROXY_CA_FILE") && e.contains(&path.display().to_string()),
            "{e}"
        );
    }
}

#[tokio::test]
async fn a_destination_outside_the_allowed_origins_is_refused() {
    let (fake, addr) = fake_gateway().await;
    let file = json!({"gateways": {
        "in": {"url": format!("http://{addr}/mcp")},
        "out": {"url": format!("http://localhost:{}/mcp", addr.port())}
    }});
    let allowed = format!("http://{addr}/");
    let gw = gateway(file, &[("MCP_PROXY_ALLOWED_ORIGINS", &allowed)], |_| {}).await;
    let (status, rule, _) = rule_of(gw.post("out", initialize(), &[]).await).await;
    assert_eq!((status, rule.as_str()), (403, "allowed-origins"));
    assert!(fake.seen().is_empty());
    assert_eq!(gw.post("in", initialize(), &[]).await.status(), 200);
    assert_eq!(fake.seen().len(), 1);
}

#[tokio::test]
async fn the_dial_address_is_dialled_and_the_url_and_host_are_kept() {
    let (fake, addr) = fake_gateway().await;
    let file = json!({"gateways": {
        "bare": {"url": "http://mcp.gateway.test/mcp"},
        "port": {"url": "http://mcp.gateway.test:8443/mcp"}
    }});
    let dial = addr.to_string();
    let gw = gateway(file, &[("MCP_PROXY_DIAL_ADDRESS", &dial)], |_| {}).await;
    assert_eq!(gw.post("bare", initialize(), &[]).await.status(), 200);
    assert_eq!(gw.post("port", initialize(), &[]).await.status(), 200);
    let seen = fake.seen_on("/mcp");
    assert_eq!(seen[0].header("host"), Some("mcp.gateway.test"));
    assert_eq!(seen[1].header("host"), Some("mcp.gateway.test:8443"));
}

#[tokio::test]
async fn a_gateway_slower_than_the_request_timeout_is_a_504() {
    let (_fake, addr) = fake_gateway().await;
    let gw = gateway(
        one(addr, "/slow/mcp"),
        &[("MCP_PROXY_REQUEST_TIMEOUT", "300ms")],
        |_| {},
    )
    .await;
    let t = std::time::Instant::now();
    let (status, rule, _) = rule_of(gw.post("g", initialize(), &[]).await).await;
    assert_eq!((status, rule.as_str()), (504, "timeout"));
    assert!(t.elapsed() < std::time::Duration::from_secs(2));
}

#[tokio::test]
async fn an_sse_answer_is_relayed_as_it_comes_not_buffered() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(one(addr, "/sse/mcp"), &[], |_| {}).await;
    let mut resp = gw
        .post("g", request(7, "tools/call", json!({"name": "t"})), &[])
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    // The first event arrives while the gateway still holds the second.
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), resp.chunk())
        .await
        .expect("the first event came before the stream ended")
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&first).contains("notifications/progress"));
    fake.release.notify_one();
    let mut rest = Vec::new();
    while let Some(c) = resp.chunk().await.unwrap() {
        rest.extend_from_slice(&c);
    }
    assert!(String::from_utf8_lossy(&rest).contains("\"id\":7"));
}

#[tokio::test]
async fn the_audit_log_says_who_called_what_without_tokens() {
    let (_fake, addr) = fake_gateway().await;
    let dir = TempDir::new("audit");
    let log = dir.path().join("audit.jsonl");
    let log2 = log.clone();
    let gw = gateway(
        one(addr, "/mcp"),
        &[("MCP_PROXY_ALLOW_INSECURE_AUTH", "true")],
        move |o| {
            o.audit_log = Some(log2);
        },
    )
    .await;
    let call = request(
        3,
        "tools/call",
        json!({"name": "toystore_greet", "arguments": {"Name": "secret-arg"}}),
    );
    assert_eq!(
        gw.post("g", call, &[("x-mcp-gateway-token", "tok-123")])
            .await
            .status(),
        200
    );
    gw.post("g", request(4, "resources/list", json!({})), &[])
        .await;
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["user"], "local");
    assert_eq!(lines[0]["method"], "tools/call");
    assert_eq!(lines[0]["name"], "toystore_greet");
    assert_eq!(lines[0]["outcome"], "ok");
    assert_eq!(lines[1]["outcome"], "refused:method-allowlist");
    assert!(
        !text.contains("tok-123") && !text.contains("secret-arg"),
        "{text}"
    );
}
