//! The pending-interaction queue: where a server's question to the client waits for an answer.
//!
//! Every server→client request (legacy `sampling/createMessage`, `elicitation/create` in form and
//! URL mode, `roots/list`) and every entry of a modern `input_required` round reaches the engine's
//! [`Responder`] as one [`ServerRequest`]. A [`QueueResponder`] turns it into an [`Interaction`]:
//! an id, the server, the history entry of the request that caused it, its kind, its payload, the
//! round, a deadline. Then exactly one of these closes it:
//!
//! - its [`Policy`] answers at once (the web UI's [`WaitForDialogs`] declines what it has no
//!   dialog for yet; the CLI answers as its flags say),
//! - a view answers it with [`InteractionQueue::answer`] — accept with content, decline, cancel,
//! - its deadline passes (outcome `timedOut`, the reason named, the server gets the decline),
//! - its connection closes ([`InteractionQueue::abandon`], outcome `abandoned`),
//! - the request that asked ends first (a cancelled `tools/call` whose round was waiting: the
//!   engine drops the answer's future; outcome `abandoned`).
//!
//! Whoever takes the interaction out of the queue closes it, so each is closed exactly once and
//! its [`InteractionSink`] hears `opened` before `closed`. What goes back on the wire for each kind
//! and each answer is decided in one place, [`wire_answer`] (declines are
//! [`mcpscope_client::decline`]'s).

use crate::error::{Error, Result};
use futures::future::BoxFuture;
use mcpscope_client::{RequestOrigin, Responder, ServerRequest, decline, full_capabilities};
use mcpscope_proto::era::Era;
use mcpscope_proto::{RpcError, now_us};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use ts_rs::TS;

/// How long an interaction waits for a view by default.
pub const DEFAULT_INTERACTION_TIMEOUT: Duration = Duration::from_secs(300);

/// What the server asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum InteractionKind {
    /// `sampling/createMessage`: an LLM completion.
    Sampling,
    /// `elicitation/create` in form mode: values for a schema.
    ElicitationForm,
    /// `elicitation/create` in URL mode: the user opens a URL.
    ElicitationUrl,
    /// `roots/list`: the client's roots.
    Roots,
    /// Anything else a server sends (answered method-not-found unless accepted).
    Other,
}

impl InteractionKind {
    /// The kind of `method` with `params`.
    pub fn of(method: &str, params: &Value) -> InteractionKind {
        match method {
            "sampling/createMessage" => InteractionKind::Sampling,
            "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
                InteractionKind::ElicitationUrl
            }
            "elicitation/create" => InteractionKind::ElicitationForm,
            "roots/list" => InteractionKind::Roots,
            _ => InteractionKind::Other,
        }
    }
}

/// A question waiting for an answer (the `interactionOpened` event's body).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Interaction {
    /// Its id (for [`InteractionQueue::answer`]).
    pub id: u64,
    /// The server that asks.
    pub server: String,
    /// The history entry of the request that caused it, when known.
    pub history_id: Option<i64>,
    /// What it asks for.
    pub kind: InteractionKind,
    /// The method as the server sent it.
    pub method: String,
    /// The request's params (secret values redacted once a connection's pipeline saw it).
    pub payload: Value,
    /// Where it came from, in words (`server request 5`, `input_required round 1 of …`).
    pub origin: String,
    /// The `input_required` round (1-based); null for a legacy server request.
    pub round: Option<u32>,
    /// Its key in the round's `inputRequests`; null for a legacy server request.
    pub key: Option<String>,
    /// How many entries the round holds (all asked at once: a view may walk them as one
    /// dialog); null for a legacy server request.
    pub round_keys: Option<u32>,
    /// The engine's limit of rounds for one request; null for a legacy server request.
    pub max_rounds: Option<u32>,
    /// When it opened (µs since the Unix epoch).
    pub opened_at_us: u64,
    /// When it times out (µs since the Unix epoch).
    pub deadline_us: u64,
}

/// How a view answers: `{"action": "accept", "content": …}` (`content` may be left out: a URL
/// elicitation's accept has none), `{"action": "decline"}`, `{"action": "cancel"}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "AnswerBody")]
pub enum Answer {
    /// Accept: the elicitation's content, the sampling result, the roots (list or `{roots}`).
    Accept(Value),
    /// Say no.
    Decline,
    /// Dismiss without choosing (elicitation `cancel`; a decline for the other kinds).
    Cancel,
}

/// The body a view sends, before it is an [`Answer`]. An adjacently tagged enum cannot leave a
/// newtype variant's content out, so the tag and the content are read as two fields.
#[derive(Deserialize)]
struct AnswerBody {
    action: Action,
    #[serde(default)]
    content: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Action {
    Accept,
    Decline,
    Cancel,
}

impl From<AnswerBody> for Answer {
    fn from(b: AnswerBody) -> Answer {
        match b.action {
            Action::Accept => Answer::Accept(b.content),
            Action::Decline => Answer::Decline,
            Action::Cancel => Answer::Cancel,
        }
    }
}

/// How an interaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// Answered with content.
    Accepted,
    /// Declined (by a view or a policy).
    Declined,
    /// Cancelled by a view.
    Cancelled,
    /// Nobody answered before the deadline: declined.
    TimedOut,
    /// The connection closed first.
    Abandoned,
}

/// An interaction's end (the `interactionClosed` event's body).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InteractionClosed {
    /// The interaction's id.
    pub id: u64,
    /// The server that asked.
    pub server: String,
    /// The history entry of the request that caused it, when known.
    pub history_id: Option<i64>,
    /// What it asked for.
    pub kind: InteractionKind,
    /// The method as the server sent it.
    pub method: String,
    /// The `input_required` round; null for a legacy server request.
    pub round: Option<u32>,
    /// How it ended.
    pub outcome: Outcome,
    /// Why, for `timedOut` and `abandoned` (and who answered otherwise).
    pub reason: Option<String>,
    /// What the server got: `{result}` or `{error}`.
    pub answer: Value,
}

/// What a policy decides for one interaction.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Leave it for a view (or its deadline).
    Wait,
    /// Answer it after `after` (zero: at once); `by` is the closed event's reason. Until then it
    /// is pending like any other, so a view may still answer first (a Testing Profile's delay).
    Answer {
        /// The answer.
        answer: Answer,
        /// How long to wait first.
        after: Duration,
        /// Who answered, for the closed event (`answered by policy`, a profile's name, …).
        by: String,
    },
}

impl Decision {
    /// Answer at once, as "answered by policy".
    pub fn now(answer: Answer) -> Decision {
        Decision::Answer {
            answer,
            after: Duration::ZERO,
            by: "answered by policy".to_string(),
        }
    }
}

/// Decides at once, or leaves the interaction for a view.
pub trait Policy: Send + Sync + std::fmt::Debug + 'static {
    /// Answer (now or after a delay), or wait for a view (or the deadline).
    fn decide(&self, interaction: &Interaction) -> Decision;
}

/// Declines everything at once (the web UI before its dialogs; tests that want a quick decline).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAtOnce;

impl Policy for DeclineAtOnce {
    fn decide(&self, _: &Interaction) -> Decision {
        Decision::now(Answer::Decline)
    }
}

/// Answers nothing: every interaction waits for a view or its deadline.
#[derive(Debug, Clone, Copy, Default)]
pub struct WaitForView;

impl Policy for WaitForView {
    fn decide(&self, _: &Interaction) -> Decision {
        Decision::Wait
    }
}

/// The web UI's policy: form and URL elicitation wait for a view (within the interaction
/// timeout); sampling and roots go to their own policies (a Testing Profile may answer sampling;
/// roots are answered from the server's configured list); anything else is declined at once, so
/// a call that asks for it does not hang on a question no screen can answer.
#[derive(Debug, Clone)]
pub struct WaitForDialogs {
    /// Decides `sampling/createMessage` (default: wait for the sampling card).
    pub sampling: Arc<dyn Policy>,
    /// Decides `roots/list` (default: decline at once).
    pub roots: Arc<dyn Policy>,
}

impl Default for WaitForDialogs {
    fn default() -> Self {
        WaitForDialogs {
            sampling: Arc::new(WaitForView),
            roots: Arc::new(DeclineAtOnce),
        }
    }
}

impl Policy for WaitForDialogs {
    fn decide(&self, interaction: &Interaction) -> Decision {
        match interaction.kind {
            InteractionKind::ElicitationForm | InteractionKind::ElicitationUrl => Decision::Wait,
            InteractionKind::Sampling => self.sampling.decide(interaction),
            InteractionKind::Roots => self.roots.decide(interaction),
            InteractionKind::Other => Decision::now(Answer::Decline),
        }
    }
}

/// Hears each interaction open and close (a connection's pipeline: events, history rows).
pub trait InteractionSink: Send + Sync + 'static {
    /// It opened (before any answer).
    fn opened(&self, interaction: &Interaction, request: &ServerRequest);
    /// It closed (exactly once).
    fn closed(&self, closed: &InteractionClosed);
}

/// A sink that hears nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSink;

impl InteractionSink for NoSink {
    fn opened(&self, _: &Interaction, _: &ServerRequest) {}
    fn closed(&self, _: &InteractionClosed) {}
}

/// The wire answer to `method` for `answer`: the one place it is decided.
pub fn wire_answer(
    method: &str,
    params: &Value,
    answer: &Answer,
) -> std::result::Result<Value, RpcError> {
    let kind = InteractionKind::of(method, params);
    match (kind, answer) {
        (InteractionKind::ElicitationForm, Answer::Accept(content)) => {
            let content = if content.is_null() {
                json!({})
            } else {
                content.clone()
            };
            Ok(json!({"action": "accept", "content": content}))
        }
        // URL mode carries no content: the user went to the URL (SEP-1036).
        (InteractionKind::ElicitationUrl, Answer::Accept(_)) => Ok(json!({"action": "accept"})),
        (InteractionKind::ElicitationForm | InteractionKind::ElicitationUrl, Answer::Cancel) => {
            Ok(json!({"action": "cancel"}))
        }
        (InteractionKind::Roots, Answer::Accept(Value::Array(roots))) => {
            Ok(json!({"roots": roots}))
        }
        (_, Answer::Accept(result)) => Ok(result.clone()),
        (_, Answer::Decline | Answer::Cancel) => decline(method),
    }
}

/// The answer as the views see it: `{result}` or `{error}`.
fn shown(wire: &std::result::Result<Value, RpcError>) -> Value {
    match wire {
        Ok(v) => json!({"result": v}),
        Err(e) => json!({"error": e.to_value()}),
    }
}

/// The `input_required` round of `origin`, if it is one.
fn round_of(origin: &RequestOrigin) -> Option<u32> {
    match origin {
        RequestOrigin::Legacy { .. } => None,
        RequestOrigin::InputRequired { round, .. } => {
            Some(u32::try_from(*round).unwrap_or(u32::MAX))
        }
    }
}

/// The round's key, its number of keys and the engine's limit, for an `input_required` entry.
fn round_parts(origin: &RequestOrigin) -> (Option<String>, Option<u32>, Option<u32>) {
    let n = |v: usize| Some(u32::try_from(v).unwrap_or(u32::MAX));
    match origin {
        RequestOrigin::Legacy { .. } => (None, None, None),
        RequestOrigin::InputRequired {
            key,
            keys,
            max_rounds,
            ..
        } => (Some(key.clone()), n(*keys), n(*max_rounds)),
    }
}

/// `origin` in words.
pub(crate) fn origin_text(o: &RequestOrigin) -> String {
    match o {
        RequestOrigin::Legacy { id } => format!("server request {id}"),
        RequestOrigin::InputRequired {
            key,
            round,
            for_method,
            ..
        } => format!("input_required round {round} of {for_method}, key {key:?}"),
    }
}

/// One interaction in the queue.
struct Waiting {
    interaction: Interaction,
    /// The connection it belongs to ([`InteractionQueue::abandon`]).
    connection: u64,
    sink: Arc<dyn InteractionSink>,
    reply: oneshot::Sender<std::result::Result<Value, RpcError>>,
}

/// Interactions one server may have waiting at once. Beyond it each new one is refused: opened
/// and closed at once as declined, the reason naming the bound and the count (a server that
/// asks 1,000 questions at once gets 500 declines; nobody can answer that many anyway, and the
/// queue, the events and the page stay bounded).
pub const MAX_PENDING: usize = 500;

/// Every interaction still waiting, of every server.
#[derive(Default)]
pub struct InteractionQueue {
    waiting: Mutex<HashMap<u64, Waiting>>,
    next_id: AtomicU64,
    next_connection: AtomicU64,
    /// Interactions refused over [`MAX_PENDING`], every server.
    refused: AtomicU64,
}

impl std::fmt::Debug for InteractionQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InteractionQueue")
            .field("waiting", &self.lock().len())
            .finish()
    }
}

impl InteractionQueue {
    /// An empty queue.
    pub fn new() -> InteractionQueue {
        InteractionQueue::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A number for a new connection, to [`abandon`](Self::abandon) its interactions by.
    pub fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Every interaction still waiting, oldest first.
    pub fn pending(&self) -> Vec<Interaction> {
        let mut out: Vec<Interaction> = self
            .lock()
            .values()
            .map(|w| w.interaction.clone())
            .collect();
        out.sort_by_key(|i| i.id);
        out
    }

    /// Answer interaction `id` (any view). Not found: it already closed, or never was.
    pub fn answer(&self, id: u64, answer: Answer) -> Result<InteractionClosed> {
        let outcome = match &answer {
            Answer::Accept(_) => Outcome::Accepted,
            Answer::Decline => Outcome::Declined,
            Answer::Cancel => Outcome::Cancelled,
        };
        self.close(id, outcome, None, |i| {
            wire_answer(&i.method, &i.payload, &answer)
        })
        .ok_or_else(|| {
            Error::not_found(format!(
                "no interaction {id} is waiting: it was answered, timed out or abandoned"
            ))
        })
    }

    /// Record the cause and the redacted payload a connection's pipeline found for `id`.
    pub(crate) fn describe(&self, id: u64, history_id: Option<i64>, payload: Value) {
        if let Some(w) = self.lock().get_mut(&id) {
            w.interaction.history_id = history_id;
            w.interaction.payload = payload;
        }
    }

    /// Close every interaction of `connection`: it ended (`reason` says how).
    pub fn abandon(&self, connection: u64, reason: &str) {
        let ids: Vec<u64> = self
            .lock()
            .iter()
            .filter(|(_, w)| w.connection == connection)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let reason = format!("abandoned: {reason}");
            self.close(id, Outcome::Abandoned, Some(reason), |i| decline(&i.method));
        }
    }

    /// Close `id` with `answer` on behalf of `by` (a policy, a profile), if it still waits.
    pub(crate) fn answer_by(
        &self,
        id: u64,
        answer: &Answer,
        by: String,
    ) -> Option<InteractionClosed> {
        let outcome = match answer {
            Answer::Accept(_) => Outcome::Accepted,
            Answer::Decline => Outcome::Declined,
            Answer::Cancel => Outcome::Cancelled,
        };
        self.close(id, outcome, Some(by), |i| {
            wire_answer(&i.method, &i.payload, answer)
        })
    }

    /// Take `id` out of the queue, answer the server with `wire`, tell the sink. `None` when it
    /// was no longer waiting.
    fn close(
        &self,
        id: u64,
        outcome: Outcome,
        reason: Option<String>,
        wire: impl FnOnce(&Interaction) -> std::result::Result<Value, RpcError>,
    ) -> Option<InteractionClosed> {
        let w = self.lock().remove(&id)?;
        let i = &w.interaction;
        let answer = wire(i);
        let closed = InteractionClosed {
            id,
            server: i.server.clone(),
            history_id: i.history_id,
            kind: i.kind,
            method: i.method.clone(),
            round: i.round,
            outcome,
            reason,
            answer: shown(&answer),
        };
        // The sink first: its row and event come before the server can act on the answer.
        w.sink.closed(&closed);
        let _ = w.reply.send(answer);
        Some(closed)
    }

    /// Put `request` in the queue; the receiver gets the wire answer when it closes.
    fn open(
        &self,
        server: &str,
        connection: u64,
        request: &ServerRequest,
        timeout: Duration,
        sink: Arc<dyn InteractionSink>,
    ) -> (
        Interaction,
        oneshot::Receiver<std::result::Result<Value, RpcError>>,
    ) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let now = now_us();
        let (key, round_keys, max_rounds) = round_parts(&request.origin);
        let interaction = Interaction {
            id,
            server: server.to_string(),
            history_id: None,
            kind: InteractionKind::of(&request.method, &request.params),
            method: request.method.clone(),
            payload: request.params.clone(),
            origin: origin_text(&request.origin),
            round: round_of(&request.origin),
            key,
            round_keys,
            max_rounds,
            opened_at_us: now,
            deadline_us: now.saturating_add(timeout.as_micros().min(u64::MAX as u128) as u64),
        };
        let (reply, rx) = oneshot::channel();
        sink.opened(&interaction, request);
        let mut waiting = self.lock();
        let here = waiting.values().filter(|w| w.interaction.server == server);
        if here.count() < MAX_PENDING {
            let w = Waiting {
                interaction: interaction.clone(),
                connection,
                sink,
                reply,
            };
            waiting.insert(id, w);
            return (interaction, rx);
        }
        drop(waiting);
        // Over the bound: closed as soon as opened, never in the queue (so a policy's or the
        // deadline's close later is a no-op), the server declined at once.
        let refused = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
        let answer = decline(&interaction.method);
        let closed = InteractionClosed {
            id,
            server: server.to_string(),
            history_id: None,
            kind: interaction.kind,
            method: interaction.method.clone(),
            round: interaction.round,
            outcome: Outcome::Declined,
            reason: Some(format!(
                "refused: {server} already has {MAX_PENDING} questions waiting, the most the queue \
                 keeps; declined at once ({refused} refused so far)"
            )),
            answer: shown(&answer),
        };
        sink.closed(&closed);
        let _ = reply.send(answer);
        (interaction, rx)
    }

    /// How many interactions were refused because their server had [`MAX_PENDING`] waiting.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// A [`Responder`] over the queue: each server request becomes an interaction that its policy,
/// a view, the deadline or the connection's end closes.
pub struct QueueResponder {
    /// The queue.
    pub queue: Arc<InteractionQueue>,
    /// The server's name.
    pub server: String,
    /// This connection's number ([`InteractionQueue::connection_id`]).
    pub connection: u64,
    /// Who answers at once.
    pub policy: Arc<dyn Policy>,
    /// How long a view has.
    pub timeout: Duration,
    /// Who hears the interactions open and close.
    pub sink: Arc<dyn InteractionSink>,
}

impl QueueResponder {
    /// Queue `request`, let `policy` answer at once if it will, and wait for the answer.
    pub fn ask(
        &self,
        policy: &dyn Policy,
        request: ServerRequest,
    ) -> BoxFuture<'static, std::result::Result<Value, RpcError>> {
        let (interaction, rx) = self.queue.open(
            &self.server,
            self.connection,
            &request,
            self.timeout,
            self.sink.clone(),
        );
        let id = interaction.id;
        if let Decision::Answer { answer, after, by } = policy.decide(&interaction) {
            if after.is_zero() {
                self.queue.answer_by(id, &answer, by);
            } else {
                // Answered later unless a view, the deadline or the asker's end closes it first
                // (then this close is a no-op).
                let queue = self.queue.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    queue.answer_by(id, &answer, by);
                });
            }
        }
        let queue = self.queue.clone();
        let timeout = self.timeout;
        let method = request.method;
        let guard = AbandonOnDrop {
            queue: queue.clone(),
            id,
        };
        Box::pin(async move {
            let _guard = guard;
            match tokio::time::timeout(timeout, rx).await {
                Ok(Ok(answer)) => answer,
                // The queue dropped it without an answer (cannot happen: closing answers).
                Ok(Err(_)) => decline(&method),
                Err(_) => {
                    // If a view answered in this same instant, its answer went to the reply
                    // channel this future just dropped: the decline is what the server gets
                    // either way, and the queue closed it once.
                    let reason =
                        format!("timed out: no view answered within {timeout:?}; declined");
                    queue.close(id, Outcome::TimedOut, Some(reason), |i| decline(&i.method));
                    decline(&method)
                }
            }
        })
    }
}

/// Closes an interaction whose asker stopped waiting: the engine dropped the answer's future
/// because the request that caused it ended first (cancelled, timed out, its connection gone
/// mid-round). Without it the interaction would wait in the queue with nobody to hear the
/// answer and no deadline left to close it. A no-op once the interaction closed otherwise.
struct AbandonOnDrop {
    queue: Arc<InteractionQueue>,
    id: u64,
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        let reason = "abandoned: the request that asked ended before an answer".to_string();
        self.queue
            .close(self.id, Outcome::Abandoned, Some(reason), |i| {
                decline(&i.method)
            });
    }
}

impl Responder for QueueResponder {
    fn capabilities(&self, era: Era) -> Value {
        full_capabilities(era)
    }

    fn respond(
        &self,
        request: ServerRequest,
    ) -> BoxFuture<'static, std::result::Result<Value, RpcError>> {
        let policy = self.policy.clone();
        self.ask(policy.as_ref(), request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> (String, Value) {
        (
            "elicitation/create".into(),
            json!({"message": "m", "requestedSchema": {}}),
        )
    }

    #[test]
    fn each_kind_and_answer_has_one_wire_answer() {
        let (m, p) = form();
        assert_eq!(
            wire_answer(&m, &p, &Answer::Accept(json!({"name": "x"}))).unwrap(),
            json!({"action": "accept", "content": {"name": "x"}})
        );
        assert_eq!(
            wire_answer(&m, &p, &Answer::Cancel).unwrap(),
            json!({"action": "cancel"})
        );
        assert_eq!(
            wire_answer(&m, &p, &Answer::Decline).unwrap(),
            json!({"action": "decline"})
        );
        let url = json!({"mode": "url", "url": "https://x"});
        assert_eq!(
            wire_answer(&m, &url, &Answer::Accept(json!({"ignored": 1}))).unwrap(),
            json!({"action": "accept"})
        );
        let roots = wire_answer(
            "roots/list",
            &json!({}),
            &Answer::Accept(json!([{"uri": "file:///a"}])),
        );
        assert_eq!(roots.unwrap(), json!({"roots": [{"uri": "file:///a"}]}));
        let sampling = wire_answer("sampling/createMessage", &json!({}), &Answer::Decline);
        assert_eq!(sampling.unwrap_err().code, -1);
        assert_eq!(
            wire_answer("x/y", &json!({}), &Answer::Cancel)
                .unwrap_err()
                .code,
            -32601
        );
    }

    #[test]
    fn answers_parse_from_what_a_view_sends() {
        let a: Answer =
            serde_json::from_value(json!({"action": "accept", "content": {"a": 1}})).unwrap();
        assert_eq!(a, Answer::Accept(json!({"a": 1})));
        let d: Answer = serde_json::from_value(json!({"action": "decline"})).unwrap();
        assert_eq!(d, Answer::Decline);
        // A URL elicitation's accept carries no content (docs/web-api.md).
        let u: Answer = serde_json::from_value(json!({"action": "accept"})).unwrap();
        assert_eq!(u, Answer::Accept(Value::Null));
    }

    /// An interaction of `method` with `params`, as the queue would open it.
    fn asking(method: &str, params: Value) -> Interaction {
        Interaction {
            id: 1,
            server: "s".into(),
            history_id: None,
            kind: InteractionKind::of(method, &params),
            method: method.into(),
            payload: params,
            origin: "server request 1".into(),
            round: None,
            key: None,
            round_keys: None,
            max_rounds: None,
            opened_at_us: 0,
            deadline_us: 0,
        }
    }

    #[test]
    fn the_web_policy_waits_for_elicitation_and_sampling_and_declines_the_rest() {
        let p = WaitForDialogs::default();
        let form = asking("elicitation/create", json!({"requestedSchema": {}}));
        let url = asking(
            "elicitation/create",
            json!({"mode": "url", "url": "https://x"}),
        );
        let sampling = asking("sampling/createMessage", json!({"messages": []}));
        assert_eq!(
            p.decide(&form),
            Decision::Wait,
            "a form waits for the dialog"
        );
        assert_eq!(
            p.decide(&url),
            Decision::Wait,
            "a URL elicitation waits too"
        );
        assert_eq!(
            p.decide(&sampling),
            Decision::Wait,
            "sampling waits for its card"
        );
        for method in ["roots/list", "x/unknown"] {
            let i = asking(method, json!({}));
            assert_eq!(p.decide(&i), Decision::now(Answer::Decline), "{method}");
        }
    }

    #[tokio::test]
    async fn a_view_answers_once_and_a_second_answer_is_refused() {
        let queue = Arc::new(InteractionQueue::new());
        let r = QueueResponder {
            queue: queue.clone(),
            server: "s".into(),
            connection: queue.connection_id(),
            policy: Arc::new(WaitForView),
            timeout: Duration::from_secs(30),
            sink: Arc::new(NoSink),
        };
        let (method, params) = form();
        let origin = RequestOrigin::Legacy {
            id: mcpscope_proto::RequestId::Number(1),
        };
        let fut = r.respond(ServerRequest {
            method,
            params,
            origin,
        });
        let [waiting] = queue.pending().try_into().unwrap();
        let closed = queue.answer(waiting.id, Answer::Cancel).unwrap();
        assert_eq!(closed.outcome, Outcome::Cancelled);
        assert_eq!(fut.await.unwrap(), json!({"action": "cancel"}));
        let again = queue.answer(waiting.id, Answer::Decline).unwrap_err();
        assert_eq!(again.code, mcpscope_proto::error_code::ErrorCode::NotFound);
    }

    /// Answers every interaction with `answer` after `after`.
    #[derive(Debug)]
    struct Later(Duration, Answer);

    impl Policy for Later {
        fn decide(&self, _: &Interaction) -> Decision {
            Decision::Answer {
                answer: self.1.clone(),
                after: self.0,
                by: "answered by profile «later»".into(),
            }
        }
    }

    fn asker(queue: &Arc<InteractionQueue>, policy: Later, sink: Arc<Heard>) -> QueueResponder {
        QueueResponder {
            queue: queue.clone(),
            server: "s".into(),
            connection: queue.connection_id(),
            policy: Arc::new(policy),
            timeout: Duration::from_secs(30),
            sink,
        }
    }

    fn elicit(r: &QueueResponder) -> BoxFuture<'static, std::result::Result<Value, RpcError>> {
        let (method, params) = form();
        let origin = RequestOrigin::Legacy {
            id: mcpscope_proto::RequestId::Number(1),
        };
        r.respond(ServerRequest {
            method,
            params,
            origin,
        })
    }

    #[tokio::test]
    async fn a_delayed_decision_waits_pending_then_answers_with_its_reason() {
        let queue = Arc::new(InteractionQueue::new());
        let heard = Arc::new(Heard::default());
        let r = asker(
            &queue,
            Later(Duration::from_millis(50), Answer::Decline),
            heard.clone(),
        );
        let fut = elicit(&r);
        assert_eq!(queue.pending().len(), 1, "pending until the delay ends");
        assert_eq!(fut.await.unwrap(), json!({"action": "decline"}));
        let closed = heard.0.lock().unwrap().clone();
        assert_eq!(closed.len(), 1);
        assert_eq!(closed[0].outcome, Outcome::Declined);
        assert_eq!(
            closed[0].reason.as_deref(),
            Some("answered by profile «later»")
        );
    }

    #[tokio::test]
    async fn a_view_answering_during_the_delay_wins_and_the_policy_closes_nothing() {
        let queue = Arc::new(InteractionQueue::new());
        let heard = Arc::new(Heard::default());
        let r = asker(
            &queue,
            Later(Duration::from_millis(100), Answer::Decline),
            heard.clone(),
        );
        let fut = elicit(&r);
        let [waiting] = queue.pending().try_into().unwrap();
        queue.answer(waiting.id, Answer::Cancel).unwrap();
        assert_eq!(fut.await.unwrap(), json!({"action": "cancel"}));
        tokio::time::sleep(Duration::from_millis(200)).await;
        let closed = heard.0.lock().unwrap().clone();
        assert_eq!(closed.len(), 1, "closed once, by the view: {closed:?}");
        assert_eq!(closed[0].outcome, Outcome::Cancelled);
    }

    /// A sink that keeps every close it hears.
    #[derive(Default)]
    struct Heard(Mutex<Vec<InteractionClosed>>);

    impl InteractionSink for Heard {
        fn opened(&self, _: &Interaction, _: &ServerRequest) {}
        fn closed(&self, closed: &InteractionClosed) {
            self.0.lock().unwrap().push(closed.clone());
        }
    }

    #[tokio::test]
    async fn an_interaction_whose_asker_stops_waiting_is_abandoned_once() {
        let queue = Arc::new(InteractionQueue::new());
        let heard = Arc::new(Heard::default());
        let r = QueueResponder {
            queue: queue.clone(),
            server: "s".into(),
            connection: queue.connection_id(),
            policy: Arc::new(WaitForView),
            timeout: Duration::from_secs(30),
            sink: heard.clone(),
        };
        let (method, params) = form();
        let origin = RequestOrigin::InputRequired {
            key: "k".into(),
            round: 1,
            keys: 1,
            max_rounds: 10,
            for_method: "tools/call".into(),
        };
        let fut = r.respond(ServerRequest {
            method,
            params,
            origin,
        });
        let [waiting] = queue.pending().try_into().unwrap();
        // The tools/call was cancelled: the engine drops the round's answer future.
        drop(fut);
        assert!(
            queue.pending().is_empty(),
            "nobody is left to hear an answer"
        );
        let closes = heard.0.lock().unwrap().clone();
        let [closed] = closes.try_into().unwrap();
        assert_eq!(closed.id, waiting.id);
        assert_eq!(closed.outcome, Outcome::Abandoned);
        assert!(closed.reason.unwrap().contains("ended before an answer"));
        // An answered one is not closed again when its future goes.
        let (method, params) = form();
        let fut = r.respond(ServerRequest {
            method,
            params,
            origin: RequestOrigin::Legacy {
                id: mcpscope_proto::RequestId::Number(2),
            },
        });
        let [next] = queue.pending().try_into().unwrap();
        queue.answer(next.id, Answer::Decline).unwrap();
        assert_eq!(fut.await.unwrap(), json!({"action": "decline"}));
        assert_eq!(heard.0.lock().unwrap().len(), 2, "closed exactly once each");
    }

    #[tokio::test]
    async fn a_server_over_the_bound_is_declined_at_once_and_counted() {
        let queue = Arc::new(InteractionQueue::new());
        let heard = Arc::new(Heard::default());
        let r = QueueResponder {
            queue: queue.clone(),
            server: "s".into(),
            connection: queue.connection_id(),
            policy: Arc::new(WaitForView),
            timeout: Duration::from_secs(30),
            sink: heard.clone(),
        };
        let waiting: Vec<_> = (0..MAX_PENDING + 3).map(|_| elicit(&r)).collect();
        assert_eq!(queue.pending().len(), MAX_PENDING);
        assert_eq!(queue.refused(), 3);
        let closes = heard.0.lock().unwrap().clone();
        assert_eq!(closes.len(), 3, "the refused ones are closed at once");
        assert!(closes.iter().all(|c| c.outcome == Outcome::Declined));
        assert!(
            closes[2]
                .reason
                .as_deref()
                .unwrap()
                .contains("3 refused so far")
        );
        // Another server still has room.
        let other = QueueResponder {
            server: "t".into(),
            ..asker(
                &queue,
                Later(Duration::from_secs(60), Answer::Decline),
                heard,
            )
        };
        let _t = elicit(&other);
        assert_eq!(queue.pending().len(), MAX_PENDING + 1);
        let mut waiting = waiting.into_iter().rev();
        for _ in 0..3 {
            let refused = waiting.next().unwrap().await.unwrap();
            assert_eq!(refused, json!({"action": "decline"}));
        }
    }

    #[tokio::test]
    async fn a_closed_connection_abandons_its_interactions_with_a_reason() {
        let queue = Arc::new(InteractionQueue::new());
        let connection = queue.connection_id();
        let r = QueueResponder {
            queue: queue.clone(),
            server: "s".into(),
            connection,
            policy: Arc::new(WaitForView),
            timeout: Duration::from_secs(30),
            sink: Arc::new(NoSink),
        };
        let origin = RequestOrigin::InputRequired {
            key: "k".into(),
            round: 2,
            keys: 1,
            max_rounds: 10,
            for_method: "tools/call".into(),
        };
        let fut = r.respond(ServerRequest {
            method: "roots/list".into(),
            params: json!({}),
            origin,
        });
        assert_eq!(queue.pending()[0].round, Some(2));
        queue.abandon(connection + 1, "another connection");
        assert_eq!(queue.pending().len(), 1);
        queue.abandon(connection, "the connection ended");
        assert!(queue.pending().is_empty());
        assert_eq!(fut.await.unwrap(), json!({"roots": []}));
    }
}
