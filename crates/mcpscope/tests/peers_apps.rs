//! MCP Apps against code we did not write: the MCP Apps project's example servers
//! `@modelcontextprotocol/server-basic-vanillajs` and `server-basic-react` (2.0.3, pinned in
//! testenv/npm/peers; `testenv/peers/basic-app.sh`). The CLI's `--app-info` over stdio (the tool
//! never called), and the inspector core's app listing and checked resource read over their
//! Streamable HTTP, as the web UI's `/apps` routes use them.

use crate::demo_harness::{Run, cli};
use crate::peers_support::Peers;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

const VARIANTS: [&str; 2] = ["vanillajs", "react"];

fn entry(variant: &str) -> String {
    format!("@modelcontextprotocol/server-basic-{variant}/dist/index.js")
}

async fn run(peers: &Peers, variant: &str, args: &[&str]) -> Run {
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    all.extend(["--protocol-era".to_owned(), "legacy".to_owned()]);
    all.extend(peers.node_stdio(&entry(variant), &[], &["--stdio"]));
    cli(variant, &all).await
}

#[tokio::test]
async fn app_info_against_the_npm_example_app_servers() {
    let Some(peers) = Peers::get("app_info_against_the_npm_example_app_servers") else {
        return;
    };
    for variant in VARIANTS {
        let list = run(&peers, variant, &["--method", "tools/list", "--app-info"]).await;
        list.expect_exit(0);
        let line: Value = serde_json::from_str(list.stdout.trim()).expect("one NDJSON line");
        assert_eq!(line["tool"], "get-time", "{}", list.dump());
        assert_eq!(line["resourceUri"], "ui://get-time/mcp-app.html");
        // It sets both keys to the same URI: the current one is taken, nothing to warn about.
        assert_eq!(line["deprecatedKey"], false);
        assert_eq!(line["warnings"], json!([]), "{}", list.dump());

        let args = [
            "--method",
            "tools/call",
            "--tool-name",
            "get-time",
            "--app-info",
            "--format",
            "json",
        ];
        let probe = run(&peers, variant, &args).await;
        probe.expect_exit(0);
        let res = &probe.result()["resource"];
        assert_eq!(
            res["mimeType"],
            "text/html;profile=mcp-app",
            "{}",
            probe.dump()
        );
        assert!(
            res["size"].as_u64().unwrap() > 100_000,
            "a bundled app: {}",
            probe.dump()
        );
        assert_eq!(res["csp"], mcpscope_inspect::apps::csp::DEFAULT_CSP);
        assert!(
            probe.sent_method("tools/call").is_empty(),
            "{}",
            probe.dump()
        );
        let init = &probe.sent_method("initialize")[0];
        assert!(
            init["params"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"].is_object()
        );

        let none = run(
            &peers,
            variant,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "nope",
                "--app-info",
            ],
        )
        .await;
        none.expect_exit(5);
    }
}

/// `testenv/peers/basic-app.sh VARIANT http 0`, and the URL it listens on; killed when dropped.
async fn serve(variant: &str) -> (tokio::process::Child, String) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testenv/peers/basic-app.sh"
    );
    let mut child = tokio::process::Command::new(script)
        .args([variant, "http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start basic-app.sh");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(90), lines.next_line())
            .await
            .expect("the example server starts")
            .expect("read its stderr")
            .expect("it is still running");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("{url}/mcp"))
}

#[tokio::test]
async fn the_core_lists_and_reads_the_example_apps_over_http() {
    use mcpscope_inspect::{Call, Catalog, CatalogEntry, Inspector, Options};
    let Some(_peers) = Peers::get("the_core_lists_and_reads_the_example_apps_over_http") else {
        return;
    };
    for variant in VARIANTS {
        let (_server, url) = serve(variant).await;
        let dir =
            std::env::temp_dir().join(format!("mcpscope-apps-{variant}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store =
            mcpscope_store::HistoryStore::open(&dir.join("history.sqlite"), Default::default())
                .expect("history");
        let entry: CatalogEntry =
            serde_json::from_value(json!({"type": "http", "url": url, "protocolEra": "legacy"}))
                .unwrap();
        let options = Options {
            ping_interval: None,
            ..Options::default()
        };
        let app = Inspector::new(
            Catalog::in_memory(vec![("basic".into(), entry)]),
            store,
            options,
        );
        app.connect("basic", None).await.expect("connect");
        let listed = Call {
            method: "tools/list".into(),
            ..Call::default()
        };
        app.call(
            "basic",
            listed.with_pages(mcpscope_inspect::Pages::All { key: None }),
        )
        .await
        .expect("tools/list")
        .result
        .expect("tools");
        let apps = app.apps("basic").expect("apps");
        assert_eq!(apps.apps.len(), 1, "{variant}: {apps:?}");
        assert_eq!(apps.apps[0].tool, "get-time");
        let read = app
            .read_app("basic", "get-time")
            .await
            .expect("the app is read");
        assert!(
            read.resource.html.contains("<html") || read.resource.html.contains("<!DOCTYPE"),
            "{variant}"
        );
        assert_eq!(read.resource.allow, "");
        assert!(read.history_id > 0);
        // The app's own call back into its server passes the visibility rule.
        let back = Call {
            method: "tools/call".into(),
            params: Some(json!({"name": "get-time", "arguments": {}})),
            app: Some("get-time".into()),
            ..Call::default()
        };
        let out = app.call("basic", back).await.expect("called");
        let result = out.result.expect("the app's call is answered");
        assert!(result["content"].is_array(), "{variant}: {result}");
        app.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The e2e journeys' hostile app server (`e2e/servers/hostile-app-server.mjs`, plain Node): its
/// UI resources that are not HTML, missing, or 6 MiB are refused by the core with the reason,
/// each a History entry, a warning event and a `host` app frame in Traffic.
#[tokio::test]
async fn hostile_ui_resources_are_refused_with_the_reason() {
    use mcpscope_inspect::{Call, Catalog, CatalogEntry, Inspector, Options, Pages};
    use mcpscope_proto::error_code::ErrorCode;
    let Some(peers) = Peers::get("hostile_ui_resources_are_refused_with_the_reason") else {
        return;
    };
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let cmd = peers.node_stdio("", &[], &[]);
    let node = cmd[cmd.iter().position(|a| a == "--").unwrap() + 1].clone();
    let server = format!("{root}/e2e/servers/hostile-app-server.mjs");
    let dir = std::env::temp_dir().join(format!("mcpscope-apps-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = mcpscope_store::HistoryStore::open(&dir.join("history.sqlite"), Default::default())
        .expect("history");
    let entry: CatalogEntry =
        serde_json::from_value(json!({"command": node, "args": [server], "protocolEra": "legacy"}))
            .unwrap();
    let options = Options {
        ping_interval: None,
        ..Options::default()
    };
    let app = Inspector::new(
        Catalog::in_memory(vec![("hostile".into(), entry)]),
        store,
        options,
    );
    app.connect("hostile", None).await.expect("connect");
    let list = Call {
        method: "tools/list".into(),
        ..Call::default()
    };
    app.call("hostile", list.with_pages(Pages::All { key: None }))
        .await
        .expect("tools/list");
    assert_eq!(app.apps("hostile").expect("apps").apps.len(), 4);
    assert!(app.read_app("hostile", "hostile-app").await.is_ok());
    for (tool, why) in [
        ("not-html-app", "\"text/plain\", not HTML"),
        ("missing-app", "could not read ui://hostile/missing.html"),
        ("huge-app", "app resources over 5 MiB are refused"),
    ] {
        let e = app.read_app("hostile", tool).await.expect_err(tool);
        assert_eq!(e.code, ErrorCode::AppRefused, "{tool}: {e}");
        assert!(e.message.contains(why), "{tool}: {}", e.message);
        assert!(e.extra["historyId"].as_i64().is_some(), "{tool}");
    }
    let page = app
        .frames(
            "hostile",
            mcpscope_inspect::FramePage {
                after: Some(0),
                before: None,
                limit: Some(1000),
                sources: vec!["app".into()],
            },
        )
        .await
        .expect("frames");
    let notes: Vec<String> = page
        .iter()
        .filter_map(|f| {
            let v: Value = serde_json::from_str(f).ok()?;
            v["app"]["note"].as_str().map(str::to_owned)
        })
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        notes.iter().all(|n| n.starts_with("refused: ")),
        "{notes:?}"
    );
    app.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
