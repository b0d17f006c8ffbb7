//! `tools/list` and `tools/call` against the demo in every era × transport cell: each content
//! type arrives intact, tool failures exit 5 with the one JSON error line, and `--format json`
//! prints exactly one document.

use crate::demo_harness::{Cell, Era, each};
use base64::Engine as _;
use serde_json::{Value, json};

/// The demo's tools, in the order `tools/list` gives them.
const TOOLS: [&str; 26] = [
    "echo",
    "add",
    "get-weather",
    "get-image",
    "get-audio",
    "get-resource-links",
    "get-embedded-resource",
    "annotated-read",
    "delete-everything",
    "route-query",
    "slow",
    "log-every-level",
    "toggle-extra-tool",
    "elicit-form",
    "elicit-url",
    "sample",
    "list-roots",
    "onboard",
    "elicit-url-required",
    "end-subscriptions",
    "research",
    "big",
    "fail",
    "show-app",
    "app-refresh",
    "model-only",
];

/// Calls `tool` with `args` (`--tool-arg` pairs), `--format json --lint`, expecting exit 0 and a
/// lint-clean exchange; returns the result.
async fn call(cell: Cell, tool: &str, args: &[&str]) -> (Value, crate::demo_harness::Run) {
    let mut all = vec![
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--format",
        "json",
        "--lint",
    ];
    for arg in args {
        all.extend(["--tool-arg", arg]);
    }
    let run = cell.run(&all).await;
    run.expect_exit(0);
    assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
    let result = run.result();
    assert_eq!(result["isError"], false, "{}", run.dump());
    // 2026-07-28 results say what they are; 2025-11-25 results have no such member.
    match cell.era {
        Era::Modern => assert_eq!(result["resultType"], "complete", "{}", run.dump()),
        Era::Legacy => assert!(result.get("resultType").is_none(), "{}", run.dump()),
    }
    (result, run)
}

#[tokio::test]
async fn tools_list_has_every_tool_with_its_schemas() {
    each(|cell| async move {
        let run = cell
            .run(&["--method", "tools/list", "--format", "json", "--lint"])
            .await;
        run.expect_exit(0);
        let doc = run.json();
        assert_eq!(doc["lint"], json!([]), "{}", run.dump());
        // The demo's annotations are all valid, so nothing may be excluded.
        assert!(doc.get("excludedTools").is_none(), "{}", run.dump());
        let tools = doc["result"]["tools"].as_array().expect("tools").clone();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, TOOLS, "{}", run.dump());
        let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
        assert_eq!(
            tool("get-weather")["outputSchema"]["required"],
            json!(["temperature", "conditions"])
        );
        assert_eq!(
            tool("route-query")["inputSchema"]["properties"]["region"]["x-mcp-header"],
            "Region"
        );
        assert_eq!(
            tool("delete-everything")["annotations"]["destructiveHint"],
            true
        );
        assert_eq!(
            tool("show-app")["_meta"]["ui"]["resourceUri"],
            "ui://demo/app.html"
        );
        // MCP Apps visibility: app-only and model-only tools of the same app.
        assert_eq!(
            tool("app-refresh")["_meta"]["ui"]["visibility"],
            json!(["app"])
        );
        assert_eq!(
            tool("model-only")["_meta"]["ui"]["visibility"],
            json!(["model"])
        );
        // Legacy task support is a 2025-11-25 member; the modern era uses the extension.
        let task_support = &tool("research")["execution"]["taskSupport"];
        match cell.era {
            Era::Legacy => assert_eq!(task_support, "optional", "{}", run.dump()),
            Era::Modern => assert!(task_support.is_null(), "{}", run.dump()),
        }
    })
    .await;
}

#[tokio::test]
async fn text_and_structured_content() {
    each(|cell| async move {
        let (result, _) = call(cell, "echo", &["message=hello world"]).await;
        assert_eq!(
            result["content"],
            json!([{"type": "text", "text": "Echo: hello world"}])
        );
        // --tool-arg values are read as JSON: 2 and 40 are numbers, so this is 42, not "240".
        let (result, _) = call(cell, "add", &["a=2", "b=40"]).await;
        assert_eq!(result["content"][0]["text"], "42");

        let (result, run) = call(cell, "get-weather", &["city=Paris"]).await;
        let structured = &result["structuredContent"];
        assert!(structured["temperature"].is_number(), "{}", run.dump());
        assert!(structured["conditions"].is_string(), "{}", run.dump());
        // The text block carries the same JSON, as the spec recommends for older clients.
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap())
            .expect("the text block is JSON");
        assert_eq!(&text, structured);
    })
    .await;
}

#[tokio::test]
async fn image_audio_and_resource_blocks() {
    each(|cell| async move {
        let decode = |data: &Value| {
            base64::engine::general_purpose::STANDARD
                .decode(data.as_str().expect("base64 data"))
                .expect("valid base64")
        };
        let (image, audio, links, embedded) = tokio::join!(
            call(cell, "get-image", &[]),
            call(cell, "get-audio", &[]),
            call(cell, "get-resource-links", &[]),
            call(cell, "get-embedded-resource", &[]),
        );
        let block = &image.0["content"][0];
        assert_eq!(
            (&block["type"], &block["mimeType"]),
            (&json!("image"), &json!("image/png"))
        );
        assert!(decode(&block["data"]).starts_with(b"\x89PNG\r\n\x1a\n"));

        let block = &audio.0["content"][0];
        assert_eq!(
            (&block["type"], &block["mimeType"]),
            (&json!("audio"), &json!("audio/wav"))
        );
        let wav = decode(&block["data"]);
        assert_eq!((&wav[..4], &wav[8..12]), (&b"RIFF"[..], &b"WAVE"[..]));

        let blocks = links.0["content"].as_array().expect("content").clone();
        let uris: Vec<&str> = blocks.iter().filter_map(|b| b["uri"].as_str()).collect();
        assert_eq!(uris, ["demo://readme", "demo://logo.png", "demo://counter"]);
        assert!(
            blocks
                .iter()
                .all(|b| b["type"] == "resource_link" && b["name"].is_string())
        );

        let block = &embedded.0["content"][0];
        assert_eq!(block["type"], "resource");
        assert_eq!(block["resource"]["uri"], "demo://readme");
        assert_eq!(block["resource"]["mimeType"], "text/markdown");
        assert!(
            block["resource"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("# mcpscope demo server")),
            "{}",
            embedded.1.dump()
        );
    })
    .await;
}

#[tokio::test]
async fn tool_errors_exit_5_with_one_error_line() {
    each(|cell| async move {
        // isError: the result is still printed (it is the tool's answer), and the exit code and
        // the stderr line say it failed.
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "fail",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(5);
        assert_eq!(run.result()["isError"], true, "{}", run.dump());
        assert_eq!(run.error()["code"], "tool_error");
        // --format json: nothing on stderr but that one line.
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.dump());

        let run = cell
            .run(&["--method", "tools/call", "--tool-name", "fail"])
            .await;
        run.expect_exit(5);
        assert_eq!(run.json()["isError"], true, "{}", run.dump());
        assert_eq!(run.error()["code"], "tool_error");

        // An unknown tool is a JSON-RPC error from the server, not a result: the error is the
        // document, and it names the tools there are (issue 24 items 10 and 11).
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "no-such-tool",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(5);
        let error = run.error();
        assert_eq!(run.json()["error"], error, "{}", run.dump());
        assert_eq!(error["code"], "tool_error");
        assert_eq!(error["rpcCode"], -32602, "{}", run.dump());
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("no tool named `no-such-tool`; the server has: echo, add,"),
            "{}",
            run.dump()
        );
    })
    .await;
}
