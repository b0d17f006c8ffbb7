//! Plumbing for the misbehaving-server tests: run the real `mcpscope` binary with `--cli` and a
//! `--trace` file against a testkit server, and read back what a user would see — exit code,
//! stdout, the stderr JSON error line, warnings, and every recorded frame.
//!
//! Every wait has a deadline, so a CLI that hangs on a bad server fails its test (with what it
//! printed so far) instead of hanging the suite: not hanging is the property under test.

use base64::Engine as _;
use mcpscope_testkit::StdioMode;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The binary under test.
pub(crate) const MCPSCOPE: &str = env!("CARGO_BIN_EXE_mcpscope");

/// No single CLI run may take longer than this; generous because the 100 MB and 100,000
/// notification runs share two cores with everything else in debug builds.
pub(crate) const DEADLINE: Duration = Duration::from_secs(90);

/// The `mcpscope-testkit` binary (built on first use).
pub(crate) fn testkit() -> String {
    mcpscope_testkit::bin_path()
        .expect("build the mcpscope-testkit binary")
        .to_string_lossy()
        .into_owned()
}

/// `-- <testkit> <mode> [options]`: the server command, last on the command line so the mode's
/// own `--options` reach the server and not clap.
pub(crate) fn server(mode: &StdioMode) -> Vec<String> {
    let mut args = vec!["--".to_owned(), testkit()];
    args.extend(mode.args());
    args
}

/// A scratch directory of its own per test, removed when dropped (unless the test failed, so
/// the trace can be read afterwards).
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-misbehaving-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    pub(crate) fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// What one CLI run left behind.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
    pub(crate) elapsed: Duration,
    /// Every `--trace` line, parsed (empty after [`cli_unparsed`]).
    pub(crate) trace: Vec<Value>,
    /// The `--trace` file.
    pub(crate) trace_file: PathBuf,
    /// Keeps the trace and any `--output` file until the run is dropped.
    pub(crate) _scratch: Scratch,
}

impl Run {
    /// stdout as exactly one JSON document (what `--format json` promises).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&self.stdout),
                self.stderr
            )
        })
    }

    /// The `{"error": {…}}` object of the last stderr line (every non-zero exit writes one).
    pub(crate) fn error(&self) -> Value {
        let last = self.stderr.lines().last().unwrap_or_default();
        let line: Value = serde_json::from_str(last)
            .unwrap_or_else(|e| panic!("last stderr line is not JSON ({e}): {}", self.stderr));
        assert!(line["error"].is_object(), "no error object: {last}");
        line["error"].clone()
    }

    /// The error's message.
    pub(crate) fn message(&self) -> String {
        self.error()["message"]
            .as_str()
            .expect("message is a string")
            .to_owned()
    }

    /// The `warnings` of the JSON document (empty when there were none).
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.json()["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .map(|s| s.as_str().expect("warning is a string").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Frames of one `kind` (`stdout-line`, `http-request`, …), in trace order.
    pub(crate) fn frames(&self, kind: &str) -> Vec<&Value> {
        self.trace.iter().filter(|f| f["kind"] == kind).collect()
    }

    /// The messages we sent with `method`, parsed, in order (stdin lines or HTTP request bodies).
    pub(crate) fn sent(&self, method: &str) -> Vec<Value> {
        self.trace
            .iter()
            .filter(|f| f["direction"] == "out" && f["method"] == method)
            .map(|f| serde_json::from_slice(&body(f)).expect("a sent message is JSON"))
            .collect()
    }

    /// Everything a human needs to see why an assertion about this run failed.
    pub(crate) fn dump(&self) -> String {
        format!(
            "exit {} after {:?}\nstdout: {}\nstderr: {}",
            self.code,
            self.elapsed,
            String::from_utf8_lossy(&self.stdout[..self.stdout.len().min(4000)]),
            self.stderr.chars().take(4000).collect::<String>()
        )
    }
}

/// A frame's exact bytes, from `text` or `base64`.
pub(crate) fn body(frame: &Value) -> Vec<u8> {
    match (&frame["text"], &frame["base64"]) {
        (Value::String(t), _) => t.as_bytes().to_vec(),
        (_, Value::String(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("valid base64"),
        _ => panic!("frame without bytes: {frame}"),
    }
}

/// The pid the stdio transport spawned, from the trace's first lifecycle note
/// (`spawned pid N : …`).
pub(crate) fn spawned_pid(trace: &[Value]) -> i32 {
    trace
        .iter()
        .find_map(|f| {
            f["meta"]["note"]
                .as_str()?
                .strip_prefix("spawned pid ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .expect("the trace names the spawned pid")
}

/// Run `mcpscope --cli --trace <scratch>/trace.ndjson <args…>` to completion.
pub(crate) fn cli<S: AsRef<str>>(name: &str, args: &[S]) -> Run {
    let mut run = cli_unparsed(name, args);
    run.trace = read_trace(&run.trace_file);
    run
}

/// [`cli`] without parsing the trace, for runs whose trace is too big to hold as JSON values
/// (read [`Run::trace_file`] line by line instead).
pub(crate) fn cli_unparsed<S: AsRef<str>>(name: &str, args: &[S]) -> Run {
    run(name, args, true)
}

/// [`cli`] without `--trace`, for a run whose payload would make the trace the slowest part.
pub(crate) fn cli_untraced<S: AsRef<str>>(name: &str, args: &[S]) -> Run {
    run(name, args, false)
}

fn run<S: AsRef<str>>(name: &str, args: &[S], traced: bool) -> Run {
    let scratch = Scratch::new(name);
    let trace = scratch.path("trace.ndjson");
    let started = Instant::now();
    let mut child = command(traced.then_some(trace.as_path()), args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpscope");
    // Both pipes drained concurrently: a CLI blocked on a full stderr pipe would look hung.
    let out = drain(child.stdout.take().expect("stdout"));
    let err = drain(child.stderr.take().expect("stderr"));
    let code = wait(&mut child, DEADLINE, || {
        String::from_utf8_lossy(&err_snapshot(&err)).into_owned()
    });
    let elapsed = started.elapsed();
    let stdout = join(out);
    let stderr = String::from_utf8_lossy(&join(err)).into_owned();
    Run {
        code,
        stdout,
        stderr,
        elapsed,
        trace: Vec::new(),
        trace_file: trace,
        _scratch: scratch,
    }
}

/// [`cli`] on a blocking thread, for tests whose tokio runtime serves an HTTP fixture meanwhile.
pub(crate) async fn cli_async(name: &str, args: Vec<String>) -> Run {
    let name = name.to_owned();
    tokio::task::spawn_blocking(move || cli(&name, &args))
        .await
        .expect("cli thread")
}

fn command<S: AsRef<str>>(trace: Option<&Path>, args: &[S]) -> Command {
    let mut command = Command::new(MCPSCOPE);
    command.arg("--cli");
    if let Some(trace) = trace {
        command.arg("--trace").arg(trace);
    }
    command
        .args(args.iter().map(AsRef::as_ref))
        .stdin(Stdio::null());
    command
}

/// Parse an NDJSON trace file.
pub(crate) fn read_trace(path: &Path) -> Vec<Value> {
    let file = std::fs::File::open(path).expect("the trace file exists");
    BufReader::new(file)
        .lines()
        .map(|line| {
            let line = line.expect("trace is UTF-8 text");
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("trace line ({e}): {line}"))
        })
        .collect()
}

type Drained = (Arc<Mutex<Vec<u8>>>, std::thread::JoinHandle<()>);

fn drain(mut pipe: impl Read + Send + 'static) -> Drained {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let sink = buf.clone();
    let handle = std::thread::spawn(move || {
        let mut chunk = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = pipe.read(&mut chunk) {
            sink.lock()
                .expect("pipe lock")
                .extend_from_slice(&chunk[..n]);
        }
    });
    (buf, handle)
}

fn err_snapshot(d: &Drained) -> Vec<u8> {
    d.0.lock().expect("pipe lock").clone()
}

fn join(d: Drained) -> Vec<u8> {
    d.1.join().expect("pipe reader");
    std::mem::take(&mut *d.0.lock().expect("pipe lock"))
}

/// Wait for the process; past `deadline` kill it and fail with what it said so far.
fn wait(child: &mut Child, deadline: Duration, said: impl Fn() -> String) -> i32 {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for mcpscope") {
            return exit_code(status);
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "mcpscope did not exit within {deadline:?} (it must never hang); stderr so far:\n{}",
                said()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| panic!("mcpscope was killed by signal {:?}", status.signal()))
}

/// A CLI run watched while it runs: its stderr arrives line by line, so a test can act (send
/// SIGINT) at a known point instead of after a guessed sleep.
pub(crate) struct Live {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    started: Instant,
    scratch: Scratch,
}

impl Live {
    pub(crate) fn spawn<S: AsRef<str>>(name: &str, args: &[S]) -> Live {
        let scratch = Scratch::new(name);
        let mut child = command(Some(&scratch.path("trace.ndjson")), args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpscope");
        let (tx, lines) = mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).split(b'\n') {
                let Ok(line) = line else { break };
                if tx
                    .send(String::from_utf8_lossy(&line).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        Live {
            child,
            lines,
            seen: Vec::new(),
            started: Instant::now(),
            scratch,
        }
    }

    pub(crate) fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("pid fits i32")
    }

    /// Block until a stderr line satisfies `pred`; fail the test if none does within `within`.
    pub(crate) fn wait_for_line(&mut self, within: Duration, pred: impl Fn(&str) -> bool) {
        let until = Instant::now() + within;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = pred(&line);
                    self.seen.push(line);
                    if hit {
                        return;
                    }
                }
                Err(_) => panic!(
                    "no matching stderr line within {within:?}; exit status so far {:?}; stderr:\n{}",
                    self.child.try_wait(),
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Whether the process is still running.
    pub(crate) fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Time since spawn.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Wait for the exit; returns the code, every stderr line and the trace.
    pub(crate) fn finish(mut self) -> (i32, Vec<String>, Vec<Value>) {
        let seen = self.seen.join("\n");
        let code = wait(&mut self.child, DEADLINE, || seen.clone());
        // The reader thread ends with the pipe; collect what it still holds.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        let trace = read_trace(&self.scratch.path("trace.ndjson"));
        (code, std::mem::take(&mut self.seen), trace)
    }
}
