//! `mcpscope gateway` as users start it: the real binary, its file, the URL it prints, and the
//! relay in front of a real MCP server over HTTP (`mcpscope demo-server --http 0`). The relay's
//! rules one by one are `crates/mcpscope-gateway/tests` (against a gateway that records what it
//! received); this pins the wiring: the subcommand, its flags, its page (and not the web UI's),
//! its exit on a bad file, and its stop as a Kubernetes rollout makes it (SIGTERM in the middle
//! of the demo server's `slow` tool streaming its progress through the relay).

use crate::demo_harness::MCPSCOPE;
use crate::misbehaving_support::Scratch;
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt as _, BufReader};

/// A line of `reader` that `pick` accepts, within 20 s.
async fn line_where<R: tokio::io::AsyncRead + Unpin>(
    lines: &mut tokio::io::Lines<BufReader<R>>,
    pick: impl Fn(&str) -> bool,
) -> String {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the process announces itself")
            .unwrap()
            .expect("the process is still running");
        if pick(&line) {
            return line;
        }
    }
}

/// `mcpscope demo-server --http 0` and its MCP URL.
async fn demo_server() -> (tokio::process::Child, String) {
    let mut demo = tokio::process::Command::new(MCPSCOPE)
        .args(["demo-server", "--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpscope demo-server");
    let mut demo_lines = BufReader::new(demo.stderr.take().unwrap()).lines();
    let line = line_where(&mut demo_lines, |l| l.trim_end().ends_with("/mcp")).await;
    let mcp_url = line.split_whitespace().last().unwrap().to_string();
    // Keep reading, so the demo server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = demo_lines.next_line().await {} });
    (demo, mcp_url)
}

/// A running `mcpscope gateway` in front of one gateway named `demo`.
struct Gateway {
    child: tokio::process::Child,
    base: String,
    token: String,
    /// Its stderr so far, line by line.
    stderr: Arc<Mutex<Vec<String>>>,
    /// The task reading it, done at the process's exit.
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    client: reqwest::Client,
    _dir: Scratch,
}

impl Gateway {
    /// Start it with `extra` flags, in front of `mcp_url`.
    async fn start(mcp_url: &str, extra: &[&str]) -> Gateway {
        let dir = Scratch::new("gateway-mode");
        let file = dir.path("gateways.json");
        std::fs::write(
            &file,
            json!({"gateways": {"demo": {"url": mcp_url}}}).to_string(),
        )
        .unwrap();
        let mut child = tokio::process::Command::new(MCPSCOPE)
            .args(["gateway", "--config"])
            .arg(&file)
            .args(["--port", "0"])
            .args(extra)
            .env_remove("MCP_INSPECTOR_API_TOKEN")
            .env_remove("HOST")
            .env_remove("MCPSCOPE_SHUTDOWN_DELAY")
            .env_remove("MCPSCOPE_SHUTDOWN_GRACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start mcpscope gateway");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err_lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let sink = stderr.clone();
        let stderr_reader = tokio::spawn(async move {
            while let Ok(Some(l)) = err_lines.next_line().await {
                sink.lock().unwrap().push(l);
            }
        });
        let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = line_where(&mut out, |l| l.starts_with("mcpscope gateway: ")).await;
        let url = url::Url::parse(line.trim_start_matches("mcpscope gateway: ")).unwrap();
        let token = url
            .query_pairs()
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v.into_owned())
            .expect("a generated token is printed in the URL");
        let base = format!("http://{}:{}", url.host_str().unwrap(), url.port().unwrap());
        Gateway {
            child,
            base,
            token,
            stderr,
            stderr_reader: Some(stderr_reader),
            client: reqwest::Client::new(),
            _dir: dir,
        }
    }

    /// POST one MCP message to the relay.
    fn post(&self, body: Value, session: Option<&str>) -> reqwest::RequestBuilder {
        let mut r = self
            .client
            .post(format!("{}/api/gateways/demo/mcp", self.base))
            .header("x-mcp-remote-auth", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r
    }

    /// A legacy session through the relay: initialize, initialized; its id.
    async fn session(&self) -> Option<String> {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        let resp = self.post(init, None).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let session = resp
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let text = resp.text().await.unwrap();
        assert!(text.contains("\"serverInfo\""), "{text}");
        let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let resp = self.post(inited, session.as_deref()).send().await.unwrap();
        assert!(resp.status().is_success());
        session
    }

    /// The demo's `slow` tool, its progress streamed: the response once its first progress
    /// event has arrived, and what was read so far.
    async fn slow_call(
        &self,
        session: Option<&str>,
        ms: u64,
        steps: u64,
    ) -> (reqwest::Response, String) {
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"durationMs": ms, "steps": steps},
            "_meta": {"progressToken": "p"}}});
        let mut resp = self.post(call, session).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        let mut read = String::new();
        while !read.contains("notifications/progress") {
            let chunk = tokio::time::timeout(Duration::from_secs(10), resp.chunk())
                .await
                .expect("the first progress event")
                .unwrap()
                .expect("the stream is still open");
            read.push_str(&String::from_utf8_lossy(&chunk));
        }
        (resp, read)
    }

    fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = self.child.id().expect("still running");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), signal).unwrap();
    }

    /// `GET /readyz` on a new connection: its status.
    async fn readyz(&self) -> u16 {
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap()
            .get(format!("{}/readyz", self.base))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0)
    }

    /// Whether a new TCP connection is refused.
    async fn refuses_connections(&self) -> bool {
        let addr = self.base.trim_start_matches("http://");
        tokio::net::TcpStream::connect(addr).await.is_err()
    }

    /// Wait for the exit (within `at_most`): its code. Its stderr is then read to the end.
    async fn exit_code(&mut self, at_most: Duration) -> i32 {
        let status = tokio::time::timeout(at_most, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("mcpscope gateway exits within {at_most:?}"))
            .unwrap();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), reader).await;
        }
        status.code().unwrap_or(-1)
    }

    /// Its stderr lines that contain `part`.
    fn said(&self, part: &str) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(part))
            .cloned()
            .collect()
    }
}

/// Read `resp` to its end (within `at_most`): everything read, and whether it ended cleanly
/// (an error is a cut stream).
async fn read_rest(resp: &mut reqwest::Response, at_most: Duration) -> (String, bool) {
    let mut read = String::new();
    let end = Instant::now() + at_most;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, resp.chunk()).await {
            Err(_) => panic!("the stream is still open after {at_most:?}: {read}"),
            Ok(Ok(Some(chunk))) => read.push_str(&String::from_utf8_lossy(&chunk)),
            Ok(Ok(None)) => return (read, true),
            Ok(Err(_)) => return (read, false),
        }
    }
}

#[tokio::test]
async fn gateway_mode_relays_the_demo_server_and_nothing_else() {
    let (_demo, mcp_url) = demo_server().await;
    let gw = Gateway::start(&mcp_url, &[]).await;
    let client = &gw.client;
    let base = &gw.base;
    let health = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let session = gw.session().await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let resp = gw.post(list, session.as_deref()).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(text.contains("\"tools\""), "{text}");
    // The demo server has resources; the relay does not relay them.
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"});
    let resp = gw.post(read, session.as_deref()).send().await.unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(resp.headers()["x-mcpscope-refusal"], "method-allowlist");
    // No single-user route exists.
    let servers = client
        .get(format!("{base}/api/servers"))
        .header("x-mcp-remote-auth", format!("Bearer {}", gw.token))
        .send()
        .await
        .unwrap();
    assert_eq!(servers.status(), 404);
    // Its own page, as a browser loads it (no token), and not the single-user web UI's.
    let page = client.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("gateway.js"), "{html}");
    for file in [
        "/gateway.html",
        "/gateway.js",
        "/gateway.css",
        "/favicon.svg",
    ] {
        let r = client.get(format!("{base}{file}")).send().await.unwrap();
        assert_eq!(r.status(), 200, "{file}");
    }
    for file in ["/index.html", "/app.js", "/index.css", "/history"] {
        let r = client.get(format!("{base}{file}")).send().await.unwrap();
        assert_eq!(r.status(), 404, "{file}");
    }
}

/// A rollout's SIGTERM in the middle of a streamed tool call: /readyz turns 503 at once, new
/// connections are still answered during --shutdown-delay and refused after it, the stream
/// runs to its result, the log says when the drain began and ended, and the exit is 0.
#[tokio::test]
async fn sigterm_mid_stream_drains_it_to_its_end_then_exits_0() {
    let (_demo, mcp_url) = demo_server().await;
    let delay = Duration::from_millis(1500);
    let mut gw = Gateway::start(
        &mcp_url,
        &["--shutdown-delay", "1500ms", "--shutdown-grace", "15s"],
    )
    .await;
    let session = gw.session().await;
    assert_eq!(gw.readyz().await, 200);
    // Six steps of 600 ms: the stream outlives the delay.
    let (mut stream, first) = gw.slow_call(session.as_deref(), 3600, 6).await;
    gw.signal(nix::sys::signal::Signal::SIGTERM);
    let sent = Instant::now();
    let mut ready = gw.readyz().await;
    while ready == 200 && sent.elapsed() < Duration::from_secs(1) {
        ready = gw.readyz().await;
    }
    assert_eq!(ready, 503, "/readyz after SIGTERM");
    assert!(
        sent.elapsed() < delay,
        "/readyz answered 503 during the delay, on a new connection"
    );
    while !gw.refuses_connections().await {
        assert!(
            sent.elapsed() < delay + Duration::from_secs(2),
            "new connections are still taken {:?} after SIGTERM",
            sent.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        sent.elapsed() >= delay - Duration::from_millis(200),
        "refused already after {:?}, before the delay",
        sent.elapsed()
    );
    let (rest, clean) = read_rest(&mut stream, Duration::from_secs(10)).await;
    assert!(clean, "the stream ended cleanly: {first}{rest}");
    assert!(rest.contains("done after 6 steps"), "{first}{rest}");
    assert_eq!(gw.exit_code(Duration::from_secs(10)).await, 0);
    let began = gw.said("SIGTERM: draining");
    assert_eq!(began.len(), 1, "{:?}", gw.stderr.lock().unwrap());
    assert!(began[0].contains("/readyz answers 503"), "{began:?}");
    let ended = gw.said("drained in");
    assert_eq!(ended.len(), 1, "{:?}", gw.stderr.lock().unwrap());
    assert!(
        ended[0].contains("1 request(s) in progress finished"),
        "{ended:?}"
    );
}

/// A stream longer than --shutdown-grace is cut when the grace runs out, the log says so, and
/// the process exits 0 all the same.
#[tokio::test]
async fn a_stream_longer_than_the_grace_is_cut_and_the_process_exits() {
    let (_demo, mcp_url) = demo_server().await;
    let grace = Duration::from_millis(1500);
    let mut gw = Gateway::start(&mcp_url, &["--shutdown-grace", "1500ms"]).await;
    let session = gw.session().await;
    let (mut stream, _) = gw.slow_call(session.as_deref(), 60_000, 120).await;
    gw.signal(nix::sys::signal::Signal::SIGTERM);
    let sent = Instant::now();
    let (rest, clean) = read_rest(&mut stream, Duration::from_secs(10)).await;
    let cut_after = sent.elapsed();
    assert!(!clean, "the stream was cut, not ended: {rest}");
    assert!(!rest.contains("done after"), "{rest}");
    assert!(
        rest.contains("notifications/progress"),
        "it kept streaming during the grace: {rest}"
    );
    assert!(
        cut_after >= grace - Duration::from_millis(300)
            && cut_after < grace + Duration::from_secs(3),
        "cut {cut_after:?} after SIGTERM, the grace is {grace:?}"
    );
    assert_eq!(gw.exit_code(Duration::from_secs(5)).await, 0);
    let ended = gw.said("drained in");
    assert_eq!(ended.len(), 1, "{:?}", gw.stderr.lock().unwrap());
    assert!(
        ended[0].contains("grace ran out") && ended[0].contains("1 connection(s)"),
        "{ended:?}"
    );
}

/// A second signal does not wait for the drain: the process exits at once, as 128 + SIGTERM.
#[tokio::test]
async fn a_second_signal_exits_at_once() {
    let (_demo, mcp_url) = demo_server().await;
    let mut gw = Gateway::start(&mcp_url, &["--shutdown-grace", "60s"]).await;
    let session = gw.session().await;
    let (_stream, _) = gw.slow_call(session.as_deref(), 60_000, 120).await;
    gw.signal(nix::sys::signal::Signal::SIGTERM);
    let mut began = Vec::new();
    for _ in 0..100 {
        began = gw.said("draining");
        if !began.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(began.len(), 1, "the drain began");
    gw.signal(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(gw.exit_code(Duration::from_secs(3)).await, 143);
    assert_eq!(gw.said("again: quitting at once").len(), 1);
}

#[tokio::test]
async fn gateway_mode_refuses_a_bad_file_naming_its_line() {
    let dir = Scratch::new("gateway-bad");
    let file = dir.path("gateways.json");
    std::fs::write(
        &file,
        "{\n  \"gateways\": {\n    \"a\": {\"url\": 42}\n  }\n}\n",
    )
    .unwrap();
    let out = tokio::process::Command::new(MCPSCOPE)
        .args(["gateway", "--port", "0", "--config"])
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:3:", file.display())),
        "{stderr}"
    );
}
