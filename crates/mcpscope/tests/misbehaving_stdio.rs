//! The CLI against the testkit's misbehaving stdio servers: noise on stdout, silence, early
//! deaths, a wrong version, phantom capabilities, a 100 MB result, 1,000 paginated tools, a flood
//! of 100,000 notifications, an unterminated last line, and stderr chatter. Each test asserts
//! what a user sees: the exit code, the stderr JSON error, stdout, warnings and the trace.

use crate::misbehaving_support::{body, cli, cli_unparsed, cli_untraced, server};
use mcpscope_testkit::{GARBAGE_NOISE, StdioMode, TERMINAL_ESCAPES};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::Duration;

/// `args` followed by the server command for `mode`.
fn with_server(args: &[&str], mode: &StdioMode) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.extend(server(mode));
    all
}

/// `--no-validate`: these servers misbehave on a count of exchanges; the `tools/list` that checks
/// the arguments first would be one more.
const ECHO_HI: [&str; 9] = [
    "--method",
    "tools/call",
    "--tool-name",
    "echo",
    "--tool-arg",
    "text=hi",
    "--no-validate",
    "--format",
    "json",
];

#[test]
fn garbage_on_stdout_is_recorded_byte_for_byte_and_the_call_still_completes() {
    let run = cli("garbage", &with_server(&ECHO_HI, &StdioMode::Garbage));
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");

    // Noise before the initialize answer and before the call's answer, each line its own frame
    // with the exact bytes (the terminator excluded, so the CRLF line keeps its CR).
    let lines = run.frames("stdout-line");
    assert_eq!(lines.len(), 2 * (GARBAGE_NOISE.len() + 1), "{lines:#?}");
    let noise: Vec<&[u8]> = GARBAGE_NOISE
        .iter()
        .map(|l| l.strip_suffix(b"\n").expect("noise lines end in LF"))
        .collect();
    for (round, id) in [(0, 1), (1, 2)] {
        let start = round * (noise.len() + 1);
        for (i, expected) in noise.iter().enumerate() {
            assert_eq!(
                body(lines[start + i]),
                *expected,
                "noise line {i} before answer {id}"
            );
        }
        let answer: Value = serde_json::from_slice(&body(lines[start + noise.len()])).unwrap();
        assert_eq!(answer["id"], id);
    }
    // Bytes that are not UTF-8 cannot be JSON text in the trace: they are kept as base64.
    let binary = lines
        .iter()
        .find(|f| body(f).starts_with(b"\xFF\xFE"))
        .expect("the binary line");
    assert!(
        binary["base64"].is_string() && binary["text"].is_null(),
        "{binary}"
    );

    // Every noise frame is named by a warning, so nothing odd passes unremarked.
    let warnings = run.warnings();
    for round in 0..2 {
        for i in 0..noise.len() {
            let seq = &lines[round * (noise.len() + 1) + i]["seq"];
            let tag = format!("[frame {seq}]");
            assert!(
                warnings.iter().any(|w| w.ends_with(&tag)),
                "no warning names frame {seq} ({:?}); warnings: {warnings:#?}",
                String::from_utf8_lossy(noise[i])
            );
        }
    }
}

#[test]
fn a_server_that_never_answers_initialize_times_out_within_the_connect_timeout() {
    let run = cli(
        "silent",
        &with_server(
            &["--connect-timeout", "1000", "--method", "tools/list"],
            &StdioMode::Silent,
        ),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert!(run.elapsed < Duration::from_secs(3), "{}", run.dump());
    let error = run.error();
    assert_eq!(error["code"], "timeout");
    let message = run.message();
    assert!(
        message.contains("waiting for the answer to initialize") && message.contains("1000 ms"),
        "{message}"
    );
    // The silent server was shut down, not left behind: its exit is the trace's last word.
    let last = run.trace.last().expect("frames");
    assert!(
        last["meta"]["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("server process exited")),
        "{last}"
    );
}

#[test]
fn a_slow_but_correct_server_is_waited_for() {
    let run = cli(
        "slow-start",
        &with_server(
            &[&ECHO_HI[..], &["--connect-timeout", "5000"]].concat(),
            &StdioMode::SlowStart { delay_ms: 400 },
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
}

#[test]
fn a_server_that_exits_before_initializing_is_reported_with_its_status_and_stderr() {
    let run = cli(
        "exit-before-init",
        &with_server(&["--method", "tools/list"], &StdioMode::ExitBeforeInit),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert_eq!(run.error()["code"], "unreachable");
    let message = run.message();
    for part in [
        "exited with status 3",
        "fatal: missing API_KEY",
        "hint: set API_KEY in the server's environment",
    ] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
}

#[test]
fn a_server_that_dies_after_initializing_fails_the_request_with_its_status_and_stderr() {
    let run = cli(
        "exit-after-init",
        &with_server(&["--method", "tools/list"], &StdioMode::ExitAfterInit),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    let message = run.message();
    assert!(
        message.contains("exited with status 101") && message.contains("panic: boom"),
        "{message}"
    );
    // The handshake had succeeded: this is a death mid-session, not a connection failure.
    assert_eq!(run.sent("notifications/initialized").len(), 1);
    assert_eq!(run.sent("tools/list").len(), 1);
}

#[test]
fn a_wrong_protocol_version_is_named_and_the_client_disconnects() {
    let run = cli(
        "wrong-version",
        &with_server(&["--method", "tools/list"], &StdioMode::WrongVersion),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert_eq!(run.error()["code"], "protocol_error");
    let message = run.message();
    assert!(
        message.contains("\"1999-01-01\"") && message.contains("2025-11-25"),
        "{message}"
    );
    // Per the spec the client disconnects: nothing after the initialize answer.
    assert!(run.sent("notifications/initialized").is_empty());
    assert!(run.sent("tools/list").is_empty());
}

#[test]
fn capabilities_advertised_but_not_served_are_rpc_errors_that_say_so() {
    let init = cli(
        "phantom-init",
        &with_server(
            &["--method", "initialize", "--format", "json"],
            &StdioMode::PhantomCapabilities,
        ),
    );
    assert_eq!(init.code, 0, "{}", init.dump());
    let capabilities = &init.json()["result"]["capabilities"];
    assert!(capabilities["tools"].is_object() && capabilities["prompts"].is_object());

    for (method, capability) in [("tools/list", "tools"), ("prompts/list", "prompts")] {
        let run = cli(
            "phantom",
            &with_server(&["--method", method], &StdioMode::PhantomCapabilities),
        );
        assert_eq!(run.code, 1, "{}", run.dump());
        let error = run.error();
        assert_eq!(error["code"], "rpc_error");
        assert_eq!(error["rpcCode"], -32601);
        assert_eq!(error["advertisedCapability"], capability);
        assert!(run.message().contains("server bug"), "{}", run.message());
    }
}

/// The issue's number: a 100 MB tool result over stdio arrives intact. Deliberately full size
/// and not `#[ignore]`d, so CI runs it on every build.
#[test]
fn a_100_mb_result_arrives_intact() {
    const BYTES: u64 = 104_857_600;
    let scratch = crate::misbehaving_support::Scratch::new("huge-output");
    let output = scratch.path("result.json");
    // No --trace: writing the payload a second time would double the run, and what is checked
    // here is the result itself.
    let run = cli_untraced(
        "huge-result",
        &with_server(
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "huge",
                "--format",
                "json",
                "--output",
                output.to_str().expect("utf-8 path"),
            ],
            &StdioMode::HugeResult { bytes: BYTES },
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert!(run.stdout.is_empty(), "--output takes the document");
    // Parsing 100 MB as JSON in a debug build takes longer than the run itself, so the payload
    // is checked as bytes and everything around it as JSON: cut the run of x out, parse the rest.
    let doc = std::fs::read(&output).expect("output file");
    let marker = br#""text":"x"#;
    let start = doc[..doc.len().min(4096)]
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("the text block starts the payload")
        + marker.len()
        - 1;
    let end = start + BYTES as usize;
    assert!(end < doc.len(), "the document is shorter than the payload");
    static XS: [u8; 1 << 16] = [b'x'; 1 << 16];
    assert!(
        doc[start..end]
            .chunks(XS.len())
            .all(|c| c == &XS[..c.len()]),
        "the payload is not {BYTES} x characters"
    );
    assert_eq!(doc[end], b'"', "the payload is longer than {BYTES} bytes");
    let rest: Value = serde_json::from_slice(&[&doc[..start], &doc[end..]].concat())
        .expect("the output is one JSON document");
    assert_eq!(rest["result"]["content"][0]["text"], "");
    assert_eq!(rest["result"]["content"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_line_over_max_message_bytes_fails_clearly_without_reading_it_into_memory() {
    let run = cli(
        "huge-capped",
        &with_server(
            &[
                "--max-message-bytes",
                "1000000",
                "--method",
                "tools/call",
                "--tool-name",
                "huge",
                // The huge answer is the call's, id 2: no tools/list before it.
                "--no-validate",
            ],
            &StdioMode::HugeResult { bytes: 5_000_000 },
        ),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    let message = run.message();
    assert!(
        message.contains("1000000") && message.contains("--max-message-bytes"),
        "{message}"
    );
    // The over-long line is in the trace as what it is: its head, marked cut, with its size.
    let cut = run
        .frames("stdout-line")
        .into_iter()
        .find(|f| f["meta"]["truncated"] == true)
        .expect("a truncated frame");
    let head = body(cut);
    assert!(head.starts_with(br#"{"jsonrpc":"2.0","id":2,"result""#));
    assert!(head.len() <= 64 * 1024, "kept {} bytes", head.len());
    let note = cut["meta"]["note"].as_str().unwrap();
    assert!(note.contains("5000073 bytes"), "{note}");
    // And the session was wound down in order: the server exited on its own once stdin closed.
    assert!(
        run.trace.iter().any(|f| f["meta"]["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("server process exited with status 0"))),
        "no orderly exit in the trace"
    );
}

/// A stdio server in a few lines of sh: it answers `initialize`, then answers the call only after
/// a 300 kB notification, far over the limit the test sets. Ids are echoed from the requests.
const OVERSIZED_NOTIFICATION_SERVER: &str = r#"
id_of() { printf '%s' "$1" | sed 's/.*"id":\([0-9]*\).*/\1/'; }
read -r line
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"sh","version":"0"}}}\n' "$(id_of "$line")"
read -r line
read -r line
printf '%s' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
head -c 300000 /dev/zero | tr '\0' y
printf '%s\n' '"}}'
printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"still here"}]}}\n' "$(id_of "$line")"
cat >/dev/null
"#;

#[test]
fn an_over_long_notification_is_cut_and_the_call_it_interrupts_still_completes() {
    let run = cli(
        "oversized-notification",
        &[
            "--max-message-bytes",
            "100000",
            "--method",
            "tools/call",
            "--tool-name",
            "any",
            // The script answers initialize and one call, nothing else.
            "--no-validate",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            OVERSIZED_NOTIFICATION_SERVER,
        ],
    );
    // The cut line began a notification, so no request was waiting on it: the call goes on.
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "still here");
    let cut = run
        .frames("stdout-line")
        .into_iter()
        .find(|f| f["meta"]["truncated"] == true)
        .expect("the notification, cut");
    assert!(body(cut).starts_with(br#"{"jsonrpc":"2.0","method":"notifications/message""#));
    let seq = &cut["seq"];
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("exceeds --max-message-bytes 100000")
                && w.ends_with(&format!("[frame {seq}]"))),
        "{:#?}",
        run.warnings()
    );
}

#[test]
fn an_over_long_stderr_line_is_cut_and_the_session_goes_on() {
    let run = cli(
        "chatter-capped",
        &with_server(
            &[&ECHO_HI[..], &["--max-message-bytes", "100000"]].concat(),
            &StdioMode::StderrChatter {
                lines: 10,
                long_line_bytes: 1_048_576,
            },
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
    let cut = run
        .frames("stderr-line")
        .into_iter()
        .find(|f| f["meta"]["truncated"] == true)
        .expect("the long stderr line, cut");
    assert!(body(cut).starts_with(b"[chatter] long line: eee"));
    let seq = &cut["seq"];
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("cut short") && w.ends_with(&format!("[frame {seq}]"))),
        "{:#?}",
        run.warnings()
    );
}

#[test]
fn stderr_chatter_is_served_normally_and_every_stderr_line_is_kept() {
    let run = cli(
        "chatter",
        &with_server(
            &ECHO_HI,
            &StdioMode::StderrChatter {
                lines: 1000,
                long_line_bytes: 1_048_576,
            },
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["content"][0]["text"], "hi");
    let stderr: Vec<Vec<u8>> = run.frames("stderr-line").into_iter().map(body).collect();
    let ordinary = stderr
        .iter()
        .filter(|l| l.ends_with(b": INFO warming up worker pool"))
        .count();
    assert_eq!(ordinary, 1000);
    let mut long = b"[chatter] long line: ".to_vec();
    long.resize(long.len() + 1_048_576, b'e');
    for expected in [
        &b"\x1b[33mWARN\x1b[0m [chatter] coloured log line"[..],
        b"[chatter] invalid UTF-8 follows: \xFF\xFE\xC3\x28 end",
        b"[chatter] progress 10%\rprogress 50%\rprogress 100%",
        &long,
        // Written without a newline as the server exits: still a line of its own.
        b"[chatter] stdin closed, bye",
    ] {
        assert!(
            stderr.iter().any(|l| l == expected),
            "missing stderr line {:?}",
            String::from_utf8_lossy(&expected[..expected.len().min(60)])
        );
    }
    let invalid = run
        .frames("stderr-line")
        .into_iter()
        .find(|f| body(f).starts_with(b"[chatter] invalid UTF-8"))
        .unwrap();
    assert!(invalid["base64"].is_string(), "{invalid}");
}

#[test]
fn a_thousand_tools_are_listed_across_pages() {
    let mode = StdioMode::ManyTools {
        count: 1000,
        page_size: 50,
    };
    let all = cli(
        "many-tools",
        &with_server(&["--method", "tools/list", "--format", "json"], &mode),
    );
    assert_eq!(all.code, 0, "{}", all.dump());
    let result = &all.json()["result"];
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..1000).map(|i| format!("tool-{i:04}")).collect();
    assert_eq!(names, expected);
    assert!(result.get("nextCursor").is_none());
    // Twenty pages, each asked for with the cursor the previous one returned.
    let cursors: Vec<Value> = all
        .sent("tools/list")
        .iter()
        .map(|m| m["params"]["cursor"].clone())
        .collect();
    let mut want = vec![Value::Null];
    want.extend((1..20).map(|p| json!(format!("cursor-{}", p * 50))));
    assert_eq!(cursors, want);

    let first = cli(
        "many-tools-first",
        &with_server(
            &["--method", "tools/list", "--format", "json", "--first-page"],
            &mode,
        ),
    );
    assert_eq!(first.code, 0, "{}", first.dump());
    let page = &first.json()["result"];
    assert_eq!(page["tools"].as_array().unwrap().len(), 50);
    assert_eq!(page["nextCursor"], "cursor-50");
    assert_eq!(first.sent("tools/list").len(), 1);

    let last = cli(
        "many-tools-cursor",
        &with_server(
            &[
                "--method",
                "tools/list",
                "--format",
                "json",
                "--cursor",
                "cursor-950",
            ],
            &mode,
        ),
    );
    assert_eq!(last.code, 0, "{}", last.dump());
    let page = &last.json()["result"];
    assert_eq!(page["tools"][0]["name"], "tool-0950");
    assert_eq!(page["tools"].as_array().unwrap().len(), 50);
    assert!(page.get("nextCursor").is_none());
    assert_eq!(last.sent("tools/list")[0]["params"]["cursor"], "cursor-950");
}

/// The issue's number: 100,000 notifications in a burst, none lost, none reordered. Full size
/// and not `#[ignore]`d, so CI runs it on every build.
#[test]
fn a_flood_of_100_000_notifications_is_neither_lost_nor_reordered() {
    const COUNT: u64 = 100_000;
    let run = cli_unparsed(
        "flood",
        &with_server(
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "flood",
                "--format",
                "json",
            ],
            &StdioMode::Flood { count: COUNT },
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(
        run.json()["result"]["content"][0]["text"],
        format!("sent {COUNT}")
    );
    assert!(run.warnings().is_empty(), "{:#?}", run.warnings());
    // Only the fields needed, read line by line: 100,000 frames as full JSON values would make
    // the check slower than the run.
    #[derive(serde::Deserialize)]
    struct Slim {
        seq: u64,
        method: Option<String>,
        text: Option<String>,
    }
    let trace = BufReader::new(std::fs::File::open(&run.trace_file).expect("trace"));
    let mut last_seq = 0;
    let mut next = 0u64;
    for line in trace.lines() {
        let frame: Slim = serde_json::from_str(&line.expect("trace line")).expect("frame");
        // Frame numbers strictly increase through the whole trace …
        assert!(frame.seq > last_seq, "frame {} after {last_seq}", frame.seq);
        last_seq = frame.seq;
        // … and the notifications' own counters run 0..COUNT without a gap or a swap.
        if frame.method.as_deref() == Some("notifications/message") {
            let message: Value =
                serde_json::from_str(&frame.text.expect("UTF-8 text")).expect("JSON");
            assert_eq!(
                message["params"]["data"]["seq"], next,
                "frame {}",
                frame.seq
            );
            next += 1;
        }
    }
    assert_eq!(next, COUNT);
}

#[test]
fn a_final_line_without_a_newline_is_still_processed() {
    let run = cli(
        "no-final-newline",
        &with_server(
            &["--method", "tools/list", "--format", "json"],
            &StdioMode::NoFinalNewline,
        ),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["tools"][0]["name"], "echo");
    let last = run
        .frames("stdout-line")
        .pop()
        .expect("stdout frames")
        .clone();
    assert_eq!(last["method"], "tools/list");
    assert_eq!(last["meta"]["note"], "last line had no trailing newline");
    let seq = &last["seq"];
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.contains("no trailing newline") && w.ends_with(&format!("[frame {seq}]"))),
        "{:#?}",
        run.warnings()
    );
}

#[test]
fn a_request_without_progress_times_out_and_is_cancelled_on_the_wire() {
    let run = cli(
        "never-answers",
        &with_server(
            &[
                "--request-timeout",
                "500",
                "--method",
                "tools/call",
                "--tool-name",
                "hang",
            ],
            &StdioMode::NeverAnswersCall,
        ),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert_eq!(run.error()["code"], "timeout");
    let message = run.message();
    assert!(
        message.contains("tools/call timed out after 500 ms"),
        "{message}"
    );
    let call = &run.sent("tools/call")[0];
    let cancelled = run.sent("notifications/cancelled");
    assert_eq!(cancelled.len(), 1, "{cancelled:#?}");
    assert_eq!(cancelled[0]["params"]["requestId"], call["id"]);
    // The server saw it: its stderr acknowledgement is in the trace.
    let ack = format!("got notifications/cancelled for {}", call["id"]);
    assert!(
        run.frames("stderr-line")
            .iter()
            .any(|f| body(f) == ack.as_bytes()),
        "no {ack:?} on the server's stderr"
    );
}

/// In 2025-11-25 a server's `notifications/cancelled` names one of its own requests, whose ids
/// overlap with ours: it must never cancel the request of ours with the same id.
#[test]
fn a_legacy_servers_cancellation_does_not_touch_our_request_with_the_same_id() {
    const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "c", "version": "1"}}
    else:
        # Withdraw "our" request id first (it is the id of a request of this server's own).
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": m["id"], "reason": "timed out"}}), flush=True)
        r = {"tools": []}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;
    let run = cli(
        "legacy-cancelled",
        &[
            "--method",
            "tools/list",
            "--format",
            "json",
            "--",
            "python3",
            "-c",
            SERVER,
        ],
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    assert_eq!(run.json()["result"]["tools"], json!([]));
}

/// `s` with no byte a terminal would obey (ESC, BEL, C1): what the CLI writes for a person.
fn assert_inert(what: &str, s: &str) {
    let obeyed: Vec<char> = s.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(obeyed.is_empty(), "{what} holds {obeyed:?}:\n{s}");
}

/// A server's escape sequences (the clipboard, the window title, a screen clear) in its
/// stderr, a log line, a progress message and an error reach the terminal as visible text,
/// never as commands, and the trace keeps their bytes exact (issue 24 item 24).
#[test]
fn a_servers_escape_sequences_are_shown_never_obeyed_and_the_trace_keeps_them() {
    let mode = StdioMode::TerminalEscapes;
    let run = cli(
        "escapes",
        &with_server(
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "hostile",
                "--show-stderr",
            ],
            &mode,
        ),
    );
    assert_ne!(run.code, 0, "{}", run.dump());
    assert_inert("stderr", &run.stderr);
    assert_inert("stdout", &String::from_utf8_lossy(&run.stdout));
    // Shown as their pictures, so a person still sees that the server sent them.
    for part in [
        "server stderr: stderr ",
        "[error] log ",
        ": 1 progress ",
        "error ",
    ] {
        let shown = format!("{part}␛]52;c;cHduZWQ=␇␛]0;pwned-title␇␛[2J␛[H");
        assert!(
            run.stderr.lines().any(|l| l.contains(&shown)),
            "{shown:?} missing:\n{}",
            run.dump()
        );
    }
    let exact = format!("stderr {TERMINAL_ESCAPES}");
    assert!(
        run.frames("stderr-line")
            .iter()
            .any(|f| body(f) == exact.as_bytes()),
        "the trace must keep the stderr line byte for byte"
    );

    // A crashed server's last stderr lines, quoted in the failure, are cleaned the same way.
    let run = cli(
        "escapes-crash",
        &with_server(&["--method", "tools/call", "--tool-name", "crash"], &mode),
    );
    assert_eq!(run.code, 4, "{}", run.dump());
    assert_inert("stderr", &run.stderr);
    assert!(
        run.stderr.contains("fatal: ␛]52;c;cHduZWQ=␇"),
        "{}",
        run.dump()
    );
}
