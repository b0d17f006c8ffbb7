//! The stdio modes, driven through the real binary: each test checks the bytes a mode's
//! documentation promises, with small sizes so the whole file runs in a few seconds.

use crate::support::{Fixture, contains};
use mcpscope_testkit::{GARBAGE_NOISE, StdioMode};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Spawn a mode through its documented arguments, so `StdioMode::args` is exercised too.
fn spawn(mode: StdioMode) -> Fixture {
    let args = mode.args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Fixture::spawn(&args)
}

fn echo(text: &str) -> Value {
    json!({"name": "echo", "arguments": {"text": text}})
}

#[tokio::test]
async fn garbage_writes_the_noise_before_every_response() {
    let mut server = spawn(StdioMode::Garbage);
    server
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "2025-11-25"}),
        )
        .await;
    for expected in GARBAGE_NOISE {
        assert_eq!(server.line().await.as_deref(), Some(expected));
    }
    let init = server.message().await;
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");

    server.request(json!(2), "tools/call", echo("hi")).await;
    for expected in GARBAGE_NOISE {
        assert_eq!(server.line().await.as_deref(), Some(expected));
    }
    let call = server.message().await;
    assert_eq!(call["id"], 2);
    assert_eq!(call["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn silent_never_writes_and_exits_when_stdin_closes() {
    let mut server = spawn(StdioMode::Silent);
    server
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "2025-11-25"}),
        )
        .await;
    server.request(json!(2), "ping", json!({})).await;
    assert!(
        server
            .line_within(Duration::from_millis(300))
            .await
            .is_err(),
        "silent wrote something"
    );
    server.close_stdin();
    assert_eq!(server.rest_of_stdout().await, b"");
    assert_eq!(server.exit_status().await.code(), Some(0));
    assert_eq!(server.stderr(), b"");
}

#[tokio::test]
async fn exit_before_init_exits_3_with_stderr_and_no_stdout() {
    let mut server = spawn(StdioMode::ExitBeforeInit);
    assert_eq!(server.rest_of_stdout().await, b"");
    let stderr = server.stderr_at_exit().await;
    assert!(
        stderr.starts_with(b"fatal: missing API_KEY\n"),
        "{stderr:?}"
    );
    assert_eq!(stderr.iter().filter(|&&b| b == b'\n').count(), 2);
    assert_eq!(server.exit_status().await.code(), Some(3));
}

#[tokio::test]
async fn exit_after_init_dies_on_the_first_request_after_initialized() {
    let mut server = spawn(StdioMode::ExitAfterInit);
    server.initialize().await;
    server.request(json!(1), "ping", json!({})).await;
    assert_eq!(
        server.message().await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    server.request(json!(2), "tools/list", json!({})).await;
    assert_eq!(
        server.rest_of_stdout().await,
        b"",
        "tools/list must not be answered"
    );
    server.stderr_contains(b"panic: boom\n").await;
    assert_eq!(server.exit_status().await.code(), Some(101));
}

#[tokio::test]
async fn wrong_version_answers_1999() {
    let mut server = spawn(StdioMode::WrongVersion);
    let init = server.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], "1999-01-01");
}

#[tokio::test]
async fn phantom_capabilities_advertises_all_and_honours_none() {
    let mut server = spawn(StdioMode::PhantomCapabilities);
    let init = server.initialize().await;
    let capabilities = init["result"]["capabilities"].as_object().expect("object");
    let names: Vec<&str> = capabilities.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["tools", "resources", "prompts", "logging", "completions"]
    );
    for (id, method) in [
        "tools/list",
        "resources/list",
        "prompts/list",
        "logging/setLevel",
        "completion/complete",
    ]
    .into_iter()
    .enumerate()
    {
        server.request(json!(id), method, json!({})).await;
        let answer = server.message().await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    server.request(json!("p"), "ping", json!({})).await;
    assert_eq!(server.message().await["result"], json!({}));
}

#[tokio::test]
async fn huge_result_writes_exactly_n_payload_bytes() {
    // Not a multiple of the 64 KiB write chunk, to catch an off-by-one in the last chunk.
    const N: usize = 3 * 1024 * 1024 + 17;
    let mut server = spawn(StdioMode::HugeResult { bytes: N as u64 });
    server.initialize().await;
    server
        .request(json!("big"), "tools/call", json!({"name": "whatever"}))
        .await;
    let line = server.line().await.expect("a line");
    let prefix = br#"{"jsonrpc":"2.0","id":"big","result":{"content":[{"type":"text","text":""#;
    let suffix = b"\"}]}}\n";
    assert!(line.starts_with(prefix));
    assert!(line.ends_with(suffix));
    let payload = &line[prefix.len()..line.len() - suffix.len()];
    assert_eq!(payload.len(), N);
    assert!(payload.iter().all(|&b| b == b'x'));
    // And it is one valid JSON message, not just the right bytes.
    let message: Value = serde_json::from_slice(&line).expect("valid JSON");
    assert_eq!(
        message["result"]["content"][0]["text"]
            .as_str()
            .map(str::len),
        Some(N)
    );
}

#[tokio::test]
async fn many_tools_pages_cover_exactly_n_tools() {
    let mut server = spawn(StdioMode::ManyTools {
        count: 123,
        page_size: 10,
    });
    server.initialize().await;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        server.request(json!(pages), "tools/list", params).await;
        let page = server.message().await;
        pages += 1;
        for tool in page["result"]["tools"].as_array().expect("tools") {
            names.push(tool["name"].as_str().expect("name").to_owned());
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    assert_eq!(pages, 13);
    let expected: Vec<String> = (0..123).map(|i| format!("tool-{i:04}")).collect();
    assert_eq!(names, expected);

    server
        .request(
            json!("bad"),
            "tools/list",
            json!({"cursor": "not-a-cursor"}),
        )
        .await;
    assert_eq!(server.message().await["error"]["code"], -32602);

    server
        .request(json!("call"), "tools/call", json!({"name": "tool-0122"}))
        .await;
    assert_eq!(
        server.message().await["result"]["content"][0]["text"],
        "called tool-0122"
    );
}

#[tokio::test]
async fn flood_sends_every_notification_in_order_then_the_result() {
    const N: u64 = 5000;
    let mut server = spawn(StdioMode::Flood { count: N });
    let init = server.initialize().await;
    assert!(init["result"]["capabilities"].get("logging").is_some());
    server
        .request(json!(9), "tools/call", json!({"name": "flood"}))
        .await;
    for seq in 0..N {
        let message = server.message().await;
        assert_eq!(
            message,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": {"seq": seq}}})
        );
    }
    let result = server.message().await;
    assert_eq!(result["id"], 9);
    assert_eq!(result["result"]["content"][0]["text"], format!("sent {N}"));
}

#[tokio::test]
async fn no_final_newline_ends_stdout_mid_line_and_exits_0() {
    let mut server = spawn(StdioMode::NoFinalNewline);
    server.initialize().await;
    server.request(json!(5), "tools/list", json!({})).await;
    let rest = server.rest_of_stdout().await;
    assert_ne!(rest.last(), Some(&b'\n'));
    assert!(
        !rest.contains(&b'\n'),
        "the tools/list answer is the only thing left"
    );
    let answer: Value = serde_json::from_slice(&rest).expect("complete JSON");
    assert_eq!(answer["id"], 5);
    assert_eq!(answer["result"]["tools"][0]["name"], "echo");
    assert_eq!(server.exit_status().await.code(), Some(0));
}

#[tokio::test]
async fn slow_start_answers_only_after_the_delay() {
    let started = Instant::now();
    let mut server = spawn(StdioMode::SlowStart { delay_ms: 300 });
    server.initialize().await;
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn progress_forever_ticks_until_cancelled_and_never_answers() {
    let mut server = spawn(StdioMode::ProgressForever);
    server.initialize().await;
    server
        .request(
            json!(7),
            "tools/call",
            json!({"name": "forever", "_meta": {"progressToken": "tok-7"}}),
        )
        .await;
    let mut last = 0;
    for _ in 0..2 {
        let tick = server.message().await;
        assert_eq!(tick["method"], "notifications/progress");
        assert_eq!(tick["params"]["progressToken"], "tok-7");
        let progress = tick["params"]["progress"].as_u64().expect("progress");
        assert!(progress > last, "progress must increase");
        last = progress;
    }
    server
        .notify(
            "notifications/cancelled",
            json!({"requestId": 7, "reason": "test"}),
        )
        .await;
    // The id is printed as JSON: 7, not "7".
    server.stderr_contains(b"cancelled 7\n").await;
    server.request(json!("after"), "ping", json!({})).await;
    loop {
        let message = server.message().await;
        assert!(
            message.get("result").is_none() || message["id"] == "after",
            "{message}"
        );
        if message["id"] == "after" {
            break;
        }
    }
    // Two and a half periods of silence: nothing after the cancellation, and no answer ever.
    assert!(
        server
            .line_within(Duration::from_millis(500))
            .await
            .is_err(),
        "wrote after cancellation"
    );
}

#[tokio::test]
async fn never_answers_call_stays_silent_and_reports_cancellation() {
    let mut server = spawn(StdioMode::NeverAnswersCall);
    server.initialize().await;
    server.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(server.message().await["result"]["tools"][0]["name"], "hang");
    server
        .request(json!("call-1"), "tools/call", json!({"name": "hang"}))
        .await;
    server.request(json!(3), "ping", json!({})).await;
    // The very next line is the ping's answer: the call was not answered before it.
    assert_eq!(server.message().await["id"], 3);
    server
        .notify("notifications/cancelled", json!({"requestId": "call-1"}))
        .await;
    server
        .stderr_contains(b"got notifications/cancelled for \"call-1\"\n")
        .await;
    assert!(
        server
            .line_within(Duration::from_millis(200))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn stderr_chatter_writes_awkward_stderr_and_still_serves() {
    // Bigger than a 64 KiB pipe buffer: the answer only arrives because stderr is drained.
    const LONG: usize = 200_000;
    let mut server = spawn(StdioMode::StderrChatter {
        lines: 20,
        long_line_bytes: LONG,
    });
    server.initialize().await;
    server
        .request(json!(1), "tools/call", echo("still here"))
        .await;
    assert_eq!(
        server.message().await["result"]["content"][0]["text"],
        "still here"
    );
    server.close_stdin();
    let stderr = server.stderr_at_exit().await;
    assert!(contains(&stderr, b"\xFF\xFE\xC3\x28"), "invalid UTF-8 kept");
    assert!(contains(&stderr, b"\x1b[33mWARN\x1b[0m"), "ANSI kept");
    assert!(contains(&stderr, b"10%\rprogress 50%\r"), "CR kept");
    let long = stderr
        .split(|&b| b == b'\n')
        .find(|line| line.len() >= LONG)
        .expect("the long line");
    assert_eq!(long.len(), b"[chatter] long line: ".len() + LONG);
    assert_eq!(
        stderr
            .split(|&b| b == b'\n')
            .filter(|l| contains(l, b"INFO warming up"))
            .count(),
        20
    );
    assert!(
        stderr.ends_with(b"\n[chatter] stdin closed, bye"),
        "unterminated last line"
    );
}

const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

fn modern_meta() -> Value {
    json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"elicitation": {}}})
}

#[tokio::test]
async fn modern_discovers_checks_meta_and_rejects_initialize() {
    let mut server = spawn(StdioMode::Modern);
    server
        .request(json!(1), "server/discover", json!({"_meta": modern_meta()}))
        .await;
    let discover = server.message().await["result"].clone();
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discover["capabilities"], json!({"tools": {}}));
    assert_eq!(discover["ttlMs"], 0);
    assert_eq!(discover["cacheScope"], "public");
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpscope-testkit-modern"
    );

    server.request(json!(2), "tools/list", json!({})).await;
    assert_eq!(server.message().await["error"]["code"], -32602);

    server
        .request(
            json!(3),
            "tools/list",
            json!({"_meta": {PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: {}}}),
        )
        .await;
    let error = server.message().await["error"].clone();
    assert_eq!(error["code"], -32022);
    assert_eq!(
        error["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );

    server
        .request(
            json!(4),
            "initialize",
            json!({"protocolVersion": "2025-11-25"}),
        )
        .await;
    assert_eq!(server.message().await["error"]["code"], -32601);

    server
        .request(json!(5), "tools/list", json!({"_meta": modern_meta()}))
        .await;
    let list = server.message().await["result"].clone();
    let names: Vec<&str> = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "ask", "ask-forever", "empty-round"]);
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["cacheScope"], "public");
}

#[tokio::test]
async fn modern_ask_needs_the_exact_request_state() {
    let mut server = spawn(StdioMode::Modern);
    let call = |extra: Value| {
        let mut params = json!({"name": "ask", "_meta": modern_meta()});
        for (k, v) in extra.as_object().expect("object") {
            params[k] = v.clone();
        }
        params
    };
    let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});

    server
        .request(json!(1), "tools/call", call(json!({})))
        .await;
    let first = server.message().await["result"].clone();
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(first["requestState"], "state-1");
    assert_eq!(
        first["inputRequests"]["name"]["method"],
        "elicitation/create"
    );

    // An altered state is not ours: a new round starts instead of completing.
    server
        .request(
            json!(2),
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": "state-1x"})),
        )
        .await;
    assert_eq!(server.message().await["result"]["requestState"], "state-1");

    server
        .request(
            json!(3),
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": "state-1"})),
        )
        .await;
    let done = server.message().await["result"].clone();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(
        done["content"][0]["text"],
        "Hello, Ada! (after 1 input round(s))"
    );

    let mut forever = call(json!({"inputResponses": answer, "requestState": "state-9"}));
    forever["name"] = json!("ask-forever");
    server.request(json!(4), "tools/call", forever).await;
    let again = server.message().await["result"].clone();
    assert_eq!(again["resultType"], "input_required");
    assert_eq!(again["requestState"], "state-10");

    let mut no_elicitation = call(json!({}));
    no_elicitation["_meta"][CLIENT_CAPABILITIES] = json!({});
    server.request(json!(5), "tools/call", no_elicitation).await;
    assert_eq!(server.message().await["error"]["code"], -32021);
}

#[test]
fn bin_path_finds_the_built_binary() {
    // Exercises the helper other crates use; cargo reports this same executable.
    let path = mcpscope_testkit::bin_path().expect("bin_path");
    assert!(path.is_file(), "{}", path.display());
    assert_eq!(
        path.file_name().and_then(|n| n.to_str()),
        Some(mcpscope_testkit::BIN_NAME)
    );
}

#[tokio::test]
async fn run_stdio_on_serves_in_process_over_any_pipes() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server);
    let task = tokio::spawn(mcpscope_testkit::run_stdio_on(
        StdioMode::Garbage,
        server_in,
        server_out,
        tokio::io::sink(),
    ));
    let (client_out, mut client_in) = tokio::io::split(client);
    let mut lines = BufReader::new(client_out);
    client_in
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .await
        .expect("write");
    for expected in GARBAGE_NOISE {
        let mut line = Vec::new();
        lines.read_until(b'\n', &mut line).await.expect("read");
        assert_eq!(line, expected);
    }
    let mut line = Vec::new();
    lines.read_until(b'\n', &mut line).await.expect("read");
    assert_eq!(line, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    // End of input ends the server with status 0, like a closed stdin.
    client_in.shutdown().await.expect("shutdown");
    let status = tokio::time::timeout(crate::support::DEADLINE, task)
        .await
        .expect("server ended")
        .expect("join");
    assert_eq!(status, 0);
}
