//! The Roots editor over the web API, against the real demo (Streamable HTTP, both eras): `PUT
//! /api/servers/:name/roots` saved in the catalog file under the official Inspector's `roots`
//! key, answered to the demo's `list-roots` on the same connection (a legacy `roots/list`, a
//! modern `input_required` round), `notifications/roots/list_changed` in a legacy server's
//! traffic after the edit (and none on a modern one), the server form keeping the roots, and the
//! bodies refused with what is wrong.

use crate::support::{Backend, Options, TempDir, demo, http_entry, start};
use serde_json::{Value, json};

/// The demo's `list-roots` text on `server`.
async fn list_roots(b: &Backend, server: &str) -> String {
    let r = b
        .ok(
            &format!("/api/servers/{server}/request"),
            json!({"method": "tools/call", "params": {"name": "list-roots", "arguments": {}}}),
        )
        .await;
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{server}: {r}"))
        .to_string()
}

/// The methods of the JSON-RPC messages `server` sent, from its traffic.
async fn sent_methods(b: &Backend, server: &str) -> Vec<String> {
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
        .filter_map(|f| {
            let msg: Value = serde_json::from_str(f["text"].as_str()?).ok()?;
            msg["method"].as_str().map(str::to_string)
        })
        .collect()
}

#[tokio::test]
async fn edited_roots_are_saved_listed_by_the_demo_and_announced_to_legacy() {
    let dir = TempDir::new("roots-api");
    let demo = demo().await;
    let file = dir.path().join("mcp.json");
    let doc = json!({"mcpServers": {"legacy": http_entry(&demo.url, "legacy"), "modern": http_entry(&demo.url, "modern")}});
    std::fs::write(&file, doc.to_string()).unwrap();
    let opts = Options {
        catalog_file: Some(file.clone()),
        ..Options::default()
    };
    let b = start(dir.path(), vec![], opts).await;
    let events = b.events(None).await;
    let roots = json!([{"uri": "file:///home/user/myproject", "name": "Project"},
                       {"uri": "file:///etc/myapp", "name": "Config"}]);
    for server in ["legacy", "modern"] {
        b.ok(&format!("/api/servers/{server}/connect"), json!({}))
            .await;
        assert_eq!(list_roots(&b, server).await, "0 roots\n", "{server}");
        let path = format!("/api/servers/{server}/roots");
        let r = b.put(&path, json!({"roots": roots})).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(r.body["roots"], roots);
        assert_eq!(r.body["persisted"], true);
        assert_eq!(r.body["listChangedSent"], server == "legacy", "{server}");
        assert_eq!(b.get(&path).await.body["roots"], roots);
        assert_eq!(
            list_roots(&b, server).await,
            "2 roots\nfile:///home/user/myproject (Project)\nfile:///etc/myapp (Config)",
            "{server}: answered from the edited list without reconnecting"
        );
        let sent = sent_methods(&b, server).await;
        let announced = sent.iter().any(|m| m == "notifications/roots/list_changed");
        assert_eq!(announced, server == "legacy", "{server}: {sent:?}");
    }
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for server in ["legacy", "modern"] {
        assert_eq!(on_disk["mcpServers"][server]["roots"], roots, "{on_disk}");
    }
    // The catalog event carries the entry's roots, for every open page.
    let catalog = events
        .wait("catalog with roots", |e| {
            e.name == "catalog"
                && e.data["servers"]
                    .as_array()
                    .is_some_and(|s| s.iter().all(|v| v["entry"]["roots"] == roots))
        })
        .await;
    assert_eq!(catalog.data["servers"][0]["entry"]["roots"], roots);
    // The server form sends an entry without roots: they stay.
    let r = b
        .put(
            "/api/servers/legacy",
            json!({"entry": http_entry(&demo.url, "legacy")}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["entry"]["roots"], roots, "{}", r.text);
    b.stop().await;
}

#[tokio::test]
async fn bad_roots_are_refused_with_what_is_wrong_and_nothing_changes() {
    let dir = TempDir::new("roots-bad");
    let demo = demo().await;
    let servers = vec![("legacy".to_string(), http_entry(&demo.url, "legacy"))];
    let b = start(dir.path(), servers, Options::default()).await;
    let path = "/api/servers/legacy/roots";
    for (body, says) in [
        (
            json!({"roots": [{"uri": "https://example.com/repo", "name": "Repo"}]}),
            "roots must be file:// URIs",
        ),
        (
            json!({"roots": [{"uri": "/home/me"}]}),
            "write it as \\\"file:///home/me\\\"",
        ),
        (
            json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///a"}]}),
            "listed twice",
        ),
        (
            json!({"roots": [{"name": "no uri"}]}),
            "roots[0]: missing field `uri`",
        ),
        (json!({"roots": "file:///a"}), "roots must be an array"),
        (json!({"root": []}), "unknown key \\\"root\\\""),
    ] {
        let r = b.put(path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text);
        assert_eq!(r.body["error"]["code"], "usage", "{}", r.text);
        assert!(r.text.contains(says), "{body}: {}", r.text);
    }
    assert_eq!(b.get(path).await.body["roots"], json!([]));
    let r = b.put("/api/servers/nope/roots", json!({"roots": []})).await;
    assert_eq!(r.status, 404, "{}", r.text);
    b.stop().await;
}
