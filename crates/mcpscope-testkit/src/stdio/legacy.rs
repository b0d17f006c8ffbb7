//! The legacy-era (2025-11-25) stdio fixtures: one request loop, with each mode's misbehaviour
//! spliced in where a real broken server would show it.

use super::{
    GARBAGE_NOISE, LEGACY_PROTOCOL_VERSION, Lines, Sink, StdioMode, TERMINAL_ESCAPES, line,
};
use crate::jsonrpc::{
    self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, PARSE_ERROR, call_echo, echo_tool, id_text,
    initialize_result, notification, text_content,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{self, Write as _};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The id of `roots-on-initialized`'s one `roots/list` request.
const ROOTS_REQUEST_ID: &str = "roots-1";

/// What the loop does after a message.
enum Flow {
    Continue,
    /// End the process with this status (after everything written so far is flushed).
    Exit(i32),
}

/// A `tools/call forever` that is still sending progress.
struct Running {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

struct Server {
    mode: StdioMode,
    out: Sink,
    err: Sink,
    initialized: bool,
    /// progress-forever calls by request id (as JSON text, so `1` and `"1"` stay apart).
    running: HashMap<String, Running>,
}

/// Serve until stdin closes or the mode decides to exit; returns the exit status.
pub(super) async fn serve<R: AsyncRead + Unpin>(
    mode: StdioMode,
    mut lines: Lines<R>,
    out: Sink,
    err: Sink,
) -> i32 {
    let mut server = Server {
        mode,
        out,
        err,
        initialized: false,
        running: HashMap::new(),
    };
    if let StdioMode::StderrChatter {
        lines,
        long_line_bytes,
    } = server.mode
        && server
            .err
            .write(&chatter_burst(lines, long_line_bytes))
            .await
            .is_err()
    {
        return 1;
    }
    let mut status = 0;
    while let Some(bytes) = lines.next().await {
        let flow = match jsonrpc::classify(bytes) {
            // A blank line is not a message; answering it would be noise of our own.
            _ if bytes.trim_ascii().is_empty() => Ok(Flow::Continue),
            Incoming::Request { id, method, params } => {
                server.on_request(id, &method, params).await
            }
            Incoming::Notification { method, params } => {
                server.on_notification(&method, &params).await
            }
            Incoming::Other => server.on_other(bytes).await,
            Incoming::Unparsable => server
                .reply(jsonrpc::error(
                    &Value::Null,
                    PARSE_ERROR,
                    "Parse error",
                    None,
                ))
                .await
                .map(|()| Flow::Continue),
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Exit(code)) => {
                status = code;
                break;
            }
            // stdout is gone: the client hung up. Say so where a human might look, then end.
            Err(e) => {
                let _ = server
                    .err
                    .write(format!("stdout closed: {e}\n").as_bytes())
                    .await;
                status = 1;
                break;
            }
        }
    }
    server.finish().await;
    status
}

impl Server {
    async fn on_request(&mut self, id: Value, method: &str, params: Value) -> io::Result<Flow> {
        if let StdioMode::StderrChatter { .. } = self.mode {
            let note = format!("[chatter] handling {method} id={}\n", id_text(&id));
            self.err.write(note.as_bytes()).await?;
        }
        let answer = match method {
            "initialize" => jsonrpc::result(&id, self.initialize_result()),
            "ping" => jsonrpc::result(&id, json!({})),
            _ if self.mode == StdioMode::ExitAfterInit && self.initialized => {
                self.err.write(b"panic: boom\n").await?;
                return Ok(Flow::Exit(101));
            }
            _ if self.mode == StdioMode::PhantomCapabilities => method_not_found(&id, method),
            "logging/setLevel" if self.advertises_logging() => jsonrpc::result(&id, json!({})),
            "tools/list" => return self.tools_list(id, &params).await,
            "tools/call" => return self.tools_call(id, &params).await,
            _ => method_not_found(&id, method),
        };
        self.reply(answer).await.map(|()| Flow::Continue)
    }

    async fn on_notification(&mut self, method: &str, params: &Value) -> io::Result<Flow> {
        if let StdioMode::StderrChatter { .. } = self.mode {
            let note = format!("[chatter] got notification {method}\n");
            self.err.write(note.as_bytes()).await?;
        }
        match method {
            "notifications/initialized" => {
                self.initialized = true;
                if self.mode == StdioMode::RootsOnInitialized {
                    let ask =
                        json!({"jsonrpc": "2.0", "id": ROOTS_REQUEST_ID, "method": "roots/list"});
                    self.out.send(&ask).await?;
                }
            }
            "notifications/cancelled" => {
                let request = params.get("requestId").unwrap_or(&Value::Null);
                let request = id_text(request);
                match self.mode {
                    StdioMode::ProgressForever => self.cancel(&request).await?,
                    StdioMode::NeverAnswersCall => {
                        let note = format!("got notifications/cancelled for {request}\n");
                        self.err.write(note.as_bytes()).await?;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    /// A message that is neither request nor notification: in `roots-on-initialized`, the
    /// client's answer to our `roots/list`, echoed to stderr so a test sees it arrived.
    async fn on_other(&self, bytes: &[u8]) -> io::Result<Flow> {
        if self.mode == StdioMode::RootsOnInitialized
            && serde_json::from_slice::<Value>(bytes)
                .is_ok_and(|m| m.get("id") == Some(&json!(ROOTS_REQUEST_ID)))
        {
            let mut note = b"roots/list answered: ".to_vec();
            note.extend_from_slice(bytes);
            note.push(b'\n');
            self.err.write(&note).await?;
        }
        Ok(Flow::Continue)
    }

    /// Write a response; in `garbage` mode the noise goes first, in the same write, so nothing
    /// else can slip between the noise and the answer it precedes.
    async fn reply(&self, message: Value) -> io::Result<()> {
        let mut bytes = Vec::new();
        if self.mode == StdioMode::Garbage {
            bytes.extend(GARBAGE_NOISE.concat());
        }
        bytes.extend(line(&message));
        self.out.write(&bytes).await
    }

    fn initialize_result(&self) -> Value {
        let version = match self.mode {
            StdioMode::WrongVersion => "1999-01-01",
            _ => LEGACY_PROTOCOL_VERSION,
        };
        let capabilities = match self.mode {
            StdioMode::PhantomCapabilities => json!({
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true},
                "logging": {},
                "completions": {}
            }),
            // Each sends notifications/message, which needs the logging capability.
            StdioMode::Garbage | StdioMode::Flood { .. } | StdioMode::TerminalEscapes => {
                json!({"tools": {}, "logging": {}})
            }
            _ => json!({"tools": {}}),
        };
        initialize_result(
            version,
            capabilities,
            &format!("mcpscope-testkit-{}", self.mode.name()),
        )
    }

    fn advertises_logging(&self) -> bool {
        matches!(
            self.mode,
            StdioMode::Garbage | StdioMode::Flood { .. } | StdioMode::TerminalEscapes
        )
    }

    async fn tools_list(&self, id: Value, params: &Value) -> io::Result<Flow> {
        let result = match self.mode {
            StdioMode::ManyTools { count, page_size } => {
                let cursor = params.get("cursor");
                match tools_page(count, page_size, cursor) {
                    Some(page) => jsonrpc::result(&id, page),
                    None => jsonrpc::error(
                        &id,
                        INVALID_PARAMS,
                        &format!("Invalid cursor: {}", cursor.unwrap_or(&Value::Null)),
                        None,
                    ),
                }
            }
            StdioMode::CursorLoop { count, page_size } => {
                match looped_page(count, page_size, params.get("cursor")) {
                    Some(page) => jsonrpc::result(&id, page),
                    None => jsonrpc::error(&id, INVALID_PARAMS, "Invalid cursor", None),
                }
            }
            StdioMode::HugeResult { .. } => jsonrpc::result(&id, json!({"tools": [huge_tool()]})),
            StdioMode::Flood { .. } => jsonrpc::result(&id, json!({"tools": [flood_tool()]})),
            StdioMode::ProgressForever => jsonrpc::result(&id, json!({"tools": [forever_tool()]})),
            StdioMode::NeverAnswersCall => jsonrpc::result(&id, json!({"tools": [hang_tool()]})),
            StdioMode::TerminalEscapes => jsonrpc::result(&id, escapes_tools()),
            _ => jsonrpc::result(&id, json!({"tools": [echo_tool()]})),
        };
        if self.mode == StdioMode::NoFinalNewline {
            let mut bytes = line(&result);
            bytes.pop();
            self.out.write(&bytes).await?;
            return Ok(Flow::Exit(0));
        }
        self.reply(result).await.map(|()| Flow::Continue)
    }

    async fn tools_call(&mut self, id: Value, params: &Value) -> io::Result<Flow> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let result = match (&self.mode, name) {
            (&StdioMode::HugeResult { bytes }, _) => {
                self.write_huge(&id, bytes).await?;
                return Ok(Flow::Continue);
            }
            (&StdioMode::Flood { count }, "flood") => {
                self.write_flood(&id, count).await?;
                return Ok(Flow::Continue);
            }
            (StdioMode::ProgressForever, "forever") => {
                self.start_forever(id, params);
                return Ok(Flow::Continue);
            }
            // The whole point: the request stays pending until the client gives up.
            (StdioMode::NeverAnswersCall, _) => return Ok(Flow::Continue),
            (StdioMode::TerminalEscapes, "hostile") => self.escapes(&id, params).await?,
            (StdioMode::TerminalEscapes, "crash") => {
                self.err
                    .write(format!("fatal: {TERMINAL_ESCAPES}\n").as_bytes())
                    .await?;
                return Ok(Flow::Exit(1));
            }
            (&StdioMode::ManyTools { count, .. } | &StdioMode::CursorLoop { count, .. }, _)
                if tool_index(name, count).is_some() =>
            {
                jsonrpc::result(&id, text_content(&format!("called {name}")))
            }
            (
                StdioMode::Garbage
                | StdioMode::ExitAfterInit
                | StdioMode::WrongVersion
                | StdioMode::NoFinalNewline
                | StdioMode::SlowStart { .. }
                | StdioMode::StderrChatter { .. }
                | StdioMode::RootsOnInitialized,
                "echo",
            ) => jsonrpc::result(&id, call_echo(params)),
            _ => jsonrpc::error(&id, INVALID_PARAMS, &format!("Unknown tool: {name}"), None),
        };
        self.reply(result).await.map(|()| Flow::Continue)
    }

    /// `terminal-escapes`' `hostile`: the escapes on stderr, in a log line and a progress
    /// message, then the JSON-RPC error that carries them too.
    async fn escapes(&self, id: &Value, params: &Value) -> io::Result<Value> {
        self.err
            .write(format!("stderr {TERMINAL_ESCAPES}\n").as_bytes())
            .await?;
        let log = json!({"level": "error", "data": format!("log {TERMINAL_ESCAPES}")});
        self.reply(notification("notifications/message", log))
            .await?;
        if let Some(token) = params.pointer("/_meta/progressToken") {
            let progress = json!({
                "progressToken": token,
                "progress": 1,
                "message": format!("progress {TERMINAL_ESCAPES}"),
            });
            self.reply(notification("notifications/progress", progress))
                .await?;
        }
        Ok(jsonrpc::error(
            id,
            -32000,
            &format!("error {TERMINAL_ESCAPES}"),
            None,
        ))
    }

    /// One response line carrying `bytes` 'x' characters, written as prefix, fixed-size chunks
    /// and suffix so memory stays flat however big the payload is.
    async fn write_huge(&self, id: &Value, bytes: u64) -> io::Result<()> {
        static XS: [u8; 64 * 1024] = [b'x'; 64 * 1024];
        let prefix = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
        );
        let mut writer = self.out.lock().await;
        writer.write_all(prefix.as_bytes()).await?;
        let mut left = bytes;
        while left > 0 {
            let n = left.min(XS.len() as u64);
            // n <= 64 KiB, so the cast cannot truncate.
            writer.write_all(&XS[..n as usize]).await?;
            left -= n;
        }
        writer.write_all(b"\"}]}}\n").await?;
        writer.flush().await
    }

    /// `count` log notifications and then the result, batched into large writes: the fixture must
    /// outrun the client, not be limited by one syscall per line.
    async fn write_flood(&self, id: &Value, count: u64) -> io::Result<()> {
        const BATCH: usize = 256 * 1024;
        let mut writer = self.out.lock().await;
        let mut buf = Vec::with_capacity(BATCH + 256);
        for seq in 0..count {
            writeln!(
                buf,
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":{{"seq":{seq}}}}}}}"#
            )?;
            if buf.len() >= BATCH {
                writer.write_all(&buf).await?;
                buf.clear();
            }
        }
        buf.extend(line(&jsonrpc::result(
            id,
            text_content(&format!("sent {count}")),
        )));
        writer.write_all(&buf).await?;
        writer.flush().await
    }

    /// Start a `forever` call: progress every 200 ms on a background task until cancelled.
    fn start_forever(&mut self, id: Value, params: &Value) {
        let token = params.pointer("/_meta/progressToken").cloned();
        let (stop, mut stopped) = oneshot::channel::<()>();
        let out = self.out.clone();
        let task = tokio::spawn(async move {
            // Without a token there is nothing we may send; the call just never ends.
            let Some(token) = token else {
                let _ = stopped.await;
                return;
            };
            let period = Duration::from_millis(200);
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            for progress in 1u64.. {
                // Only the wait is raced against the stop signal, never the write: a write cut
                // off half-way would leave a torn line on stdout.
                tokio::select! {
                    _ = &mut stopped => return,
                    _ = ticks.tick() => {}
                }
                let params = json!({
                    "progressToken": token,
                    "progress": progress,
                    "message": format!("still working ({progress})")
                });
                let tick = notification("notifications/progress", params);
                if out.send(&tick).await.is_err() {
                    return;
                }
            }
        });
        self.running.insert(id_text(&id), Running { stop, task });
    }

    /// Stop a `forever` call and only then say so on stderr, so a test that sees the stderr line
    /// knows no more progress for that request can follow.
    async fn cancel(&mut self, request: &str) -> io::Result<()> {
        let note = match self.running.remove(request) {
            Some(running) => {
                let _ = running.stop.send(());
                let _ = running.task.await;
                format!("cancelled {request}\n")
            }
            None => format!("ignored notifications/cancelled for unknown request {request}\n"),
        };
        self.err.write(note.as_bytes()).await
    }

    async fn finish(&mut self) {
        for (_, running) in self.running.drain() {
            let _ = running.stop.send(());
            let _ = running.task.await;
        }
        if let StdioMode::StderrChatter { .. } = self.mode {
            // Deliberately unterminated: the client must still surface a last partial line.
            let _ = self.err.write(b"[chatter] stdin closed, bye").await;
        }
    }
}

fn method_not_found(id: &Value, method: &str) -> Value {
    jsonrpc::error(
        id,
        METHOD_NOT_FOUND,
        &format!("Method not found: {method}"),
        None,
    )
}

/// Tool names are zero-padded to at least four digits and sort in list order.
fn tool_name(index: u32, count: u32) -> String {
    let width = count.saturating_sub(1).to_string().len().max(4);
    format!("tool-{index:0width$}")
}

fn tool_index(name: &str, count: u32) -> Option<u32> {
    let index: u32 = name.strip_prefix("tool-")?.parse().ok()?;
    (index < count && tool_name(index, count) == name).then_some(index)
}

fn cursor(offset: u32) -> String {
    format!("cursor-{offset}")
}

/// One `tools/list` page, or `None` for a cursor this server never issued.
fn tools_page(count: u32, page_size: u32, cursor_param: Option<&Value>) -> Option<Value> {
    let start = match cursor_param {
        None | Some(Value::Null) => 0,
        Some(Value::String(text)) => {
            let offset: u32 = text.strip_prefix("cursor-")?.parse().ok()?;
            // Only offsets we hand out: inside the list, on a page boundary, spelled our way.
            let issued = offset > 0
                && offset < count
                && offset.is_multiple_of(page_size)
                && cursor(offset) == *text;
            issued.then_some(offset)?
        }
        Some(_) => return None,
    };
    let end = start.saturating_add(page_size).min(count);
    let tools: Vec<Value> = (start..end)
        .map(|i| {
            json!({
                "name": tool_name(i, count),
                "description": format!("Generated tool number {i}."),
                "inputSchema": {
                    "type": "object",
                    "properties": {"value": {"type": "string"}}
                }
            })
        })
        .collect();
    let mut page = json!({ "tools": tools });
    if end < count {
        page["nextCursor"] = Value::String(cursor(end));
    }
    Some(page)
}

/// `terminal-escapes`' two tools, no arguments.
fn escapes_tools() -> Value {
    let tool = |name: &str, what: &str| json!({"name": name, "description": what, "inputSchema": {"type": "object"}});
    json!({"tools": [
        tool("hostile", "escape sequences on stderr, in a log, a progress message and an error"),
        tool("crash", "escape sequences on stderr, then exit 1"),
    ]})
}

/// A `cursor-loop` page: a `tools_page` whose last page points back at the first page's cursor.
fn looped_page(count: u32, page_size: u32, cursor_param: Option<&Value>) -> Option<Value> {
    let mut page = tools_page(count, page_size, cursor_param)?;
    if page.get("nextCursor").is_none() && count > page_size {
        page["nextCursor"] = Value::String(cursor(page_size));
    }
    Some(page)
}

fn huge_tool() -> Value {
    json!({
        "name": "huge",
        "description": "Returns one enormous text block.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

fn flood_tool() -> Value {
    json!({
        "name": "flood",
        "description": "Sends a flood of notifications/message before answering.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

fn forever_tool() -> Value {
    json!({
        "name": "forever",
        "description": "Reports progress every 200 ms and never finishes; cancel it.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

fn hang_tool() -> Value {
    json!({
        "name": "hang",
        "description": "Never answers.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

/// The stderr burst of `stderr-chatter`: ordinary lines around the awkward ones.
fn chatter_burst(lines: u32, long_line_bytes: usize) -> Vec<u8> {
    let mut burst = Vec::new();
    let ordinary = |burst: &mut Vec<u8>, range: std::ops::Range<u32>| {
        for i in range {
            burst.extend(format!("[chatter] {i}: INFO warming up worker pool\n").into_bytes());
        }
    };
    ordinary(&mut burst, 0..lines / 2);
    burst.extend_from_slice(b"\x1b[33mWARN\x1b[0m [chatter] coloured log line\n");
    burst.extend_from_slice(b"[chatter] invalid UTF-8 follows: \xFF\xFE\xC3\x28 end\n");
    burst.extend_from_slice(b"[chatter] progress 10%\rprogress 50%\rprogress 100%\n");
    burst.extend_from_slice(b"[chatter] long line: ");
    burst.resize(burst.len() + long_line_bytes, b'e');
    burst.push(b'\n');
    ordinary(&mut burst, lines / 2..lines);
    burst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_every_tool_once() {
        let mut names = Vec::new();
        let mut cursor = None;
        loop {
            let page = tools_page(7, 3, cursor.as_ref()).expect("issued cursor");
            for tool in page["tools"].as_array().expect("tools") {
                names.push(tool["name"].as_str().expect("name").to_owned());
            }
            match page.get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        let expected: Vec<String> = (0..7).map(|i| format!("tool-{i:04}")).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn the_cursor_loop_comes_back_to_the_first_cursor() {
        let mut cursors = Vec::new();
        let mut names = Vec::new();
        let mut cursor = None;
        for _ in 0..4 {
            let page = looped_page(5, 2, cursor.as_ref()).expect("issued cursor");
            for tool in page["tools"].as_array().expect("tools") {
                names.push(tool["name"].as_str().expect("name").to_owned());
            }
            cursor = page.get("nextCursor").cloned();
            cursors.push(cursor.clone().expect("the loop never ends"));
        }
        // Pages 1-3 list every tool once; page 3 hands back page 1's cursor.
        assert_eq!(
            cursors[..3],
            [json!("cursor-2"), json!("cursor-4"), json!("cursor-2")]
        );
        assert_eq!(
            names[..5],
            [
                "tool-0000",
                "tool-0001",
                "tool-0002",
                "tool-0003",
                "tool-0004"
            ]
        );
        // A single page has no cursor to repeat.
        assert!(
            looped_page(2, 2, None)
                .expect("page")
                .get("nextCursor")
                .is_none()
        );
    }

    #[test]
    fn foreign_cursors_are_refused() {
        for bad in [
            json!("cursor-2"),
            json!("cursor-0"),
            json!("cursor-9"),
            json!(""),
            json!(3),
        ] {
            assert!(tools_page(7, 3, Some(&bad)).is_none(), "{bad}");
        }
    }

    #[test]
    fn names_widen_past_ten_thousand() {
        assert_eq!(tool_name(7, 10), "tool-0007");
        assert_eq!(tool_name(7, 10_001), "tool-00007");
        assert_eq!(tool_index("tool-00007", 10_001), Some(7));
        assert_eq!(tool_index("tool-7", 10), None);
    }
}
