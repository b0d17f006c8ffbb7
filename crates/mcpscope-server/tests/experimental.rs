//! The Experimental panel over the web API, against the real demo (Streamable HTTP, both eras):
//! `POST /api/servers/:name/send` — a request, a notification, a method the demo does not know
//! (-32601 named), a raw body that is not JSON (the demo's 415 shown as the reply) — each with
//! its history entry and frames; `GET`/`PUT /api/servers/:name/client-capabilities` written to
//! the catalog file beside `protocolEra` and carried by the next initialize; and the errors.

use crate::support::{Backend, Options, TempDir, demo, http_entry, start};
use serde_json::{Value, json};

async fn connected(dir: &TempDir, url: &str, catalog: Option<std::path::PathBuf>) -> Backend {
    let servers = vec![
        ("legacy".to_string(), http_entry(url, "legacy")),
        ("modern".to_string(), http_entry(url, "modern")),
    ];
    let opts = Options {
        catalog_file: catalog,
        ..Options::default()
    };
    let b = start(dir.path(), servers, opts).await;
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
    }
    b
}

/// The JSON-RPC messages `server` sent, from `GET /api/servers/:name/frames`.
async fn sent(b: &Backend, server: &str) -> Vec<Value> {
    let r = b
        .get(&format!(
            "/api/servers/{server}/frames?after=0&limit=10000&source=jsonrpc"
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["frames"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|f| f["direction"] == "out")
        .filter_map(|f| serde_json::from_str(f["text"].as_str()?).ok())
        .collect()
}

#[tokio::test]
async fn send_answers_requests_notifications_unknown_methods_and_raw_bodies() {
    let dir = TempDir::new("exp-send");
    let demo = demo().await;
    let b = connected(&dir, &demo.url, None).await;
    for server in ["legacy", "modern"] {
        let path = format!("/api/servers/{server}/send");
        let v = b
            .ok(&path, json!({"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "<b>hi</b>"}}}))
            .await;
        assert_eq!(v["outcome"], "result", "{server}: {v}");
        assert_eq!(
            v["response"]["result"]["content"][0]["text"],
            "Echo: <b>hi</b>"
        );
        let hist = v["historyId"].as_i64().unwrap();
        let entry = b.get(&format!("/api/history/{hist}")).await;
        assert_eq!(entry.status, 200, "{}", entry.text);
        assert_eq!(entry.body["method"], "tools/call", "{}", entry.text);

        let v = b
            .ok(
                &path,
                json!({"method": "experimental/myMethod", "params": {"key": "value"}}),
            )
            .await;
        assert_eq!(v["outcome"], "error", "{server}: {v}");
        assert_eq!(
            v["rpcError"],
            json!({"code": -32601, "message": "method not found: experimental/myMethod", "name": "Method not found"}),
            "{v}"
        );

        let v = b
            .ok(
                &path,
                json!({"kind": "notification", "method": "notifications/experimental/poke"}),
            )
            .await;
        assert_eq!(v["outcome"], "sent", "{server}: {v}");
        assert!(
            sent(&b, server)
                .await
                .iter()
                .any(|m| m["method"] == "notifications/experimental/poke"),
            "{server}: the notification is in the traffic"
        );
    }
    let v = b
        .ok(
            "/api/servers/legacy/send",
            json!({"raw": "{oops", "timeoutMs": 10000}),
        )
        .await;
    assert_eq!(v["outcome"], "reply", "{v}");
    assert_eq!(v["reply"]["meta"]["status"], 415, "{v}");
    assert_eq!(
        v["sent"],
        json!({"text": "{oops", "size": 5, "truncated": false})
    );
    b.stop().await;
}

#[tokio::test]
async fn send_refuses_what_it_cannot_send() {
    let dir = TempDir::new("exp-errors");
    let demo = demo().await;
    let servers = vec![("legacy".to_string(), http_entry(&demo.url, "legacy"))];
    let b = start(dir.path(), servers, Options::default()).await;
    let path = "/api/servers/legacy/send";
    let r = b.post(path, json!({"method": "ping"})).await;
    assert_eq!(
        (r.status, r.body["error"]["code"].clone()),
        (404, json!("not_found")),
        "{}",
        r.text
    );
    b.ok("/api/servers/legacy/connect", json!({})).await;
    for (body, needle) in [
        (json!({"kind": "shout", "method": "ping"}), "kind must be"),
        (json!({"params": {}}), "method is required"),
        (
            json!({"method": "ping", "params": [1]}),
            "params must be a JSON object",
        ),
        (json!({"raw": ""}), "raw is empty"),
    ] {
        let r = b.post(path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text);
        assert_eq!(r.body["error"]["code"], "usage");
        assert!(r.text.contains(needle), "{body}: {}", r.text);
    }
    let r = b
        .put(
            "/api/servers/legacy/client-capabilities",
            json!({"experimentl": {}}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("unknown key"), "{}", r.text);
    let r = b
        .put("/api/servers/nobody/client-capabilities", json!({}))
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    b.stop().await;
}

#[tokio::test]
async fn client_capabilities_are_kept_in_the_catalog_file_and_advertised_on_connect() {
    let dir = TempDir::new("exp-caps");
    let demo = demo().await;
    let file = dir.path().join("mcp.json");
    let doc = json!({"mcpServers": {"legacy": http_entry(&demo.url, "legacy"), "modern": http_entry(&demo.url, "modern")}});
    std::fs::write(&file, doc.to_string()).unwrap();
    let b = connected(&dir, &demo.url, Some(file.clone())).await;
    let settings = json!({"standard": {"sampling.tools": true, "roots": false}, "experimental": {"custom_analytics": {}}});
    let r = b
        .put("/api/servers/legacy/client-capabilities", settings.clone())
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["settings"], settings, "{}", r.text);
    assert_eq!(r.body["persisted"], true);
    // The connection made before keeps what it declared until the next connect.
    assert!(
        r.body["current"].get("experimental").is_none(),
        "{}",
        r.text
    );
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        on_disk["mcpServers"]["legacy"]["clientCapabilities"], settings,
        "{on_disk}"
    );
    assert_eq!(
        on_disk["mcpServers"]["legacy"]["protocolEra"], "legacy",
        "beside the era"
    );

    b.ok("/api/servers/legacy/disconnect", json!({})).await;
    b.ok("/api/servers/legacy/connect", json!({})).await;
    let init = sent(&b, "legacy")
        .await
        .into_iter()
        .rfind(|m| m["method"] == "initialize")
        .expect("an initialize");
    let caps = &init["params"]["capabilities"];
    assert_eq!(
        caps["experimental"],
        json!({"custom_analytics": {}}),
        "{init}"
    );
    assert_eq!(caps["sampling"], json!({"tools": {}}), "{init}");
    assert!(caps.get("roots").is_none(), "{init}");
    let view = b.get("/api/servers/legacy/client-capabilities").await;
    assert_eq!(view.body["current"], *caps, "{}", view.text);
    let info = b.get("/api/servers/legacy/info").await;
    assert_eq!(info.body["clientCapabilities"], *caps, "{}", info.text);
    // The server form's update leaves them as they are.
    let mut entry = http_entry(&demo.url, "legacy");
    entry["requestTimeout"] = json!(20000);
    let r = b.put("/api/servers/legacy", json!({"entry": entry})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        on_disk["mcpServers"]["legacy"]["clientCapabilities"], settings,
        "{on_disk}"
    );
    b.stop().await;
}
