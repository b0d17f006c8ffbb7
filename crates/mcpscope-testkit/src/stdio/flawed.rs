//! The `flawed` stdio fixture: a small legacy-era (2025-11-25) server that `mcpscope check`
//! passes with nothing but skips — or, with `--flaw`, fails exactly one check. One server with
//! one flaw at a time, so a test can say "this check fails, and only this one": a checker whose
//! checks overlap, or that blames the wrong rule, fails that test.
//!
//! What it serves when whole: `initialize` (the asked version when it speaks it, else
//! 2025-11-25), `ping`, and one tool, `status` — read-only, no arguments, with an `outputSchema`
//! its `structuredContent` matches, so the checker calls it. `tools/list` is one page and refuses
//! a cursor it never handed out (-32602), an unknown tool is -32602, and everything it does not
//! declare (prompts, resources, `server/discover`) is -32601.

use super::{LEGACY_PROTOCOL_VERSION, Lines, Sink, line};
use crate::jsonrpc::{self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, PARSE_ERROR};
use serde_json::{Value, json};
use tokio::io::AsyncRead;

/// What is wrong with the `flawed` server, each failing one check of `mcpscope check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Flaw {
    /// Nothing: every check passes or is skipped.
    None,
    /// Declares `prompts` and answers `prompts/list` (and every prompt method) with -32601:
    /// `capabilities-served`.
    LyingCapabilities,
    /// Writes a log line to stdout before anything else: `stdout-only-mcp`.
    StdoutJunk,
    /// Answers `initialize` with whatever version was asked, even one it cannot speak
    /// (`1900-01-01`): `version-negotiation`.
    EchoVersion,
    /// `tools/list` has two pages, and the second hands out the first page's cursor again:
    /// `pagination-terminates`.
    RepeatingCursor,
    /// `status`'s `structuredContent` does not match its `outputSchema` (`ok` is a string, the
    /// schema says boolean): `tool-output-schema-conformant`.
    OutputSchema,
    /// Every `ping` answer is preceded by a response to an id nobody sent:
    /// `response-ids-correlated`.
    StrayId,
    /// `status`'s text content block has no `text` (the schema requires it), while its
    /// `structuredContent` is right: `wire-schema-valid`.
    SchemaInvalid,
    /// Answers `tools/list` never (the handshake and `ping` work): for `--timeout`.
    HangingList,
    /// Answers every notification but `notifications/initialized` with an error response
    /// without an id: `notification-not-answered`.
    AnswersNotifications,
    /// `status` sends `notifications/progress` for a token no request carried:
    /// `progress-only-with-token`.
    ProgressWithoutToken,
    /// Writes a JSON-RPC notification to stderr for every request: `stderr-not-protocol` (a
    /// warning).
    StderrMessages,
    /// Declares logging and accepts `logging/setLevel`, but `status` logs at `debug` whatever
    /// the level: `logging-levels-filtered` (a warning).
    LogsBelowLevel,
    /// `status` takes 700 ms and answers even when cancelled meanwhile (requests are handled one
    /// at a time, so the cancellation is read only after): `cancellation-honoured` (a warning).
    IgnoresCancel,
    /// Sends a `roots/list` request right after its `initialize` answer, before the client's
    /// `notifications/initialized`: `requests-before-initialized` (a warning).
    RootsBeforeInitialized,
}

impl Flaw {
    /// The value of `--flaw` (`lying-capabilities`, …).
    pub fn name(self) -> &'static str {
        match self {
            Flaw::None => "none",
            Flaw::LyingCapabilities => "lying-capabilities",
            Flaw::StdoutJunk => "stdout-junk",
            Flaw::EchoVersion => "echo-version",
            Flaw::RepeatingCursor => "repeating-cursor",
            Flaw::OutputSchema => "output-schema",
            Flaw::StrayId => "stray-id",
            Flaw::SchemaInvalid => "schema-invalid",
            Flaw::HangingList => "hanging-list",
            Flaw::AnswersNotifications => "answers-notifications",
            Flaw::ProgressWithoutToken => "progress-without-token",
            Flaw::StderrMessages => "stderr-messages",
            Flaw::LogsBelowLevel => "logs-below-level",
            Flaw::IgnoresCancel => "ignores-cancel",
            Flaw::RootsBeforeInitialized => "roots-before-initialized",
        }
    }
}

/// The line `stdout-junk` writes, as a server that logs to stdout would.
pub const JUNK_LINE: &str = "flawed server: listening on stdio";

/// The id `stray-id` answers, which no client sent.
pub const STRAY_ID: &str = "mcpscope-testkit-stray";

/// The cursor of `repeating-cursor`'s second page (handed out by the first page, and again by
/// the second).
const PAGE_TWO: &str = "page-2";

/// Serve until stdin closes; returns the exit status.
pub(super) async fn serve<R: AsyncRead + Unpin>(flaw: Flaw, mut lines: Lines<R>, out: Sink) -> i32 {
    if flaw == Flaw::StdoutJunk
        && out
            .write(format!("{JUNK_LINE}\n").as_bytes())
            .await
            .is_err()
    {
        return 1;
    }
    while let Some(bytes) = lines.next().await {
        // A request of ours that goes right after the answer (roots-before-initialized).
        let mut after = None;
        let reply = match jsonrpc::classify(bytes) {
            _ if bytes.trim_ascii().is_empty() => continue,
            Incoming::Request { method, .. }
                if method == "tools/list" && flaw == Flaw::HangingList =>
            {
                continue;
            }
            Incoming::Request { id, method, params } => {
                if let Some(before) = before_answer(flaw, &method).await
                    && out.write(&line(&before)).await.is_err()
                {
                    return 1;
                }
                if flaw == Flaw::RootsBeforeInitialized && method == "initialize" {
                    after = Some(
                        json!({"jsonrpc": "2.0", "id": "mcpscope-testkit-early-roots", "method": "roots/list"}),
                    );
                }
                answer(flaw, &id, &method, &params)
            }
            Incoming::Notification { method, .. }
                if flaw == Flaw::AnswersNotifications && method != "notifications/initialized" =>
            {
                json!({"jsonrpc": "2.0", "error": {"code": METHOD_NOT_FOUND, "message": format!("Method not found: {method}")}})
            }
            Incoming::Notification { .. } | Incoming::Other => continue,
            Incoming::Unparsable => jsonrpc::error(&Value::Null, PARSE_ERROR, "Parse error", None),
        };
        let mut bytes = Vec::new();
        if flaw == Flaw::StrayId && reply.pointer("/result").is_some_and(|r| r == &json!({})) {
            // Only before ping's `{}`: the stray goes where a confused server multiplexing
            // answers would put it, and the real answer still follows.
            bytes.extend(line(&jsonrpc::result(&json!(STRAY_ID), json!({}))));
        }
        bytes.extend(line(&reply));
        if let Some(request) = after {
            bytes.extend(line(&request));
        }
        if out.write(&bytes).await.is_err() {
            return 1;
        }
    }
    0
}

/// The flaws that act before a request's answer: a stderr message, a slow `status`, a message
/// the server should not send (returned, and written before the answer).
async fn before_answer(flaw: Flaw, method: &str) -> Option<Value> {
    if flaw == Flaw::StderrMessages {
        eprintln!(
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": format!("handling {method}")}})
        );
    }
    if method != "tools/call" {
        return None;
    }
    match flaw {
        Flaw::IgnoresCancel => {
            tokio::time::sleep(std::time::Duration::from_millis(700)).await;
            None
        }
        Flaw::ProgressWithoutToken => {
            Some(json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "mcpscope-testkit-unasked", "progress": 1}}))
        }
        Flaw::LogsBelowLevel => Some(json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "debug", "logger": "flawed", "data": "status asked"}})),
        _ => None,
    }
}

fn answer(flaw: Flaw, id: &Value, method: &str, params: &Value) -> Value {
    match method {
        "logging/setLevel" if flaw == Flaw::LogsBelowLevel => jsonrpc::result(id, json!({})),
        "initialize" => jsonrpc::result(id, initialize(flaw, params)),
        "ping" => jsonrpc::result(id, json!({})),
        "tools/list" => match tools_page(flaw, params.get("cursor")) {
            Some(page) => jsonrpc::result(id, page),
            None => jsonrpc::error(id, INVALID_PARAMS, "Invalid cursor", None),
        },
        "tools/call" => call(flaw, id, params),
        _ => jsonrpc::error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
            None,
        ),
    }
}

/// The asked version when it is ours (or, for `echo-version`, whatever was asked).
fn initialize(flaw: Flaw, params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = match asked {
        Some(v) if flaw == Flaw::EchoVersion || v == LEGACY_PROTOCOL_VERSION => v,
        _ => LEGACY_PROTOCOL_VERSION,
    };
    let mut capabilities = json!({"tools": {}});
    if flaw == Flaw::LyingCapabilities {
        capabilities["prompts"] = json!({});
    }
    if flaw == Flaw::LogsBelowLevel {
        capabilities["logging"] = json!({});
    }
    jsonrpc::initialize_result(
        version,
        capabilities,
        &format!("mcpscope-testkit-flawed-{}", flaw.name()),
    )
}

/// The one read-only tool the checker calls.
fn status_tool() -> Value {
    json!({
        "name": "status",
        "description": "Reports whether the server is up.",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean", "description": "Whether all is well."}},
            "required": ["ok"]
        },
        "annotations": {"readOnlyHint": true}
    })
}

/// `repeating-cursor`'s second tool (its second page).
fn version_tool() -> Value {
    json!({
        "name": "version",
        "description": "Reports the server's version.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

/// A `tools/list` page, or `None` for a cursor this server never handed out.
fn tools_page(flaw: Flaw, cursor: Option<&Value>) -> Option<Value> {
    match (flaw, cursor) {
        (Flaw::RepeatingCursor, None) => {
            Some(json!({"tools": [status_tool()], "nextCursor": PAGE_TWO}))
        }
        // The second page hands its own cursor out again: following it loops.
        (Flaw::RepeatingCursor, Some(c)) if c == PAGE_TWO => {
            Some(json!({"tools": [version_tool()], "nextCursor": PAGE_TWO}))
        }
        (_, None) => Some(json!({"tools": [status_tool()]})),
        _ => None,
    }
}

fn call(flaw: Flaw, id: &Value, params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    if name != "status" && !(flaw == Flaw::RepeatingCursor && name == "version") {
        return jsonrpc::error(id, INVALID_PARAMS, &format!("Unknown tool: {name}"), None);
    }
    let ok = match flaw {
        Flaw::OutputSchema => json!("yes"),
        _ => json!(true),
    };
    let block = match flaw {
        Flaw::SchemaInvalid => json!({"type": "text"}),
        _ => json!({"type": "text", "text": json!({"ok": ok}).to_string()}),
    };
    jsonrpc::result(
        id,
        json!({"content": [block], "structuredContent": {"ok": ok}}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_cursor_is_refused_and_the_repeat_repeats() {
        assert!(tools_page(Flaw::None, Some(&json!("x"))).is_none());
        assert!(
            tools_page(Flaw::None, None)
                .unwrap()
                .get("nextCursor")
                .is_none()
        );
        let two = tools_page(Flaw::RepeatingCursor, Some(&json!(PAGE_TWO))).unwrap();
        assert_eq!(two["nextCursor"], PAGE_TWO);
        assert!(tools_page(Flaw::RepeatingCursor, Some(&json!("x"))).is_none());
    }

    #[test]
    fn only_echo_version_echoes_a_version_it_cannot_speak() {
        let asked = json!({"protocolVersion": "1900-01-01"});
        assert_eq!(
            initialize(Flaw::None, &asked)["protocolVersion"],
            LEGACY_PROTOCOL_VERSION
        );
        assert_eq!(
            initialize(Flaw::EchoVersion, &asked)["protocolVersion"],
            "1900-01-01"
        );
    }
}
