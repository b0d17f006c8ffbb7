//! The stdio fixtures: [`StdioMode`] (one subcommand of the `mcpscope-testkit` binary each), the
//! entry points that run a mode over the process's stdio or any pipes, and the plumbing they share
//! (a line reader that never assumes UTF-8, a writer that keeps concurrent messages whole).

mod flawed;
mod flawed_modern;
mod hostile;
mod hostile_subscriptions;
mod legacy;
mod modern;

use crate::Result;
pub use flawed::{Flaw, JUNK_LINE, STRAY_ID};
pub use flawed_modern::ModernFlaw;
use serde_json::Value;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, MutexGuard};

/// The protocol revision the legacy fixtures speak (`initialize` handshake).
pub const LEGACY_PROTOCOL_VERSION: &str = "2025-11-25";

/// The protocol revision the `modern` fixture speaks (`server/discover`, per-request `_meta`).
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// What [`StdioMode::TerminalEscapes`] puts in every text it sends: set the clipboard (OSC 52),
/// retitle the window, clear the screen and home the cursor.
pub const TERMINAL_ESCAPES: &str =
    "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;pwned-title\u{7}\u{1b}[2J\u{1b}[H";

/// The exact lines, terminators included, that [`StdioMode::Garbage`] writes to stdout before
/// every real response, in this order. Tests assert that each one shows up as its own frame.
pub const GARBAGE_NOISE: [&[u8]; 8] = [
    // A server that logs to stdout, the most common mistake in the wild.
    b"Server started on port 3000\n",
    // Valid JSON behind a UTF-8 byte-order mark (Windows editors and .NET writers add one).
    b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"line with a UTF-8 BOM\"}}\n",
    // Valid JSON ending in CRLF instead of LF.
    b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"CRLF-terminated line\"}}\r\n",
    // JSON cut short.
    b"{\"jsonrpc\":\"2.0\",\n",
    // Bytes that are not UTF-8 at all (lone continuation byte, invalid lead bytes, a NUL).
    b"\xFF\xFE\x80binary\x00junk\xC3\x28\n",
    // A JSON-RPC message whose params have the wrong type.
    b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":\"wrong-shape\"}\n",
    // A response nobody asked for.
    b"{\"jsonrpc\":\"2.0\",\"id\":\"mcpscope-testkit-no-such-request\",\"result\":{}}\n",
    // An empty line.
    b"\n",
];

/// One deliberately misbehaving stdio MCP server; each variant is a subcommand of the
/// `mcpscope-testkit` binary. Unless a mode says otherwise it speaks the legacy 2025-11-25
/// lifecycle (`initialize`, then `notifications/initialized`) and answers `ping`.
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum StdioMode {
    /// Eight noise lines on stdout before every real response.
    ///
    /// The lines are [`GARBAGE_NOISE`]: a log line, a BOM, CRLF, truncated JSON, invalid UTF-8,
    /// a wrong-shape notification, a response to an unknown id and an empty line. Proves every
    /// stdout line is recorded as what it is and that noise never keeps the real answer from
    /// being matched. Tool: `echo`.
    Garbage,
    /// Reads stdin and never writes a byte, not even to `initialize`.
    ///
    /// Exits 0 when stdin closes. Proves the initialize timeout fires and names a silent server.
    Silent,
    /// Exits with status 3 before reading anything, after `fatal: missing API_KEY` on stderr.
    ///
    /// A second stderr line carries a hint. Proves an early exit is reported with its status and
    /// stderr, not as a timeout or a broken pipe.
    ExitBeforeInit,
    /// Dies with `panic: boom` on stderr and status 101 at the first request after `initialized`.
    ///
    /// `initialize` and `ping` are answered; any other request after
    /// `notifications/initialized` triggers the exit. Proves a death mid-session fails the
    /// in-flight request with the exit status and stderr. Tool: `echo` (before `initialized`).
    ExitAfterInit,
    /// Answers `initialize` with protocolVersion `1999-01-01`.
    ///
    /// Proves an unsupported negotiated version is reported (the client disconnects or flags
    /// it). Everything else works. Tool: `echo`.
    WrongVersion,
    /// Advertises every capability, then answers everything but `initialize`/`ping` with -32601.
    ///
    /// Capabilities: tools, resources, prompts, logging, completions. Proves a capability the
    /// server does not honour is shown as a finding without failing the whole session.
    PhantomCapabilities,
    /// `tools/call` returns one text block of exactly `--bytes` 'x' characters on one line.
    ///
    /// Any tool name works. Written as prefix, 64 KiB chunks and suffix, so the server's memory
    /// stays flat. Proves there is no fixed line cap and that big payloads stream. Tool: `huge`.
    HugeResult {
        /// Length of the text payload in bytes (100 MiB by default).
        #[arg(long, default_value_t = 104_857_600)]
        bytes: u64,
    },
    /// `tools/list` pages through `--count` tools, `--page-size` at a time.
    ///
    /// Tools are `tool-0000`, `tool-0001`, … (wider past 10,000) with a one-property
    /// inputSchema; `nextCursor` is an opaque string; a cursor the server never issued gets
    /// -32602. Calling a listed tool answers `called <name>`. Proves pagination is followed to
    /// the end and big lists stay usable.
    ManyTools {
        /// Number of tools.
        #[arg(long, default_value_t = 1000)]
        count: u32,
        /// Tools per page (at least 1).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
        page_size: u32,
    },
    /// `tools/call flood` sends `--count` `notifications/message`, then its result.
    ///
    /// Each notification is level `info` with data `{"seq": i}`, i from 0, written in large
    /// batches as fast as the pipe takes them; the result text is `sent N`. Proves a flood is
    /// neither dropped nor reordered and does not freeze the client. Tool: `flood`.
    Flood {
        /// Number of notifications per call.
        #[arg(long, default_value_t = 100_000)]
        count: u64,
    },
    /// The `tools/list` response is its last output, without a trailing newline; then it exits 0.
    ///
    /// Proves the final unterminated line is not lost when the stream ends. Tool: `echo`.
    NoFinalNewline,
    /// Waits `--delay-ms` before reading anything, then serves normally.
    ///
    /// Proves connect/initialize timeouts, and that a slow but correct server is not abandoned
    /// too early. Tool: `echo`.
    SlowStart {
        /// Start-up delay in milliseconds.
        #[arg(long, default_value_t = 3000)]
        delay_ms: u64,
    },
    /// `tools/call forever` sends progress every 200 ms and never answers.
    ///
    /// Progress uses the request's `_meta.progressToken` (none is sent without one).
    /// `notifications/cancelled` for the request stops it; once it has stopped, stderr gets
    /// `cancelled <id>` (the id as JSON, so `"7"` and `7` differ). Proves the request timeout
    /// resets on progress and that cancellation goes out. Tool: `forever`.
    ProgressForever,
    /// `tools/call` never answers; `initialize` and `tools/list` work.
    ///
    /// No progress either. Each `notifications/cancelled` is echoed to stderr as
    /// `got notifications/cancelled for <id>` (the id as JSON). Proves the request timeout fires
    /// and sends a cancellation. Tool: `hang`.
    NeverAnswersCall,
    /// Serves normally while writing a lot of awkward stderr.
    ///
    /// Before reading anything: `--lines` ordinary lines, ANSI colours, invalid UTF-8, a
    /// carriage-return progress bar and one `--long-line-bytes` line; then a line per message;
    /// then, when stdin closes, a last line without a newline. The burst outgrows a pipe buffer,
    /// so a client that does not drain stderr concurrently never gets its initialize answer.
    /// Proves stderr is drained and kept byte for byte. Tool: `echo`.
    StderrChatter {
        /// Ordinary lines in the start-up burst.
        #[arg(long, default_value_t = 1000)]
        lines: u32,
        /// Length of the one very long stderr line.
        #[arg(long, default_value_t = 1_048_576)]
        long_line_bytes: usize,
    },
    /// `tools/list` pages like `many-tools`, but the last page's `nextCursor` is the first page's
    /// again, so a client that follows cursors blindly loops forever.
    ///
    /// The cursor handed out on page 1 (`cursor-<page-size>`) comes back on the last page; every
    /// tool is listed exactly once before the repeat. Proves a repeated cursor is named (which
    /// cursor, on which page) with every item gathered so far kept, never a silent stop or a
    /// loop. Tool names as in `many-tools`.
    CursorLoop {
        /// Number of tools (more than one page, or there is no cursor to repeat).
        #[arg(long, default_value_t = 6)]
        count: u32,
        /// Tools per page (at least 1).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
        page_size: u32,
    },
    /// Sends `roots/list` the moment `notifications/initialized` arrives, as
    /// `@modelcontextprotocol/server-filesystem` does, and serves `echo` meanwhile.
    ///
    /// The request's id is `"roots-1"`. When the answer comes back, stderr gets
    /// `roots/list answered: <the response line>`. Proves a one-shot client does not close the
    /// connection before its answer to a server request is on the wire. Tool: `echo`.
    RootsOnInitialized,
    /// A minimal modern-era (2026-07-28) server: `server/discover`, `_meta`, `input_required`.
    ///
    /// Every request but `ping` needs `_meta` with `io.modelcontextprotocol/protocolVersion`
    /// and `io.modelcontextprotocol/clientCapabilities` (-32602 if missing; -32022 with
    /// `data.supported` for another version). `initialize` gets -32601. Tools: `echo`; `ask`
    /// (needs the elicitation capability, else -32021) returns `input_required` with
    /// `requestState: "state-1"` and completes once retried with `inputResponses` and that exact
    /// state, else starts round `state-N+1`; `ask-forever` never completes (for the round cap);
    /// `empty-round` answers `input_required` with no `inputRequests`, every time.
    Modern,
    /// Declares 2025-11-25 tasks and misbehaves with them, one tool each (run as tasks).
    ///
    /// `never` stays `working`; `backwards` is `completed` at the first `tasks/get`, `working`
    /// after; `poll-zero` asks `pollInterval` 0 and completes after 6 gets; `poll-huge` asks
    /// 10^12 ms; `big-result` completes with `--result-bytes` of text; `invented` has status
    /// `pondering`. `tasks/list` pages through `--listed` tasks (1,000 a page) whose statuses
    /// include the invented `on-vacation`. Proves each is shown as what it is and nothing hangs.
    HostileTasks {
        /// Tasks `tasks/list` reports.
        #[arg(long, default_value_t = 10_000)]
        listed: usize,
        /// Size of `big-result`'s text.
        #[arg(long, default_value_t = 1_048_576)]
        result_bytes: usize,
    },
    /// Asks the client what it cannot or should not all answer: `unknown-request` sends
    /// `x-vendor/frobnicate`; `questions` sends `count` (default 1000) form elicitations in one
    /// write. Each call's result tallies the answers. Proves an unknown request is answered
    /// method-not-found and a flood of questions is bounded, counted and never freezes.
    HostileInteractions,
    /// Puts terminal escape sequences ([`TERMINAL_ESCAPES`]: OSC 52 clipboard, a window title,
    /// a screen clear) in everything a client may show: `tools/call hostile` writes them to
    /// stderr, in a log notification, in a progress message (when the call has a progress
    /// token) and in its JSON-RPC error; `tools/call crash` writes them to stderr and exits 1.
    /// Proves a terminal view shows them as text, never obeys them, and a trace keeps them exact.
    TerminalEscapes,
    /// A 2026-07-28 server whose `subscriptions/listen` streams break the rules: after the
    /// acknowledgement (of exactly what was asked), an unrequested `prompts/list_changed`, an
    /// update of a URI not watched, a notification tagged with an unknown subscription id, one
    /// with no id, then `updates` updates of distinct sub-resources of the first watched URI. The
    /// stream stays open. Proves each is rejected and shown, and a flood of URIs stays bounded.
    HostileSubscriptions {
        /// Well-formed updates sent after the bad ones.
        #[arg(long, default_value_t = 0)]
        updates: usize,
    },
    /// A small, correct 2025-11-25 server that `mcpscope check` passes — or, with `--flaw`,
    /// fails exactly one check ([`Flaw`] names which).
    ///
    /// Tool: `status` (read-only, no arguments, an `outputSchema` its `structuredContent`
    /// matches). Proves each check can fail, and that a flaw is blamed on its own rule only.
    Flawed {
        /// What is wrong with it.
        #[arg(long, value_enum, default_value_t = Flaw::None)]
        flaw: Flaw,
    },
    /// A small, correct 2026-07-28-only server that `mcpscope check` passes — or, with `--flaw`,
    /// fails exactly one of the 2026-07-28 checks ([`ModernFlaw`] names which).
    ///
    /// Tools: `status` and `confirm` (read-only, no arguments; `confirm` asks one
    /// `input_required` question with a signed `requestState`). `tools/list` has two pages.
    FlawedModern {
        /// What is wrong with it.
        #[arg(long, value_enum, default_value_t = ModernFlaw::None)]
        flaw: ModernFlaw,
    },
}

impl StdioMode {
    /// The subcommand name (`garbage`, `huge-result`, …).
    pub fn name(&self) -> &'static str {
        match self {
            StdioMode::Garbage => "garbage",
            StdioMode::Silent => "silent",
            StdioMode::ExitBeforeInit => "exit-before-init",
            StdioMode::ExitAfterInit => "exit-after-init",
            StdioMode::WrongVersion => "wrong-version",
            StdioMode::PhantomCapabilities => "phantom-capabilities",
            StdioMode::HugeResult { .. } => "huge-result",
            StdioMode::ManyTools { .. } => "many-tools",
            StdioMode::Flood { .. } => "flood",
            StdioMode::NoFinalNewline => "no-final-newline",
            StdioMode::SlowStart { .. } => "slow-start",
            StdioMode::ProgressForever => "progress-forever",
            StdioMode::NeverAnswersCall => "never-answers-call",
            StdioMode::StderrChatter { .. } => "stderr-chatter",
            StdioMode::CursorLoop { .. } => "cursor-loop",
            StdioMode::RootsOnInitialized => "roots-on-initialized",
            StdioMode::Modern => "modern",
            StdioMode::HostileTasks { .. } => "hostile-tasks",
            StdioMode::HostileInteractions => "hostile-interactions",
            StdioMode::HostileSubscriptions { .. } => "hostile-subscriptions",
            StdioMode::TerminalEscapes => "terminal-escapes",
            StdioMode::Flawed { .. } => "flawed",
            StdioMode::FlawedModern { .. } => "flawed-modern",
        }
    }

    /// The binary's command-line arguments for this mode, options included, so a test can hand
    /// `bin_path()` plus these to whatever spawns servers.
    ///
    /// ```
    /// use mcpscope_testkit::StdioMode;
    /// assert_eq!(StdioMode::Flood { count: 10 }.args(), ["flood", "--count", "10"]);
    /// ```
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![self.name().to_owned()];
        let mut opt = |name: &str, value: String| args.extend([format!("--{name}"), value]);
        match self {
            StdioMode::HugeResult { bytes } => opt("bytes", bytes.to_string()),
            StdioMode::ManyTools { count, page_size }
            | StdioMode::CursorLoop { count, page_size } => {
                opt("count", count.to_string());
                opt("page-size", page_size.to_string());
            }
            StdioMode::Flood { count } => opt("count", count.to_string()),
            StdioMode::SlowStart { delay_ms } => opt("delay-ms", delay_ms.to_string()),
            StdioMode::StderrChatter {
                lines,
                long_line_bytes,
            } => {
                opt("lines", lines.to_string());
                opt("long-line-bytes", long_line_bytes.to_string());
            }
            StdioMode::HostileTasks {
                listed,
                result_bytes,
            } => {
                opt("listed", listed.to_string());
                opt("result-bytes", result_bytes.to_string());
            }
            StdioMode::HostileSubscriptions { updates } => opt("updates", updates.to_string()),
            StdioMode::Flawed { flaw } => opt("flaw", flaw.name().to_owned()),
            StdioMode::FlawedModern { flaw } => opt("flaw", flaw.name().to_owned()),
            _ => {}
        }
        args
    }

    /// A ready-to-spawn command for this mode with stdin, stdout and stderr piped and
    /// `kill_on_drop` set, so a failing test never leaves a server behind.
    pub fn command(&self) -> Result<tokio::process::Command> {
        let mut command = tokio::process::Command::new(crate::bin_path()?);
        command
            .args(self.args())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        Ok(command)
    }
}

/// Run `mode` on the process's own stdin, stdout and stderr; returns the exit status the process
/// should end with (the binary passes it to `std::process::exit`).
pub async fn run_stdio(mode: StdioMode) -> i32 {
    run_stdio_on(
        mode,
        tokio::io::stdin(),
        tokio::io::stdout(),
        tokio::io::stderr(),
    )
    .await
}

/// Run `mode` in-process over any pipes (e.g. `tokio::io::duplex`); returns the exit status the
/// process version would have ended with. Background work (progress ticks) stops when it returns.
pub async fn run_stdio_on<R, W, E>(mode: StdioMode, stdin: R, stdout: W, stderr: E) -> i32
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Send + 'static,
    E: AsyncWrite + Send + 'static,
{
    let out = Sink::new(stdout);
    let err = Sink::new(stderr);
    match mode {
        StdioMode::Silent => {
            // Drain rather than stop reading, so the client's writes never block on a full pipe:
            // the only thing under test is that nothing ever comes back.
            let _ = tokio::io::copy(&mut BufReader::new(stdin), &mut tokio::io::sink()).await;
            0
        }
        StdioMode::ExitBeforeInit => {
            let _ = err
                .write(b"fatal: missing API_KEY\nhint: set API_KEY in the server's environment and restart it\n")
                .await;
            3
        }
        StdioMode::Modern => modern::serve(Lines::new(stdin), out).await,
        StdioMode::HostileTasks {
            listed,
            result_bytes,
        } => {
            let kind = hostile::Hostile::Tasks {
                listed,
                result_bytes,
            };
            hostile::serve(kind, Lines::new(stdin), out).await
        }
        StdioMode::HostileInteractions => {
            hostile::serve(hostile::Hostile::Interactions, Lines::new(stdin), out).await
        }
        StdioMode::HostileSubscriptions { updates } => {
            hostile_subscriptions::serve(Lines::new(stdin), out, updates).await
        }
        StdioMode::Flawed { flaw } => flawed::serve(flaw, Lines::new(stdin), out).await,
        StdioMode::FlawedModern { flaw } => {
            flawed_modern::serve(flaw, Lines::new(stdin), out).await
        }
        mode => {
            if let StdioMode::SlowStart { delay_ms } = mode {
                tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
            }
            legacy::serve(mode, Lines::new(stdin), out, err).await
        }
    }
}

type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;

/// A shared writer. Every message is written and flushed under one lock, so a progress tick from
/// a background task can never split a response line in two.
#[derive(Clone)]
pub(crate) struct Sink(Arc<Mutex<BoxWrite>>);

impl Sink {
    pub(crate) fn new(writer: impl AsyncWrite + Send + 'static) -> Self {
        Sink(Arc::new(Mutex::new(Box::pin(writer))))
    }

    /// Hold the writer for a multi-part message (huge payloads, floods).
    pub(crate) async fn lock(&self) -> MutexGuard<'_, BoxWrite> {
        self.0.lock().await
    }

    /// Write bytes exactly as given and flush.
    pub(crate) async fn write(&self, bytes: &[u8]) -> io::Result<()> {
        let mut writer = self.lock().await;
        writer.write_all(bytes).await?;
        writer.flush().await
    }

    /// Write one message as a newline-terminated line and flush.
    pub(crate) async fn send(&self, message: &Value) -> io::Result<()> {
        self.write(&line(message)).await
    }
}

/// A message serialized as one line, `\n` included.
pub(crate) fn line(message: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).expect("a serde_json::Value always serializes");
    bytes.push(b'\n');
    bytes
}

/// Newline-delimited input as raw bytes: clients are allowed to be wrong too, and a line that is
/// not UTF-8 must become a parse error, not a crash.
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines {
            reader: BufReader::new(reader),
            buf: Vec::new(),
        }
    }

    /// The next line without its `\n` (an unterminated last line counts); `None` at end of input
    /// or on a read error, which for a stdio server both mean the client is gone.
    pub(crate) async fn next(&mut self) -> Option<&[u8]> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf).await {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(self.buf.strip_suffix(b"\n").unwrap_or(&self.buf)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        mode: StdioMode,
    }

    #[test]
    fn args_parse_back_to_the_same_mode() {
        let modes = [
            StdioMode::Garbage,
            StdioMode::Silent,
            StdioMode::ExitBeforeInit,
            StdioMode::ExitAfterInit,
            StdioMode::WrongVersion,
            StdioMode::PhantomCapabilities,
            StdioMode::HugeResult { bytes: 7 },
            StdioMode::ManyTools {
                count: 3,
                page_size: 2,
            },
            StdioMode::Flood { count: 5 },
            StdioMode::NoFinalNewline,
            StdioMode::SlowStart { delay_ms: 9 },
            StdioMode::ProgressForever,
            StdioMode::NeverAnswersCall,
            StdioMode::StderrChatter {
                lines: 1,
                long_line_bytes: 2,
            },
            StdioMode::CursorLoop {
                count: 4,
                page_size: 3,
            },
            StdioMode::RootsOnInitialized,
            StdioMode::Modern,
            StdioMode::HostileTasks {
                listed: 5,
                result_bytes: 6,
            },
            StdioMode::HostileInteractions,
            StdioMode::HostileSubscriptions { updates: 3 },
            StdioMode::TerminalEscapes,
            StdioMode::Flawed {
                flaw: Flaw::RepeatingCursor,
            },
            StdioMode::FlawedModern {
                flaw: ModernFlaw::ScopeFlip,
            },
        ];
        for mode in modes {
            let argv = std::iter::once("mcpscope-testkit".to_owned()).chain(mode.args());
            assert_eq!(Cli::parse_from(argv).mode, mode);
        }
    }

    #[test]
    fn page_size_zero_is_rejected() {
        let argv = ["x", "many-tools", "--page-size", "0"];
        assert!(Cli::try_parse_from(argv).is_err());
    }
}
