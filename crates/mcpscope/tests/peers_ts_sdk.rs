//! A server on the official TypeScript SDK v2 (`testenv/peers/ts-sdk-server.mjs`), over stdio
//! and Streamable HTTP in the 2026-07-28 era: the `_meta` envelope and headers it checks, and its
//! `greet` tool's `input_required` round answered by our elicitation flags.

use crate::demo_harness::{Run, cli, header, reserved_meta_keys};
use crate::peers_support::Peers;
use serde_json::{Value, json};

struct Target {
    name: &'static str,
    args: Vec<String>,
    http: bool,
}

impl Target {
    /// `--protocol-era modern … --format json --lint`; the run, after checking the envelope on
    /// every request and, over HTTP, the standard headers.
    async fn modern(&self, args: &[&str], exit: i32) -> Run {
        let mut all: Vec<String> = ["--protocol-era", "modern", "--format", "json", "--lint"]
            .iter()
            .chain(args)
            .map(|a| (*a).to_owned())
            .collect();
        all.extend(self.args.iter().cloned());
        let run = cli(self.name, &all).await;
        run.expect_exit(exit);
        if exit == 0 {
            assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
        }
        let sent = run.sent();
        assert_eq!(sent[0]["method"], "server/discover", "{}", run.dump());
        for message in sent.iter().filter(|m| m.get("id").is_some()) {
            assert_eq!(reserved_meta_keys(message).len(), 3, "{message}");
        }
        if self.http {
            for frame in run.frames("http-request") {
                assert_eq!(
                    header(frame, "mcp-protocol-version"),
                    Some("2026-07-28"),
                    "{frame}"
                );
                assert!(header(frame, "mcp-method").is_some(), "{frame}");
                assert_eq!(header(frame, "mcp-session-id"), None, "{frame}");
            }
        }
        run
    }
}

fn text(run: &Run) -> String {
    run.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text\n{}", run.dump()))
        .to_owned()
}

async fn tour(target: &Target) {
    // Four independent runs, at the same time.
    let (list, add, read, prompt) = tokio::join!(
        target.modern(&["--method", "tools/list"], 0),
        target.modern(
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "add",
                "--tool-arg",
                "a=2",
                "--tool-arg",
                "b=3"
            ],
            0,
        ),
        target.modern(
            &["--method", "resources/read", "--uri", "testenv://readme"],
            0
        ),
        target.modern(
            &[
                "--method",
                "prompts/get",
                "--prompt-name",
                "hello",
                "--prompt-args",
                "name=Bo"
            ],
            0,
        ),
    );
    let names: Vec<Value> = list.result()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(
        names,
        [json!("echo"), json!("add"), json!("greet")],
        "{}",
        list.dump()
    );

    assert_eq!(add.result()["structuredContent"], json!({"sum": 5}));
    assert_eq!(add.result()["resultType"], "complete");
    if target.http {
        let post = add
            .frames("http-request")
            .into_iter()
            .find(|f| f["method"] == "tools/call")
            .cloned()
            .expect("the tools/call POST");
        assert_eq!(header(&post, "mcp-name"), Some("add"), "{post}");
    }

    assert_eq!(
        read.result()["contents"][0]["text"],
        "Hello from the TypeScript SDK v2 test peer."
    );
    assert_eq!(
        prompt.result()["messages"][0]["content"]["text"],
        "Say hello to Bo."
    );
}

async fn input_required(target: &Target) {
    let greet = |flags: &'static [&'static str]| async move {
        let mut args = vec!["--method", "tools/call", "--tool-name", "greet"];
        args.extend(flags);
        let run = target.modern(&args, 0).await;
        let calls = run.sent_method("tools/call");
        assert_eq!(calls.len(), 2, "one input_required round\n{}", run.dump());
        let first = run.response_to(&calls[0]["id"])["result"].clone();
        assert_eq!(first["resultType"], "input_required", "{}", run.dump());
        assert_eq!(
            first["inputRequests"]["name"]["method"],
            "elicitation/create"
        );
        // The retry: a new id, the server's requestState exactly as it came.
        assert_ne!(calls[0]["id"], calls[1]["id"]);
        assert_eq!(
            calls[1]["params"]["requestState"],
            "greet-round-1",
            "{}",
            run.dump()
        );
        assert_eq!(first["requestState"], "greet-round-1");
        let answer = calls[1]["params"]["inputResponses"]["name"].clone();
        (text(&run), answer)
    };
    let (defaults, json_answer, declined) = tokio::join!(
        greet(&["--elicitation", "accept-defaults"]),
        greet(&["--elicitation-json", r#"{"name":"Ada"}"#]),
        greet(&[]),
    );
    assert_eq!(defaults.0, "Hello, World!");
    assert_eq!(
        defaults.1,
        json!({"action": "accept", "content": {"name": "World"}})
    );
    assert_eq!(json_answer.0, "Hello, Ada!");
    assert_eq!(declined.0, "Hello, stranger.");
    assert_eq!(declined.1, json!({"action": "decline"}));
}

#[tokio::test]
async fn ts_sdk_modern_over_stdio() {
    let Some(peers) = Peers::get("ts_sdk_modern_over_stdio") else {
        return;
    };
    let target = Target {
        name: "ts-sdk/stdio",
        args: peers.stdio("ts-sdk-server.sh"),
        http: false,
    };
    tokio::join!(
        tour(&target),
        input_required(&target),
        auto_finds_modern(&target)
    );
}

#[tokio::test]
async fn ts_sdk_modern_over_http() {
    let Some(peers) = Peers::get("ts_sdk_modern_over_http") else {
        return;
    };
    let server = peers.serve("ts-sdk-server.sh", "http").await;
    let target = Target {
        name: "ts-sdk/http",
        // --server-url rather than a positional URL: `--prompt-args` takes every value up to
        // the next flag.
        args: vec!["--server-url".to_owned(), format!("{}/mcp", server.base)],
        http: true,
    };
    tokio::join!(
        tour(&target),
        input_required(&target),
        auto_finds_modern(&target)
    );
}

/// Auto finds the modern era by its probe and stays there.
async fn auto_finds_modern(target: &Target) {
    // Over stdio the probe's clock starts when Node does, and Node loading the SDK on a busy
    // machine can take longer than the default 3 s; a silent server is not what is tested here.
    let mut args: Vec<String> = [
        "--protocol-era",
        "auto",
        "--probe-timeout",
        "20000",
        "--method",
        "tools/list",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec();
    args.extend(target.args.iter().cloned());
    let run = cli(target.name, &args).await;
    run.expect_exit(0);
    assert!(run.sent_method("initialize").is_empty(), "{}", run.dump());
    assert_eq!(run.sent()[0]["method"], "server/discover");
    assert_eq!(run.result()["tools"][0]["name"], "echo", "{}", run.dump());
    assert!(run.json().get("warnings").is_none(), "{}", run.dump());
}
