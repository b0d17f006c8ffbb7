//! The rest of the CLI's methods against the demo in every era × transport cell: `ping`,
//! `logging/setLevel` and `--log-level`, progress on stderr, tasks, `--method` with
//! `--params-json`, `--lint` on a tour of the demo, and `mcpscope demo-server --http 0`
//! serving both HTTP transports.

use crate::demo_harness::{
    Cell, DemoHttp, Era, MCPSCOPE, Transport, cli, each, header, reserved_meta_keys,
};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt as _;

#[tokio::test]
async fn ping_is_legacy_only() {
    each(|cell| async move {
        let run = cell
            .run(&["--method", "ping", "--format", "json", "--lint"])
            .await;
        match cell.era {
            Era::Legacy => {
                run.expect_exit(0);
                assert_eq!(run.result(), json!({}));
                assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
            }
            Era::Modern => {
                // 2026-07-28 removed ping; the demo says so on every transport alike, and the
                // CLI says what to pass instead of "method not found" (issue 24's newcomer run).
                run.expect_exit(1);
                let error = run.error();
                assert_eq!(error["rpcCode"], -32601, "{}", run.dump());
                assert_eq!(error["code"], "usage", "{}", run.dump());
                let message = error["message"].as_str().unwrap();
                assert!(
                    message.starts_with("`ping` is not a method of 2026-07-28")
                        && message.ends_with(
                            "pass --protocol-era legacy to send it to a 2025-11-25 session"
                        ),
                    "{message}"
                );
            }
        }
        assert_eq!(run.sent_method("ping").len(), 1, "{}", run.dump());
    })
    .await;
}

#[tokio::test]
async fn log_level_by_set_level_or_per_request_meta() {
    each(|cell| async move {
        // Text mode: the logs go to stderr as they arrive.
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "log-every-level",
                "--log-level",
                "warning",
            ])
            .await;
        run.expect_exit(0);
        for level in ["warning", "error", "critical", "alert", "emergency"] {
            let line = format!("[{level}] demo: log-every-level: this is the {level} message");
            assert!(
                run.stderr.contains(&line),
                "missing {line:?}\n{}",
                run.dump()
            );
        }
        for level in ["debug", "info", "notice"] {
            assert!(
                !run.stderr.contains(&format!("[{level}]")),
                "{}",
                run.dump()
            );
        }
        let call = &run.sent_method("tools/call")[0];
        let set_level = run.sent_method("logging/setLevel");
        match cell.era {
            Era::Legacy => {
                // Set once for the session, before the call; never in _meta.
                assert_eq!(set_level.len(), 1, "{}", run.dump());
                assert_eq!(set_level[0]["params"], json!({"level": "warning"}));
                assert!(
                    call["params"]["_meta"]
                        .get("io.modelcontextprotocol/logLevel")
                        .is_none()
                );
            }
            Era::Modern => {
                assert!(set_level.is_empty(), "{}", run.dump());
                assert_eq!(
                    call["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
                    "warning",
                    "{}",
                    run.dump()
                );
            }
        }

        // logging/setLevel itself: a 2025-11-25 method that 2026-07-28 removed.
        let run = cell
            .run(&[
                "--method",
                "logging/setLevel",
                "--log-level",
                "debug",
                "--format",
                "json",
            ])
            .await;
        assert_eq!(
            run.sent_method("logging/setLevel")[0]["params"]["level"],
            "debug"
        );
        match cell.era {
            Era::Legacy => {
                run.expect_exit(0);
                assert_eq!(run.result(), json!({}));
            }
            Era::Modern => {
                run.expect_exit(1);
                let error = run.error();
                assert_eq!(error["rpcCode"], -32601, "{}", run.dump());
                assert!(
                    error["message"]
                        .as_str()
                        .unwrap()
                        .contains("pass --log-level with the method you run"),
                    "{}",
                    run.dump()
                );
                // The demo advertises `logging`, which in 2026-07-28 means the per-request
                // level: refusing the removed method is right, not a broken promise.
                assert!(
                    error.get("advertisedCapability").is_none(),
                    "{}",
                    run.dump()
                );
            }
        }
    })
    .await;
}

#[tokio::test]
async fn progress_shows_on_stderr_in_text_mode() {
    each(|cell| async move {
        let args = [
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "durationMs=300",
            "--tool-arg",
            "steps=3",
        ];
        let run = cell.run(&args).await;
        run.expect_exit(0);
        assert_eq!(run.json()["content"][0]["text"], "done after 3 steps");
        let progress: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("progress "))
            .collect();
        assert_eq!(
            progress,
            [
                "progress tools/call: 1/3 step 1 of 3",
                "progress tools/call: 2/3 step 2 of 3",
                "progress tools/call: 3/3 step 3 of 3"
            ],
            "{}",
            run.dump()
        );
        // The token we sent is the one the notifications carry.
        let token = run.sent_method("tools/call")[0]["params"]["_meta"]["progressToken"].clone();
        assert!(!token.is_null(), "{}", run.dump());
        let notes: Vec<Value> = run
            .received()
            .into_iter()
            .filter(|m| m["method"] == "notifications/progress")
            .collect();
        assert_eq!(notes.len(), 3, "{}", run.dump());
        assert!(notes.iter().all(|n| n["params"]["progressToken"] == token));

        // --format json keeps stderr silent.
        let mut quiet = args.to_vec();
        quiet.extend(["--format", "json"]);
        let run = cell.run(&quiet).await;
        run.expect_exit(0);
        assert_eq!(run.stderr, "", "{}", run.dump());
    })
    .await;
}

#[tokio::test]
async fn research_runs_as_a_task() {
    each(|cell| async move {
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "research",
                "--tool-arg",
                "topic=bees",
                "--task",
                "--format",
                "json",
                "--lint",
            ])
            .await;
        run.expect_exit(0);
        let doc = run.json();
        assert_eq!(doc["lint"], json!([]), "{}", run.dump());
        let text = doc["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.starts_with("Research on bees:"), "{}", run.dump());
        let call = &run.sent_method("tools/call")[0];
        let created = run.response_to(&call["id"])["result"].clone();
        match cell.era {
            Era::Legacy => {
                // 2025-11-25: the request asks for a task; the answer is {task}; the CLI polls
                // tasks/get and fetches tasks/result.
                assert!(call["params"]["task"].is_object(), "{}", run.dump());
                let id = created["task"]["taskId"].as_str().expect("a task id");
                assert_eq!(doc["task"]["task"]["taskId"], id);
                let fetched = run.sent_method("tasks/result");
                assert!(
                    !fetched.is_empty() || !run.sent_method("tasks/get").is_empty(),
                    "{}",
                    run.dump()
                );
                for request in run.sent_method("tasks/get").iter().chain(&fetched) {
                    assert_eq!(request["params"]["taskId"], id);
                }
            }
            Era::Modern => {
                // The tasks extension: declared in the client capabilities; the server decides.
                let caps = &call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
                assert!(
                    caps["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
                    "{}",
                    run.dump()
                );
                assert_eq!(created["resultType"], "task", "{}", run.dump());
                let id = created["taskId"].as_str().expect("a task id");
                let polls = run.sent_method("tasks/get");
                assert!(!polls.is_empty(), "{}", run.dump());
                assert!(polls.iter().all(|p| p["params"]["taskId"] == id));
                if cell.is_http() {
                    let post = run
                        .frames("http-request")
                        .into_iter()
                        .find(|f| f["method"] == "tasks/get")
                        .cloned()
                        .expect("a tasks/get POST");
                    assert_eq!(header(&post, "mcp-name"), Some(id), "{post}");
                }
            }
        }
    })
    .await;
}

#[tokio::test]
async fn any_method_with_params_json() {
    each(|cell| async move {
        // A known method entirely from --params-json.
        let run = cell
            .run(&[
                "--method",
                "prompts/get",
                "--params-json",
                r#"{"name":"greet","arguments":{"name":"Ada"}}"#,
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(0);
        assert_eq!(
            run.result()["messages"][0]["content"]["text"],
            "Say hello to Ada in one friendly sentence."
        );

        // An experimental method the demo does not serve: sent as given (plus the era's
        // envelope), refused by the server with -32601, exit 1.
        let run = cell
            .run(&[
                "--method",
                "experimental/echo",
                "--params-json",
                r#"{"values":[1,"two",{"three":3}]}"#,
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(1);
        assert_eq!(run.error()["rpcCode"], -32601, "{}", run.dump());
        let sent = &run.sent_method("experimental/echo")[0];
        assert_eq!(sent["params"]["values"], json!([1, "two", {"three": 3}]));
        match cell.era {
            Era::Legacy => assert!(reserved_meta_keys(sent).is_empty(), "{sent}"),
            Era::Modern => assert_eq!(reserved_meta_keys(sent).len(), 3, "{sent}"),
        }
        if cell.is_http() && cell.era == Era::Modern {
            let post = run
                .frames("http-request")
                .into_iter()
                .find(|f| f["method"] == "experimental/echo")
                .cloned()
                .expect("the POST");
            assert_eq!(header(&post, "mcp-method"), Some("experimental/echo"));
        }
    })
    .await;
}

#[tokio::test]
async fn toggling_a_tool_is_seen_on_every_http_transport_and_era() {
    // The toggle changes process-wide state: a server of our own, so no other test sees it.
    let demo = DemoHttp::start();
    let mut on = false;
    for era in [Era::Legacy, Era::Modern] {
        for transport in [Transport::Http, Transport::Sse] {
            let cell = Cell { era, transport };
            let run = |args: &[&str]| {
                let mut all = cell.target_on(&demo.base);
                all.extend(args.iter().map(|a| (*a).to_owned()));
                async move { cli(&cell.label(), &all).await }
            };
            let toggled =
                run(&["--method", "tools/call", "--tool-name", "toggle-extra-tool"]).await;
            toggled.expect_exit(0);
            on = !on;
            if (era, transport) == (Era::Legacy, Transport::Sse) {
                // One stream carries everything, in order: the session hears about the change
                // it caused before the tool's answer.
                let heard = toggled
                    .received()
                    .iter()
                    .any(|m| m["method"] == "notifications/tools/list_changed");
                assert!(heard, "{}", toggled.dump());
            }
            let listed = run(&["--method", "tools/list", "--format", "json"]).await;
            listed.expect_exit(0);
            let has_extra = listed.result()["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "extra-tool");
            assert_eq!(has_extra, on, "{}", listed.dump());
            if on {
                let called = run(&["--method", "tools/call", "--tool-name", "extra-tool"]).await;
                called.expect_exit(0);
                assert_eq!(
                    called.json()["content"][0]["text"],
                    "extra-tool says hello."
                );
            }
        }
    }
}

#[tokio::test]
async fn lint_passes_on_a_tour_of_the_demo() {
    // The tours of the other tests already lint most methods; these are the rest.
    each(|cell| async move {
        let tour: [&[&str]; 5] = [
            &["--method", "initialize"],
            &["--method", "tools/call", "--tool-name", "annotated-read"],
            &["--method", "tools/call", "--tool-name", "show-app"],
            &["--method", "resources/read", "--uri", "ui://demo/app.html"],
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "big",
                "--tool-arg",
                "bytes=100000",
            ],
        ];
        for args in tour {
            let mut all = args.to_vec();
            all.extend(["--format", "json", "--lint"]);
            let run = cell.run(&all).await;
            run.expect_exit(0);
            assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
        }
        // Text mode says so on stderr.
        let run = cell.run(&["--method", "tools/list", "--lint"]).await;
        run.expect_exit(0);
        assert!(
            run.stderr
                .contains("lint: every frame is valid against the official schema"),
            "{}",
            run.dump()
        );
    })
    .await;
}

#[tokio::test]
async fn demo_server_subcommand_serves_both_http_transports() {
    let mut server = tokio::process::Command::new(MCPSCOPE)
        .args(["demo-server", "--http", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpscope demo-server");
    let mut lines = tokio::io::BufReader::new(server.stderr.take().unwrap()).lines();
    let mut urls = Vec::new();
    while urls.len() < 2 {
        let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
            .await
            .expect("the demo server announces itself")
            .unwrap()
            .expect("the demo server is still running");
        let url = line
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{line}");
        urls.push(url);
    }
    assert!(
        urls[0].ends_with("/mcp") && urls[1].ends_with("/sse"),
        "{urls:?}"
    );
    for url in &urls {
        for era in ["legacy", "modern"] {
            let args = [
                "--protocol-era",
                era,
                url,
                "--method",
                "tools/list",
                "--format",
                "json",
            ]
            .map(String::from);
            let run = cli(url, &args).await;
            run.expect_exit(0);
            assert_eq!(run.result()["tools"][0]["name"], "echo", "{}", run.dump());
            // The path picks the transport: /sse opens an event stream first.
            let first = run.frames("http-request")[0]["meta"]["method"].clone();
            let want = if url.ends_with("/sse") { "GET" } else { "POST" };
            assert_eq!(first, want, "{}", run.dump());
        }
    }
    server.kill().await.expect("stop the demo server");
}
