//! The demo over stdio, driven through the example binary with newline-delimited JSON-RPC, the
//! way any client (and mcpscope) talks to a child process.

use std::{path::PathBuf, process::Stdio, time::Duration};

use base64::Engine as _;
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    process::{Child, ChildStdin, Command},
    sync::mpsc,
};

const WAIT: Duration = Duration::from_secs(5);

/// The newest modification time of the files under `dir` (the demo's sources).
fn newest(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut best = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let t = if e.file_type().ok()?.is_dir() {
            newest(&e.path())
        } else {
            e.metadata().ok()?.modified().ok()
        };
        best = best.max(t);
    }
    best
}

/// The example binary, next to the test binaries' `deps` folder. A plain `cargo test` builds it,
/// but a run that selects only this test (`--test wire`) neither builds nor refreshes it, so ask
/// cargo once per run when it is missing or older than the demo's sources. (Asking always is not
/// free: `cargo build` unifies features without the dev-dependencies `cargo test` adds, so it
/// rebuilds a good part of the dependency tree.)
fn demo_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test binary path");
            let profile_dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .expect("target/<profile>");
            let binary = profile_dir
                .join("examples")
                .join(format!("demo{}", std::env::consts::EXE_SUFFIX));
            let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let sources = newest(&crate_dir.join("src")).max(newest(&crate_dir.join("examples")));
            let built = std::fs::metadata(&binary).and_then(|m| m.modified()).ok();
            if built.is_some() && built >= sources {
                return binary;
            }
            let mut build = std::process::Command::new(env!("CARGO"));
            build.args([
                "build",
                "--quiet",
                "-p",
                "mcpscope-demo",
                "--example",
                "demo",
            ]);
            if profile_dir
                .file_name()
                .is_some_and(|name| name == "release")
            {
                build.arg("--release");
            }
            let status = build.status().expect("cargo runs");
            assert!(status.success(), "building the demo example failed");
            assert!(binary.exists(), "no demo example at {}", binary.display());
            binary
        })
        .clone()
}

/// One running demo process and the lines it wrote.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<Value>,
    /// Notifications seen while waiting for responses, in order.
    notifications: Vec<Value>,
}

impl Peer {
    fn spawn() -> Self {
        let mut child = Command::new(demo_binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the demo example is built by cargo test");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while reader.read_line(&mut line).await.unwrap_or(0) > 0 {
                // Every stdout line must be a JSON-RPC message: parse strictly.
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
                assert_eq!(value["jsonrpc"], "2.0", "not JSON-RPC: {line}");
                if tx.send(value).is_err() {
                    break;
                }
                line.clear();
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
            notifications: Vec::new(),
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&line).await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn next(&mut self) -> Value {
        tokio::time::timeout(WAIT, self.lines.recv())
            .await
            .expect("the demo answered in time")
            .expect("the demo is still running")
    }

    /// Sends a request and returns its response; server→client requests on the way are answered
    /// by `answer`, notifications are kept in `self.notifications`.
    async fn call_answering(
        &mut self,
        id: u64,
        method: &str,
        params: Value,
        answer: impl Fn(&Value) -> Value,
    ) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            match (message.get("id"), message.get("method")) {
                (Some(got), None) if *got == json!(id) => return message,
                (Some(request_id), Some(_)) => {
                    let result = answer(&message);
                    self.send(json!({"jsonrpc": "2.0", "id": request_id, "result": result}))
                        .await;
                }
                (None, Some(_)) => self.notifications.push(message),
                _ => panic!("unexpected message {message}"),
            }
        }
    }

    async fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.call_answering(id, method, params, |request| {
            panic!("unexpected server request {request}")
        })
        .await
    }

    /// Closes stdin and checks the process then exits by itself.
    async fn close(mut self) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the demo exits when stdin closes")
            .unwrap();
        assert!(status.success(), "exit status {status}");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            use tokio::io::AsyncReadExt as _;
            pipe.read_to_string(&mut stderr).await.unwrap();
        }
        assert_eq!(stderr, "", "the demo wrote to stderr");
    }

    fn take_notifications(&mut self, method: &str) -> Vec<Value> {
        let (taken, kept) = std::mem::take(&mut self.notifications)
            .into_iter()
            .partition(|n| n["method"] == method);
        self.notifications = kept;
        taken
    }
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {response}"))
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "1"},
    })
}

async fn legacy_peer() -> Peer {
    let mut peer = Peer::spawn();
    let init = peer
        .call(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}},
                "clientInfo": {"name": "wire-test", "version": "1"},
            }),
        )
        .await;
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "mcpscope-demo");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    let caps = &result["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], true);
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert!(
        caps["prompts"].is_object()
            && caps["completions"].is_object()
            && caps["logging"].is_object()
    );
    // The 2025-11-25 core tasks capability, added by the shim because rmcp cannot type it.
    assert_eq!(caps["tasks"]["requests"]["tools"]["call"], json!({}));
    assert!(
        caps.get("extensions").is_none(),
        "tasks extension leaked into legacy: {caps}"
    );
    // Legacy results carry no resultType.
    assert!(result.get("resultType").is_none());
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    peer
}

#[tokio::test]
async fn legacy_stdio_tools_content_and_errors() {
    let mut peer = legacy_peer().await;

    let list = peer.call(2, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in [
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
        "research",
        "big",
        "fail",
        "show-app",
        "app-refresh",
        "model-only",
    ] {
        assert!(names.contains(&expected), "missing tool {expected}");
    }
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(
        tool("research")["execution"],
        json!({"taskSupport": "optional"})
    );
    assert!(tool("echo").get("execution").is_none());
    assert_eq!(tool("annotated-read")["annotations"]["readOnlyHint"], true);
    assert_eq!(
        tool("annotated-read")["annotations"]["openWorldHint"],
        false
    );
    assert_eq!(
        tool("delete-everything")["annotations"]["destructiveHint"],
        true
    );
    assert_eq!(
        tool("show-app")["_meta"]["ui"]["resourceUri"],
        "ui://demo/app.html"
    );
    assert_eq!(
        tool("route-query")["inputSchema"]["properties"]["dryRun"]["x-mcp-header"],
        "Dry-Run"
    );
    assert_eq!(
        tool("get-weather")["outputSchema"]["properties"]["temperature"]["type"],
        "number"
    );

    let echo = peer
        .call(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hi"}}),
        )
        .await;
    assert_eq!(text_of(&echo), "Echo: hi");
    assert!(echo["result"].get("resultType").is_none());
    assert!(echo["result"].get("_meta").is_none());

    let add = peer
        .call(
            4,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(text_of(&add), "3");

    let weather = peer
        .call(
            5,
            "tools/call",
            json!({"name": "get-weather", "arguments": {"city": "Paris"}}),
        )
        .await;
    let structured = &weather["result"]["structuredContent"];
    assert!(structured["temperature"].is_number() && structured["conditions"].is_string());
    let text: Value = serde_json::from_str(text_of(&weather)).unwrap();
    assert_eq!(&text, structured);

    let image = peer
        .call(6, "tools/call", json!({"name": "get-image"}))
        .await;
    let block = &image["result"]["content"][0];
    assert_eq!(block["type"], "image");
    assert_eq!(block["mimeType"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(block["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");

    let audio = peer
        .call(7, "tools/call", json!({"name": "get-audio"}))
        .await;
    let block = &audio["result"]["content"][0];
    assert_eq!(block["type"], "audio");
    let wav = base64::engine::general_purpose::STANDARD
        .decode(block["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(&wav[..4], b"RIFF");

    let links = peer
        .call(8, "tools/call", json!({"name": "get-resource-links"}))
        .await;
    let links = links["result"]["content"].as_array().unwrap();
    assert!(links.iter().all(|b| b["type"] == "resource_link"));
    assert!(links.iter().any(|b| b["uri"] == "demo://readme"));

    let embedded = peer
        .call(9, "tools/call", json!({"name": "get-embedded-resource"}))
        .await;
    let block = &embedded["result"]["content"][0];
    assert_eq!(block["type"], "resource");
    assert_eq!(block["resource"]["uri"], "demo://readme");
    assert!(
        block["resource"]["text"]
            .as_str()
            .unwrap()
            .contains("demo server")
    );

    let fail = peer.call(10, "tools/call", json!({"name": "fail"})).await;
    assert_eq!(fail["result"]["isError"], true);

    let big = peer
        .call(
            11,
            "tools/call",
            json!({"name": "big", "arguments": {"bytes": 1_000_003}}),
        )
        .await;
    let text = text_of(&big);
    assert_eq!(text.len(), 1_000_003);
    assert!(text.is_ascii());

    let unknown = peer
        .call(12, "tools/call", json!({"name": "no-such-tool"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602);

    let missing = peer
        .call(13, "resources/read", json!({"uri": "demo://missing"}))
        .await;
    assert_eq!(
        missing["error"]["code"], -32002,
        "legacy resource-not-found code"
    );

    peer.close().await;
}

#[tokio::test]
async fn legacy_stdio_server_requests_logging_and_notifications() {
    let mut peer = legacy_peer().await;
    let answer = |request: &Value| match request["method"].as_str().unwrap() {
        "elicitation/create" if request["params"]["mode"] == "url" => {
            assert_eq!(request["params"]["url"], "https://example.com/demo-consent");
            assert!(
                request["params"]["elicitationId"]
                    .as_str()
                    .is_some_and(|s| !s.is_empty())
            );
            json!({"action": "decline"})
        }
        "elicitation/create" => {
            let properties = request["params"]["requestedSchema"]["properties"]
                .as_object()
                .unwrap();
            assert_eq!(properties.len(), 13, "every elicitation field type");
            assert_eq!(
                properties["colour"]["enumNames"],
                json!(["Red", "Green", "Blue"])
            );
            json!({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com"}})
        }
        "sampling/createMessage" => json!({
            "role": "assistant", "model": "test-model",
            "content": {"type": "text", "text": "Paris."}
        }),
        "roots/list" => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        other => panic!("unexpected request {other}"),
    };

    let form = peer
        .call_answering(2, "tools/call", json!({"name": "elicit-form"}), answer)
        .await;
    assert!(text_of(&form).contains("action: accept"));
    assert!(text_of(&form).contains("ada@example.com"));
    let url = peer
        .call_answering(3, "tools/call", json!({"name": "elicit-url"}), answer)
        .await;
    assert!(text_of(&url).starts_with("action: decline"));
    let sample = peer
        .call_answering(
            4,
            "tools/call",
            json!({"name": "sample", "arguments": {"prompt": "Capital of France?"}}),
            answer,
        )
        .await;
    assert_eq!(text_of(&sample), "Paris.");
    let roots = peer
        .call_answering(5, "tools/call", json!({"name": "list-roots"}), answer)
        .await;
    assert!(text_of(&roots).contains("file:///work (work)"));

    let level = peer
        .call(6, "logging/setLevel", json!({"level": "warning"}))
        .await;
    assert_eq!(level["result"], json!({}));
    peer.call(7, "tools/call", json!({"name": "log-every-level"}))
        .await;
    let logs = peer.take_notifications("notifications/message");
    let levels: Vec<&str> = logs
        .iter()
        .map(|n| n["params"]["level"].as_str().unwrap())
        .collect();
    assert_eq!(
        levels,
        ["warning", "error", "critical", "alert", "emergency"]
    );
    assert!(logs.iter().all(|n| n["params"]["logger"] == "demo"));

    peer.call(8, "tools/call", json!({"name": "toggle-extra-tool"}))
        .await;
    assert_eq!(
        peer.take_notifications("notifications/tools/list_changed")
            .len(),
        1
    );
    let list = peer.call(9, "tools/list", json!({})).await;
    assert!(
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "extra-tool")
    );

    let progress_call = json!({
        "name": "slow", "arguments": {"durationMs": 300, "steps": 3}, "_meta": {"progressToken": "p"}
    });
    let slow = peer.call(10, "tools/call", progress_call).await;
    assert_eq!(text_of(&slow), "done after 3 steps");
    let progress = peer.take_notifications("notifications/progress");
    let messages: Vec<&str> = progress
        .iter()
        .map(|n| n["params"]["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["step 1 of 3", "step 2 of 3", "step 3 of 3"]);

    peer.close().await;
}

#[tokio::test]
async fn legacy_stdio_core_tasks_and_cancellation() {
    let mut peer = legacy_peer().await;
    let created = peer
        .call(
            2,
            "tools/call",
            json!({"name": "research", "arguments": {"topic": "bees"}, "task": {"ttl": 60000}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    let id = task["taskId"].as_str().unwrap().to_owned();

    let got = peer.call(3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["taskId"], id.as_str());
    let listed = peer.call(4, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id.as_str());
    let result = peer.call(5, "tasks/result", json!({"taskId": id})).await;
    assert!(text_of(&result).starts_with("Research on bees"));
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert!(result["result"].get("resultType").is_none());

    let unknown = peer.call(6, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
    let forbidden = peer
        .call(
            7,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "x"}, "task": {}}),
        )
        .await;
    assert_eq!(forbidden["error"]["code"], -32601);

    // A slow call stops when cancelled: its progress stops and no response ever comes.
    peer.send(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"durationMs": 4000, "steps": 20}, "_meta": {"progressToken": 8}}}))
        .await;
    // The optional notifications/tasks/status of the finished research task may come first.
    loop {
        let message = peer.next().await;
        if message["method"] == "notifications/progress" {
            break;
        }
        assert_eq!(message["method"], "notifications/tasks/status");
        assert_eq!(message["params"]["taskId"], id.as_str());
        assert_eq!(message["params"]["status"], "completed");
    }
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 8, "reason": "test"}}),
    )
    .await;
    let ping = peer.call(9, "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}));
    tokio::time::sleep(Duration::from_millis(500)).await;
    while let Ok(message) = peer.lines.try_recv() {
        assert_ne!(
            message.get("id"),
            Some(&json!(8)),
            "cancelled call answered: {message}"
        );
    }
    peer.close().await;
}

#[tokio::test]
async fn modern_stdio_discover_and_input_required() {
    let mut peer = Peer::spawn();
    let discover = peer
        .call(
            1,
            "server/discover",
            json!({"_meta": modern_meta(json!({}))}),
        )
        .await;
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpscope-demo"
    );
    assert_eq!(
        result["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );

    let with_elicitation = modern_meta(json!({"elicitation": {"form": {}}}));
    let first = peer
        .call(
            2,
            "tools/call",
            json!({"name": "elicit-form", "_meta": with_elicitation}),
        )
        .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    let request = &result["inputRequests"]["answer"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert!(request.get("id").is_none() && request.get("jsonrpc").is_none());
    let state = result["requestState"].as_str().unwrap().to_owned();

    let retry = peer
        .call(
            3,
            "tools/call",
            json!({
                "name": "elicit-form",
                "inputResponses": {"answer": {"action": "accept", "content": {"name": "Ada", "email": "a@b.c"}}},
                "requestState": state,
                "_meta": with_elicitation,
            }),
        )
        .await;
    assert_eq!(retry["result"]["resultType"], "complete");
    assert!(text_of(&retry).contains("action: accept"));
    assert_eq!(
        retry["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpscope-demo"
    );

    let forged = peer
        .call(
            4,
            "tools/call",
            json!({"name": "elicit-form", "inputResponses": {"answer": {"action": "accept"}},
                   "requestState": format!("{state}x"), "_meta": with_elicitation}),
        )
        .await;
    assert_eq!(forged["error"]["code"], -32602);

    let no_capability = peer
        .call(
            5,
            "tools/call",
            json!({"name": "sample", "arguments": {"prompt": "hi"},
                                      "_meta": modern_meta(json!({}))}),
        )
        .await;
    assert_eq!(no_capability["error"]["code"], -32021);
    assert_eq!(
        no_capability["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );

    let with_level = {
        let mut meta = modern_meta(json!({}));
        meta["io.modelcontextprotocol/logLevel"] = json!("critical");
        meta
    };
    peer.call(
        6,
        "tools/call",
        json!({"name": "log-every-level", "_meta": with_level}),
    )
    .await;
    let levels: Vec<Value> = peer
        .take_notifications("notifications/message")
        .iter()
        .map(|n| n["params"]["level"].clone())
        .collect();
    assert_eq!(
        levels,
        [json!("critical"), json!("alert"), json!("emergency")]
    );

    let tasks = modern_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let created = peer
        .call(
            7,
            "tools/call",
            json!({"name": "research", "arguments": {"topic": "ants"}, "_meta": tasks}),
        )
        .await;
    assert_eq!(created["result"]["resultType"], "task");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let got = peer
        .call(8, "tasks/get", json!({"taskId": id, "_meta": tasks}))
        .await;
    assert_eq!(got["result"]["status"], "working");

    let set_level = peer
        .call(
            9,
            "logging/setLevel",
            json!({"level": "debug", "_meta": modern_meta(json!({}))}),
        )
        .await;
    assert_eq!(set_level["error"]["code"], -32601);
    let missing = peer
        .call(
            10,
            "resources/read",
            json!({"uri": "demo://missing", "_meta": modern_meta(json!({}))}),
        )
        .await;
    assert_eq!(
        missing["error"]["code"], -32602,
        "2026-07-28 resource-not-found code"
    );

    // subscriptions/listen: acknowledged, then tagged change notifications.
    peer.send(
        json!({"jsonrpc": "2.0", "id": 11, "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": {"toolsListChanged": true, "promptsListChanged": true}}}),
    )
    .await;
    let ack = peer.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        11
    );
    peer.call(
        12,
        "tools/call",
        json!({"name": "toggle-extra-tool", "_meta": modern_meta(json!({}))}),
    )
    .await;
    let changed = loop {
        let changed = peer.take_notifications("notifications/tools/list_changed");
        if let Some(first) = changed.into_iter().next() {
            break first;
        }
        let message = peer.next().await;
        peer.notifications.push(message);
    };
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        11
    );
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}}),
    )
    .await;
    peer.close().await;
}
