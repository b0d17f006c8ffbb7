//! MCP Apps in the CLI, against the demo in every cell (both eras × stdio, Streamable HTTP,
//! HTTP+SSE): `--app-info` probes a tool's app without calling it (exit 2 without an app, 5 for
//! an unknown tool), `tools/list --app-info` is NDJSON, the extension is declared only with
//! `--advertise-apps` (or `--app-info`), and an apps-aware CLI refuses an app-only tool.

use crate::demo_harness::{Cell, Era, Run, each};
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";

/// What the run declared: the legacy `initialize` capabilities, or the modern `_meta` ones.
fn declared(cell: Cell, run: &Run) -> Value {
    let sent = run.sent();
    let caps = sent.iter().find_map(|m| match cell.era {
        Era::Legacy => (m["method"] == "initialize").then(|| m["params"]["capabilities"].clone()),
        Era::Modern => m["params"]["_meta"]
            .get("io.modelcontextprotocol/clientCapabilities")
            .cloned(),
    });
    caps.unwrap_or_else(|| panic!("nothing declared\n{}", run.dump()))
}

#[tokio::test]
async fn app_info_probes_the_app_without_calling_the_tool() {
    each(|cell| async move {
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "show-app",
                "--app-info",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(0);
        let r = run.result();
        assert_eq!(r["tool"]["tool"], "show-app", "{}", run.dump());
        assert_eq!(r["tool"]["resourceUri"], "ui://demo/app.html");
        assert_eq!(r["tool"]["visibility"], json!(["model", "app"]));
        let res = &r["resource"];
        assert_eq!(
            res["mimeType"],
            "text/html;profile=mcp-app",
            "{}",
            run.dump()
        );
        assert!(res["size"].as_u64().unwrap() > 1000, "{}", run.dump());
        assert!(
            res["csp"]
                .as_str()
                .unwrap()
                .starts_with("default-src 'none'")
        );
        assert_eq!(res["allow"], "");
        assert!(
            res.get("html").is_none(),
            "the HTML only with --output: {}",
            run.dump()
        );
        assert!(run.sent_method("tools/call").is_empty(), "{}", run.dump());
        assert_eq!(run.sent_method("resources/read").len(), 1, "{}", run.dump());
        // Probing is what an apps host does: the extension is declared.
        assert!(
            declared(cell, &run)["extensions"].get(UI).is_some(),
            "{}",
            run.dump()
        );
    })
    .await;
}

#[tokio::test]
async fn app_info_writes_the_html_only_to_output() {
    let cell = crate::demo_harness::cells()[0];
    let path = std::env::temp_dir().join(format!("mcpscope-app-{}.html", std::process::id()));
    let out = path.to_string_lossy().into_owned();
    let run = cell
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "show-app",
            "--app-info",
            "--output",
            &out,
        ])
        .await;
    run.expect_exit(0);
    let html = std::fs::read_to_string(&path).expect("the HTML file");
    let _ = std::fs::remove_file(&path);
    assert!(html.contains("id=\"call-app-tool\""), "{html}");
    let summary: Value = serde_json::from_str(&run.stdout).expect("the summary on stdout");
    assert_eq!(summary["resource"]["htmlWrittenTo"], out);
    assert_eq!(summary["resource"]["size"], html.len());
}

#[tokio::test]
async fn app_info_exit_codes_no_app_unknown_tool_and_wrong_method() {
    each(|cell| async move {
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "echo",
                "--app-info",
            ])
            .await;
        run.expect_exit(2);
        assert_eq!(run.error()["code"], "no_app", "{}", run.dump());
        assert!(run.sent_method("tools/call").is_empty(), "{}", run.dump());
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "no-such-tool",
                "--app-info",
            ])
            .await;
        run.expect_exit(5);
        assert_eq!(run.error()["code"], "tool_error", "{}", run.dump());
    })
    .await;
    let cell = crate::demo_harness::cells()[0];
    let run = cell
        .run(&["--method", "resources/list", "--app-info"])
        .await;
    run.expect_exit(1);
    assert!(
        run.error()["message"]
            .as_str()
            .unwrap()
            .contains("--app-info works with")
    );
}

#[tokio::test]
async fn tools_list_app_info_is_one_ndjson_line_per_app_tool() {
    each(|cell| async move {
        let run = cell
            .run(&["--method", "tools/list", "--app-info", "--format", "json"])
            .await;
        run.expect_exit(0);
        let lines: Vec<Value> = run
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("every line is JSON"))
            .collect();
        let tools: Vec<&str> = lines.iter().map(|l| l["tool"].as_str().unwrap()).collect();
        assert_eq!(
            tools,
            ["show-app", "app-refresh", "model-only"],
            "{}",
            run.dump()
        );
        assert_eq!(lines[1]["visibility"], json!(["app"]));
        assert!(
            run.sent_method("resources/read").is_empty(),
            "metadata only: {}",
            run.dump()
        );
    })
    .await;
}

#[tokio::test]
async fn apps_are_declared_only_when_asked_and_then_visibility_applies() {
    each(|cell| async move {
        // The default CLI renders nothing, so it declares no apps and calls any tool.
        let plain = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "app-refresh",
                "--format",
                "json",
            ])
            .await;
        plain.expect_exit(0);
        assert!(
            declared(cell, &plain)["extensions"].get(UI).is_none(),
            "{}",
            plain.dump()
        );
        // Declared, it is an apps host: an app-only tool is refused before it is sent.
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "app-refresh",
                "--advertise-apps",
            ])
            .await;
        run.expect_exit(5);
        assert_eq!(run.error()["code"], "tool_not_visible", "{}", run.dump());
        assert!(run.sent_method("tools/call").is_empty(), "{}", run.dump());
        assert_eq!(
            declared(cell, &run)["extensions"][UI],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
            "{}",
            run.dump()
        );
        let ok = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "model-only",
                "--advertise-apps",
            ])
            .await;
        ok.expect_exit(0);
    })
    .await;
}
