//! `POST /api/form` and `/api/validate` in gateway mode: the web UI's own stateless routes
//! (`mcpscope_server::schema_routes`, the rule `mcpscope_proto::form`'s), behind the gateway's
//! guard and the body cap. The cases are `form_cases.json`, which the page's tests draw too.

use crate::support::*;
use mcpscope_server::{AppState, Catalog, ListenOptions, Security, ServerOptions};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};

/// The single-user web UI, for the answers the gateway mode must give alike.
struct WebUi {
    base: String,
    token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    _dir: TempDir,
}

impl Drop for WebUi {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

async fn web_ui() -> WebUi {
    let dir = TempDir::new("webui");
    let store = HistoryStore::open(&dir.path().join("history.sqlite"), Retention::default())
        .expect("history database");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let token = "web-ui-token-0123456789abcdef0123".to_string();
    let security = Security::for_port(port, Some(token.clone()), None);
    let options = ServerOptions {
        // Secrets in the test's own directory, never in the user's keyring.
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.path().join("secrets.enc"),
            None,
        )),
        ..ServerOptions::for_port(port)
    };
    let state = AppState::new(security, Catalog::in_memory(vec![]), store, options);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcpscope_server::serve(
        listener,
        state,
        ListenOptions::default(),
        async move {
            let _ = stopped.await;
        },
    ));
    WebUi {
        base: format!("http://127.0.0.1:{port}"),
        token,
        stop: Some(stop),
        _dir: dir,
    }
}

/// `POST base+path` with `body` as JSON and these headers: the status, `X-Mcpscope-Refusal`,
/// and the body as JSON (`Null` when it is not).
async fn post(
    client: &reqwest::Client,
    url: String,
    body: impl Into<reqwest::Body>,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let mut r = client.post(url).body(body);
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let resp = r.send().await.unwrap();
    let status = resp.status().as_u16();
    let refusal = resp
        .headers()
        .get("x-mcpscope-refusal")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = resp.bytes().await.unwrap();
    (
        status,
        refusal,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn cases() -> Vec<Value> {
    let text = include_str!("form_cases.json");
    let file: Value = serde_json::from_str(text).expect("form_cases.json");
    file["cases"].as_array().expect("cases").clone()
}

/// What both servers answer for `path` and `body` (token model, JSON), asserted equal.
async fn both(ui: &WebUi, gw: &Under, path: &str, body: &Value) -> (u16, Value) {
    let gw_token = bearer(gw.started.token.as_deref().unwrap());
    let ui_token = bearer(&ui.token);
    let json_type = ("content-type", "application/json");
    let from_gateway = post(
        &gw.client,
        format!("{}{path}", gw.base()),
        body.to_string(),
        &[json_type, ("x-mcp-remote-auth", &gw_token)],
    )
    .await;
    let from_web_ui = post(
        &gw.client,
        format!("{}{path}", ui.base),
        body.to_string(),
        &[json_type, ("x-mcp-remote-auth", &ui_token)],
    )
    .await;
    assert_eq!(from_gateway, from_web_ui, "{path} {body}");
    (from_gateway.0, from_gateway.2)
}

#[tokio::test]
async fn the_page_gets_the_web_uis_form_and_check_for_the_same_schema() {
    let ui = web_ui().await;
    let gw = gateway(json!({"gateways": {}}), &[], |_| {}).await;
    for case in cases() {
        let about = case["about"].as_str().unwrap();
        let (status, form) = both(&ui, &gw, "/api/form", &json!({"schema": case["schema"]})).await;
        assert_eq!(status, 200, "{about}");
        assert_eq!(form, case["form"], "{about}: the form model");
        for check in case["checks"].as_array().unwrap() {
            let body = json!({"schema": case["schema"], "value": check["value"]});
            let (status, answer) = both(&ui, &gw, "/api/validate", &body).await;
            match check.get("status") {
                None => {
                    assert_eq!(status, 200, "{about}: {answer}");
                    assert_eq!(answer["errors"], check["errors"], "{about}: {body}");
                }
                Some(refused) => {
                    assert_eq!(json!(status), *refused, "{about}: {answer}");
                    assert_eq!(answer["error"]["code"], check["code"], "{about}");
                    assert!(
                        answer["error"]["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("cannot be used")),
                        "{answer}"
                    );
                }
            }
        }
    }
    // A body that is not the JSON expected: the web API's refusal, from both.
    let (status, answer) = both(&ui, &gw, "/api/validate", &json!({"value": 1})).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (400, Some("usage"))
    );
}

#[tokio::test]
async fn a_body_over_the_cap_is_refused_as_the_web_ui_refuses_it() {
    let ui = web_ui().await;
    let gw = gateway(json!({"gateways": {}}), &[], |_| {}).await;
    // A schema whose description alone passes the cap.
    let long = "x".repeat(mcpscope_server::SCHEMA_BODY_BYTES);
    let body = json!({"schema": {"type": "object", "description": long}});
    for path in ["/api/form", "/api/validate"] {
        let (status, answer) = both(&ui, &gw, path, &body).await;
        assert_eq!(status, 413, "{path}: {answer}");
        assert_eq!(answer["error"]["code"], "usage", "{path}");
    }
    // Just under it is answered.
    let fits = "x".repeat(mcpscope_server::SCHEMA_BODY_BYTES - 100);
    let (status, form) = both(
        &ui,
        &gw,
        "/api/form",
        &json!({"schema": {"type": "object", "description": fits}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(form["description"].as_str().map(str::len), Some(fits.len()));
}

#[tokio::test]
async fn the_token_model_guards_the_schema_routes() {
    let gw = gateway(json!({"gateways": {}}), &[], |_| {}).await;
    let body = json!({"schema": {"type": "object"}}).to_string();
    let json_type = ("content-type", "application/json");
    for path in ["/api/form", "/api/validate"] {
        let url = format!("{}{path}", gw.base());
        let (status, refusal, answer) =
            post(&gw.client, url.clone(), body.clone(), &[json_type]).await;
        assert_eq!(
            (status, refusal.as_str()),
            (401, "token"),
            "{path}: {answer}"
        );
        assert_eq!(answer["error"]["code"], "unauthorized");
        let wrong = bearer("not-the-token");
        let (status, refusal, _) = post(
            &gw.client,
            url.clone(),
            body.clone(),
            &[json_type, ("x-mcp-remote-auth", &wrong)],
        )
        .await;
        assert_eq!((status, refusal.as_str()), (401, "token"), "{path}");
        // A cross-origin form's text/plain write is refused before any handler.
        let token = bearer(gw.started.token.as_deref().unwrap());
        let (status, refusal, _) = post(
            &gw.client,
            url.clone(),
            body.clone(),
            &[
                ("content-type", "text/plain"),
                ("x-mcp-remote-auth", &token),
            ],
        )
        .await;
        assert_eq!((status, refusal.as_str()), (415, "token"), "{path}");
        let (status, refusal, _) = post(
            &gw.client,
            url,
            body.clone(),
            &[json_type, ("x-mcp-remote-auth", &token)],
        )
        .await;
        assert_eq!((status, refusal.as_str()), (200, ""), "{path}");
    }
}

#[tokio::test]
async fn the_trusted_proxy_guards_the_schema_routes() {
    let body = json!({"schema": {"type": "object", "properties": {"a": {"type": "string"}}}, "value": {"a": 1}}).to_string();
    let json_type = ("content-type", "application/json");
    let gw = gateway(json!({"gateways": {}}), &[], |o| {
        o.trusted_proxies = vec!["127.0.0.1".into()]
    })
    .await;
    let url = format!("{}/api/validate", gw.base());
    let (status, refusal, _) = post(&gw.client, url.clone(), body.clone(), &[json_type]).await;
    assert_eq!((status, refusal.as_str()), (401, "identity-missing"));
    let user = ("x-forwarded-user", "ada");
    let (status, refusal, _) = post(
        &gw.client,
        url.clone(),
        body.clone(),
        &[("content-type", "text/plain"), user],
    )
    .await;
    assert_eq!((status, refusal.as_str()), (400, "jsonrpc"));
    let (status, refusal, _) = post(
        &gw.client,
        url.clone(),
        body.clone(),
        &[json_type, user, ("origin", "https://evil.example")],
    )
    .await;
    assert_eq!((status, refusal.as_str()), (403, "origin"));
    let (status, refusal, answer) = post(&gw.client, url, body.clone(), &[json_type, user]).await;
    assert_eq!((status, refusal.as_str()), (200, ""));
    assert_eq!(answer["errors"][0]["path"], "/a", "{answer}");
    // The proxy is elsewhere: this peer is refused whatever it claims.
    let gw = gateway(json!({"gateways": {}}), &[], |o| {
        o.trusted_proxies = vec!["10.0.0.0/8".into()]
    })
    .await;
    let (status, refusal, _) = post(
        &gw.client,
        format!("{}/api/form", gw.base()),
        body,
        &[json_type, user],
    )
    .await;
    assert_eq!((status, refusal.as_str()), (403, "trusted-proxy"));
}

#[tokio::test]
async fn only_the_stateless_pair_is_served_not_the_single_user_schema_routes() {
    let gw = gateway(json!({"gateways": {}}), &[], |_| {}).await;
    let token = bearer(gw.started.token.as_deref().unwrap());
    let headers = [
        ("content-type", "application/json"),
        ("x-mcp-remote-auth", token.as_str()),
    ];
    // The web UI's schema routes that read its core (the last tools/list, a history entry), and
    // the writes that would start or use a connection: none exists in gateway mode.
    for path in [
        "/api/servers/demo/tools/echo/validate",
        "/api/history/1/check-output",
        "/api/servers/demo/connect",
        "/api/servers/demo/request",
        "/api/servers",
    ] {
        let body = json!({"arguments": {}, "schema": {}, "method": "tools/list"}).to_string();
        let (status, _, answer) =
            post(&gw.client, format!("{}{path}", gw.base()), body, &headers).await;
        assert_eq!(status, 404, "{path}: {answer}");
        assert_eq!(answer["error"]["code"], "not_found", "{path}");
    }
    // The pair is POST only.
    let r = gw
        .client
        .get(format!("{}/api/form", gw.base()))
        .header("x-mcp-remote-auth", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
}
