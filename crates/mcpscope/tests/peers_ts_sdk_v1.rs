//! A server on the official TypeScript SDK v1 (`testenv/peers/ts-sdk-v1-server.mjs`, SDK 1.32.2,
//! 2025-11-25 era only) over every transport v1 offers — stdio, Streamable HTTP stateful and
//! stateless, with SSE and with JSON responses, and the deprecated HTTP+SSE: lists, calls,
//! reads, prompts, completion, logging, progress, cancellation on a request timeout, and the
//! server→client requests (form and URL elicitation, sampling, roots) answered by our flags.

use crate::demo_harness::{Run, cli, header, reserved_meta_keys};
use crate::peers_support::{PeerServer, Peers};
use serde_json::{Value, json};

/// How the server is reached; each is one of the server script's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Stdio,
    /// Streamable HTTP with `Mcp-Session-Id`, SSE responses.
    Http,
    /// Streamable HTTP without sessions (`sessionIdGenerator: undefined`), SSE responses.
    HttpStateless,
    /// Streamable HTTP with sessions and `enableJsonResponse: true`.
    HttpJson,
    /// The deprecated HTTP+SSE transport.
    Sse,
}

impl Mode {
    fn script_mode(self) -> &'static str {
        match self {
            Mode::Stdio => "stdio",
            Mode::Http => "http",
            Mode::HttpStateless => "http-stateless",
            Mode::HttpJson => "http-json",
            Mode::Sse => "sse",
        }
    }

    fn streamable(self) -> bool {
        matches!(self, Mode::Http | Mode::HttpStateless | Mode::HttpJson)
    }
}

struct Target {
    mode: Mode,
    /// The connection arguments, last on the command line (stdio ends with `-- command …`).
    args: Vec<String>,
    /// The HTTP server, kept alive for the target's runs (stdio: none).
    server: Option<PeerServer>,
    /// Over stdio every run starts Node and loads the SDK (CPU-bound): a few at a time finish
    /// as soon as all at once, without each waiting its handshake out behind twenty others.
    at_once: tokio::sync::Semaphore,
}

impl Target {
    async fn start(peers: &Peers, mode: Mode) -> Target {
        if mode == Mode::Stdio {
            let mut args = vec!["--connect-timeout".to_owned(), "45000".to_owned()];
            args.extend(peers.stdio("ts-sdk-v1-server.sh"));
            return Target {
                mode,
                args,
                server: None,
                at_once: tokio::sync::Semaphore::new(3),
            };
        }
        let server = peers.serve("ts-sdk-v1-server.sh", mode.script_mode()).await;
        let path = if mode == Mode::Sse { "sse" } else { "mcp" };
        Target {
            mode,
            // --server-url rather than a positional URL: `--prompt-args` takes every value up to
            // the next flag.
            args: vec!["--server-url".to_owned(), format!("{}/{path}", server.base)],
            server: Some(server),
            at_once: tokio::sync::Semaphore::new(64),
        }
    }

    fn label(&self) -> String {
        format!("ts-sdk-v1/{}", self.mode.script_mode())
    }

    /// `mcpscope --cli <args…> <target>`; the legacy era is the CLI's default.
    async fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        all.extend(self.args.iter().cloned());
        let permit = self
            .at_once
            .acquire()
            .await
            .expect("the semaphore stays open");
        let run = cli(&self.label(), &all).await;
        drop(permit);
        self.check_wire(&run);
        run
    }

    /// `--format json --lint`: exit 0, not one lint finding; the result.
    async fn ok(&self, args: &[&str]) -> (Value, Run) {
        let mut all = args.to_vec();
        all.extend(["--format", "json", "--lint"]);
        let run = self.run(&all).await;
        run.expect_exit(0);
        assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
        (run.result(), run)
    }

    /// A tool's text through `ok`.
    async fn call_text(&self, tool: &str, flags: &[&str]) -> (String, Run) {
        let mut args = vec!["--method", "tools/call", "--tool-name", tool];
        args.extend(flags);
        let (result, run) = self.ok(&args).await;
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text\n{}", run.dump()))
            .to_owned();
        (text, run)
    }

    /// What every run must show on the wire: a legacy handshake (after an auto probe), none of
    /// the 2026-07-28 envelope, and the transport's own session rules.
    fn check_wire(&self, run: &Run) {
        let sent = run.sent();
        let Some(first) = sent.first() else { return };
        assert!(
            first["method"] == "initialize" || first["method"] == "server/discover",
            "{}",
            run.dump()
        );
        // (An auto probe is a modern request; everything after it is legacy.)
        assert!(
            sent.iter()
                .filter(|m| m["method"] != "server/discover")
                .all(|m| reserved_meta_keys(m).is_empty()),
            "{}",
            run.dump()
        );
        if !self.mode.streamable() {
            return;
        }
        for request in run.frames("http-request") {
            let session = header(request, "mcp-session-id");
            let opening =
                request["method"] == "initialize" || request["method"] == "server/discover";
            match self.mode {
                // The SDK hands out no session: we never invent one.
                Mode::HttpStateless => assert_eq!(session, None, "{request}\n{}", run.dump()),
                // Every request after initialize carries the session the SDK handed out.
                _ => assert_eq!(session.is_some(), !opening, "{request}\n{}", run.dump()),
            }
        }
    }
}

/// Everything, for one transport, all at once.
async fn every_feature(mode: Mode) {
    let Some(peers) = Peers::get(&format!("ts_sdk_v1_{}", mode.script_mode())) else {
        return;
    };
    let target = Target::start(&peers, mode).await;
    tokio::join!(
        lists_and_calls(&target),
        reads_and_prompts(&target),
        completion(&target),
        logging(&target),
        progress(&target),
        cancellation(&target),
        interactions(&target),
    );
}

/// The server→client requests; a stateless SDK v1 server cannot make them work (see below).
async fn interactions(target: &Target) {
    if target.mode == Mode::HttpStateless {
        stateless_interactions(target).await;
    } else {
        tokio::join!(elicitation(target), sampling_and_roots(target));
    }
}

/// Without sessions every POST meets a fresh SDK server: it has seen no `initialize`, so it
/// refuses elicitation for want of the client's capabilities (a tool error we show as such), and
/// our answer to its sampling request goes to yet another instance, so the call only times out.
/// Upstream behaviour of SDK v1 stateless servers, not ours to fix.
async fn stateless_interactions(target: &Target) {
    let (form, sample) = tokio::join!(
        target.run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "ask-name",
            "--elicitation",
            "accept-defaults",
            "--format",
            "json"
        ]),
        target.run(&[
            "--request-timeout",
            "3000",
            "--method",
            "tools/call",
            "--tool-name",
            "sample",
            "--tool-arg",
            "prompt=x",
            "--sampling-text",
            "hi"
        ]),
    );
    form.expect_exit(5);
    assert_eq!(
        form.result()["content"][0]["text"],
        "Client does not support form elicitation.",
        "{}",
        form.dump()
    );
    sample.expect_exit(4);
    assert_eq!(sample.error()["code"], "timeout", "{}", sample.dump());
    // We did answer, on a POST of its own — which met a server that never asked.
    let (_, answer) = server_request(&sample, "sampling/createMessage");
    assert_eq!(
        answer["result"]["content"]["text"],
        "hi",
        "{}",
        sample.dump()
    );
}

async fn lists_and_calls(target: &Target) {
    let (list, add, echo) = tokio::join!(
        target.ok(&["--method", "tools/list"]),
        target.call_text("add", &["--tool-arg", "a=2", "--tool-arg", "b=3"]),
        target.call_text("echo", &["--tool-arg", "message=hi there"]),
    );
    let names: Vec<&str> = list.0["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "slow",
            "log-levels",
            "ask-name",
            "open-link",
            "sample",
            "roots"
        ],
        "{}",
        list.1.dump()
    );
    // What the SDK says about itself in the handshake.
    let init = list
        .1
        .response_to(&list.1.sent_method("initialize")[0]["id"]);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["result"]["serverInfo"],
        json!({"name": "mcpscope-testenv-ts-sdk-v1-server", "version": "1.32.2"})
    );
    assert_eq!(add.0, "5");
    let add_result = add.1.result();
    assert_eq!(add_result["structuredContent"], json!({"sum": 5}));
    assert_eq!(echo.0, "Echo: hi there");
}

async fn reads_and_prompts(target: &Target) {
    let (readme, item, resources, templates, prompt) = tokio::join!(
        target.ok(&["--method", "resources/read", "--uri", "testenv://readme"]),
        target.ok(&[
            "--method",
            "resources/read",
            "--uri",
            "testenv://items/beta"
        ]),
        target.ok(&["--method", "resources/list"]),
        target.ok(&["--method", "resources/templates/list"]),
        target.ok(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "hello",
            "--prompt-args",
            "name=Bo"
        ]),
    );
    assert_eq!(
        readme.0["contents"][0]["text"],
        "Hello from the TypeScript SDK v1 test peer."
    );
    assert_eq!(
        item.0["contents"][0],
        json!({"uri": "testenv://items/beta", "mimeType": "text/plain", "text": "item beta"})
    );
    let uris: Vec<&str> = resources.0["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "testenv://readme",
            "testenv://items/alpha",
            "testenv://items/beta",
            "testenv://items/gamma"
        ],
        "{}",
        resources.1.dump()
    );
    assert_eq!(
        templates.0["resourceTemplates"][0]["uriTemplate"],
        "testenv://items/{name}"
    );
    assert_eq!(
        prompt.0["messages"][0]["content"]["text"],
        "Say hello to Bo."
    );
}

async fn completion(target: &Target) {
    let (prompt, template) = tokio::join!(
        target.ok(&[
            "--method",
            "completion/complete",
            "--prompt-name",
            "hello",
            "--complete-arg",
            "name=A"
        ]),
        target.ok(&[
            "--method",
            "completion/complete",
            "--uri",
            "testenv://items/{name}",
            "--complete-arg",
            "name=b"
        ]),
    );
    assert_eq!(
        prompt.0["completion"]["values"],
        json!(["Ada", "Alan"]),
        "{}",
        prompt.1.dump()
    );
    assert_eq!(
        template.0["completion"]["values"],
        json!(["beta"]),
        "{}",
        template.1.dump()
    );
    let sent = template.1.sent_method("completion/complete");
    assert_eq!(
        sent[0]["params"]["ref"],
        json!({"type": "ref/resource", "uri": "testenv://items/{name}"})
    );
}

/// Text mode prints each log line on stderr as it arrives; `--log-level` becomes one
/// `logging/setLevel` before the call, which the SDK honours per session.
async fn logging(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "log-levels",
            "--log-level",
            "warning",
        ])
        .await;
    run.expect_exit(0);
    let set_level = run.sent_method("logging/setLevel");
    assert_eq!(set_level.len(), 1, "{}", run.dump());
    assert_eq!(set_level[0]["params"], json!({"level": "warning"}));
    let shown = |level: &str| {
        run.stderr
            .contains(&format!("[{level}] ts-sdk-v1: this is the {level} message"))
    };
    assert!(shown("warning") && shown("error"), "{}", run.dump());
    // Without a session the level set by one POST is forgotten by the next: a stateless SDK
    // server logs everything (an SDK fact users of stateless servers meet; not ours to fix).
    let stateless = target.mode == Mode::HttpStateless;
    assert_eq!(shown("debug"), stateless, "{}", run.dump());
    assert_eq!(shown("info"), stateless, "{}", run.dump());
}

/// Progress notifications for our token, shown as they come, with the logs in between.
async fn progress(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "steps=3",
            "--tool-arg",
            "intervalMs=50",
        ])
        .await;
    run.expect_exit(0);
    assert_eq!(
        run.json()["content"][0]["text"],
        "slow: done after 3 steps",
        "{}",
        run.dump()
    );
    let shown: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("progress "))
        .collect();
    assert_eq!(
        shown,
        [
            "progress tools/call: 1/3 step 1 of 3",
            "progress tools/call: 2/3 step 2 of 3",
            "progress tools/call: 3/3 step 3 of 3"
        ],
        "{}",
        run.dump()
    );
    let token = run.sent_method("tools/call")[0]["params"]["_meta"]["progressToken"].clone();
    assert!(!token.is_null(), "{}", run.dump());
    let notes: Vec<Value> = run
        .received()
        .into_iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(notes.len(), 3, "{}", run.dump());
    assert!(notes.iter().all(|n| n["params"]["progressToken"] == token));
    assert!(
        run.stderr.contains("[info] ts-sdk-v1: slow: step 3 of 3"),
        "{}",
        run.dump()
    );
}

/// A call slower than `--request-timeout` (and silent: progress would reset the timer) times
/// out, is cancelled on the wire, and the SDK aborts the handler for that very request.
async fn cancellation(target: &Target) {
    let run = target
        .run(&[
            "--request-timeout",
            "1500",
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "steps=1",
            "--tool-arg",
            "intervalMs=600000",
        ])
        .await;
    run.expect_exit(4);
    let error = run.error();
    assert_eq!(error["code"], "timeout", "{}", run.dump());
    let call = &run.sent_method("tools/call")[0];
    let cancelled = run.sent_method("notifications/cancelled");
    assert_eq!(cancelled.len(), 1, "{}", run.dump());
    assert_eq!(cancelled[0]["params"]["requestId"], call["id"]);
    let ack = format!("cancelled {}", call["id"]);
    match &target.server {
        // Over stdio the server's stderr is in our trace.
        None => assert!(
            run.frames("stderr-line")
                .iter()
                .any(|f| crate::demo_harness::body(f) == ack.as_bytes()),
            "the server never acknowledged the cancellation\n{}",
            run.dump()
        ),
        Some(server) => server.wait_for_stderr(&ack).await,
    }
}

async fn elicitation(target: &Target) {
    let ask = |flags: &'static [&'static str]| target.call_text("ask-name", flags);
    let link = |flags: &'static [&'static str]| target.call_text("open-link", flags);
    let (defaults, given, declined, url_accepted, url_declined) = tokio::join!(
        ask(&["--elicitation", "accept-defaults"]),
        ask(&["--elicitation-json", r#"{"name":"Ada"}"#]),
        ask(&[]),
        link(&["--elicitation", "accept-defaults"]),
        link(&["--elicitation", "decline"]),
    );
    assert_eq!(defaults.0, "Hello, World!", "{}", defaults.1.dump());
    assert_eq!(given.0, "Hello, Ada!", "{}", given.1.dump());
    assert_eq!(declined.0, "Hello, stranger.", "{}", declined.1.dump());
    assert_eq!(url_accepted.0, "url elicitation: accept");
    assert_eq!(url_declined.0, "url elicitation: decline");

    // On the wire: the server's request, and our answer to exactly it.
    let (asked, answer) = server_request(&defaults.1, "elicitation/create");
    assert_eq!(asked["params"]["mode"], "form");
    assert_eq!(
        answer["result"],
        json!({"action": "accept", "content": {"name": "World"}})
    );
    let (asked, answer) = server_request(&url_declined.1, "elicitation/create");
    assert_eq!(asked["params"]["mode"], "url");
    assert_eq!(asked["params"]["url"], "https://example.com/connect");
    assert_eq!(answer["result"], json!({"action": "decline"}));
    // SDK v1 refuses a URL elicitation to a client that did not declare it: we declare both.
    let init = &defaults.1.sent_method("initialize")[0];
    let elicitation = &init["params"]["capabilities"]["elicitation"];
    assert!(
        elicitation.get("form").is_some() && elicitation.get("url").is_some(),
        "{init}"
    );
}

async fn sampling_and_roots(target: &Target) {
    let (sampled, roots, no_roots) = tokio::join!(
        target.call_text(
            "sample",
            &["--tool-arg", "prompt=Say hi", "--sampling-text", "hi!"]
        ),
        target.call_text(
            "roots",
            &[
                "--root",
                "file:///tmp/mcpscope-a",
                "--root",
                "file:///tmp/mcpscope-b"
            ]
        ),
        target.call_text("roots", &[]),
    );
    assert_eq!(sampled.0, "model said: hi!", "{}", sampled.1.dump());
    let (asked, answer) = server_request(&sampled.1, "sampling/createMessage");
    assert_eq!(asked["params"]["messages"][0]["content"]["text"], "Say hi");
    assert_eq!(
        answer["result"]["content"],
        json!({"type": "text", "text": "hi!"})
    );

    assert_eq!(
        roots.0,
        "roots: file:///tmp/mcpscope-a file:///tmp/mcpscope-b",
        "{}",
        roots.1.dump()
    );
    let (_, answer) = server_request(&roots.1, "roots/list");
    assert_eq!(
        answer["result"]["roots"][1]["uri"],
        "file:///tmp/mcpscope-b"
    );
    assert_eq!(no_roots.0, "roots: none", "{}", no_roots.1.dump());
}

/// The one server→client request with `method` in a run, and our response to it.
fn server_request(run: &Run, method: &str) -> (Value, Value) {
    let asked: Vec<Value> = run
        .received()
        .into_iter()
        .filter(|m| m["method"] == method && m.get("id").is_some())
        .collect();
    assert_eq!(asked.len(), 1, "{}", run.dump());
    let answer = run
        .sent()
        .into_iter()
        .find(|m| m["id"] == asked[0]["id"] && m.get("method").is_none())
        .unwrap_or_else(|| panic!("we never answered {method}\n{}", run.dump()));
    (asked[0].clone(), answer)
}

/// `--protocol-era auto` probes with `server/discover`, which SDK v1 answers -32601, and settles
/// on the legacy era, saying why; a pinned `modern` fails cleanly instead of downgrading.
async fn auto_lands_on_legacy(target: &Target) {
    // Not `target.run` for the pinned-modern run: its wire checks are for the legacy era.
    let label = target.label();
    let mut modern_args: Vec<String> = [
        "--protocol-era",
        "modern",
        "--method",
        "tools/list",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec();
    modern_args.extend(target.args.iter().cloned());
    let (auto, modern) = tokio::join!(
        // Over stdio the probe's clock starts when Node does, and Node loading the SDK on a busy
        // machine can take longer than the default 3 s; a silent server is not tested here.
        target.run(&[
            "--protocol-era",
            "auto",
            "--probe-timeout",
            "20000",
            "--method",
            "tools/list",
            "--format",
            "json",
            "--lint"
        ]),
        cli(&label, &modern_args),
    );
    let sent = auto.sent();
    assert_eq!(sent[0]["method"], "server/discover", "{}", auto.dump());
    assert_eq!(auto.sent_method("initialize").len(), 1, "{}", auto.dump());
    assert_eq!(auto.result()["tools"][0]["name"], "echo");
    let doc = auto.json();
    if target.mode == Mode::Stdio {
        // The SDK answers the probe -32601: a legacy server, and the one note says so.
        auto.expect_exit(0);
        let probe = auto.response_to(&sent[0]["id"]);
        assert_eq!(probe["error"]["code"], -32601, "{}", auto.dump());
        assert_eq!(
            doc["warnings"],
            json!([
                "Auto: legacy server (server/discover answered with error -32601 (Method not found): a legacy server); falling back to initialize"
            ]),
            "{}",
            auto.dump()
        );
    } else {
        // Over HTTP the probe meets the session check every SDK v1 example puts in front of the
        // transport: HTTP 400 with `"id": null`. We fall back, say why, and --lint names the
        // server's invalid id (exit 6) — theirs, not ours: a JSON-RPC id is a string or number.
        auto.expect_exit(6);
        let warnings = doc["warnings"].to_string();
        assert!(
            warnings.contains("server/discover answered HTTP 400")
                && warnings.contains("falling back to initialize"),
            "{}",
            auto.dump()
        );
        // And only that: the 400's id-less body is the probe's answer, not a message the server
        // could not read (issue 24's newcomer run: a yellow warning toast on every connect).
        assert_eq!(
            doc["warnings"].as_array().map(Vec::len),
            Some(1),
            "{}",
            auto.dump()
        );
        let lint = doc["lint"].as_array().cloned().unwrap_or_default();
        assert_eq!(lint.len(), 1, "{}", auto.dump());
        assert_eq!(lint[0]["path"], "/id", "{}", auto.dump());
    }

    // Pinned modern: the probe's -32601 is an answer, not a reason to downgrade.
    assert_ne!(modern.code, 0, "{}", modern.dump());
    assert!(
        modern.sent_method("initialize").is_empty(),
        "{}",
        modern.dump()
    );
    assert_eq!(modern.sent()[0]["method"], "server/discover");
    // Either way the error says what to try (issue 24's newcomer run: over HTTP it was only
    // "answered HTTP 400: … No valid session ID provided").
    let error = modern.error();
    let message = error["message"].as_str().unwrap_or_default();
    // The engine says it (every view: the web UI's card and the TUI show the same error), as
    // the message's end and as `hint`.
    assert!(
        message.contains("try --protocol-era legacy or auto")
            && error["hint"]
                .as_str()
                .is_some_and(|h| message.ends_with(h) && h.contains("--protocol-era")),
        "{}",
        modern.dump()
    );
}

#[tokio::test]
async fn ts_sdk_v1_over_stdio() {
    every_feature(Mode::Stdio).await;
}

#[tokio::test]
async fn ts_sdk_v1_over_streamable_http_stateful() {
    every_feature(Mode::Http).await;
}

#[tokio::test]
async fn ts_sdk_v1_over_streamable_http_stateless() {
    every_feature(Mode::HttpStateless).await;
}

#[tokio::test]
async fn ts_sdk_v1_over_streamable_http_json_responses() {
    every_feature(Mode::HttpJson).await;
}

#[tokio::test]
async fn ts_sdk_v1_over_http_sse() {
    every_feature(Mode::Sse).await;
}

#[tokio::test]
async fn ts_sdk_v1_auto_era_lands_on_legacy_over_stdio_and_http() {
    let Some(peers) = Peers::get("ts_sdk_v1_auto_era_lands_on_legacy_over_stdio_and_http") else {
        return;
    };
    let (stdio, http) = tokio::join!(
        Target::start(&peers, Mode::Stdio),
        Target::start(&peers, Mode::Http)
    );
    tokio::join!(auto_lands_on_legacy(&stdio), auto_lands_on_legacy(&http));
}
