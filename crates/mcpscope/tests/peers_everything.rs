//! `@modelcontextprotocol/server-everything`, the reference server of the 2025-11-25 era, over
//! stdio, Streamable HTTP and the deprecated HTTP+SSE transport: content types, progress,
//! elicitation and sampling answered by the CLI's flags, and the era decided right (`auto`
//! settles on legacy; a pinned `modern` fails cleanly instead of downgrading).

use crate::demo_harness::{Run, cli, header};
use crate::peers_support::Peers;
use serde_json::{Value, json};

/// One way to reach the server.
struct Target {
    name: &'static str,
    args: Vec<String>,
}

impl Target {
    async fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        // The target last: the stdio form ends with `-- command …`.
        all.extend(self.args.iter().cloned());
        cli(self.name, &all).await
    }

    /// `--format json --lint`, exit 0, lint-clean; the result.
    async fn ok(&self, args: &[&str]) -> (Value, Run) {
        let mut all = args.to_vec();
        all.extend(["--format", "json", "--lint"]);
        let run = self.run(&all).await;
        run.expect_exit(0);
        assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
        (run.result(), run)
    }
}

fn texts(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Everything a tour covers, each part its own run(s), all at once: over stdio every run pays
/// the server's shutdown grace (it ignores stdin closing), so overlapping them matters.
async fn tour(target: &Target) {
    tokio::join!(
        list_tools(target),
        content_blocks(target),
        read_a_resource(target),
        get_a_prompt(target),
        progress(target),
        elicitation(target),
        elicitation_defaults_cannot_fill_a_required_field(target),
        sampling(target),
    );
}

async fn list_tools(target: &Target) {
    let (tools, run) = target.ok(&["--method", "tools/list"]).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // At least the 13 ungated tools (more arrive once our declared capabilities are seen).
    assert!(names.len() >= 13, "{names:?}\n{}", run.dump());
    for name in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
    ] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    // The reference server has no 2026-07-28 envelope to offer: nothing of it on our side.
    assert!(
        run.sent()
            .iter()
            .all(|m| crate::demo_harness::reserved_meta_keys(m).is_empty()),
        "{}",
        run.dump()
    );
}

async fn content_blocks(target: &Target) {
    let (sum, structured, image, links) = tokio::join!(
        target.ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "get-sum",
            "--tool-arg",
            "a=2",
            "--tool-arg",
            "b=40"
        ]),
        target.ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "get-structured-content",
            "--tool-arg",
            "location=Chicago"
        ]),
        target.ok(&["--method", "tools/call", "--tool-name", "get-tiny-image"]),
        target.ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "get-resource-links",
            "--tool-arg",
            "count=2"
        ]),
    );
    assert_eq!(
        texts(&sum.0),
        "The sum of 2 and 40 is 42.",
        "{}",
        sum.1.dump()
    );
    let weather = &structured.0["structuredContent"];
    assert!(
        weather["temperature"].is_number(),
        "{}",
        structured.1.dump()
    );
    let image = image.0["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "image")
        .cloned()
        .expect("an image block");
    assert_eq!(image["mimeType"], "image/png");
    let linked: Vec<&Value> = links.0["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "resource_link")
        .collect();
    assert_eq!(linked.len(), 2, "{}", links.1.dump());
}

/// The first resource of the first page reads back with its own URI.
async fn read_a_resource(target: &Target) {
    let (page, run) = target
        .ok(&["--method", "resources/list", "--first-page"])
        .await;
    let uri = page["resources"][0]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("no resources\n{}", run.dump()))
        .to_owned();
    let (read, run) = target
        .ok(&["--method", "resources/read", "--uri", &uri])
        .await;
    assert_eq!(read["contents"][0]["uri"], uri, "{}", run.dump());
}

async fn get_a_prompt(target: &Target) {
    let (prompt, run) = target
        .ok(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "args-prompt",
            "--prompt-args",
            "city=Oslo",
        ])
        .await;
    assert!(
        prompt["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Oslo")),
        "{}",
        run.dump()
    );
}

/// Progress in text mode goes to stderr as it arrives.
async fn progress(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "trigger-long-running-operation",
            "--tool-arg",
            "duration=1",
            "--tool-arg",
            "steps=2",
        ])
        .await;
    run.expect_exit(0);
    let progress = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("progress tools/call: "))
        .count();
    assert_eq!(progress, 2, "{}", run.dump());
}

async fn elicitation(target: &Target) {
    let (elicited, run) = target
        .ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "trigger-elicitation-request",
            "--elicitation",
            "accept-defaults",
            // The form requires `name`, which has no default.
            "--elicitation-json",
            r#"{"name": "Ada"}"#,
        ])
        .await;
    let answer = run
        .sent()
        .into_iter()
        .find(|m| m.get("method").is_none() && m["result"]["action"].is_string())
        .unwrap_or_else(|| panic!("we never answered the elicitation\n{}", run.dump()));
    assert_eq!(answer["result"]["action"], "accept");
    // The server's form has defaults of every type, a float among them.
    // (Compared as text: the server's value merely looks like pi to clippy.)
    assert_eq!(
        answer["result"]["content"]["number"].to_string(),
        "3.14",
        "{}",
        run.dump()
    );
    assert_eq!(answer["result"]["content"]["name"], "Ada", "{}", run.dump());
    assert!(
        texts(&elicited).contains("provided the requested information"),
        "{}",
        run.dump()
    );
}

/// `--elicitation accept-defaults` alone cannot fill the required `name`: the form is declined
/// with the reason, never accepted with content the server must refuse (issue 24 item 9).
async fn elicitation_defaults_cannot_fill_a_required_field(target: &Target) {
    let (declined, run) = target
        .ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "trigger-elicitation-request",
            "--elicitation",
            "accept-defaults",
        ])
        .await;
    let answer = run
        .sent()
        .into_iter()
        .find(|m| m.get("method").is_none() && m["result"]["action"].is_string())
        .unwrap_or_else(|| panic!("we never answered the elicitation\n{}", run.dump()));
    assert_eq!(
        answer["result"],
        json!({"action": "decline"}),
        "{}",
        run.dump()
    );
    assert!(texts(&declined).contains("declined"), "{}", run.dump());
    let warnings = run.json()["warnings"].to_string();
    assert!(
        warnings.contains("requires `name` with no default")
            && warnings.contains("--elicitation-json"),
        "{}",
        run.dump()
    );
}

async fn sampling(target: &Target) {
    let (sampled, run) = target
        .ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "trigger-sampling-request",
            "--tool-arg",
            "prompt=Say hi",
            "--sampling-text",
            "hi there",
        ])
        .await;
    assert!(texts(&sampled).contains("hi there"), "{}", run.dump());
    let asked = run
        .received()
        .into_iter()
        .find(|m| m["method"] == "sampling/createMessage")
        .unwrap_or_else(|| panic!("no sampling request\n{}", run.dump()));
    assert!(asked.get("id").is_some(), "{asked}");
}

/// server-everything asks `roots/list` 350 ms after `initialized`, usually after a quick
/// one-shot has its answer and has closed the server's stdin. The question either comes in time
/// and is answered, or is known to be unanswerable and the server is stopped at once: never a
/// warning, never the 2 s wait for a server that waits on us (issue 24 item 12).
async fn roots_asked_after_the_answer_do_not_delay_the_exit(target: &Target) {
    let (_, run) = target.ok(&["--method", "tools/list"]).await;
    assert!(run.json().get("warnings").is_none(), "{}", run.dump());
    let answered = run
        .sent()
        .iter()
        .any(|m| m.get("method").is_none() && m["result"]["roots"].is_array());
    let notes: Vec<&str> = run
        .frames("lifecycle")
        .iter()
        .filter_map(|f| f["meta"]["note"].as_str())
        .collect();
    let unanswerable = notes
        .iter()
        .any(|n| n.contains("asked roots/list (request 0) after its input was closed"));
    assert!(answered || unanswerable, "{notes:#?}\n{}", run.dump());
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("still running after stdin closed")),
        "{notes:#?}"
    );
}

/// Auto: the probe is answered -32601 (no `server/discover`), so the CLI initializes.
async fn auto_settles_on_legacy(target: &Target) {
    let run = target
        .run(&[
            "--protocol-era",
            "auto",
            // Node's start-up counts against the probe; let the -32601, not a timeout, decide.
            "--probe-timeout",
            "20000",
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "message=auto",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(0);
    assert_eq!(texts(&run.result()), "Echo: auto");
    let warnings = run.json()["warnings"].to_string();
    assert!(
        warnings.contains("server/discover answered with error -32601"),
        "{}",
        run.dump()
    );
    let methods: Vec<Value> = run.sent().iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods[..2],
        [json!("server/discover"), json!("initialize")],
        "{}",
        run.dump()
    );
}

/// A legacy session: the id the server gave on initialize on everything after it, and a
/// DELETE to end it.
async fn session_id_and_delete(target: &Target) {
    let run = target
        .run(&["--method", "tools/list", "--format", "json"])
        .await;
    run.expect_exit(0);
    let session = run
        .frames("http-response")
        .iter()
        .find_map(|f| header(f, "mcp-session-id"))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no session id\n{}", run.dump()));
    let requests = run.frames("http-request");
    for frame in &requests[1..] {
        assert_eq!(
            header(frame, "mcp-session-id"),
            Some(session.as_str()),
            "{frame}"
        );
    }
    assert_eq!(requests.last().unwrap()["meta"]["method"], "DELETE");
}

/// Pinned modern against a legacy-only server: it fails, clearly, and does not downgrade.
async fn pinned_modern_does_not_downgrade(target: &Target) {
    let run = target
        .run(&[
            "--protocol-era",
            "modern",
            "--method",
            "tools/list",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(4);
    assert!(run.sent_method("initialize").is_empty(), "{}", run.dump());
    assert_eq!(run.error()["status"], 400, "{}", run.dump());
}

/// The stream opens with the `endpoint` event naming where to POST.
async fn endpoint_event(target: &Target) {
    let run = target.run(&["--method", "ping", "--format", "json"]).await;
    run.expect_exit(0);
    let events = run.frames("sse-event");
    assert_eq!(events[0]["meta"]["sse_event"], "endpoint", "{}", run.dump());
    assert!(
        events[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("/message?sessionId="),
        "{}",
        run.dump()
    );
}

#[tokio::test]
async fn everything_over_stdio() {
    let Some(peers) = Peers::get("everything_over_stdio") else {
        return;
    };
    let target = Target {
        name: "server-everything/stdio",
        args: peers.stdio("everything.sh"),
    };
    tokio::join!(
        tour(&target),
        auto_settles_on_legacy(&target),
        roots_asked_after_the_answer_do_not_delay_the_exit(&target),
    );
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let Some(peers) = Peers::get("everything_over_streamable_http") else {
        return;
    };
    let server = peers.serve("everything.sh", "http").await;
    let target = Target {
        name: "server-everything/http",
        // --server-url rather than a positional URL: `--prompt-args` takes every value up to
        // the next flag.
        args: vec!["--server-url".to_owned(), format!("{}/mcp", server.base)],
    };
    tokio::join!(
        tour(&target),
        session_id_and_delete(&target),
        pinned_modern_does_not_downgrade(&target),
    );
}

#[tokio::test]
async fn everything_over_legacy_sse() {
    let Some(peers) = Peers::get("everything_over_legacy_sse") else {
        return;
    };
    let server = peers.serve("everything.sh", "sse").await;
    let target = Target {
        name: "server-everything/sse",
        args: vec!["--server-url".to_owned(), format!("{}/sse", server.base)],
    };
    tokio::join!(tour(&target), endpoint_event(&target));
}
