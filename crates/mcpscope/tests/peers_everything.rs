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

    // In text mode a question that came after the answer is not announced as one the user
    // could see answered: "server asks" only for a question asked while the call ran.
    let text = target.run(&["--method", "tools/list"]).await;
    text.expect_exit(0);
    let late = text
        .frames("lifecycle")
        .iter()
        .filter_map(|f| f["meta"]["note"].as_str())
        .any(|n| n.contains("after its input was closed"));
    if late {
        assert!(
            !text.stderr.contains("server asks"),
            "a question after the close is not announced\n{}",
            text.dump()
        );
    }
}

/// What a newcomer types wrong gets a message about their mistake, not the server's (issue 24
/// item 11), and `-q` keeps stderr for errors only (item 10).
async fn newcomer_mistakes(target: &Target) {
    let (method, tool, quiet) = tokio::join!(
        target.run(&["--method", "tools/lst", "--format", "json"]),
        target.run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "ech",
            "--tool-arg",
            "message=hi",
            "--format",
            "json",
        ]),
        target.run(&["--method", "tools/list", "--lint", "-q"]),
    );
    method.expect_exit(1);
    let error = method.error();
    assert_eq!(error["code"], "usage", "{}", method.dump());
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("unknown method `tools/lst`")
            && message.contains("did you mean `tools/list`?")
            && message.contains("prompts/get"),
        "{}",
        method.dump()
    );
    // --format json: the failure is the one document on stdout too (item 10).
    assert_eq!(method.json()["error"], error, "{}", method.dump());

    // server-everything answers an unknown tool with isError: the result is printed, and the
    // error says which tools there are.
    tool.expect_exit(5);
    let error = tool.error();
    assert_eq!(error["code"], "tool_error", "{}", tool.dump());
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("no tool named `ech` (did you mean `echo`?); the server has: echo,"),
        "{}",
        tool.dump()
    );

    quiet.expect_exit(0);
    assert_eq!(
        quiet.stderr,
        "",
        "-q prints nothing but errors\n{}",
        quiet.dump()
    );
}

/// `--format json`'s failure document carries the session's warnings as a success document does
/// (README: one document on stdout; issue 24: they were only in a success's): Auto's note that
/// the server is legacy, beside the server's error for a prompt it does not have.
async fn a_failure_document_keeps_the_warnings(target: &Target) {
    let run = target
        .run(&[
            "--protocol-era",
            "auto",
            "--method",
            "prompts/get",
            "--prompt-name",
            "no-such-prompt",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(1);
    let doc = run.json();
    assert_eq!(doc["error"]["code"], "rpc_error", "{}", run.dump());
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("Auto: legacy server"), "{}", run.dump());
}

/// `--tool-arg`s that break the tool's inputSchema are named, with the rule, before anything is
/// sent (issue 24: the CLI sent them and printed whatever the server made of them, while the
/// web UI's Validate names them); exit 1, as any usage error. `--no-validate` sends them.
async fn tool_arguments_are_checked_before_sending(target: &Target) {
    let call = [
        "--method",
        "tools/call",
        "--tool-name",
        "get-sum",
        "--tool-arg",
        "a=x",
    ];
    let checked_args = [&call[..], &["--format", "json"]].concat();
    let sent_args = [&call[..], &["--no-validate", "--format", "json"]].concat();
    // JSON written out is sent as written: the conformance suite's http-custom-headers sends a
    // `null` a boolean schema refuses, on purpose.
    let json_args = [
        "--method",
        "tools/call",
        "--tool-name",
        "get-sum",
        "--tool-args-json",
        r#"{"a": "x"}"#,
        "--format",
        "json",
    ];
    let (checked, sent, json) = tokio::join!(
        target.run(&checked_args),
        target.run(&sent_args),
        target.run(&json_args)
    );
    assert_eq!(json.sent_method("tools/call").len(), 1, "{}", json.dump());
    checked.expect_exit(1);
    let error = checked.error();
    assert_eq!(error["code"], "usage", "{}", checked.dump());
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(r#"inputSchema of tool "get-sum""#)
            && message.contains(r#"argument "a": "x" is not of type "number""#)
            && message.contains(r#""b" is a required property"#)
            && message.contains("--no-validate"),
        "{}",
        checked.dump()
    );
    assert!(
        checked.sent_method("tools/call").is_empty(),
        "nothing is sent\n{}",
        checked.dump()
    );
    assert_eq!(checked.json()["error"], error, "{}", checked.dump());

    // Sent anyway: the server's own answer decides.
    assert_eq!(sent.sent_method("tools/call").len(), 1, "{}", sent.dump());
    assert_ne!(sent.code, 0, "{}", sent.dump());
}

/// A URL typed without its scheme, or with a wrong one, is a URL problem, not a command that is
/// "not on PATH" (issue 24 item 11).
#[tokio::test]
async fn a_mistyped_url_is_named_as_one() {
    let args = |url: &str| -> Vec<String> {
        [url, "--method", "tools/list"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let (wrong_args, bare_args) = (args("htp://localhost:7100/mcp"), args("localhost:7100/mcp"));
    let (wrong, bare) = tokio::join!(cli("htp", &wrong_args), cli("bare", &bare_args));
    wrong.expect_exit(1);
    let message = wrong.error()["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("is not a URL mcpscope can reach: its scheme is \"htp\""),
        "{}",
        wrong.dump()
    );
    bare.expect_exit(1);
    let message = bare.error()["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("did you mean http://localhost:7100/mcp"),
        "{}",
        bare.dump()
    );
    for run in [&wrong, &bare] {
        assert!(!run.stderr.contains("PATH"), "{}", run.dump());
    }
}

/// The server's root answers 404: the error says MCP is usually at /mcp or /sse.
async fn a_root_url_says_where_mcp_is(base: &str) {
    let run = cli(
        "root-404",
        &[
            "--server-url".into(),
            format!("{base}/"),
            "--method".into(),
            "tools/list".into(),
        ],
    )
    .await;
    run.expect_exit(4);
    let message = run.error()["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains(&format!("try {base}/mcp or {base}/sse")),
        "{}",
        run.dump()
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
        newcomer_mistakes(&target),
        tool_arguments_are_checked_before_sending(&target),
        a_failure_document_keeps_the_warnings(&target),
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
        a_root_url_says_where_mcp_is(&server.base),
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
