//! The API against the real demo server over Streamable HTTP: catalog, connect, lists, a tool call
//! with progress and cancel, the history entry and its children, pins across a restart, header
//! verdicts on a modern connection, frame paging, and the event stream.

use crate::support::{Backend, Events, Options, TempDir, both_eras, demo, http_entry, start};
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test]
async fn catalog_crud_and_imports() {
    let dir = TempDir::new("catalog");
    let b = start(dir.path(), vec![], Options::default()).await;
    let added = b
        .ok(
            "/api/servers",
            json!({"name": "a", "entry": {"command": "node", "args": ["s.js"]}}),
        )
        .await;
    assert_eq!(added["transport"], "stdio");
    assert_eq!(added["target"], "node s.js");
    assert_eq!(added["status"], "disconnected");
    let dup = b
        .post(
            "/api/servers",
            json!({"name": "a", "entry": {"command": "x"}}),
        )
        .await;
    assert_eq!(dup.status, 409);
    assert_eq!(dup.body["error"]["code"], "conflict");
    let bad = b
        .post(
            "/api/servers",
            json!({"name": "b", "entry": {"type": "http"}}),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    let renamed = b
        .put(
            "/api/servers/a",
            json!({"name": "b", "entry": {"url": "https://h/sse"}}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_eq!(renamed.body["transport"], "sse");

    let imported = b
        .ok(
            "/api/servers/import",
            json!({"text": r#"{"mcpServers": {"b": {"command": "x"}, "c": {"type": "streamable-http", "url": "http://h/mcp"}, "d": {"type": "stdio"}}}"#}),
        )
        .await;
    assert_eq!(imported["added"], json!(["c"]));
    let skipped: Vec<&str> = imported["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["d", "b"]);

    let server_json = r#"{"name": "io.github.x/weather", "version": "1.0.0", "description": "w",
        "packages": [{"registryType": "npm", "identifier": "@x/weather", "version": "1.0.0",
                      "transport": {"type": "stdio"},
                      "environmentVariables": [{"name": "KEY", "isRequired": true, "isSecret": true}]}]}"#;
    let preview = b
        .ok("/api/servers/import/registry", json!({"text": server_json}))
        .await;
    assert_eq!(preview["suggestedName"], "weather");
    assert_eq!(preview["validation"][0]["path"], "/$schema");
    assert_eq!(
        preview["packages"][0]["environmentVariables"][0]["name"],
        "KEY"
    );
    let missing = b
        .post(
            "/api/servers/import/registry/add",
            json!({"text": server_json, "choice": {"package": 0}, "name": "weather", "env": {}}),
        )
        .await;
    assert_eq!(missing.status, 400);
    let w = b
        .ok(
            "/api/servers/import/registry/add",
            json!({"text": server_json, "choice": {"package": 0}, "name": "weather", "env": {"KEY": "k"}}),
        )
        .await;
    assert_eq!(w["target"], "npx -y @x/weather@1.0.0");

    let list = b.get("/api/servers").await.body;
    let names: Vec<&str> = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b", "c", "weather"], "catalog order");
    assert_eq!(b.delete("/api/servers/c").await.status, 200);
    assert_eq!(b.delete("/api/servers/c").await.status, 404);
    b.stop().await;
}

/// Wait until `f` holds for `GET path`, or fail after 10 s.
async fn eventually(b: &crate::support::Backend, path: &str, f: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v = b.get(path).await.body;
        if f(&v) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "GET {path} never matched: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_call_with_progress_and_cancel_is_recorded_and_its_pin_survives_a_restart() {
    let dir = TempDir::new("journey");
    let d = demo().await;
    let servers = vec![("demo".to_string(), http_entry(&d.url, "legacy"))];
    let b = start(
        dir.path(),
        servers.clone(),
        Options {
            ping: Some(Duration::from_millis(200)),
            ..Default::default()
        },
    )
    .await;
    let events = b.events(None).await;

    let info = b.ok("/api/servers/demo/connect", json!({})).await;
    assert_eq!(info["era"], "legacy");
    assert_eq!(info["connectionKind"], "session");
    assert!(info["clientCapabilities"]["elicitation"].is_object());
    events
        .wait("status connected", |e| {
            e.name == "status" && e.data["status"] == "connected"
        })
        .await;
    events
        .wait("latency", |e| {
            e.name == "status" && e.data["latencyMs"].is_u64()
        })
        .await;

    let tools = b
        .ok("/api/servers/demo/list", json!({"method": "tools/list"}))
        .await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"slow"), "{names:?}");
    assert_eq!(tools["excludedTools"], json!([]));

    // Validation against the listed schema.
    let v = b
        .ok(
            "/api/servers/demo/tools/slow/validate",
            json!({"arguments": {"steps": 0}}),
        )
        .await;
    assert_eq!(v["errors"][0]["path"], "/steps");

    // A long call with progress, cancelled from another request.
    let call = {
        let b2 = reqwest::Client::new();
        let url = b.url("/api/servers/demo/request");
        let token = b.token.clone();
        tokio::spawn(async move {
            let r = b2
                .post(url)
                .header(mcpscope_server::TOKEN_HEADER, format!("Bearer {token}"))
                .header("content-type", "application/json")
                .body(json!({"method": "tools/call", "requestId": "req-1", "progress": true,
                             "params": {"name": "slow", "arguments": {"durationMs": 20000, "steps": 200}}}).to_string())
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (
                status,
                serde_json::from_str::<Value>(&r.text().await.unwrap()).unwrap(),
            )
        })
    };
    let p = events
        .wait("progress", |e| {
            e.name == "progress" && e.data["requestId"] == "req-1"
        })
        .await;
    assert_eq!(p.data["method"], "tools/call");
    assert!(p.data["historyId"].is_i64());
    let c = b.ok("/api/requests/req-1/cancel", json!({})).await;
    assert_eq!(c["cancelled"], true);
    // A cancel is an ordinary end: 200 (no failed load in the browser), the error in the body.
    let (status, body) = call.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"]["code"], "cancelled");
    let hist = body["error"]["historyId"].as_i64().unwrap();
    assert_eq!(
        b.post("/api/requests/req-1/cancel", json!({})).await.body["cancelled"],
        false
    );

    let entry = b.get(&format!("/api/history/{hist}")).await.body;
    assert_eq!(entry["status"], "cancelled");
    assert_eq!(entry["requestId"], "req-1");
    let kinds: Vec<&str> = entry["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"progress"), "{entry}");
    assert!(!entry["frames"].as_array().unwrap().is_empty());
    // The cancellation went on the wire (legacy: notifications/cancelled).
    let frames = b
        .get("/api/servers/demo/frames?limit=2000&source=jsonrpc")
        .await
        .body;
    assert!(
        frames["frames"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["method"] == "notifications/cancelled"),
        "no notifications/cancelled frame"
    );

    // A call that completes, with logs tied to it (legacy: every level until setLevel).
    let done = b
        .ok(
            "/api/servers/demo/request",
            json!({"method": "tools/call", "params": {"name": "log-every-level", "arguments": {}}}),
        )
        .await;
    let logged = done["historyId"].as_i64().unwrap();
    let log = events
        .wait("log", |e| {
            e.name == "log" && e.data["historyId"] == json!(logged)
        })
        .await;
    assert_eq!(log.data["logger"], "demo");
    let entry = b.get(&format!("/api/history/{logged}")).await.body;
    assert_eq!(entry["status"], "ok");
    assert!(
        entry["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == "log"),
        "{entry}"
    );
    events
        .wait("history done", |e| {
            e.name == "history" && e.data["id"] == json!(logged) && e.data["status"] == "ok"
        })
        .await;
    events.wait("frame", |e| e.name == "frame").await;

    // A JSON-RPC error is the server's answer: 200 with its code and the entry in the body.
    let err = b
        .post(
            "/api/servers/demo/request",
            json!({"method": "tools/call", "params": {"name": "no-such-tool"}}),
        )
        .await;
    assert_eq!(err.status, 200, "{}", err.text);
    assert!(err.body["historyId"].is_i64(), "{}", err.text);
    assert_eq!(err.body["error"]["code"], "rpc_error");
    assert!(err.body["error"]["rpcCode"].is_i64());

    // Pin with a label, search, then restart the backend on the same database.
    let pinned = b
        .ok(
            &format!("/api/history/{logged}/pin"),
            json!({"label": "logs of every level"}),
        )
        .await;
    assert_eq!(pinned["pinned"], true);
    let found = b.get("/api/history?q=warning&server=demo").await.body;
    assert!(
        found["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["id"] == json!(logged)),
        "FTS finds a word of the result: {found}"
    );
    let saved = b
        .ok(
            "/api/saved",
            json!({"name": "echo hi", "server": "demo", "method": "tools/call", "params": {"name": "echo"}}),
        )
        .await;
    b.stop().await;

    let b = start(dir.path(), servers, Options::default()).await;
    let after = b.get("/api/history?pinned=true").await.body;
    let e = &after["entries"][0];
    assert_eq!(e["id"], json!(logged));
    assert_eq!(e["label"], "logs of every level");
    assert_eq!(
        b.get("/api/saved").await.body["saved"][0]["id"],
        saved["id"]
    );
    // Clear keeps the pin.
    let cleared = b.delete("/api/history").await.body;
    assert!(cleared["deleted"].as_u64().unwrap() >= 2, "{cleared}");
    let left = b.get("/api/history").await.body;
    assert_eq!(left["entries"].as_array().unwrap().len(), 1);
    // Frames of the first run are still there, numbered on.
    let old = b.get("/api/servers/demo/frames?after=0&limit=5").await.body;
    assert_eq!(old["frames"][0]["seq"], 1);
    let export = b.get("/api/history/export").await;
    assert!(
        export.headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    b.stop().await;
}

#[tokio::test]
async fn a_modern_http_connection_gets_header_verdicts_and_frames_page_both_ways() {
    let dir = TempDir::new("modern");
    let d = demo().await;
    let b = start(
        dir.path(),
        vec![("m".to_string(), http_entry(&d.url, "modern"))],
        Options {
            window_frames: 8,
            ..Default::default()
        },
    )
    .await;
    let events = b.events(None).await;
    let info = b.ok("/api/servers/m/connect", json!({})).await;
    assert_eq!(info["era"], "modern");
    assert_eq!(info["connectionKind"], "stateless");
    let r = b
        .ok(
            "/api/servers/m/request",
            json!({"method": "tools/call", "params": {"name": "route-query",
                    "arguments": {"region": "Zürich", "priority": 2, "dryRun": true, "query": "q"}}}),
        )
        .await;
    let hist = r["historyId"].as_i64().unwrap();
    let entry = b.get(&format!("/api/history/{hist}")).await.body;
    let seqs: Vec<u64> = entry["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    // The outgoing tools/call frame, with its verdicts completed by the response.
    let out = eventually(&b, "/api/servers/m/frames?limit=10000&source=http", |v| {
        v["frames"].as_array().unwrap().iter().any(|f| {
            f["direction"] == "out"
                && f["method"] == "tools/call"
                && f["headers"]["status"].is_u64()
        })
    })
    .await;
    let f = out["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["direction"] == "out" && f["method"] == "tools/call")
        .unwrap()
        .clone();
    assert!(
        seqs.contains(&f["seq"].as_u64().unwrap()),
        "the frame belongs to the entry"
    );
    let v = &f["headers"];
    assert_eq!(v["status"], 200, "{v}");
    assert_eq!(v["failed"], false);
    assert_eq!(v["firstDisagreement"], Value::Null, "{v}");
    let rows: Vec<(&str, &str)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["header"].as_str().unwrap(),
                r["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(rows.contains(&("Mcp-Method", "ok")), "{rows:?}");
    assert!(rows.contains(&("Mcp-Name", "ok")), "{rows:?}");
    assert!(rows.contains(&("Mcp-Param-Region", "ok")), "{rows:?}");
    assert!(rows.contains(&("Mcp-Param-Dry-Run", "ok")), "{rows:?}");
    let region = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["header"] == "Mcp-Param-Region")
        .unwrap();
    assert_eq!(region["sent"], "Zürich", "decoded from Base64");
    // The verdicts reached the page too: the same seq came again with the status.
    events
        .wait("completed frame", |e| {
            e.name == "frame" && e.data["seq"] == f["seq"] && e.data["headers"]["status"] == 200
        })
        .await;
    // Legacy-free: no frame of this connection carries lint findings from the official schema
    // for the requests we sent.
    assert!(
        out["frames"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["direction"] != "out" || f["lint"].is_null()),
        "our own frames lint clean"
    );

    // Paging: the window holds 8 frames; older ones come from SQLite.
    let newest = b.get("/api/servers/m/frames?limit=3").await.body;
    let newest: Vec<u64> = newest["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(newest.len(), 3);
    assert!(newest.windows(2).all(|w| w[0] < w[1]));
    let older = eventually(
        &b,
        &format!("/api/servers/m/frames?before={}&limit=20", newest[0]),
        |v| v["frames"].as_array().unwrap().len() == 20.min(newest[0] as usize - 1),
    )
    .await;
    let older: Vec<u64> = older["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(
        *older.last().unwrap(),
        newest[0] - 1,
        "contiguous with the newest page"
    );
    let first = b.get("/api/servers/m/frames?after=0&limit=4").await.body;
    let first: Vec<u64> = first["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(first, vec![1, 2, 3, 4]);
    let body = b
        .get(&format!("/api/servers/m/frames/{}/body", f["seq"]))
        .await;
    assert_eq!(body.body["params"]["name"], "route-query");
    b.stop().await;
}

#[tokio::test]
async fn the_event_stream_replays_from_last_event_id() {
    let dir = TempDir::new("replay");
    let d = demo().await;
    let b = start(
        dir.path(),
        vec![("demo".to_string(), http_entry(&d.url, "legacy"))],
        Options::default(),
    )
    .await;
    let first = b.events(None).await;
    b.ok("/api/servers/demo/connect", json!({})).await;
    let connected = first
        .wait("status", |e| {
            e.name == "status" && e.data["status"] == "connected"
        })
        .await;
    b.ok("/api/servers/demo/request", json!({"method": "ping"}))
        .await;
    let from = connected.id.unwrap();
    let again = b.events(Some(from)).await;
    let h = again
        .wait("history replayed", |e| {
            e.name == "history" && e.data["method"] == "ping"
        })
        .await;
    assert!(h.id.unwrap() > from);
    assert!(again.all().iter().all(|e| e.id.unwrap_or(0) > from));
    b.stop().await;
}

/// The web UI's own policy (no test override): an elicitation waits for the view — listed, its
/// call still running, its deadline the default interaction timeout — until the view answers;
/// sampling waits too and the view's CreateMessageResult reaches the tool in both eras; roots
/// are answered at once from the configured list (empty here).
#[tokio::test]
async fn dialogs_wait_for_the_view_and_roots_come_from_the_configured_list_in_both_eras() {
    let dir = TempDir::new("declines");
    let d = demo().await;
    let b = start(dir.path(), both_eras(&d.url), Options::default()).await;
    let events = b.events(None).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        let call = b.spawn_post(
            &format!("/api/servers/{server}/request"),
            json!({"method": "tools/call", "params": {"name": "elicit-form", "arguments": {}}}),
        );
        let asked = events
            .wait("interactionOpened", |e| {
                e.name == "interactionOpened" && e.data["server"] == server
            })
            .await
            .data;
        assert_eq!(asked["kind"], "elicitationForm", "{server}: {asked}");
        let waited = asked["deadlineUs"].as_u64().unwrap() - asked["openedAtUs"].as_u64().unwrap();
        assert_eq!(
            Duration::from_micros(waited),
            mcpscope_inspect::interactions::DEFAULT_INTERACTION_TIMEOUT,
            "{server}"
        );
        // Nobody answered: it is still waiting, and so is the call.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let listed = b.get("/api/interactions").await.body;
        assert_eq!(
            listed["interactions"][0]["id"], asked["id"],
            "{server}: {listed}"
        );
        assert!(!call.is_finished(), "{server}: the call waits for the view");
        let id = asked["id"].as_u64().unwrap();
        b.ok(
            &format!("/api/interactions/{id}"),
            json!({"action": "decline"}),
        )
        .await;
        let (status, text) = call.await.unwrap();
        assert_eq!(status, 200, "{server}: {text}");
        let r: Value = serde_json::from_str(&text).unwrap();
        let hist = r["historyId"]
            .as_i64()
            .unwrap_or_else(|| panic!("{server}: {text}"));
        let e = events
            .wait("serverRequest", |e| {
                e.name == "serverRequest" && e.data["server"] == server
            })
            .await;
        assert_eq!(e.data["method"], "elicitation/create", "{server}");
        assert_eq!(e.data["answer"]["result"]["action"], "decline", "{server}");
        assert_eq!(
            e.data["historyId"],
            json!(hist),
            "{server}: tied to the call"
        );
        let entry = b.get(&format!("/api/history/{hist}")).await.body;
        assert!(
            entry["children"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["kind"] == "serverRequest"),
            "{server}: {entry}"
        );
    }
    for server in ["legacy", "modern"] {
        sampling_waits_and_the_answer_reaches_the_tool(&b, &events, server).await;
    }
    // Roots are answered at once from the configured roots (none here: the empty list), the
    // tool says so (tests `roots::` edit them).
    let r = b
        .ok(
            "/api/servers/legacy/request",
            json!({"method": "tools/call", "params": {"name": "list-roots", "arguments": {}}}),
        )
        .await;
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.starts_with("0 roots"), "{r}");
    let closed = events
        .wait("roots closed", |e| {
            e.name == "interactionClosed" && e.data["kind"] == "roots"
        })
        .await;
    assert_eq!(closed.data["outcome"], "accepted");
    assert_eq!(closed.data["reason"], "answered from the configured roots");
    assert!(b.get("/api/interactions").await.body["interactions"] == json!([]));
    b.stop().await;
}

/// `sample` on `server`: the question waits (the call with it) until the view sends the
/// CreateMessageResult the web UI's Sampling Request card builds; the tool returns its text.
async fn sampling_waits_and_the_answer_reaches_the_tool(
    b: &Backend,
    events: &Events,
    server: &str,
) {
    let call = b.spawn_post(
        &format!("/api/servers/{server}/request"),
        json!({"method": "tools/call",
               "params": {"name": "sample", "arguments": {"prompt": "hi"}}}),
    );
    let asked = events
        .wait("sampling opened", |e| {
            e.name == "interactionOpened"
                && e.data["server"] == server
                && e.data["kind"] == "sampling"
        })
        .await
        .data;
    assert_eq!(asked["payload"]["messages"][0]["content"]["text"], "hi");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!call.is_finished(), "{server}: the call waits for the view");
    let id = asked["id"].as_u64().unwrap();
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "by hand"},
                        "model": "mcpscope-manual", "stopReason": "endTurn"});
    b.ok(
        &format!("/api/interactions/{id}"),
        json!({"action": "accept", "content": answer}),
    )
    .await;
    let (status, text) = call.await.unwrap();
    assert_eq!(status, 200, "{server}: {text}");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        r["result"]["content"][0]["text"], "by hand",
        "{server}: {r}"
    );
}

#[tokio::test]
async fn failures_count_up_and_the_era_and_log_level_can_change() {
    let dir = TempDir::new("eras");
    let d = demo().await;
    // A port nobody listens on: bind one, note it, close it.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let b = start(
        dir.path(),
        vec![
            ("m".to_string(), http_entry(&d.url, "modern")),
            (
                "gone".to_string(),
                http_entry(&format!("http://127.0.0.1:{dead}/mcp"), "legacy"),
            ),
        ],
        Options::default(),
    )
    .await;
    let events = b.events(None).await;
    for n in 1..=2 {
        let r = b.post("/api/servers/gone/connect", json!({})).await;
        assert_eq!(r.status, 502, "{}", r.text);
        assert_eq!(r.body["error"]["code"], "unreachable");
        assert_eq!(r.body["error"]["retries"], n);
    }
    let cards = b.get("/api/servers").await.body;
    let gone = &cards["servers"][1];
    assert_eq!(gone["status"], "failed");
    assert_eq!(gone["error"]["retries"], 2, "{gone}");

    // Modern: the log level rides in _meta on every request.
    b.ok("/api/servers/m/connect", json!({})).await;
    let applied = b
        .put("/api/servers/m/log-level", json!({"level": "warning"}))
        .await;
    assert_eq!(applied.body["applied"], "meta", "{}", applied.text);
    let r = b
        .ok(
            "/api/servers/m/request",
            json!({"method": "tools/call", "params": {"name": "log-every-level", "arguments": {}}}),
        )
        .await;
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("sent 5 log messages: warning"), "{text}");
    let hist = r["historyId"].as_i64().unwrap();
    events
        .wait("log of the call", |e| {
            e.name == "log" && e.data["historyId"] == json!(hist)
        })
        .await;

    // The protocol selector: saved, reconnected in the other era, screens reset.
    let info = b
        .put(
            "/api/servers/m/protocol-era",
            json!({"protocolEra": "legacy"}),
        )
        .await;
    assert_eq!(info.status, 200, "{}", info.text);
    assert_eq!(info.body["era"], "legacy");
    events
        .wait("reset", |e| e.name == "reset" && e.data["server"] == "m")
        .await;
    let cards = b.get("/api/servers").await.body;
    assert_eq!(cards["servers"][0]["entry"]["protocolEra"], "legacy");
    assert_eq!(cards["servers"][0]["era"], "legacy");
    let before = b
        .post(
            "/api/servers/m/tools/echo/validate",
            json!({"arguments": {}}),
        )
        .await;
    assert_eq!(before.status, 404, "the reset forgot the old tool list");
    b.stop().await;
}

/// The Tools screen's list-changed indicator works in both eras: legacy servers send
/// `list_changed` unsolicited, modern ones only on a `subscriptions/listen` stream, which the
/// backend opens for what the server's capabilities promise and closes on disconnect.
#[tokio::test]
async fn list_changes_reach_the_page_in_both_eras() {
    let dir = TempDir::new("list-changed");
    let d = demo().await;
    let b = start(dir.path(), both_eras(&d.url), Options::default()).await;
    let events = b.events(None).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        if server == "modern" {
            // The listen is acknowledged before the change is made, or the change could be missed.
            events
                .wait("acknowledged", |e| {
                    e.name == "notification"
                        && e.data["server"] == server
                        && e.data["method"] == "notifications/subscriptions/acknowledged"
                })
                .await;
        }
        b.ok(
            &format!("/api/servers/{server}/request"),
            json!({"method": "tools/call", "params": {"name": "toggle-extra-tool", "arguments": {}}}),
        )
        .await;
        events
            .wait("tools/list_changed", |e| {
                e.name == "notification"
                    && e.data["server"] == server
                    && e.data["method"] == "notifications/tools/list_changed"
            })
            .await;
    }
    let frames = b
        .get("/api/servers/modern/frames?limit=2000&source=jsonrpc")
        .await
        .body;
    let listens = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["method"] == "subscriptions/listen" && f["direction"] == "out")
        .count();
    assert_eq!(listens, 1, "{frames}");
    let legacy = b
        .get("/api/servers/legacy/frames?limit=2000&source=jsonrpc")
        .await
        .body;
    assert!(
        !legacy.to_string().contains("subscriptions/listen"),
        "legacy has no listen: {legacy}"
    );
    b.post("/api/servers/modern/disconnect", json!({})).await;
    b.stop().await;
}
