//! Test plumbing: a spawned fixture process with line-level access to stdout and a concurrently
//! drained stderr, and a minimal raw HTTP/1.1 client. Every wait has a deadline, so a fixture
//! that misbehaves in an undocumented way fails its test instead of hanging the suite.

use serde_json::{Value, json};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long any single expected event may take before the test fails.
pub(crate) const DEADLINE: Duration = Duration::from_secs(5);

/// A running `mcpscope-testkit` stdio fixture.
pub(crate) struct Fixture {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Fixture {
    /// Spawn the binary with `args`. stderr is read on a background task from the start: some
    /// fixtures write more than a pipe holds before they answer anything.
    pub(crate) fn spawn(args: &[&str]) -> Fixture {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpscope-testkit"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn mcpscope-testkit");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().expect("stderr piped");
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut chunk = [0u8; 64 * 1024];
            while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
                sink.lock()
                    .expect("stderr lock")
                    .extend_from_slice(&chunk[..n]);
            }
        });
        Fixture {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().expect("stdout piped")),
            stderr,
            child,
        }
    }

    /// Write one message as a line.
    pub(crate) async fn send(&mut self, message: Value) {
        let mut bytes = serde_json::to_vec(&message).expect("serialize");
        bytes.push(b'\n');
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(&bytes).await.expect("write to fixture");
        stdin.flush().await.expect("flush to fixture");
    }

    /// Send a request.
    pub(crate) async fn request(&mut self, id: Value, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
    }

    /// Send a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Legacy handshake: `initialize` (its answer returned) then `notifications/initialized`.
    pub(crate) async fn initialize(&mut self) -> Value {
        self.request(
            json!(0),
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcpscope-testkit-tests", "version": "0"}
            }),
        )
        .await;
        let answer = self.message().await;
        assert_eq!(answer["id"], 0, "initialize answer: {answer}");
        self.notify("notifications/initialized", json!({})).await;
        answer
    }

    /// The next stdout line, terminator included; `None` at end of stream. Fails the test after
    /// [`DEADLINE`].
    pub(crate) async fn line(&mut self) -> Option<Vec<u8>> {
        self.line_within(DEADLINE)
            .await
            .expect("fixture wrote no line in time")
    }

    /// Like [`Fixture::line`], but `Err(())` when nothing arrives within `wait` — for asserting
    /// silence.
    pub(crate) async fn line_within(&mut self, wait: Duration) -> Result<Option<Vec<u8>>, ()> {
        let mut line = Vec::new();
        match tokio::time::timeout(wait, self.stdout.read_until(b'\n', &mut line)).await {
            Err(_) => Err(()),
            Ok(Ok(0)) => Ok(None),
            Ok(Ok(_)) => Ok(Some(line)),
            Ok(Err(e)) => panic!("reading fixture stdout: {e}"),
        }
    }

    /// The next stdout line parsed as JSON.
    pub(crate) async fn message(&mut self) -> Value {
        let line = self.line().await.expect("stdout ended");
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&line)))
    }

    /// Everything left on stdout, until the fixture closes it.
    pub(crate) async fn rest_of_stdout(&mut self) -> Vec<u8> {
        let mut rest = Vec::new();
        tokio::time::timeout(DEADLINE, self.stdout.read_to_end(&mut rest))
            .await
            .expect("stdout did not end in time")
            .expect("read stdout");
        rest
    }

    /// Close stdin, as a client does to ask a stdio server to stop.
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Wait for the process to end.
    pub(crate) async fn exit_status(&mut self) -> ExitStatus {
        tokio::time::timeout(DEADLINE, self.child.wait())
            .await
            .expect("fixture did not exit in time")
            .expect("wait for fixture")
    }

    /// All stderr bytes so far.
    pub(crate) fn stderr(&self) -> Vec<u8> {
        self.stderr.lock().expect("stderr lock").clone()
    }

    /// Wait until stderr contains `needle`.
    pub(crate) async fn stderr_contains(&self, needle: &[u8]) {
        let found = tokio::time::timeout(DEADLINE, async {
            loop {
                if contains(&self.stderr(), needle) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(
            found.is_ok(),
            "stderr never contained {:?}; got {:?}",
            String::from_utf8_lossy(needle),
            String::from_utf8_lossy(&self.stderr())
        );
    }

    /// Wait until stderr stops growing (the process closed it) and return it.
    pub(crate) async fn stderr_at_exit(&mut self) -> Vec<u8> {
        self.exit_status().await;
        // The reader task may still hold the last chunk; give it a moment to land.
        let mut last = self.stderr();
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = self.stderr();
            if now == last {
                return now;
            }
            last = now;
        }
    }
}

/// Does `haystack` contain `needle`?
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// A complete HTTP response as it came off the socket.
#[derive(Debug)]
pub(crate) struct RawResponse {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl RawResponse {
    /// A header value by case-insensitive name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The bytes of one HTTP/1.1 request with `Connection: close`.
pub(crate) fn request_bytes(
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Send one request and read the whole response (the server closes after it).
pub(crate) async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(&request_bytes(method, path, headers, body))
        .await
        .expect("send request");
    let mut raw = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut raw))
        .await
        .expect("response did not end in time")
        .expect("read response");
    parse_response(&raw)
}

/// POST a JSON body to `path` with the headers a Streamable HTTP client sends.
pub(crate) async fn post_json(
    addr: std::net::SocketAddr,
    path: &str,
    extra: &[(&str, &str)],
    body: &Value,
) -> RawResponse {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    http(addr, "POST", path, &headers, body.to_string().as_bytes()).await
}

fn parse_response(raw: &[u8]) -> RawResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    RawResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("chunk size");
        if size == 0 {
            return out;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
}

/// Read from `stream` into `seen` until `seen` contains `needle`.
pub(crate) async fn read_until_contains<R: AsyncRead + Unpin>(
    stream: &mut R,
    seen: &mut Vec<u8>,
    needle: &[u8],
) {
    let result = tokio::time::timeout(DEADLINE, async {
        let mut chunk = [0u8; 8192];
        while !contains(seen, needle) {
            let n = stream.read(&mut chunk).await.expect("read stream");
            assert!(
                n > 0,
                "stream ended before {:?}",
                String::from_utf8_lossy(needle)
            );
            seen.extend_from_slice(&chunk[..n]);
        }
    })
    .await;
    assert!(
        result.is_ok(),
        "never saw {:?}; got {:?}",
        String::from_utf8_lossy(needle),
        String::from_utf8_lossy(seen)
    );
}
