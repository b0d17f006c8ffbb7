//! Servers on the official Python SDK (`mcp==2.3.0`): one on its high-level `MCPServer`
//! (`testenv/peers/python/sdk_server.py`) and one on its low-level `Server`
//! (`lowlevel_server.py`), driven by the CLI over every transport the SDK offers — stdio,
//! Streamable HTTP stateful and stateless with SSE and JSON responses, HTTP+SSE — in both eras,
//! which the SDK serves side by side. FastMCP, built on the same SDK, reuses this plumbing from
//! `peers_fastmcp.rs`.
//!
//! Each test is one family over one transport; inside it the CLI runs overlap (`tokio::join!`),
//! so a family's whole grid costs a few Python start-ups, not one per check.

use crate::demo_harness::{Era, Run, cli, header, reserved_meta_keys};
use crate::peers_support::{PeerServer, Peers};
use serde_json::{Value, json};

/// How many CLI runs against Python peers may be in flight at once, across these tests.
static RUNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(6);

/// A server family: which launcher, and what only that family does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `mcp.server.mcpserver.MCPServer`.
    Sdk,
    /// `mcp.server.lowlevel.Server`.
    LowLevel,
    /// `fastmcp.FastMCP`.
    FastMcp,
}

impl Family {
    fn script(self) -> &'static str {
        match self {
            Family::Sdk => "python-sdk-server.sh",
            Family::LowLevel => "python-lowlevel-server.sh",
            Family::FastMcp => "fastmcp-server.sh",
        }
    }

    fn readme(self) -> &'static str {
        match self {
            Family::Sdk => "Hello from the Python SDK MCPServer test peer.",
            Family::LowLevel => "Hello from the Python SDK low-level test peer.",
            Family::FastMcp => "Hello from the FastMCP test peer.",
        }
    }

    /// The low-level peer mints its own `requestState`; MCPServer and FastMCP seal theirs.
    fn plain_request_state(self) -> bool {
        self == Family::LowLevel
    }

    /// MCPServer has no URL-mode resolver, so its `open_url` uses `ctx.elicit_url`, a
    /// server→client request that a 2026-07-28 connection cannot carry.
    fn url_elicitation_in(self, era: Era) -> bool {
        self != Family::Sdk || era == Era::Legacy
    }
}

/// How the CLI reaches the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    Stdio,
    /// Streamable HTTP; the launcher's mode (`http`, `http-stateless`, `http-json`, …).
    Http(&'static str),
    /// The deprecated HTTP+SSE transport.
    Sse,
}

impl Wire {
    /// A stateless server keeps no session, so it has no way to receive our answer to a
    /// request of its own.
    fn stateless(self) -> bool {
        matches!(self, Wire::Http(mode) if mode.contains("stateless"))
    }

    /// Whether a legacy server can send its own requests mid-call: not when stateless (the
    /// answer has no session to land in), nor with JSON responses (mcp 2.3.0 gives a JSON
    /// response no room for them; its standalone GET stream is not used for them either).
    fn back_channel(self) -> bool {
        !self.stateless() && !self.json_responses()
    }

    /// JSON responses carry one message per POST, so nothing reaches us before the result.
    fn json_responses(self) -> bool {
        matches!(self, Wire::Http(mode) if mode.contains("json"))
    }
}

/// One family, one wire, one era.
pub(crate) struct Target {
    family: Family,
    wire: Wire,
    era: Era,
    args: Vec<String>,
}

impl Target {
    fn label(&self) -> String {
        format!("{:?}/{:?}/{:?}", self.family, self.wire, self.era)
    }

    /// `mcpscope --cli --protocol-era ERA <args…> <target>`; the envelope checked on every run.
    async fn run(&self, args: &[&str]) -> Run {
        let mut all: Vec<String> = ["--protocol-era", self.era.flag()]
            .iter()
            .chain(args)
            .map(|a| (*a).to_owned())
            .collect();
        // Python start-up is slow on a loaded machine (one CPU-second, far more when the
        // cores are shared): connect generously, and never start more than a few at once.
        all.extend(["--connect-timeout".to_owned(), "45000".to_owned()]);
        all.extend(self.args.iter().cloned());
        let _slot = RUNS.acquire().await.expect("the semaphore is never closed");
        let run = cli(&self.label(), &all).await;
        self.check_envelope(&run);
        run
    }

    /// A `--format json --lint` run expected to succeed lint-clean.
    async fn ok(&self, args: &[&str]) -> Run {
        let mut all = args.to_vec();
        all.extend(["--format", "json", "--lint"]);
        let run = self.run(&all).await;
        run.expect_exit(0);
        assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
        run
    }

    /// What every request of the era carries: legacy opens with `initialize` (and, over
    /// Streamable HTTP, a session unless the server is stateless); modern opens with
    /// `server/discover`, `_meta` on every request and the `Mcp-*` headers over HTTP.
    fn check_envelope(&self, run: &Run) {
        let sent = run.sent();
        let Some(first) = sent.first() else { return };
        match self.era {
            Era::Legacy => {
                assert_eq!(first["method"], "initialize", "{}", run.dump());
                if let Wire::Http(_) = self.wire {
                    let session = run
                        .frames("http-request")
                        .iter()
                        .skip(1)
                        .any(|f| header(f, "mcp-session-id").is_some());
                    assert_eq!(session, !self.wire.stateless(), "{}", run.dump());
                }
            }
            Era::Modern => {
                assert_eq!(first["method"], "server/discover", "{}", run.dump());
                for message in sent.iter().filter(|m| m.get("id").is_some()) {
                    assert!(reserved_meta_keys(message).len() >= 3, "{message}");
                }
                // The `Mcp-*` headers are Streamable HTTP's; HTTP+SSE POSTs carry none.
                if let Wire::Http(_) = self.wire {
                    for frame in run.frames("http-request") {
                        if frame["meta"]["method"] == "GET" {
                            continue;
                        }
                        assert_eq!(
                            header(frame, "mcp-protocol-version"),
                            Some("2026-07-28"),
                            "{frame}"
                        );
                        assert_eq!(header(frame, "mcp-session-id"), None, "{frame}");
                    }
                }
            }
        }
    }
}

/// The first text content of a tool result.
fn text(run: &Run) -> String {
    run.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text\n{}", run.dump()))
        .to_owned()
}

/// The targets of one family over one wire, both eras.
pub(crate) fn targets(
    peers: &Peers,
    family: Family,
    wire: Wire,
    server: Option<&PeerServer>,
) -> Vec<Target> {
    let args = match (wire, server) {
        (Wire::Stdio, _) => peers.stdio(family.script()),
        // --server-url rather than a positional URL: `--prompt-args` takes every value up to
        // the next flag.
        (Wire::Http(_), Some(server)) => {
            vec!["--server-url".to_owned(), format!("{}/mcp", server.base)]
        }
        // The launcher's line names `/sse`, and the harness keeps it in `base`.
        (Wire::Sse, Some(server)) => vec!["--server-url".to_owned(), server.base.clone()],
        _ => panic!("an HTTP wire needs its server"),
    };
    [Era::Legacy, Era::Modern]
        .into_iter()
        .map(|era| Target {
            family,
            wire,
            era,
            args: args.clone(),
        })
        .collect()
}

/// Starts the family's server for an HTTP wire.
pub(crate) async fn serve(peers: &Peers, family: Family, wire: Wire) -> PeerServer {
    let mode = match wire {
        Wire::Http(mode) => mode,
        Wire::Sse => "sse",
        Wire::Stdio => panic!("stdio has no server to start"),
    };
    peers.serve(family.script(), mode).await
}

/// Everything, for one target: the features, the interactive flows, logging, progress and
/// cancellation, all at once.
pub(crate) async fn full(target: &Target) {
    tokio::join!(
        features(target),
        interactive(target),
        logging_and_progress(target),
        cancellation(target)
    );
}

/// A transport's essentials, for the wires that differ from `http` only in framing: list, a
/// structured call, progress, cancellation and one elicitation.
pub(crate) async fn essentials(target: &Target) {
    tokio::join!(
        async {
            let list = target.ok(&["--method", "tools/list"]).await;
            assert_eq!(
                list.result()["tools"].as_array().unwrap().len(),
                7,
                "{}",
                list.dump()
            );
        },
        add(target),
        logging_and_progress(target),
        cancellation(target),
        async {
            if target.era == Era::Legacy && !target.wire.back_channel() {
                no_back_channel(target).await;
            } else {
                ask_name(
                    target,
                    &["--elicitation", "accept-defaults"],
                    "Hello, World!",
                )
                .await;
            }
        },
    );
}

/// A legacy server without a back-channel (stateless, or JSON responses) cannot ask, and the
/// SDK says so: a JSON-RPC error (MCPServer, low-level: exit 1, as the official Inspector's CLI,
/// the error the one document on stdout) or a tool error (FastMCP: exit 5). The user sees the
/// server's reason.
async fn no_back_channel(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "ask_name",
            "--elicitation",
            "accept-defaults",
            "--format",
            "json",
        ])
        .await;
    let reason = "no back-channel for server-initiated requests";
    if target.family == Family::FastMcp {
        run.expect_exit(5);
        assert_eq!(run.result()["isError"], true, "{}", run.dump());
        assert!(text(&run).contains(reason), "{}", run.dump());
    } else {
        run.expect_exit(1);
        let error = run.error();
        assert_eq!(error["code"], "rpc_error", "{}", run.dump());
        assert_eq!(run.json()["error"], error, "{}", run.dump());
        assert_eq!(error["rpcCode"], -32600, "{}", run.dump());
        assert!(
            error["message"].as_str().unwrap().contains(reason),
            "{}",
            run.dump()
        );
    }
    assert!(
        run.received()
            .iter()
            .all(|m| m["method"] != "elicitation/create"),
        "{}",
        run.dump()
    );
}

async fn add(target: &Target) {
    let run = target
        .ok(&[
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=2",
            "--tool-arg",
            "b=3",
        ])
        .await;
    assert_eq!(
        run.result()["structuredContent"],
        json!({"sum": 5}),
        "{}",
        run.dump()
    );
    assert_eq!(run.result()["isError"], false, "{}", run.dump());
    if target.era == Era::Modern {
        assert_eq!(run.result()["resultType"], "complete", "{}", run.dump());
        if let Wire::Http(_) = target.wire {
            let post = run
                .frames("http-request")
                .into_iter()
                .find(|f| header(f, "mcp-method") == Some("tools/call"))
                .cloned()
                .expect("the tools/call POST");
            assert_eq!(header(&post, "mcp-name"), Some("add"), "{post}");
        }
    }
}

/// list, call, read (resource and template), get, complete (prompt and template).
async fn features(target: &Target) {
    let (list, _, read, template, prompt, complete_prompt, complete_template) = tokio::join!(
        target.ok(&["--method", "tools/list"]),
        add(target),
        target.ok(&["--method", "resources/read", "--uri", "testenv://readme"]),
        target.ok(&[
            "--method",
            "resources/read",
            "--uri",
            "testenv://greeting/Bo"
        ]),
        target.ok(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "hello",
            "--prompt-args",
            "name=Bo"
        ]),
        target.ok(&[
            "--method",
            "completion/complete",
            "--prompt-name",
            "hello",
            "--complete-arg",
            "name=a"
        ]),
        target.ok(&[
            "--method",
            "completion/complete",
            "--uri",
            "testenv://greeting/{name}",
            "--complete-arg",
            "name=B"
        ]),
    );
    let tools = list.result()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "echo", "add", "slow", "ask_name", "open_url", "sample", "roots"
        ],
        "{}",
        list.dump()
    );
    let add_tool = tools.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(
        add_tool["outputSchema"]["properties"]["sum"]["type"], "integer",
        "{add_tool}"
    );

    assert_eq!(
        read.result()["contents"][0]["text"],
        target.family.readme(),
        "{}",
        read.dump()
    );
    assert_eq!(
        template.result()["contents"][0]["text"],
        "Greetings, Bo.",
        "{}",
        template.dump()
    );
    assert_eq!(
        prompt.result()["messages"][0]["content"]["text"],
        "Say hello to Bo.",
        "{}",
        prompt.dump()
    );
    assert_eq!(
        complete_prompt.result()["completion"]["values"],
        json!(["Ada", "Alan"]),
        "{}",
        complete_prompt.dump()
    );
    assert_eq!(
        complete_template.result()["completion"]["values"],
        json!(["Bo"]),
        "{}",
        complete_template.dump()
    );
}

/// `slow` with `seconds=0`, `--log-level info`, text mode: the progress and the log line the
/// user sees on stderr, and how the level went on the wire in each era.
async fn logging_and_progress(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "seconds=0",
            "--log-level",
            "info",
        ])
        .await;
    run.expect_exit(0);
    assert!(run.stdout.contains("slept"), "{}", run.dump());
    let call = &run.sent_method("tools/call")[0];
    let set_level = run.sent_method("logging/setLevel");
    match target.era {
        Era::Legacy => {
            assert_eq!(set_level.len(), 1, "{}", run.dump());
            assert_eq!(set_level[0]["params"], json!({"level": "info"}));
        }
        Era::Modern => {
            assert!(set_level.is_empty(), "{}", run.dump());
            assert_eq!(
                call["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
                "info",
                "{}",
                run.dump()
            );
        }
    }
    let notified = |method: &str| {
        run.received()
            .into_iter()
            .filter(|m| m["method"] == method)
            .count()
    };
    if target.wire.json_responses() {
        // A JSON response has no room for the notifications of its request.
        assert_eq!(notified("notifications/progress"), 0, "{}", run.dump());
        return;
    }
    assert_eq!(notified("notifications/progress"), 1, "{}", run.dump());
    assert_eq!(notified("notifications/message"), 1, "{}", run.dump());
    assert!(
        run.stderr.contains("progress tools/call: 1/2 started"),
        "{}",
        run.dump()
    );
    assert!(
        run.stderr.contains("[info]") && run.stderr.contains("slow started"),
        "{}",
        run.dump()
    );
}

/// `slow` sleeps a minute; a short `--request-timeout` gives up on it, exit 4, and cancels it
/// the era's and transport's way: `notifications/cancelled` except on modern Streamable HTTP,
/// where closing the response is the cancellation.
async fn cancellation(target: &Target) {
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--request-timeout",
            "3000",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(4);
    assert_eq!(run.error()["code"], "timeout", "{}", run.dump());
    let calls = run.sent_method("tools/call");
    assert_eq!(calls.len(), 1, "{}", run.dump());
    let call = &calls[0];
    let cancelled = run.sent_method("notifications/cancelled");
    if target.era == Era::Modern && matches!(target.wire, Wire::Http(_)) {
        assert!(cancelled.is_empty(), "{}", run.dump());
    } else {
        assert_eq!(cancelled.len(), 1, "{}", run.dump());
        assert_eq!(
            cancelled[0]["params"]["requestId"],
            call["id"],
            "{}",
            run.dump()
        );
    }
    // FastMCP's cancelled task did not print its line before the CLI closed stdin (not yet
    // looked into); the wire check above still holds for it.
    if target.wire == Wire::Stdio && target.family != Family::FastMcp {
        // The server's stderr is in the trace: the tool's task was cancelled.
        let ack = format!("cancelled {}", call["id"]);
        assert!(
            run.frames("stderr-line")
                .iter()
                .any(|f| crate::demo_harness::body(f) == ack.as_bytes()),
            "the server never cancelled the call\n{}",
            run.dump()
        );
    }
}

/// `ask_name` answered by `flags`; what the tool says and how the question travelled.
async fn ask_name(target: &Target, flags: &[&str], says: &str) -> Value {
    let run = interact(target, "ask_name", flags).await;
    let (question, answer) = exchange(target, &run, "elicitation/create");
    assert_eq!(
        question["params"]["message"], "What is your name?",
        "{question}"
    );
    assert_eq!(text(&run), says, "{}", run.dump());
    answer
}

async fn interact(target: &Target, tool: &str, flags: &[&str]) -> Run {
    let mut args = vec!["--method", "tools/call", "--tool-name", tool];
    args.extend(flags);
    target.ok(&args).await
}

/// The server's question and our answer (the result we sent, or the `inputResponses` entry),
/// after checking the era's way of asking: a server→client request answered with its id in
/// the legacy era; in the modern one `input_required`, then a retry with a new id, the same
/// params and the server's `requestState` byte for byte.
fn exchange(target: &Target, run: &Run, method: &str) -> (Value, Value) {
    let received = run.received();
    match target.era {
        Era::Legacy => {
            let question = received
                .iter()
                .find(|m| m["method"] == method && m.get("id").is_some())
                .unwrap_or_else(|| panic!("the server did not send {method}\n{}", run.dump()))
                .clone();
            let answer = run
                .sent()
                .into_iter()
                .find(|m| m["id"] == question["id"] && m.get("method").is_none())
                .unwrap_or_else(|| panic!("we did not answer {method}\n{}", run.dump()));
            assert_eq!(run.sent_method("tools/call").len(), 1, "{}", run.dump());
            (question, answer["result"].clone())
        }
        Era::Modern => {
            assert!(
                received
                    .iter()
                    .all(|m| m.get("method").is_none() || m.get("id").is_none()),
                "a 2026-07-28 server sent a request\n{}",
                run.dump()
            );
            let calls = run.sent_method("tools/call");
            assert_eq!(calls.len(), 2, "one round, then the retry\n{}", run.dump());
            let first = run.response_to(&calls[0]["id"])["result"].clone();
            assert_eq!(first["resultType"], "input_required", "{}", run.dump());
            let requests = first["inputRequests"].as_object().expect("inputRequests");
            assert_eq!(requests.len(), 1, "{}", run.dump());
            let (key, question) = requests.iter().next().unwrap();
            assert_eq!(question["method"], method, "{}", run.dump());
            let retry = &calls[1]["params"];
            assert_ne!(calls[0]["id"], calls[1]["id"], "{}", run.dump());
            assert_eq!(retry["name"], calls[0]["params"]["name"]);
            assert_eq!(
                retry["requestState"],
                first["requestState"],
                "{}",
                run.dump()
            );
            if target.family.plain_request_state() {
                let tool = calls[0]["params"]["name"].as_str().unwrap();
                assert_eq!(
                    first["requestState"],
                    format!("{tool}-round-1"),
                    "{}",
                    run.dump()
                );
            }
            (question.clone(), retry["inputResponses"][key].clone())
        }
    }
}

/// Elicitation (form: defaults, JSON, declined; URL), sampling, roots, and a round limit.
async fn interactive(target: &Target) {
    let (defaults, json_answer, declined, _, _, _, _) = tokio::join!(
        ask_name(
            target,
            &["--elicitation", "accept-defaults"],
            "Hello, World!"
        ),
        ask_name(
            target,
            &["--elicitation-json", r#"{"name":"Ada"}"#],
            "Hello, Ada!"
        ),
        ask_name(target, &[], "Hello, stranger."),
        open_url(target),
        sample(target),
        roots(target),
        round_limit(target),
    );
    assert_eq!(
        defaults,
        json!({"action": "accept", "content": {"name": "World"}})
    );
    assert_eq!(
        json_answer,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(declined, json!({"action": "decline"}));
}

async fn open_url(target: &Target) {
    if !target.family.url_elicitation_in(target.era) {
        return;
    }
    let run = interact(target, "open_url", &["--elicitation", "accept-defaults"]).await;
    let (question, answer) = exchange(target, &run, "elicitation/create");
    assert_eq!(question["params"]["mode"], "url", "{question}");
    assert_eq!(
        question["params"]["url"], "https://example.com/consent",
        "{question}"
    );
    assert_eq!(answer, json!({"action": "accept"}), "{}", run.dump());
    assert_eq!(text(&run), "url elicitation: accept", "{}", run.dump());
}

async fn sample(target: &Target) {
    let run = interact(target, "sample", &["--sampling-text", "Paris"]).await;
    let (question, answer) = exchange(target, &run, "sampling/createMessage");
    assert_eq!(
        question["params"]["messages"][0]["content"],
        json!({"type": "text", "text": "Say something."})
    );
    assert_eq!(
        answer["content"],
        json!({"type": "text", "text": "Paris"}),
        "{}",
        run.dump()
    );
    assert_eq!(text(&run), "sampled: Paris", "{}", run.dump());
}

async fn roots(target: &Target) {
    let run = interact(
        target,
        "roots",
        &[
            "--root",
            "file:///tmp/project",
            "--root",
            "file:///srv/data",
        ],
    )
    .await;
    let (_, answer) = exchange(target, &run, "roots/list");
    assert_eq!(
        answer["roots"].as_array().map(Vec::len),
        Some(2),
        "{}",
        run.dump()
    );
    assert_eq!(
        text(&run),
        "roots: file:///tmp/project,file:///srv/data",
        "{}",
        run.dump()
    );
}

/// `--max-input-rounds 0`: a modern call that needs a round stops, and says so; the legacy
/// era has no rounds to count.
async fn round_limit(target: &Target) {
    if target.era == Era::Legacy {
        return;
    }
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "ask_name",
            "--elicitation",
            "accept-defaults",
            "--max-input-rounds",
            "0",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(4);
    assert_eq!(run.sent_method("tools/call").len(), 1, "{}", run.dump());
    assert_eq!(
        run.error()["code"],
        "input_rounds_exceeded",
        "{}",
        run.dump()
    );
    assert!(
        run.error()["message"]
            .as_str()
            .unwrap()
            .contains("--max-input-rounds 0"),
        "{}",
        run.dump()
    );
}

/// One family over stdio and every Streamable HTTP mode and HTTP+SSE, both eras.
pub(crate) async fn stdio(family: Family, test: &str) {
    let Some(peers) = Peers::get(test) else {
        return;
    };
    let both = targets(&peers, family, Wire::Stdio, None);
    tokio::join!(over_stdio(&both[0]), over_stdio(&both[1]));
}

/// Every stdio run starts a Python, so stdio gets one run per feature; the flag variants are
/// the CLI's own and run over HTTP, where the server starts once.
async fn over_stdio(target: &Target) {
    tokio::join!(
        essentials(target),
        async {
            let (read, prompt, complete) = tokio::join!(
                target.ok(&[
                    "--method",
                    "resources/read",
                    "--uri",
                    "testenv://greeting/Bo"
                ]),
                target.ok(&[
                    "--method",
                    "prompts/get",
                    "--prompt-name",
                    "hello",
                    "--prompt-args",
                    "name=Bo"
                ]),
                target.ok(&[
                    "--method",
                    "completion/complete",
                    "--prompt-name",
                    "hello",
                    "--complete-arg",
                    "name=a"
                ]),
            );
            assert_eq!(
                read.result()["contents"][0]["text"],
                "Greetings, Bo.",
                "{}",
                read.dump()
            );
            assert_eq!(
                prompt.result()["messages"][0]["content"]["text"],
                "Say hello to Bo.",
                "{}",
                prompt.dump()
            );
            assert_eq!(
                complete.result()["completion"]["values"],
                json!(["Ada", "Alan"]),
                "{}",
                complete.dump()
            );
        },
        sample(target),
        roots(target),
    );
}

pub(crate) async fn streamable_http(family: Family, test: &str) {
    let Some(peers) = Peers::get(test) else {
        return;
    };
    let server = serve(&peers, family, Wire::Http("http")).await;
    let both = targets(&peers, family, Wire::Http("http"), Some(&server));
    tokio::join!(full(&both[0]), full(&both[1]));
}

pub(crate) async fn streamable_http_variants(family: Family, test: &str) {
    let Some(peers) = Peers::get(test) else {
        return;
    };
    let wires = [
        Wire::Http("http-stateless"),
        Wire::Http("http-json"),
        Wire::Http("http-stateless-json"),
    ];
    let servers = futures::future::join_all(wires.iter().map(|w| serve(&peers, family, *w))).await;
    let all: Vec<Target> = wires
        .iter()
        .zip(&servers)
        .flat_map(|(wire, server)| targets(&peers, family, *wire, Some(server)))
        .collect();
    futures::future::join_all(all.iter().map(essentials)).await;
}

pub(crate) async fn http_sse(family: Family, test: &str) {
    let Some(peers) = Peers::get(test) else {
        return;
    };
    let server = serve(&peers, family, Wire::Sse).await;
    let both = targets(&peers, family, Wire::Sse, Some(&server));
    tokio::join!(full(&both[0]), full(&both[1]));
}

/// A modern stdio server that takes longer to start than `--request-timeout`: the
/// `server/discover` handshake is the connect timeout's, as `initialize` is, so the call still
/// goes out (and times out itself). Before the fix the handshake failed after 1 s.
#[tokio::test]
async fn slow_start_modern_handshake_waits_for_the_connect_timeout() {
    let Some(peers) = Peers::get("slow_start_modern_handshake_waits_for_the_connect_timeout")
    else {
        return;
    };
    let mut server = peers.stdio(Family::Sdk.script());
    let script = server.pop().expect("the launcher's mode");
    let launcher = server.pop().expect("the launcher");
    // Three seconds of sleep before Python even starts, against a one-second request timeout.
    server.extend([
        "sh".to_owned(),
        "-c".to_owned(),
        format!("sleep 3; exec {launcher} {script}"),
    ]);
    let target = Target {
        family: Family::Sdk,
        wire: Wire::Stdio,
        era: Era::Modern,
        args: server,
    };
    let run = target
        .run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=hi",
            "--request-timeout",
            "1000",
            "--format",
            "json",
        ])
        .await;
    run.expect_exit(0);
    assert_eq!(text(&run), "hi", "{}", run.dump());
}

#[tokio::test]
async fn python_sdk_over_stdio() {
    stdio(Family::Sdk, "python_sdk_over_stdio").await;
}

#[tokio::test]
async fn python_sdk_over_streamable_http() {
    streamable_http(Family::Sdk, "python_sdk_over_streamable_http").await;
}

#[tokio::test]
async fn python_sdk_over_stateless_and_json_http() {
    streamable_http_variants(Family::Sdk, "python_sdk_over_stateless_and_json_http").await;
}

#[tokio::test]
async fn python_sdk_over_http_sse() {
    http_sse(Family::Sdk, "python_sdk_over_http_sse").await;
}

#[tokio::test]
async fn python_lowlevel_over_stdio() {
    stdio(Family::LowLevel, "python_lowlevel_over_stdio").await;
}

#[tokio::test]
async fn python_lowlevel_over_streamable_http() {
    streamable_http(Family::LowLevel, "python_lowlevel_over_streamable_http").await;
}

#[tokio::test]
async fn python_lowlevel_over_stateless_and_json_http() {
    streamable_http_variants(
        Family::LowLevel,
        "python_lowlevel_over_stateless_and_json_http",
    )
    .await;
}

#[tokio::test]
async fn python_lowlevel_over_http_sse() {
    http_sse(Family::LowLevel, "python_lowlevel_over_http_sse").await;
}
