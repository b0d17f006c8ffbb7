//! MCP Apps over the web API, against the real demo (Streamable HTTP, both eras): the extension
//! advertised in the bytes of `initialize` / every modern `_meta` and switched off per server;
//! the app tools listed; a UI resource read (a History entry) and checked; the visibility rules
//! refused both ways with `tool_not_visible` and a History entry; app frames recorded, linked,
//! classified and bounded; and the sandbox listener's page, headers and 404s.

use crate::support::{Backend, TempDir, both_eras, demo, start};
use mcpscope_proto::era::META_CLIENT_CAPABILITIES;
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";

async fn connected(dir: &TempDir, url: &str) -> Backend {
    let b = start(dir.path(), both_eras(url), Default::default()).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
    }
    b
}

async fn frames(b: &Backend, server: &str, source: &str) -> Vec<Value> {
    let path = format!("/api/servers/{server}/frames?after=0&limit=10000&source={source}");
    let r = b.get(&path).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["frames"].as_array().cloned().unwrap_or_default()
}

/// The client capabilities `server`'s connection declared, from the bytes it sent: the legacy
/// `initialize`, or the `_meta` of the first modern request.
async fn declared(b: &Backend, server: &str) -> Value {
    let sent: Vec<Value> = frames(b, server, "jsonrpc")
        .await
        .into_iter()
        .filter(|f| f["direction"] == "out")
        .filter_map(|f| serde_json::from_str(f["text"].as_str()?).ok())
        .collect();
    let caps = sent.iter().rev().find_map(|m: &Value| match server {
        "legacy" => (m["method"] == "initialize").then(|| m["params"]["capabilities"].clone()),
        _ => m["params"]["_meta"].get(META_CLIENT_CAPABILITIES).cloned(),
    });
    caps.unwrap_or_else(|| panic!("{server}: no declared capabilities in {sent:?}"))
}

async fn list_tools(b: &Backend, server: &str) {
    b.ok(
        &format!("/api/servers/{server}/list"),
        json!({"method": "tools/list"}),
    )
    .await;
}

#[tokio::test]
async fn apps_are_advertised_in_both_eras_and_switched_off_per_server() {
    let dir = TempDir::new("apps-caps");
    let demo = demo().await;
    let b = connected(&dir, &demo.url).await;
    for server in ["legacy", "modern"] {
        // Modern declares per request: make one.
        list_tools(&b, server).await;
        let caps = declared(&b, server).await;
        assert_eq!(
            caps["extensions"][UI],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
            "{server}: {caps}"
        );
        let off = json!({"standard": {"extensions.io.modelcontextprotocol/ui": false}});
        let r = b
            .put(&format!("/api/servers/{server}/client-capabilities"), off)
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        b.ok(&format!("/api/servers/{server}/disconnect"), json!({}))
            .await;
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        list_tools(&b, server).await;
        let caps = declared(&b, server).await;
        assert!(caps["extensions"].get(UI).is_none(), "{server}: {caps}");
        assert!(
            caps.get("sampling").is_some(),
            "{server}: the rest stays: {caps}"
        );
    }
    b.stop().await;
}

#[tokio::test]
async fn app_tools_are_listed_and_their_resource_read_and_checked() {
    let dir = TempDir::new("apps-list");
    let demo = demo().await;
    let b = connected(&dir, &demo.url).await;
    let r = b.get("/api/servers/legacy/apps").await;
    assert_eq!(r.status, 409, "no tools/list yet: {}", r.text);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("list the tools first")
    );
    let r = b.get("/api/servers/nobody/apps").await;
    assert_eq!(r.status, 404, "{}", r.text);
    for server in ["legacy", "modern"] {
        list_tools(&b, server).await;
        let r = b.get(&format!("/api/servers/{server}/apps")).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let names: Vec<&str> = r.body["apps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["tool"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["show-app", "app-refresh", "model-only"],
            "{}",
            r.text
        );
        let show = &r.body["apps"][0];
        assert_eq!(show["resourceUri"], "ui://demo/app.html");
        assert_eq!(show["visibility"], json!(["model", "app"]));
        assert_eq!(show["deprecatedKey"], false);
        assert_eq!(show["title"], "Show the demo app");
        assert_eq!(r.body["apps"][1]["visibility"], json!(["app"]));

        let r = b
            .post(
                &format!("/api/servers/{server}/apps/show-app/resource"),
                json!({}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(r.body["uri"], "ui://demo/app.html");
        assert_eq!(r.body["mimeType"], "text/html;profile=mcp-app");
        assert!(
            r.body["html"]
                .as_str()
                .unwrap()
                .contains("id=\"call-app-tool\"")
        );
        assert_eq!(r.body["size"], r.body["html"].as_str().unwrap().len());
        assert_eq!(r.body["csp"], mcpscope_inspect::apps::csp::DEFAULT_CSP);
        assert_eq!(r.body["allow"], "");
        assert_eq!(r.body["declaredCsp"], Value::Null);
        let hist = r.body["historyId"].as_i64().expect("historyId");
        let entry = b.get(&format!("/api/history/{hist}")).await;
        assert_eq!(entry.body["method"], "resources/read", "{}", entry.text);
        assert_eq!(entry.body["status"], "ok", "{}", entry.text);

        let r = b
            .post(
                &format!("/api/servers/{server}/apps/echo/resource"),
                json!({}),
            )
            .await;
        assert_eq!(r.status, 404, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "no_app", "{}", r.text);
    }
    b.stop().await;
}

/// `/request` of `tools/call` of `tool`, from a view or from `app`'s app.
async fn call(b: &Backend, server: &str, tool: &str, app: Option<&str>) -> crate::support::Reply {
    let mut body = json!({"method": "tools/call", "params": {"name": tool, "arguments": {}}});
    if let Some(a) = app {
        body["origin"] = json!({"app": a});
    }
    b.post(&format!("/api/servers/{server}/request"), body)
        .await
}

#[tokio::test]
async fn visibility_is_refused_both_ways_with_a_history_entry() {
    let dir = TempDir::new("apps-visibility");
    let demo = demo().await;
    let b = connected(&dir, &demo.url).await;
    for server in ["legacy", "modern"] {
        list_tools(&b, server).await;
        // An app-only tool is never callable from a view.
        let r = call(&b, server, "app-refresh", None).await;
        assert_eq!(r.status, 403, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "tool_not_visible");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("lacks \"model\"")
        );
        let hist = r.body["error"]["historyId"].as_i64().expect("historyId");
        let entry = b.get(&format!("/api/history/{hist}")).await;
        assert_eq!(entry.body["status"], "error", "{}", entry.text);
        assert_eq!(
            entry.body["error"]["code"], "tool_not_visible",
            "{}",
            entry.text
        );
        // Nothing went to the server for it.
        let sent = frames(&b, server, "jsonrpc").await;
        assert!(
            !sent.iter().any(|f| f["text"]
                .as_str()
                .unwrap_or("")
                .contains("app-refresh\",\"arguments")),
            "{server}: the refused call reached the wire"
        );
        // The app may call it; the model-only tool only a view may.
        let r = call(&b, server, "app-refresh", Some("show-app")).await;
        assert_eq!(r.status, 200, "{}", r.text);
        // The demo counts for the whole process (both eras share it).
        let count = &r.body["result"]["structuredContent"]["count"];
        assert!(count.as_u64().is_some_and(|n| n >= 1), "{}", r.text);
        let r = call(&b, server, "model-only", Some("show-app")).await;
        assert_eq!(r.status, 403, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "tool_not_visible");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("lacks \"app\"")
        );
        assert_eq!(call(&b, server, "model-only", None).await.status, 200);
        // Only app tools of this connection may speak as apps, and only the app methods.
        let r = call(&b, server, "echo", Some("echo")).await;
        assert_eq!(r.status, 422, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "app_refused");
        let body = json!({"method": "prompts/list", "origin": {"app": "show-app"}});
        let r = b
            .post(&format!("/api/servers/{server}/request"), body)
            .await;
        assert_eq!(r.status, 422, "{}", r.text);
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("may not send")
        );
        let body = json!({"method": "resources/read", "params": {"uri": "ui://demo/app.html"},
                          "origin": {"app": "show-app"}});
        let r = b
            .post(&format!("/api/servers/{server}/request"), body)
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let r = b
            .post(
                &format!("/api/servers/{server}/request"),
                json!({"method": "ping", "origin": "x"}),
            )
            .await;
        assert_eq!(r.status, 400, "{}", r.text);
    }
    b.stop().await;
}

/// One app frame posted.
async fn post_frame(b: &Backend, body: Value) -> Value {
    b.ok("/api/servers/legacy/apps/frames", body).await
}

#[tokio::test]
async fn app_frames_are_recorded_classified_linked_and_bounded() {
    let dir = TempDir::new("apps-frames");
    let demo = demo().await;
    let b = connected(&dir, &demo.url).await;
    let events = b.events(None).await;
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {}});
    let v = post_frame(
        &b,
        json!({"app": "show-app", "instance": "i1", "direction": "fromApp",
                                  "message": msg.to_string(), "historyId": 7}),
    )
    .await;
    let seq = v["seq"].as_u64().expect("a seq");
    assert_eq!(v["dropped"], false);
    post_frame(
        &b,
        json!({"app": "show-app", "instance": "i1", "direction": "toApp",
                          "message": "{not json", "note": "from the page"}),
    )
    .await;
    let big = "x".repeat(mcpscope_inspect::apps::MAX_APP_MESSAGE + 10);
    post_frame(
        &b,
        json!({"app": "show-app", "instance": "i1", "direction": "fromApp", "message": big}),
    )
    .await;
    let app = frames(&b, "legacy", "app").await;
    assert_eq!(app.len(), 3, "{app:?}");
    assert_eq!(app[0]["seq"], seq);
    assert_eq!(app[0]["kind"], "app-message");
    assert_eq!(app[0]["source"], "app");
    assert_eq!(app[0]["direction"], "in");
    assert_eq!(app[0]["method"], "ui/initialize");
    assert_eq!(app[0]["message"], "request");
    assert_eq!(app[0]["historyId"], 7);
    assert_eq!(
        app[0]["app"],
        json!({"tool": "show-app", "instance": "i1", "direction": "fromApp"})
    );
    assert_eq!(app[1]["direction"], "out");
    assert_eq!(app[1]["message"], "invalid");
    let note = app[1]["app"]["note"].as_str().unwrap();
    assert!(note.starts_with("from the page; not JSON-RPC: "), "{note}");
    assert_eq!(app[2]["meta"]["truncated"], true);
    assert_eq!(app[2]["size"], mcpscope_inspect::apps::MAX_APP_MESSAGE);
    // Never mixed into the MCP sources, and streamed like any frame.
    assert!(
        frames(&b, "legacy", "jsonrpc")
            .await
            .iter()
            .all(|f| f["source"] != "app")
    );
    events
        .wait("the app frame", |e| {
            e.name == "frame" && e.data["seq"] == seq
        })
        .await;
    let r = b
        .post(
            "/api/servers/legacy/apps/frames",
            json!({"app": "a", "instance": "i", "direction": "sideways", "message": "{}"}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = b
        .post(
            "/api/servers/nobody/apps/frames",
            json!({"app": "a", "instance": "i", "direction": "toApp", "message": "{}"}),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    b.stop().await;
}

#[tokio::test]
async fn a_flood_of_app_frames_is_bounded_and_counted() {
    let dir = TempDir::new("apps-flood");
    let demo = demo().await;
    let b = connected(&dir, &demo.url).await;
    let per_second = mcpscope_inspect::apps::gate::PER_SECOND as usize;
    let started = std::time::Instant::now();
    let mut dropped = 0;
    for i in 0..per_second + 50 {
        let m = json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": i}});
        let v = post_frame(&b, json!({"app": "show-app", "instance": "i", "direction": "fromApp", "message": m.to_string()})).await;
        if v["dropped"] == true {
            dropped += 1;
        }
    }
    // The bound is per second: only when all of it took under a second are 50 dropped for sure.
    if started.elapsed() < std::time::Duration::from_millis(900) {
        assert!(dropped >= 50, "{dropped}");
    }
    assert!(
        dropped > 0,
        "a flood of {} in {:?} dropped nothing",
        per_second + 50,
        started.elapsed()
    );
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let v = post_frame(
        &b,
        json!({"app": "show-app", "instance": "i", "direction": "fromApp", "message": "{}"}),
    )
    .await;
    assert_eq!(v["dropped"], false);
    let app = frames(&b, "legacy", "app").await;
    let note = &app[app.len() - 2];
    assert_eq!(note["app"]["direction"], "host", "{note}");
    assert_eq!(
        note["app"]["note"],
        format!("{dropped} app messages dropped (over {per_second}/s)")
    );
    // The frames kept, the one note, the one after the window.
    assert_eq!(app.len(), per_second + 50 - dropped + 2);
    b.stop().await;
}

/// The sandbox listener on a free port, framed by `ui`.
async fn sandbox(ui: &str) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let origins = vec![ui.to_string()];
    let task = tokio::spawn(mcpscope_server::serve_sandbox(
        listener,
        origins,
        mcpscope_server::ListenOptions::default(),
        std::future::pending(),
    ));
    (base, task)
}

#[tokio::test]
async fn the_sandbox_serves_only_its_page_with_its_headers() {
    let (base, task) = sandbox("http://127.0.0.1:6274").await;
    let http = reqwest::Client::new();
    let r = http.get(format!("{base}/sandbox")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let h = r.headers().clone();
    let policies: Vec<&str> = h
        .get_all("content-security-policy")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    // Its own framing rule, and the app's CSP (none given here: the spec's default), because the
    // app it frames is same-origin with it and inherits it.
    assert_eq!(
        policies,
        [
            "frame-ancestors http://127.0.0.1:6274",
            mcpscope_inspect::apps::csp::DEFAULT_CSP
        ]
    );
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["cache-control"], "no-store");
    assert_eq!(h["referrer-policy"], "no-referrer");
    assert!(h["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(h.get("set-cookie").is_none());
    assert_eq!(r.text().await.unwrap(), mcpscope_server::SANDBOX_PAGE);
    for path in [
        "/api/servers",
        "/",
        "/index.html",
        "/sandbox/x",
        "/oauth/callback",
        "/api/about",
    ] {
        let r = http
            .get(format!("{base}{path}"))
            .header(
                "cookie",
                format!("{}=test-token-0123456789", mcpscope_server::TOKEN_COOKIE),
            )
            .header("x-mcp-remote-auth", "Bearer test-token-0123456789")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{path}");
        assert!(r.headers().get("set-cookie").is_none(), "{path}");
    }
    let r = http.post(format!("{base}/sandbox")).send().await.unwrap();
    assert_ne!(r.status(), 200);
    task.abort();
}

#[tokio::test]
async fn the_ui_refuses_the_sandbox_origin_even_with_the_token_cookie() {
    let dir = TempDir::new("apps-sandbox-origin");
    let b = start(dir.path(), vec![], Default::default()).await;
    let (sandbox_base, task) = sandbox(&b.base).await;
    let about = b.get("/api/about").await;
    assert_eq!(
        about.body["sandbox"],
        Value::Null,
        "no sandbox in this backend: {}",
        about.text
    );
    // The cookie is the same site's (ports do not separate cookies); the Origin check refuses.
    let r = b
        .send(
            b.http
                .get(b.url("/api/servers"))
                .header("origin", &sandbox_base)
                .header(
                    "cookie",
                    format!("{}={}", mcpscope_server::TOKEN_COOKIE, b.token),
                ),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    task.abort();
    b.stop().await;
}
