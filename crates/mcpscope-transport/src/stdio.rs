//! stdio transport: spawn the server in its own process group, write lines to its stdin, read
//! lines from its stdout and stderr, and shut it down politely then firmly.
//!
//! The child gets an allowlisted environment (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`)
//! plus its configured `env`, as the official Inspector does, so secrets in our own environment do
//! not leak into servers. Every stdout line becomes a frame that may carry a message; every stderr
//! line becomes a frame that does not. When the process ends, a lifecycle frame and a `Closed`
//! event name its exit status and its last stderr lines.

use crate::lines::{Line, LineReader};
use crate::{EventTx, Outgoing, TransportError, TransportEvent, TransportOptions};
use bytes::Bytes;
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta, RequestId};
use std::collections::VecDeque;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

/// Environment variables a server inherits from us; everything else must be given with `-e`.
pub(crate) const ENV_ALLOWLIST: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
/// How many stderr lines to quote when the process dies.
const STDERR_TAIL: usize = 10;

/// A running stdio server.
pub struct StdioTransport {
    /// Read-ahead credit of the stdout reader ([`crate::READ_AHEAD`]).
    credit: Arc<tokio::sync::Semaphore>,
    stdin_tx: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    events: EventTx,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
    /// Ends the wait for a polite exit at once (see [`StdioTransport::hurry`]).
    hurry: Arc<tokio::sync::Notify>,
    done: tokio::sync::watch::Receiver<bool>,
}

impl StdioTransport {
    /// The stdout reader's read-ahead credit: add one permit per stdout line handled.
    pub fn credit(&self) -> Arc<tokio::sync::Semaphore> {
        self.credit.clone()
    }

    pub(crate) fn spawn(
        command: &str,
        args: &[String],
        env: &[(String, String)],
        cwd: Option<&Path>,
        opts: &TransportOptions,
        events: EventTx,
    ) -> Result<StdioTransport, TransportError> {
        let mut child = server_command(command, args, env, cwd)
            .spawn()
            .map_err(|e| spawn_error(command, e))?;
        let pid = child.id();
        let line = std::iter::once(command.to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let _ = events.send(TransportEvent::Frame(
            Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new())
                .with_note(format!("spawned pid {} : {line}", pid.unwrap_or(0))),
        ));

        let (stdin_tx, stdin_rx) = mpsc::unbounded_channel::<Bytes>();
        let stdin = child.stdin.take().expect("piped");
        tokio::spawn(write_stdin(stdin, stdin_rx, events.clone()));
        let tail = Arc::new(Mutex::new(VecDeque::<String>::new()));
        let max = opts.max_message_bytes;
        let credit = crate::read_ahead_credit();
        let stdout = child.stdout.take().expect("piped");
        let stdout_task = tokio::spawn(read_stdout(stdout, max, credit.clone(), events.clone()));
        let stderr = child.stderr.take().expect("piped");
        let stderr_task = tokio::spawn(read_stderr(stderr, max, tail.clone(), events.clone()));

        let (shutdown_tx, shutdown_rx) = oneshot::channel();
        let (done_tx, done_rx) = tokio::sync::watch::channel(false);
        let grace = opts.shutdown_grace;
        let sup_events = events.clone();
        let hurry = Arc::new(tokio::sync::Notify::new());
        let stop = Stop {
            shutdown: shutdown_rx,
            hurry: hurry.clone(),
            grace,
        };
        tokio::spawn(async move {
            let status = supervise(child, pid, stop, &sup_events).await;
            // Let the readers drain what the process wrote before it died.
            let _ = stdout_task.await;
            let _ = tokio::time::timeout(Duration::from_millis(500), stderr_task).await;
            let reason = describe_exit(status.as_ref(), &tail.lock().expect("tail lock"));
            let _ = sup_events.send(TransportEvent::Frame(
                Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new())
                    .with_note(reason.clone()),
            ));
            let _ = sup_events.send(TransportEvent::Closed { reason });
            let _ = done_tx.send(true);
        });

        Ok(StdioTransport {
            credit,
            stdin_tx: Mutex::new(Some(stdin_tx)),
            events,
            shutdown: Mutex::new(Some(shutdown_tx)),
            hurry,
            done: done_rx,
        })
    }

    pub(crate) fn send(&self, out: Outgoing) -> Result<(), TransportError> {
        let guard = self.stdin_tx.lock().expect("stdin lock");
        let tx = guard.as_ref().ok_or(TransportError::Closed)?;
        // Record first: the frame exists even if the write then fails.
        let _ = self.events.send(TransportEvent::Frame(
            Frame::new(Direction::Out, FrameKind::StdinLine, out.body.clone()).message(),
        ));
        tx.send(out.body).map_err(|_| TransportError::Closed)
    }

    pub(crate) async fn close(&self) {
        // Closing stdin is the first, polite step; the supervisor escalates after the grace period.
        self.stdin_tx.lock().expect("stdin lock").take();
        if let Some(tx) = self.shutdown.lock().expect("shutdown lock").take() {
            let _ = tx.send(());
        }
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d).await;
    }

    /// Stop waiting for a server whose stdin is closed to exit by itself: `why` is noted and
    /// SIGTERM sent now rather than after the grace period. For the engine, when the server asks
    /// something after its stdin was closed: the answer can never reach it, and a server waiting
    /// on one (server-everything's `roots/list` timer) would otherwise sit out the whole grace.
    pub(crate) fn hurry(&self, why: &str) {
        note(&self.events, why);
        self.hurry.notify_one();
    }
}

/// The server's command: the allowlisted environment plus `env`, piped stdio, its own process
/// group (so shutdown reaches its children too), killed if we drop it.
fn server_command(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
) -> Command {
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(
            ENV_ALLOWLIST
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (*k, v))),
        )
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd
}

fn spawn_error(command: &str, e: std::io::Error) -> TransportError {
    TransportError::Spawn {
        command: command.to_string(),
        reason: match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "{e} (is `{command}` installed and on PATH? the server sees only PATH, HOME, LOGNAME, SHELL, TERM, USER and -e variables)"
            ),
            _ => e.to_string(),
        },
    }
}

/// Write each queued message as one line. Returning drops stdin, which closes it: the polite
/// first step of shutdown.
async fn write_stdin(
    mut stdin: tokio::process::ChildStdin,
    mut lines: mpsc::UnboundedReceiver<Bytes>,
    events: EventTx,
) {
    while let Some(line) = lines.recv().await {
        let r = async {
            stdin.write_all(&line).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        }
        .await;
        if let Err(e) = r {
            let _ = events.send(TransportEvent::Frame(
                Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new())
                    .with_note(format!("writing to the server's stdin failed: {e}")),
            ));
            return;
        }
    }
}

/// Every stdout line becomes a frame that may carry a message, each after taking one read-ahead
/// credit (the engine gives them back as it goes).
async fn read_stdout(
    stdout: tokio::process::ChildStdout,
    max: usize,
    credit: Arc<tokio::sync::Semaphore>,
    events: EventTx,
) {
    let mut reader = LineReader::new(stdout, max);
    loop {
        if !crate::take_credit(&credit).await {
            return;
        }
        match reader.next_line().await {
            Ok(Some(Line::Complete { bytes, terminated })) => {
                let mut f = Frame::new(Direction::In, FrameKind::StdoutLine, bytes).message();
                if !terminated {
                    f.meta.note = Some("last line had no trailing newline".into());
                }
                let _ = events.send(TransportEvent::Frame(f));
            }
            Ok(Some(Line::TooLong { head, total })) => too_long(head, total, max, &events),
            Ok(None) => return,
            Err(e) => {
                let _ = events.send(TransportEvent::Frame(
                    Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new())
                        .with_note(format!("reading the server's stdout failed: {e}")),
                ));
                return;
            }
        }
    }
}

/// Record the kept head of an over-long stdout line, and fail the request the lost message
/// answered when its head says which; a cut notification fails nothing and the session goes on.
/// When the head cannot tell, the engine guesses (the only request waiting, if there is just one).
fn too_long(head: Bytes, total: usize, max: usize, events: &EventTx) {
    // A line just over a small limit keeps all of itself, not 64 KiB.
    let kept = head.len();
    let f = Frame::new(Direction::In, FrameKind::StdoutLine, head).with_meta(FrameMeta {
        truncated: true,
        note: Some(format!(
            "line of {total} bytes exceeds --max-message-bytes {max}; kept the first {kept} bytes and skipped the rest"
        )),
        ..Default::default()
    });
    let cut = peek_cut(&f.body);
    let _ = events.send(TransportEvent::Frame(f));
    let failed = match cut {
        Cut::Answers(id) => Some(id),
        Cut::Unknown => None,
        Cut::NotAnAnswer => return,
    };
    let _ = events.send(TransportEvent::Failed {
        id: failed,
        error: TransportError::TooLarge { limit: max },
    });
}

/// Every stderr line becomes a frame that carries no message; the last [`STDERR_TAIL`] are kept
/// in `tail` to explain an exit.
async fn read_stderr(
    stderr: tokio::process::ChildStderr,
    max: usize,
    tail: Arc<Mutex<VecDeque<String>>>,
    events: EventTx,
) {
    let mut reader = LineReader::new(stderr, max);
    while let Ok(Some(line)) = reader.next_line().await {
        let (bytes, meta) = match line {
            Line::Complete { bytes, .. } => (bytes, FrameMeta::default()),
            Line::TooLong { head, total } => (
                head,
                FrameMeta {
                    truncated: true,
                    note: Some(format!("stderr line of {total} bytes cut short")),
                    ..Default::default()
                },
            ),
        };
        {
            let mut t = tail.lock().expect("tail lock");
            if t.len() == STDERR_TAIL {
                t.pop_front();
            }
            t.push_back(String::from_utf8_lossy(&bytes).chars().take(500).collect());
        }
        let _ = events.send(TransportEvent::Frame(
            Frame::new(Direction::In, FrameKind::StderrLine, bytes).with_meta(meta),
        ));
    }
}

/// What the kept head of an over-long stdout line says about the message it began.
#[derive(Debug, PartialEq)]
enum Cut {
    /// A response or error response to this request id.
    Answers(RequestId),
    /// A notification or a server request: nothing of ours waits on it.
    NotAnAnswer,
    /// Too little (or too odd) to tell.
    Unknown,
}

/// Read the envelope keys that precede the payload (`{"jsonrpc":"2.0","id":7,"result":…`) from
/// a cut line. The line is incomplete JSON, so parsing stops with an error at the cut; what was
/// seen before it is all we need.
fn peek_cut(head: &[u8]) -> Cut {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    use serde_json::Value;

    #[derive(Default)]
    struct Seen {
        id: Option<Value>,
        method: bool,
        answer: bool,
    }
    struct Peek<'a>(&'a mut Seen);
    impl<'de> DeserializeSeed<'de> for Peek<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Peek<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "id" => self.0.id = Some(map.next_value::<Value>()?),
                    // Noted before the value is read: the value is where the line was cut.
                    "method" => {
                        self.0.method = true;
                        map.next_value::<IgnoredAny>()?;
                    }
                    "result" | "error" => {
                        self.0.answer = true;
                        map.next_value::<IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut seen = Seen::default();
    let mut de = serde_json::Deserializer::from_slice(head);
    // The error is expected (the line was cut); `seen` holds what came before it.
    let _ = Peek(&mut seen).deserialize(&mut de);
    match seen {
        Seen { method: true, .. } => Cut::NotAnAnswer,
        Seen {
            answer: true,
            id: Some(id),
            ..
        } => RequestId::from_value(&id).map_or(Cut::Unknown, Cut::Answers),
        _ => Cut::Unknown,
    }
}

/// How the supervisor is told to stop the server: `shutdown` once stdin is closed, then the
/// grace period for a polite exit, which `hurry` cuts short.
struct Stop {
    shutdown: oneshot::Receiver<()>,
    hurry: Arc<tokio::sync::Notify>,
    grace: Duration,
}

/// Wait for the child; on shutdown request: grace (or a hurry), SIGTERM to the group, grace,
/// SIGKILL.
async fn supervise(
    mut child: Child,
    pid: Option<u32>,
    stop: Stop,
    events: &EventTx,
) -> Option<ExitStatus> {
    // If this task is dropped while the server runs (the CLI exits at Ctrl-C during the
    // handshake; the runtime shuts down), `kill_on_drop` would reach the leader only: take the
    // whole group, or its children outlive us.
    let mut orphan_guard = GroupGuard(pid);
    let status = supervise_steps(&mut child, pid, stop, events).await;
    orphan_guard.0 = None;
    status
}

/// SIGKILL to the server's process group when dropped while still holding its pid.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        signal_group(self.0, nix::sys::signal::Signal::SIGKILL);
    }
}

async fn supervise_steps(
    child: &mut Child,
    pid: Option<u32>,
    stop: Stop,
    events: &EventTx,
) -> Option<ExitStatus> {
    let grace = stop.grace;
    tokio::select! {
        status = child.wait() => return status.ok(),
        _ = stop.shutdown => {}
    }
    tokio::select! {
        r = tokio::time::timeout(grace, child.wait()) => {
            if let Ok(Ok(status)) = r {
                return Some(status);
            }
            note(
                events,
                "server still running after stdin closed; sending SIGTERM to its process group",
            );
        }
        _ = stop.hurry.notified() => {
            note(events, "sending SIGTERM to the server's process group now");
        }
    }
    signal_group(pid, nix::sys::signal::Signal::SIGTERM);
    if let Ok(Ok(status)) = tokio::time::timeout(grace, child.wait()).await {
        return Some(status);
    }
    note(
        events,
        "server ignored SIGTERM; sending SIGKILL to its process group",
    );
    signal_group(pid, nix::sys::signal::Signal::SIGKILL);
    let _ = child.start_kill();
    child.wait().await.ok()
}

fn note(events: &EventTx, text: &str) {
    let _ = events.send(TransportEvent::Frame(
        Frame::new(Direction::Local, FrameKind::Lifecycle, Bytes::new()).with_note(text),
    ));
}

fn signal_group(pid: Option<u32>, sig: nix::sys::signal::Signal) {
    if let Some(pid) = pid {
        // The child leads its own process group (process_group(0)), so its pid is the group id.
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid as i32), sig);
    }
}

fn describe_exit(status: Option<&ExitStatus>, tail: &VecDeque<String>) -> String {
    use std::os::unix::process::ExitStatusExt;
    let mut s = match status {
        Some(st) => match (st.code(), st.signal()) {
            (Some(code), _) => format!("server process exited with status {code}"),
            (None, Some(sig)) => format!("server process was killed by signal {sig}"),
            _ => "server process ended".to_string(),
        },
        None => "server process ended (status unknown)".to_string(),
    };
    if !tail.is_empty() {
        s.push_str("; last stderr lines:");
        for l in tail {
            s.push_str("\n  ");
            s.push_str(l);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_line_names_the_request_it_answered() {
        let head = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(peek_cut(head), Cut::Answers(RequestId::Number(7)));
        let head = br#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"yyyy"#;
        assert_eq!(peek_cut(head), Cut::Answers(RequestId::String("a".into())));
    }

    #[test]
    fn a_cut_notification_or_server_request_answers_nothing() {
        let head = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"zz"#;
        assert_eq!(peek_cut(head), Cut::NotAnAnswer);
        let head = br#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"#;
        assert_eq!(peek_cut(head), Cut::NotAnAnswer);
    }

    #[test]
    fn a_head_that_does_not_tell_is_unknown() {
        // The id comes after the payload, the line is not JSON, or it is not an object.
        assert_eq!(
            peek_cut(br#"{"jsonrpc":"2.0","result":{"a":"bbb"#),
            Cut::Unknown
        );
        assert_eq!(peek_cut(b"Server log: xxxxxxxx"), Cut::Unknown);
        assert_eq!(peek_cut(b"[1,2,3"), Cut::Unknown);
    }
}
