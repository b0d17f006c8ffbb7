//! What goes on the wire, read back from `--trace`: the 2026-07-28 `_meta` envelope on every
//! modern request and none of it on legacy ones; the modern `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` headers; the legacy `Mcp-Session-Id` and the closing `DELETE`;
//! and the HTTP+SSE exchange (GET the stream, the `endpoint` event, POSTs answered 202).

use crate::demo_harness::{Cell, Era, Run, Transport, each, header, reserved_meta_keys};
use serde_json::{Value, json};

const ENVELOPE: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

/// The requests (messages with an id and a method) we sent.
fn sent_requests(run: &Run) -> Vec<Value> {
    run.sent()
        .into_iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_some())
        .collect()
}

fn check_envelope(cell: Cell, run: &Run) {
    let sent = run.sent();
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    match cell.era {
        Era::Modern => {
            assert_eq!(methods.first(), Some(&"server/discover"), "{}", run.dump());
            assert!(
                !methods.contains(&"initialize") && !methods.contains(&"notifications/initialized"),
                "{}",
                run.dump()
            );
            for request in sent_requests(run) {
                let meta = &request["params"]["_meta"];
                for key in ENVELOPE {
                    assert!(meta.get(key).is_some(), "{key} missing in {request}");
                }
                assert_eq!(meta[ENVELOPE[0]], "2026-07-28", "{request}");
                assert!(meta[ENVELOPE[1]].is_object(), "{request}");
                assert_eq!(meta[ENVELOPE[2]]["name"], "mcpscope", "{request}");
                assert!(meta[ENVELOPE[2]]["version"].is_string(), "{request}");
            }
        }
        Era::Legacy => {
            assert_eq!(
                &methods[..2],
                ["initialize", "notifications/initialized"],
                "{}",
                run.dump()
            );
            let initialize = &sent[0]["params"];
            assert_eq!(initialize["protocolVersion"], "2025-11-25");
            assert_eq!(initialize["clientInfo"]["name"], "mcpscope");
            assert!(initialize["capabilities"].is_object());
            assert!(!methods.contains(&"server/discover"), "{}", run.dump());
            for message in &sent {
                assert_eq!(
                    reserved_meta_keys(message),
                    Vec::<String>::new(),
                    "a legacy message carries modern _meta keys: {message}"
                );
            }
        }
    }
}

fn check_streamable_http(cell: Cell, run: &Run) {
    let requests = run.frames("http-request");
    assert!(!requests.is_empty(), "{}", run.dump());
    match cell.era {
        Era::Modern => {
            for frame in &requests {
                // Stateless: every message is one POST, no GET stream, no session to DELETE.
                assert_eq!(frame["meta"]["method"], "POST", "{frame}");
                assert_eq!(header(frame, "mcp-session-id"), None, "{frame}");
                assert_eq!(
                    header(frame, "mcp-protocol-version"),
                    Some("2026-07-28"),
                    "{frame}"
                );
                let body: Value = serde_json::from_slice(&crate::demo_harness::body(frame))
                    .expect("a POST body is JSON");
                assert_eq!(
                    header(frame, "mcp-method"),
                    body["method"].as_str(),
                    "{frame}"
                );
                if body["method"] == "tools/call" {
                    assert_eq!(header(frame, "mcp-name"), body["params"]["name"].as_str());
                }
            }
        }
        Era::Legacy => {
            let responses = run.frames("http-response");
            let session = responses
                .iter()
                .find_map(|f| header(f, "mcp-session-id"))
                .unwrap_or_else(|| panic!("no Mcp-Session-Id from the server\n{}", run.dump()));
            let (first, rest) = requests.split_first().unwrap();
            assert_eq!(first["method"], "initialize", "{first}");
            assert_eq!(header(first, "mcp-session-id"), None, "{first}");
            for frame in rest {
                assert_eq!(header(frame, "mcp-session-id"), Some(session), "{frame}");
                assert_eq!(
                    header(frame, "mcp-protocol-version"),
                    Some("2025-11-25"),
                    "{frame}"
                );
            }
            for frame in &requests {
                // The 2026-07-28 routing headers do not exist in this revision.
                for name in ["mcp-method", "mcp-name"] {
                    assert_eq!(header(frame, name), None, "{frame}");
                }
            }
            let last = requests.last().unwrap();
            assert_eq!(
                last["meta"]["method"],
                "DELETE",
                "the session is not ended\n{}",
                run.dump()
            );
            let deleted = responses
                .iter()
                .find(|f| f["meta"]["method"] == "DELETE")
                .expect("the DELETE was answered");
            assert!(
                deleted["meta"]["status"].as_u64().is_some_and(|s| s < 300),
                "{deleted}"
            );
        }
    }
}

fn check_legacy_sse(run: &Run) {
    let requests = run.frames("http-request");
    let (open, posts) = requests.split_first().expect("requests");
    assert_eq!(open["meta"]["method"], "GET", "{open}");
    assert!(
        open["meta"]["url"].as_str().unwrap().ends_with("/sse"),
        "{open}"
    );
    let events = run.frames("sse-event");
    let endpoint = events
        .iter()
        .find(|f| f["meta"]["sse_event"] == "endpoint")
        .unwrap_or_else(|| panic!("no endpoint event\n{}", run.dump()));
    let path = endpoint["text"].as_str().unwrap();
    assert!(path.starts_with("/message?sessionId="), "{endpoint}");
    assert!(!posts.is_empty(), "{}", run.dump());
    for post in posts {
        assert_eq!(post["meta"]["method"], "POST", "{post}");
        assert!(
            post["meta"]["url"].as_str().unwrap().ends_with(path),
            "{post}"
        );
    }
    for response in run.frames("http-response").iter().skip(1) {
        assert_eq!(response["meta"]["status"], 202, "{response}");
    }
    // Every answer came back on the stream as a `message` event.
    let answers = events
        .iter()
        .filter(|f| f["meta"]["sse_event"] == "message")
        .count();
    assert_eq!(
        answers,
        sent_requests(run).len(),
        "one message event per request\n{}",
        run.dump()
    );
}

#[tokio::test]
async fn envelope_headers_and_sessions_per_era_and_transport() {
    each(|cell| async move {
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "echo",
                "--tool-arg",
                "message=hi",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(0);
        assert_eq!(run.result()["content"][0]["text"], "Echo: hi");
        check_envelope(cell, &run);
        match cell.transport {
            Transport::Http => check_streamable_http(cell, &run),
            Transport::Sse => check_legacy_sse(&run),
            Transport::Stdio => {
                let lines = run.frames("stdin-line");
                assert_eq!(lines.len(), run.sent().len(), "{}", run.dump());
                assert!(run.frames("http-request").is_empty());
            }
        }
    })
    .await;
}

#[tokio::test]
async fn route_query_mirrors_x_mcp_header_arguments() {
    each(|cell| async move {
        let mirrors = cell.is_http() && cell.era == Era::Modern;
        let values = [
            // Not plain ASCII: SEP-2243 wants the UTF-8 bytes in base64.
            ("Zürich", "=?base64?WsO8cmljaA==?="),
            ("eu-west1", "eu-west1"),
            // Leading and trailing spaces would be stripped by HTTP: base64 too.
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ];
        // Only modern Streamable HTTP has headers to vary; elsewhere one value shows none.
        let values = if mirrors { &values[..] } else { &values[..1] };
        for &(region, wire) in values {
            let region_arg = format!("region={region}");
            let run = cell
                .run(&[
                    "--method",
                    "tools/call",
                    "--tool-name",
                    "route-query",
                    "--tool-arg",
                    &region_arg,
                    "--tool-arg",
                    "priority=3",
                    "--tool-arg",
                    "dryRun=true",
                    "--tool-arg",
                    "query=SELECT 1",
                    "--format",
                    "json",
                    "--lint",
                ])
                .await;
            run.expect_exit(0);
            assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
            let report: Value =
                serde_json::from_str(run.result()["content"][0]["text"].as_str().unwrap())
                    .expect("route-query answers JSON");
            assert_eq!(report["received"]["region"], region, "{}", run.dump());
            let call = run
                .frames("http-request")
                .into_iter()
                .find(|f| f["method"] == "tools/call")
                .cloned();
            if mirrors {
                let call = call.expect("the tools/call POST");
                assert_eq!(header(&call, "mcp-name"), Some("route-query"), "{call}");
                assert_eq!(header(&call, "mcp-param-region"), Some(wire), "{call}");
                assert_eq!(header(&call, "mcp-param-priority"), Some("3"), "{call}");
                assert_eq!(header(&call, "mcp-param-dry-run"), Some("true"), "{call}");
                // The client learnt the annotations from tools/list before calling.
                assert!(!run.sent_method("tools/list").is_empty(), "{}", run.dump());
                // And the server, which checks them against the body, saw the same values.
                assert_eq!(
                    report["mcpParamHeaders"],
                    json!({"mcp-param-region": region, "mcp-param-priority": "3",
                           "mcp-param-dry-run": "true"}),
                    "{}",
                    run.dump()
                );
            } else if let Some(call) = call {
                let frame = call.to_string().to_ascii_lowercase();
                assert!(!frame.contains("mcp-param-"), "{call}");
            }
        }
    })
    .await;
}
