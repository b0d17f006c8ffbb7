//! Conduct: how the server behaves around the calls the check may make (tools annotated read-only
//! that need no arguments, or every tool needing none with `--call-tools`; each called once here,
//! at most [`MAX_CALLS`]) and around the messages of the session — in both eras:
//!
//! - `input-required-result-request-state`, `-tampered-state`, `-missing-input-response`
//!   (2026-07-28; the official suite's scenario names): judged on the first of those calls that
//!   answers `input_required`, each retry on a fresh round (a state may be single-use); the
//!   questions are answered as a client that declines everything would (elicitation `decline`,
//!   roots none). Skipped, saying so, when no call used rounds.
//! - `logging-levels-filtered` (2025-11-25): `logging/setLevel error` before the calls, and no
//!   log below `error` during them.
//! - `cancellation-honoured`: the slowest of the calls made again and cancelled in flight; no
//!   answer may follow.
//! - `requests-before-initialized` (2025-11-25): on a connection of its own, `initialize` and
//!   then a `tools/list` without `notifications/initialized`; the server sends no request (but
//!   `ping`) meanwhile, and what the early `tools/list` got is reported.
//! - Judged from every frame of the era at the end: `notification-not-answered` (a notification
//!   is sent early on), `progress-only-with-token`, `stderr-not-protocol`.

use super::Lists;
use super::modern::retry_params;
use crate::run::{Asked, Cx, Failure};
use crate::verdict::Verdict;
use bytes::Bytes;
use mcpscope_client::{RequestControl, RequestOptions, decline, full_capabilities};
use mcpscope_proto::era::{Era, LEGACY_VERSION};
use mcpscope_proto::{Direction, RequestId};
use mcpscope_transport::{Connection, Outgoing, TransportEvent};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most tools called for the conduct checks in one era.
const MAX_CALLS: usize = 10;
/// A call this slow can be cancelled while the server still works on it.
const SLOW: Duration = Duration::from_millis(500);
/// Longest wait for an answer that must not come after a cancellation.
const MAX_LATE_WAIT: Duration = Duration::from_secs(5);
/// Longest wait for one call's answer: a tool that works for a minute (a `slow` tool's default)
/// must not take the run's whole `--timeout` with it.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The notification sent for `notification-not-answered`: a method nobody defines, which a
/// server that answers everything it does not know would answer.
const NOTIFICATION: &str = "notifications/mcpscope-check/unknown";

/// The log levels from least to most severe (RFC 5424, as the logging page lists them).
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// One tool called: its name, the exchange, how long it took.
struct Call {
    name: String,
    asked: Asked,
    took: Duration,
}

/// Run the conduct checks that ask the server something.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    // Sent first: any answer to it is judged at the end, among all the era's frames.
    let _ = cx
        .session
        .notify_by_hand(NOTIFICATION, Some(json!({})))
        .await;
    let filtered = set_error_level(cx).await;
    let callable = callable(cx, lists);
    let mark = cx.rec.mark();
    let calls = call(cx, &callable).await;
    if let Some(set) = filtered {
        judge_levels(cx, set, mark, &calls);
    }
    if cx.era == Era::Modern {
        rounds(cx, &calls, &callable).await;
    } else {
        requests_before_initialized(cx).await;
    }
    cancellation(cx, &calls).await;
}

/// Judge the era's frames at the end: answers to notifications, progress without a token,
/// JSON-RPC on stderr.
pub(crate) fn judge(cx: &Cx) {
    notification_not_answered(cx);
    progress_only_with_token(cx);
    stderr_not_protocol(cx);
}

/// The tools the check may call, as `(name, why-not)`: read-only ones needing no arguments, or
/// every one needing none with `--call-tools`.
fn callable(cx: &Cx, lists: &Lists) -> Vec<String> {
    lists
        .tools
        .iter()
        .filter(|t| {
            t.pointer("/inputSchema/required")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
        })
        .filter(|t| {
            cx.opts.call_tools || t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
        })
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
        .take(MAX_CALLS)
        .collect()
}

/// Why nothing could be called.
fn nothing_callable(cx: &Cx) -> String {
    if cx.opts.call_tools {
        "no listed tool can be called without arguments".into()
    } else {
        "no listed tool is annotated read-only and callable without arguments (--call-tools calls every tool that needs none)".into()
    }
}

/// `tools/call` as [`Cx::ask`] sends it, but waiting at most [`CALL_TIMEOUT`] (the engine then
/// cancels it on the wire).
pub(crate) async fn ask_call(cx: &Cx, params: Value) -> Asked {
    let mark = cx.rec.mark();
    let opts = RequestOptions {
        timeout: Some(Some(CALL_TIMEOUT)),
        ..RequestOptions::default()
    };
    let answer = match cx
        .session
        .request_by_hand("tools/call", Some(params.clone()), &opts)
        .await
    {
        Ok(x) => match x.answer {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => Err(Failure::Rpc(e)),
            None => Err(Failure::Client(mcpscope_client::ClientError::Closed(
                "no answer".into(),
            ))),
        },
        Err(e) => Err(Failure::Client(e)),
    };
    Asked {
        answer,
        evidence: cx.rec.since(mark, 4),
        reproduce: cx.reproduce("tools/call", &params),
    }
}

async fn call(cx: &Cx, names: &[String]) -> Vec<Call> {
    let mut calls = Vec::new();
    for name in names {
        let started = Instant::now();
        let asked = ask_call(cx, json!({"name": name, "arguments": {}})).await;
        calls.push(Call {
            name: name.clone(),
            asked,
            took: started.elapsed(),
        });
    }
    calls
}

// ---- logging levels (2025-11-25) -------------------------------------------------------------

/// `logging/setLevel error` when logging is declared; `None` (and the check skipped) otherwise.
async fn set_error_level(cx: &Cx) -> Option<Asked> {
    if cx.era != Era::Legacy {
        return None;
    }
    if !cx.has("logging") {
        cx.skip(
            "logging-levels-filtered",
            "the server does not declare the logging capability",
        );
        return None;
    }
    let asked = cx.ask("logging/setLevel", json!({"level": "error"})).await;
    if let Err(f) = &asked.answer {
        cx.skip(
            "logging-levels-filtered",
            format!("logging/setLevel error was refused ({f}): logging-set-level judges that"),
        );
        return None;
    }
    Some(asked)
}

fn judge_levels(cx: &Cx, set: Asked, mark: u64, calls: &[Call]) {
    let logs: Vec<(u64, String)> = cx
        .rec
        .with(|s| s.logs.iter().filter(|(f, _)| *f > mark).cloned().collect());
    if logs.is_empty() {
        cx.skip(
            "logging-levels-filtered",
            if calls.is_empty() {
                "no call could be made to see what the server logs (needs a read-only tool without arguments, or --call-tools)".to_string()
            } else {
                format!(
                    "the server logged nothing during the {} calls the check made",
                    calls.len()
                )
            },
        );
        return;
    }
    let rank = |l: &str| LEVELS.iter().position(|x| *x == l);
    let below = logs
        .iter()
        .find(|(_, l)| rank(l).is_some_and(|r| r < rank("error").unwrap_or(4)));
    match below {
        Some((frame, level)) => {
            let mut evidence = set.evidence.clone();
            evidence.extend(cx.rec.frames(&[*frame]));
            cx.add(
                Verdict::broken(
                    "logging-levels-filtered",
                    cx.version(),
                    format!(
                        "after logging/setLevel error, a notifications/message at level {level}"
                    ),
                )
                .with_evidence(evidence),
            );
        }
        None => cx.pass(
            "logging-levels-filtered",
            format!(
                "after logging/setLevel error, {} log messages, none below error",
                logs.len()
            ),
        ),
    }
}

// ---- input_required rounds (2026-07-28) ------------------------------------------------------

const ROUND_CHECKS: [&str; 3] = [
    "input-required-result-request-state",
    "input-required-result-tampered-state",
    "input-required-result-missing-input-response",
];

fn is_input_required(r: &Value) -> bool {
    r.get("resultType").and_then(Value::as_str) == Some("input_required")
}

async fn rounds(cx: &Cx, calls: &[Call], callable: &[String]) {
    let first = calls.iter().find_map(|c| match &c.asked.answer {
        Ok(r) if is_input_required(r) => Some((c, r.clone())),
        _ => None,
    });
    let Some((call, first)) = first else {
        let why = if callable.is_empty() {
            nothing_callable(cx)
        } else {
            format!(
                "no tool the check called used input_required rounds (called: {})",
                callable.join(", ")
            )
        };
        for id in ROUND_CHECKS {
            cx.skip(id, why.clone());
        }
        return;
    };
    let original = json!({"name": call.name, "arguments": {}});
    round_trip(cx, &call.name, &original, &first).await;
    tampered(cx, &call.name, &original).await;
    missing_input(cx, &call.name, &original).await;
}

/// The answers a client declining everything gives; `Err` names a question it cannot answer.
fn declines(result: &Value) -> Result<Map<String, Value>, String> {
    let mut answers = Map::new();
    if let Some(asks) = result.get("inputRequests").and_then(Value::as_object) {
        for (key, ask) in asks {
            let method = ask.get("method").and_then(Value::as_str).unwrap_or("");
            match decline(method) {
                Ok(a) => {
                    answers.insert(key.clone(), a);
                }
                Err(_) => return Err(format!("{key:?} asks for {method}")),
            }
        }
    }
    Ok(answers)
}

/// A fresh first round of `tool`, or why there is none.
async fn fresh_round(cx: &Cx, original: &Value) -> Result<Value, String> {
    let asked = ask_call(cx, original.clone()).await;
    match asked.answer {
        Ok(r) if is_input_required(&r) => Ok(r),
        Ok(_) => Err("called again, it completed without a round".into()),
        Err(f) => Err(format!("called again, it answered {f}")),
    }
}

/// The retry with the answers and the exact `requestState` gets a result.
async fn round_trip(cx: &Cx, tool: &str, original: &Value, first: &Value) {
    let id = "input-required-result-request-state";
    if first.get("inputRequests").is_none() && first.get("requestState").is_none() {
        cx.broken(
            id,
            format!("{tool}: an input_required result with neither inputRequests nor requestState"),
            None,
        );
        return;
    }
    let answers = match declines(first) {
        Ok(a) => a,
        Err(why) => {
            cx.skip(id, format!("{tool}: {why}, which the check cannot answer"));
            return;
        }
    };
    let params = retry_params(original, Some(answers), first.get("requestState"));
    let asked = ask_call(cx, params).await;
    match &asked.answer {
        Ok(r) => cx.pass(
            id,
            format!(
                "{tool}: the retry with its requestState (questions declined) got resultType {}",
                r.get("resultType").and_then(Value::as_str).unwrap_or("(none)")
            ),
        ),
        Err(f) => cx.broken(
            id,
            format!("{tool}: the retry with the server's own requestState and the declined answers got {f}"),
            Some(&asked),
        ),
    }
}

/// A retry whose `requestState` was altered is not completed as if it were the server's.
async fn tampered(cx: &Cx, tool: &str, original: &Value) {
    let id = "input-required-result-tampered-state";
    let round = match fresh_round(cx, original).await {
        Ok(r) => r,
        Err(why) => return cx.skip(id, format!("{tool}: {why}")),
    };
    let Some(state) = round.get("requestState").and_then(Value::as_str) else {
        return cx.skip(
            id,
            format!("{tool}: its input_required result carries no requestState"),
        );
    };
    let answers = declines(&round).unwrap_or_default();
    let forged = json!(format!("{state}-mcpscope-tampered"));
    let params = retry_params(original, Some(answers), Some(&forged));
    let asked = ask_call(cx, params).await;
    match &asked.answer {
        Err(Failure::Rpc(e)) => cx.pass(id, format!("{tool}: refused with {}", e.code)),
        Ok(r) if is_input_required(r) => cx.pass(id, format!("{tool}: asked again")),
        Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => {
            cx.pass(id, format!("{tool}: the call failed (isError)"))
        }
        Ok(_) => cx.broken(
            id,
            format!("{tool}: a tampered requestState was accepted and the call completed"),
            Some(&asked),
        ),
        Err(f) => cx.broken(id, format!("{tool}: {f}"), Some(&asked)),
    }
}

/// The retry without the answers asked for is asked again, not refused.
async fn missing_input(cx: &Cx, tool: &str, original: &Value) {
    let id = "input-required-result-missing-input-response";
    let round = match fresh_round(cx, original).await {
        Ok(r) => r,
        Err(why) => return cx.skip(id, format!("{tool}: {why}")),
    };
    if round
        .get("inputRequests")
        .and_then(Value::as_object)
        .is_none_or(|m| m.is_empty())
    {
        return cx.skip(id, format!("{tool}: its round asks nothing"));
    }
    let params = retry_params(original, None, round.get("requestState"));
    let asked = ask_call(cx, params).await;
    match &asked.answer {
        Ok(r) if is_input_required(r) => cx.pass(id, format!("{tool}: asked again")),
        Ok(_) => cx.pass(
            id,
            format!("{tool}: completed without the answers (they were not required)"),
        ),
        Err(f) => cx.broken(
            id,
            format!(
                "{tool}: the retry without inputResponses got {f}, not a new input_required result"
            ),
            Some(&asked),
        ),
    }
}

// ---- cancellation ----------------------------------------------------------------------------

async fn cancellation(cx: &Cx, calls: &[Call]) {
    let id = "cancellation-honoured";
    if cx.era == Era::Modern && !cx.is_stdio() {
        return cx.skip(
            id,
            "2026-07-28 over HTTP cancels by closing the request's stream: no answer can follow",
        );
    }
    let slow = calls
        .iter()
        .filter(|c| c.took >= SLOW && matches!(&c.asked.answer, Ok(r) if !is_input_required(r)))
        .max_by_key(|c| c.took);
    let Some(slow) = slow else {
        return cx.skip(
            id,
            if calls.is_empty() {
                "no tool could be called to cancel".to_string()
            } else {
                format!(
                    "no call the check made took {} ms or more, so none could be cancelled while in flight",
                    SLOW.as_millis()
                )
            },
        );
    };
    let control = Arc::new(RequestControl::new());
    let opts = RequestOptions {
        control: Some(control.clone()),
        ..RequestOptions::default()
    };
    let mark = cx.rec.mark();
    let params = json!({"name": slow.name, "arguments": {}});
    let request = cx
        .session
        .request_by_hand("tools/call", Some(params.clone()), &opts);
    let canceller = async {
        tokio::time::sleep(SLOW / 5).await;
        for wire in control.wire_ids() {
            cx.rec.watch(wire);
        }
        control.cancel("mcpscope check: cancellation-honoured");
    };
    let (answer, ()) = tokio::join!(request, canceller);
    if let Ok(x) = answer
        && x.answer.is_some()
    {
        // The answer won the race against the cancellation: nothing to judge.
        return cx.skip(
            id,
            format!(
                "{}: the answer came before the cancellation went out",
                slow.name
            ),
        );
    }
    tokio::time::sleep(late_wait(slow.took)).await;
    let late = cx.rec.with(|s| s.watched_answers.first().cloned());
    match late {
        Some((frame, wire)) => {
            let mut evidence = cx.rec.since(mark, 3);
            evidence.extend(cx.rec.frames(&[frame]));
            cx.add(
                Verdict::broken(
                    id,
                    cx.version(),
                    format!(
                        "{}: request {wire} was cancelled, and answered all the same",
                        slow.name
                    ),
                )
                .with_evidence(evidence)
                .with_reproduce(Some(cx.reproduce("tools/call", &params))),
            );
        }
        None => cx.pass(
            id,
            format!(
                "{}: cancelled after {} ms, no answer in the {} ms after",
                slow.name,
                (SLOW / 5).as_millis(),
                late_wait(slow.took).as_millis()
            ),
        ),
    }
}

/// How long an answer is waited for after the cancellation: the call's own time again, and a
/// margin, bounded.
fn late_wait(took: Duration) -> Duration {
    (took + SLOW).min(MAX_LATE_WAIT)
}

// ---- before `initialized` (2025-11-25) ------------------------------------------------------

/// The ids of the early exchange's two requests.
const EARLY_INIT: &str = "mcpscope-check-early-initialize";
const EARLY_LIST: &str = "mcpscope-check-early-tools-list";
/// How long the early exchange waits for each answer, and then for requests that follow.
const EARLY_WAIT: Duration = Duration::from_secs(5);
const EARLY_LINGER: Duration = Duration::from_millis(300);

/// What one early exchange saw: server requests (frame, method) and the answer to an id.
#[derive(Default)]
struct Early {
    requests: Vec<(u64, String)>,
    answers: Vec<(String, Value)>,
    failure: Option<String>,
}

/// Read events until `id` is answered (or `wait` passes), noting server requests.
async fn read_until(
    cx: &Cx,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<TransportEvent>,
    id: Option<&str>,
    wait: Duration,
    seen: &mut Early,
) {
    let read = async {
        while let Some(event) = events.recv().await {
            let mut frame = match event {
                TransportEvent::Frame(f) => f,
                TransportEvent::Failed { error, .. } => {
                    seen.failure = Some(error.to_string());
                    return;
                }
                TransportEvent::Closed { reason } => {
                    seen.failure = Some(format!("the connection closed: {reason}"));
                    return;
                }
            };
            frame.seq = cx.next_frame();
            cx.rec.keep(&frame);
            if frame.direction != Direction::In {
                continue;
            }
            let Ok(msg) = serde_json::from_slice::<Value>(&frame.body) else {
                continue;
            };
            match (msg.get("method").and_then(Value::as_str), msg.get("id")) {
                (Some(method), Some(_)) if method != "ping" => {
                    seen.requests.push((frame.seq, method.to_string()));
                }
                (None, Some(Value::String(answered))) => {
                    seen.answers.push((answered.clone(), msg.clone()));
                    if Some(answered.as_str()) == id {
                        return;
                    }
                }
                _ => {}
            }
        }
    };
    let _ = tokio::time::timeout(wait, read).await;
}

async fn send_early(conn: &Connection, body: Value) -> Result<(), String> {
    let id = body.get("id").and_then(RequestId::from_value);
    let out = Outgoing {
        body: Bytes::from(body.to_string()),
        id,
        headers: vec![("MCP-Protocol-Version".into(), LEGACY_VERSION.into())],
    };
    conn.send(out).await.map_err(|e| e.to_string())
}

/// `initialize`, then `tools/list` before `notifications/initialized`, on a connection of its own.
async fn requests_before_initialized(cx: &Cx) {
    let id = "requests-before-initialized";
    let mark = cx.rec.mark();
    let (conn, mut events) =
        match Connection::open(&cx.opts.target, &cx.opts.client.transport).await {
            Ok(c) => c,
            Err(e) => return cx.skip(id, format!("could not open a second connection: {e}")),
        };
    let mut seen = Early::default();
    let init = json!({"jsonrpc": "2.0", "id": EARLY_INIT, "method": "initialize", "params": {
        "protocolVersion": LEGACY_VERSION, "capabilities": full_capabilities(Era::Legacy),
        "clientInfo": {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}}});
    let early = json!({"jsonrpc": "2.0", "id": EARLY_LIST, "method": "tools/list", "params": {}});
    let mut sent = send_early(&conn, init).await;
    if sent.is_ok() {
        read_until(cx, &mut events, Some(EARLY_INIT), EARLY_WAIT, &mut seen).await;
        sent = send_early(&conn, early).await;
    }
    if sent.is_ok() {
        read_until(cx, &mut events, Some(EARLY_LIST), EARLY_WAIT, &mut seen).await;
        read_until(cx, &mut events, None, EARLY_LINGER, &mut seen).await;
    }
    conn.hurry_close("the check's early exchange is done");
    conn.close().await;
    let evidence = cx.rec.since(mark, 6);
    if let Err(why) = sent {
        return cx.skip(id, format!("the early exchange could not be sent: {why}"));
    }
    let got = match seen.answers.iter().find(|(a, _)| a == EARLY_LIST) {
        Some((_, m)) if m.get("error").is_some() => format!("an error ({})", m["error"]["code"]),
        Some(_) => "a result".to_string(),
        None => format!(
            "no answer{}",
            seen.failure
                .as_ref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        ),
    };
    match seen.requests.first() {
        Some((frame, method)) => {
            let mut evidence = evidence;
            evidence.extend(cx.rec.frames(&[*frame]));
            cx.add(
                Verdict::broken(
                    id,
                    cx.version(),
                    format!("before notifications/initialized the server sent a {method} request (the early tools/list got {got})"),
                )
                .with_evidence(evidence),
            );
        }
        None => cx.pass(
            id,
            format!("no request from the server before notifications/initialized; a tools/list sent before it got {got}"),
        ),
    }
}

// ---- judged from the frames ------------------------------------------------------------------

fn notification_not_answered(cx: &Cx) {
    let idless = cx.rec.with(|s| s.idless.clone());
    match idless.first() {
        None => cx.pass(
            "notification-not-answered",
            format!("no response without an id (a {NOTIFICATION} notification was sent)"),
        ),
        Some(frame) => cx.add(
            Verdict::broken(
                "notification-not-answered",
                cx.version(),
                format!(
                    "{} error responses without an id: the answer to a notification (every request of ours had an id)",
                    idless.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}

fn progress_only_with_token(cx: &Cx) {
    let (progress, tokens) = cx.rec.with(|s| (s.progress.clone(), s.tokens.clone()));
    let stray = progress.iter().find(|(_, t)| !tokens.contains(t));
    match stray {
        None => cx.pass(
            "progress-only-with-token",
            format!(
                "{} notifications/progress, each for a progressToken a request carried",
                progress.len()
            ),
        ),
        Some((frame, token)) => cx.add(
            Verdict::broken(
                "progress-only-with-token",
                cx.version(),
                format!("notifications/progress with progressToken {token}, which no request of ours carried"),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}

fn stderr_not_protocol(cx: &Cx) {
    if !cx.is_stdio() {
        return cx.skip("stderr-not-protocol", "not a stdio server");
    }
    let found = cx.rec.with(|s| s.stderr_rpc.clone());
    match found.first() {
        None => cx.pass("stderr-not-protocol", "no JSON-RPC message on stderr"),
        Some((frame, what)) => cx.add(
            Verdict::broken(
                "stderr-not-protocol",
                cx.version(),
                format!(
                    "{} JSON-RPC messages on stderr, where no client reads them; first, {what}",
                    found.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}
