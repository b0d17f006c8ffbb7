//! Plumbing for the demo and peer tests: run the real `mcpscope` binary with a `--trace` file,
//! read back what a user and the wire saw, and serve the demo over HTTP in-process.
//!
//! The tests cover a grid — two eras × three transports — so [`each`] runs one check for all six
//! cells at once (the CLI runs are separate processes, so they overlap even on two cores) and
//! every failure names its cell.

use base64::Engine as _;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::AsyncReadExt as _;

/// The binary under test.
pub(crate) const MCPSCOPE: &str = env!("CARGO_BIN_EXE_mcpscope");

/// No CLI run against the demo takes more than a few seconds; this only stops a hang from
/// hanging the suite.
const DEADLINE: Duration = Duration::from_secs(60);

/// The protocol era a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2025-11-25: `initialize`, sessions, server→client requests.
    Legacy,
    /// 2026-07-28: `server/discover`, per-request `_meta`, `input_required`.
    Modern,
}

impl Era {
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

/// How a run reaches the demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    /// `--demo`: the demo as a child process.
    Stdio,
    /// Streamable HTTP at `/mcp`.
    Http,
    /// The deprecated HTTP+SSE transport at `/sse`.
    Sse,
}

/// One cell of the grid.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cell {
    pub(crate) era: Era,
    pub(crate) transport: Transport,
}

/// All six cells.
pub(crate) fn cells() -> Vec<Cell> {
    let mut all = Vec::new();
    for era in [Era::Legacy, Era::Modern] {
        for transport in [Transport::Stdio, Transport::Http, Transport::Sse] {
            all.push(Cell { era, transport });
        }
    }
    all
}

impl Cell {
    pub(crate) fn label(&self) -> String {
        format!("{:?}/{:?}", self.era, self.transport)
    }

    /// The target and era flags for this cell, against the shared in-process demo.
    pub(crate) fn target(&self) -> Vec<String> {
        self.target_on(shared_demo())
    }

    /// The target and era flags for this cell, against the demo at `base` (`http://host:port`).
    pub(crate) fn target_on(&self, base: &str) -> Vec<String> {
        let mut args = match self.transport {
            Transport::Stdio => vec!["--demo".to_owned()],
            Transport::Http => vec![format!("{base}/mcp")],
            Transport::Sse => vec![format!("{base}/sse")],
        };
        args.extend(["--protocol-era".to_owned(), self.era.flag().to_owned()]);
        args
    }

    /// Runs `mcpscope --cli <this cell's target> <args…>` against the shared demo.
    pub(crate) async fn run(&self, args: &[&str]) -> Run {
        let mut all = self.target();
        all.extend(args.iter().map(|a| (*a).to_owned()));
        cli(&self.label(), &all).await
    }

    pub(crate) fn is_http(&self) -> bool {
        self.transport == Transport::Http
    }
}

/// Runs `check` for every cell concurrently.
pub(crate) async fn each<F, Fut>(check: F)
where
    F: Fn(Cell) -> Fut,
    Fut: Future<Output = ()>,
{
    futures::future::join_all(cells().into_iter().map(check)).await;
}

/// What one CLI run left behind.
pub(crate) struct Run {
    /// Which run this was, for failure messages.
    pub(crate) label: String,
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// Every `--trace` line, parsed.
    pub(crate) trace: Vec<Value>,
}

impl Run {
    /// Everything a human needs to see why an assertion failed.
    pub(crate) fn dump(&self) -> String {
        let cut = |s: &str| s.chars().take(3000).collect::<String>();
        format!(
            "[{}] exit {}\nstdout: {}\nstderr: {}",
            self.label,
            self.code,
            cut(&self.stdout),
            cut(&self.stderr)
        )
    }

    /// Asserts the exit code.
    pub(crate) fn expect_exit(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "wrong exit code\n{}", self.dump());
        self
    }

    /// stdout as exactly one JSON document, nothing before or after it but whitespace (what
    /// `--format json` promises, and what text mode prints as the result).
    pub(crate) fn json(&self) -> Value {
        let mut documents = serde_json::Deserializer::from_str(&self.stdout).into_iter::<Value>();
        let first = match documents.next() {
            Some(Ok(value)) => value,
            other => panic!("stdout is not a JSON document ({other:?})\n{}", self.dump()),
        };
        assert!(
            documents.next().is_none(),
            "stdout holds more than one JSON document\n{}",
            self.dump()
        );
        first
    }

    /// The `result` of a `--format json` document.
    pub(crate) fn result(&self) -> Value {
        let doc = self.json();
        assert!(doc.is_object(), "{}", self.dump());
        doc["result"].clone()
    }

    /// The `{"error": {…}}` object of a failed run: exactly one stderr line is that JSON, and it
    /// has a string `code` and `message`.
    pub(crate) fn error(&self) -> Value {
        let lines: Vec<Value> = self
            .stderr
            .lines()
            .filter(|line| line.starts_with('{'))
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|value| value.get("error").is_some())
            .collect();
        assert_eq!(
            lines.len(),
            1,
            "want exactly one JSON error line on stderr\n{}",
            self.dump()
        );
        let error = lines[0]["error"].clone();
        assert!(
            error["code"].is_string() && error["message"].is_string(),
            "{}",
            self.dump()
        );
        error
    }

    /// Every JSON-RPC message we sent, in order.
    pub(crate) fn sent(&self) -> Vec<Value> {
        self.messages("out")
    }

    /// Every JSON-RPC message we received, in order.
    pub(crate) fn received(&self) -> Vec<Value> {
        self.messages("in")
    }

    /// The messages we sent with `method`.
    pub(crate) fn sent_method(&self, method: &str) -> Vec<Value> {
        self.sent()
            .into_iter()
            .filter(|m| m["method"] == method)
            .collect()
    }

    /// The response we received to the request with `id`.
    pub(crate) fn response_to(&self, id: &Value) -> Value {
        self.received()
            .into_iter()
            .find(|m| &m["id"] == id && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response to id {id}\n{}", self.dump()))
    }

    fn messages(&self, direction: &str) -> Vec<Value> {
        self.trace
            .iter()
            .filter(|f| f["direction"] == direction && f.get("message").is_some())
            .filter_map(|f| serde_json::from_slice::<Value>(&body(f)).ok())
            .filter(|m| m.is_object())
            .collect()
    }

    /// Frames of one `kind` (`stdin-line`, `http-request`, `sse-event`, …), in trace order.
    pub(crate) fn frames(&self, kind: &str) -> Vec<&Value> {
        self.trace.iter().filter(|f| f["kind"] == kind).collect()
    }
}

/// A header of a traced HTTP frame (names compare case-insensitively).
pub(crate) fn header<'a>(frame: &'a Value, name: &str) -> Option<&'a str> {
    frame["meta"]["headers"]
        .as_array()?
        .iter()
        .find(|pair| {
            pair[0]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .and_then(|pair| pair[1].as_str())
}

/// A frame's exact bytes, from `text` or `base64`.
pub(crate) fn body(frame: &Value) -> Vec<u8> {
    match (&frame["text"], &frame["base64"]) {
        (Value::String(t), _) => t.as_bytes().to_vec(),
        (_, Value::String(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("valid base64"),
        _ => Vec::new(),
    }
}

/// A fresh trace path under cargo's scratch directory for integration tests.
fn trace_path() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-traces");
    std::fs::create_dir_all(&dir).expect("create the trace directory");
    dir.join(format!(
        "{}-{}.ndjson",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ))
}

/// Runs `mcpscope --cli --trace FILE <args…>` to completion (or the deadline).
pub(crate) async fn cli(label: &str, args: &[String]) -> Run {
    let trace = trace_path();
    let mut all = vec!["--cli".to_owned(), "--trace".to_owned()];
    all.push(trace.to_string_lossy().into_owned());
    all.extend(args.iter().cloned());
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &all, &[]).await;
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    let trace = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("every trace line is JSON"))
        .collect();
    Run {
        label: format!("{label}: mcpscope --cli {}", args.join(" ")),
        code,
        stdout,
        stderr,
        trace,
    }
}

/// Runs `program args…` with extra environment, returning exit code, stdout and stderr. A run
/// past the deadline is killed and fails the test with what it printed.
pub(crate) async fn run_binary(
    program: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> (i32, String, String) {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let finished = tokio::time::timeout(DEADLINE, async {
        // Both pipes drained together: a CLI blocked on a full pipe would look hung.
        let (a, b, status) = tokio::join!(
            out.read_to_end(&mut stdout),
            err.read_to_end(&mut stderr),
            child.wait()
        );
        a.and(b).and(status)
    })
    .await;
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    match finished {
        Ok(Ok(status)) => (status.code().unwrap_or(-1), stdout, stderr),
        Ok(Err(e)) => panic!("waiting for {program} failed: {e}"),
        Err(_) => panic!(
            "{program} {} did not finish within {DEADLINE:?}\nstdout: {stdout}\nstderr: {stderr}",
            args.join(" ")
        ),
    }
}

/// The runtime that hosts in-process demo servers. Each `#[tokio::test]` has its own runtime,
/// which ends with the test; servers shared between tests must outlive any one of them.
fn server_runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("demo-server")
            .enable_all()
            .build()
            .expect("build the demo server runtime")
    })
}

/// A demo server on a free loopback port, serving `/mcp` and `/sse`; stopped when dropped.
pub(crate) struct DemoHttp {
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl DemoHttp {
    /// Starts one (tests that change the demo's process-wide state, such as the tool list, get
    /// their own so they cannot disturb the others).
    pub(crate) fn start() -> DemoHttp {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let base = format!("http://{}", listener.local_addr().expect("local address"));
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        server_runtime().spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
            let shutdown = async move {
                let _ = stopped.await;
            };
            if let Err(e) = mcpscope_demo::serve_http_on(listener, shutdown).await {
                eprintln!("the in-process demo server failed: {e:#}");
            }
        });
        DemoHttp {
            base,
            stop: Some(stop),
        }
    }
}

impl Drop for DemoHttp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The demo server most tests share (it lives until the test binary exits).
pub(crate) fn shared_demo() -> &'static str {
    static DEMO: OnceLock<DemoHttp> = OnceLock::new();
    &DEMO.get_or_init(DemoHttp::start).base
}

/// The `io.modelcontextprotocol/…` keys of a message's `params._meta`.
pub(crate) fn reserved_meta_keys(message: &Value) -> Vec<String> {
    message["params"]["_meta"]
        .as_object()
        .map(|meta| {
            meta.keys()
                .filter(|k| k.starts_with("io.modelcontextprotocol/"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}
