//! The Roots editor's core against the real demo server in both eras: the demo's `list-roots`
//! tool asks `roots/list` (a legacy server request, or a modern `input_required` round) and
//! prints what it got, so its text is what the server saw. Edited roots are answered on the
//! same connection without reconnecting; an edit tells a legacy session with
//! `notifications/roots/list_changed` (seen in its traffic) and a modern one nothing; a bad URI
//! is refused with the reason and changes nothing; a catalog file written with the official
//! Inspector's `roots` key is answered from as it is.

use super::inspector::{eventually, parsed, setup};
use mcpscope_inspect::roots::{ANSWERED_BY, Root};
use mcpscope_inspect::{Call, Catalog, Inspector, Options};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::sync::Arc;

/// `list-roots` on `server`; the tool's text.
async fn list_roots(app: &Arc<Inspector>, server: &str) -> String {
    let c = Call {
        method: "tools/call".into(),
        params: Some(json!({"name": "list-roots", "arguments": {}})),
        ..Default::default()
    };
    let out = app.call(server, c).await.expect("call");
    let result = out.result.expect("a result");
    result["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_string()
}

fn root(uri: &str, name: Option<&str>) -> Root {
    Root {
        uri: uri.into(),
        name: name.map(str::to_string),
    }
}

/// The bodies of the events named `name` so far.
fn events(app: &Inspector, name: &str) -> Vec<Value> {
    let (all, _) = app.events().since(1, usize::MAX);
    all.iter()
        .filter(|e| e.name == name)
        .map(|e| serde_json::from_str(&e.data).expect("event JSON"))
        .collect()
}

/// The methods of the frames `server`'s traffic shows going out.
async fn sent_methods(app: &Inspector, server: &str) -> Vec<String> {
    let q = mcpscope_inspect::FramePage {
        after: Some(0),
        limit: Some(10_000),
        ..Default::default()
    };
    parsed(&app.frames(server, q).await.expect("frames"))
        .iter()
        .filter(|f| f["direction"] == "out")
        .filter_map(|f| f["method"].as_str().map(str::to_string))
        .collect()
}

/// A directory of its own for a catalog file, removed when dropped.
struct Dir(std::path::PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn edited_roots_are_what_the_server_lists_in_both_eras_without_reconnecting() {
    let s = setup("roots-edit", 10_000).await;
    let app = &s.inspector;
    for server in ["legacy", "modern"] {
        app.connect(server, None).await.expect("connect");
        assert_eq!(list_roots(app, server).await, "0 roots\n", "{server}");
        let roots = vec![
            root("file:///tmp/project", Some("Project")),
            root("file:///srv/data", None),
        ];
        let saved = app.set_roots(server, roots).await.expect("set roots");
        assert_eq!(saved["persisted"], true);
        assert_eq!(
            list_roots(app, server).await,
            "2 roots\nfile:///tmp/project (Project)\nfile:///srv/data",
            "{server}: the same connection answers the new list"
        );
        let closed = events(app, "interactionClosed");
        let last = closed
            .iter()
            .rfind(|c| c["server"] == server)
            .expect("closed");
        assert_eq!(last["kind"], "roots");
        assert_eq!(last["reason"], ANSWERED_BY);
        assert_eq!(last["outcome"], "accepted");
        if server == "modern" {
            assert_eq!(last["round"], 1, "asked inside an input_required round");
        }
        // Removing them all: the server is told there are none.
        app.set_roots(server, vec![]).await.expect("clear");
        assert_eq!(list_roots(app, server).await, "0 roots\n", "{server}");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn an_edit_sends_list_changed_on_a_legacy_session_and_nothing_on_a_modern_one() {
    let s = setup("roots-changed", 10_000).await;
    let app = &s.inspector;
    for server in ["legacy", "modern"] {
        app.connect(server, None).await.expect("connect");
        let saved = app
            .set_roots(server, vec![root("file:///tmp/a", Some("a"))])
            .await
            .expect("set roots");
        let legacy = server == "legacy";
        assert_eq!(saved["listChangedSent"], legacy, "{server}");
        let listed = |sent: &[String]| sent.iter().any(|m| m == "notifications/roots/list_changed");
        let sent = if legacy {
            // The frame reaches the traffic through the pipeline, a moment after the send.
            eventually("the notification in the traffic", || async {
                let sent = sent_methods(app, server).await;
                listed(&sent).then_some(sent)
            })
            .await
        } else {
            sent_methods(app, server).await
        };
        assert_eq!(listed(&sent), legacy, "{server} sent {sent:?}");
    }
    // Not connected: saved, nothing sent.
    app.disconnect("legacy").await.expect("disconnect");
    let saved = app.set_roots("legacy", vec![]).await.expect("set roots");
    assert_eq!(saved["listChangedSent"], false);
    app.shutdown().await;
}

#[tokio::test]
async fn a_bad_root_is_refused_with_the_reason_and_changes_nothing() {
    let s = setup("roots-bad", 10_000).await;
    let app = &s.inspector;
    app.set_roots("legacy", vec![root("file:///ok", None)])
        .await
        .expect("a good one");
    for (uri, why) in [
        ("https://example.com/repo", "roots must be file:// URIs"),
        (
            "/home/me/project",
            "write it as \"file:///home/me/project\"",
        ),
        ("file:///a?b=c", "query or fragment"),
    ] {
        let err = app
            .set_roots("legacy", vec![root(uri, None)])
            .await
            .expect_err(uri);
        assert_eq!(err.code.to_string(), "usage", "{uri}");
        assert!(err.message.contains(why), "{uri}: {}", err.message);
        assert!(err.message.starts_with("roots refused: roots[0].uri"));
    }
    let now = app.roots("legacy").await.expect("roots");
    assert_eq!(now["roots"], json!([{"uri": "file:///ok"}]));
    let unknown = app.set_roots("nope", vec![]).await.expect_err("unknown");
    assert_eq!(unknown.code.to_string(), "not_found");
    app.shutdown().await;
}

#[tokio::test]
async fn a_catalog_file_with_the_inspectors_roots_key_is_answered_from_and_kept() {
    let dir = Dir(std::env::temp_dir().join(format!(
        "mcpscope-inspect-roots-file-{}",
        std::process::id()
    )));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    let demo = super::inspector::demo().await;
    let path = dir.0.join("mcp.json");
    let file = json!({"mcpServers": {"demo": {
        "type": "streamable-http", "url": demo.url, "protocolEra": "legacy",
        "roots": [{"uri": "file:///home/user/myproject", "name": "Project"}],
    }}});
    std::fs::write(&path, file.to_string()).expect("write mcp.json");
    let catalog = Catalog::load(&path, false).expect("load");
    let store = HistoryStore::open(&dir.0.join("history.sqlite"), Retention::default())
        .expect("history database");
    let options = Options {
        ping_interval: None,
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.0.join("secrets.enc"),
            None,
        )),
        ..Options::default()
    };
    let app = Inspector::new(catalog, store, options);
    app.connect("demo", None).await.expect("connect");
    assert_eq!(
        list_roots(&app, "demo").await,
        "1 roots\nfile:///home/user/myproject (Project)"
    );
    app.set_roots(
        "demo",
        vec![
            root("file:///home/user/myproject", Some("Project")),
            root("file:///etc/myapp", Some("Config")),
        ],
    )
    .await
    .expect("set roots");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    assert_eq!(
        written["mcpServers"]["demo"]["roots"],
        json!([{"uri": "file:///home/user/myproject", "name": "Project"},
               {"uri": "file:///etc/myapp", "name": "Config"}])
    );
    // Cleared: the key goes, as the official Inspector omits defaults on write.
    app.set_roots("demo", vec![]).await.expect("clear");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    assert!(written["mcpServers"]["demo"].get("roots").is_none());
    app.shutdown().await;
}
