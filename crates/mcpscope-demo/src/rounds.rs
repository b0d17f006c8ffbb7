//! What takes more than one question: the tools `onboard` and `elicit-url-required`; and the
//! prompt `ask-topic` and the resources `demo://files/private/{path}`, which ask once before
//! they answer (so a client's prompts/get and resources/read rounds can be seen too).
//!
//! `onboard` asks in three rounds — a name; then a team, an email and a newsletter choice
//! together (three keys in one `inputRequests`, which a client should walk as one dialog); then
//! a confirmation — so a client's round counter, its retries with `inputResponses` and
//! `requestState`, and its several-keys dialog can all be seen at work. Modern (2026-07-28)
//! answers `input_required` with the answers so far sealed into `requestState`; legacy
//! (2025-11-25) asks the same five questions as `elicitation/create` requests, one by one.
//!
//! `elicit-url-required` is 2025-11-25's other URL path: the call fails with `-32042`
//! (URLElicitationRequiredError) naming the URL and an `elicitationId`; the demo completes the
//! consent by itself a moment later (there is no real page to visit) and says so with
//! `notifications/elicitation/complete`; the next call goes through. 2026-07-28 has no `-32042`
//! (the code is reserved), so there it asks for the URL with `input_required` like `elicit-url`.

use std::{collections::BTreeSet, sync::Mutex, time::Duration};

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, CustomNotification, ElicitRequest,
        ElicitRequestParams, ElicitationSchema, ErrorCode, GetPromptRequestParams,
        GetPromptResponse, GetPromptResult, InputRequest, InputRequests, InputRequiredResult,
        InputResponses, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, ResourceContents, Role, SealOptions, ServerNotification,
    },
    service::RequestContext,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::{
    catalog, interaction,
    shared::{Shared, is_modern, lock, text_result},
};

/// How long a sealed `requestState` stays valid.
const STATE_TTL: Duration = Duration::from_secs(600);
/// How many rounds `onboard` takes.
const ROUNDS: u32 = 3;
/// The `-32042` code of 2025-11-25 (URLElicitationRequiredError).
const URL_ELICITATION_REQUIRED: i32 = -32042;
/// How long after a `-32042` the demo marks its consent as given.
const CONSENT_DELAY: Duration = Duration::from_millis(1500);

/// One question of `onboard`: its key in `inputRequests`, the round it belongs to, the message
/// and the one-field schema.
struct Question {
    key: &'static str,
    round: u32,
    message: &'static str,
    schema: fn() -> Value,
}

/// The five questions, in the order legacy asks them and grouped by round for modern.
const QUESTIONS: [Question; 5] = [
    Question {
        key: "name",
        round: 1,
        message: "Round 1 of 3: who is joining?",
        schema: || {
            one_field(
                "name",
                json!({"type": "string", "title": "Full name", "minLength": 2}),
            )
        },
    },
    Question {
        key: "team",
        round: 2,
        message: "Round 2 of 3: which team?",
        schema: || {
            one_field(
                "team",
                json!({"type": "string", "title": "Team", "enum": ["platform", "apps", "research"], "default": "platform"}),
            )
        },
    },
    Question {
        key: "email",
        round: 2,
        message: "Round 2 of 3: a work email?",
        schema: || {
            one_field(
                "email",
                json!({"type": "string", "title": "Email", "format": "email"}),
            )
        },
    },
    Question {
        key: "newsletter",
        round: 2,
        message: "Round 2 of 3: subscribe to the newsletter?",
        schema: || {
            one_field(
                "newsletter",
                json!({"type": "boolean", "title": "Newsletter", "default": false}),
            )
        },
    },
    Question {
        key: "confirm",
        round: 3,
        message: "Round 3 of 3: create the account?",
        schema: || {
            one_field(
                "confirm",
                json!({"type": "boolean", "title": "Create the account", "default": true}),
            )
        },
    },
];

/// A schema with one required property.
fn one_field(key: &str, property: Value) -> Value {
    json!({"type": "object", "properties": {key: property}, "required": [key]})
}

/// What `onboard` seals into `requestState`: the round it asked and the answers so far.
#[derive(Serialize, Deserialize)]
struct Progress {
    round: u32,
    answers: Map<String, Value>,
}

fn form(q: &Question) -> ElicitRequestParams {
    let schema: ElicitationSchema =
        serde_json::from_value((q.schema)()).expect("the onboard schemas are elicitation schemas");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: q.message.to_owned(),
        requested_schema: schema,
    }
}

/// Runs `onboard` in whichever era the request speaks.
pub(crate) async fn onboard(
    shared: &Shared,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    if is_modern(context) {
        onboard_modern(shared, request)
    } else {
        onboard_legacy(context).await
    }
}

/// Modern: fold the retry's answers into the sealed progress, then ask the next round (or the
/// same one again when an answer is missing), or finish.
fn onboard_modern(
    shared: &Shared,
    request: &CallToolRequestParams,
) -> Result<CallToolResponse, McpError> {
    let tool = request.name.as_ref();
    let mut progress = match &request.request_state {
        Some(sealed) => shared
            .codec
            .open_json_with::<Progress>(sealed, tool.as_bytes())
            .map_err(|e| McpError::invalid_params(format!("requestState rejected: {e}"), None))?,
        None => Progress {
            round: 0,
            answers: Map::new(),
        },
    };
    let responses = request.input_responses.clone().unwrap_or_default();
    let asked: Vec<&Question> = QUESTIONS
        .iter()
        .filter(|q| q.round == progress.round)
        .collect();
    for q in &asked {
        let Some(answer) = responses.get(q.key) else {
            continue;
        };
        if let Some(stop) = refused(q.key, answer) {
            return Ok(text_result(stop));
        }
        if let Some(v) = answer.get("content").and_then(|c| c.get(q.key)) {
            progress.answers.insert(q.key.to_owned(), v.clone());
        }
    }
    let complete = asked.iter().all(|q| progress.answers.contains_key(q.key));
    if complete && progress.round == ROUNDS {
        return Ok(text_result(summary(&progress.answers)));
    }
    // Every answer of this round is in (vacuously so before round 1): ask the next round.
    // Otherwise ask again what is missing, as the spec recommends.
    if complete {
        progress.round += 1;
    }
    ask_round(shared, tool, progress)
}

/// The `input_required` result asking every question of `progress.round`.
fn ask_round(
    shared: &Shared,
    tool: &str,
    progress: Progress,
) -> Result<CallToolResponse, McpError> {
    let mut requests = InputRequests::new();
    let missing = QUESTIONS
        .iter()
        .filter(|q| q.round == progress.round && !progress.answers.contains_key(q.key));
    for q in missing {
        requests.insert(
            q.key.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(form(q))),
        );
    }
    let sealed = shared
        .codec
        .seal_json_with(
            &progress,
            &SealOptions::new()
                .associated_data(tool.as_bytes())
                .ttl(STATE_TTL),
        )
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
}

/// Legacy: the five questions as `elicitation/create` requests, one after another.
async fn onboard_legacy(
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let mut answers = Map::new();
    for q in &QUESTIONS {
        let asked = context.peer.create_elicitation(form(q));
        let answer = tokio::select! {
            () = context.ct.cancelled() => return Err(McpError::internal_error("cancelled", None)),
            answer = asked => answer,
        };
        let answer = match answer.map(|a| serde_json::to_value(a).unwrap_or(Value::Null)) {
            Ok(v) => v,
            Err(e) => {
                return Ok(text_result(format!(
                    "onboarding stopped: the answer to {:?} was an error: {e}",
                    q.key
                )));
            }
        };
        if let Some(stop) = refused(q.key, &answer) {
            return Ok(text_result(stop));
        }
        if let Some(v) = answer.get("content").and_then(|c| c.get(q.key)) {
            answers.insert(q.key.to_owned(), v.clone());
        }
    }
    Ok(text_result(summary(&answers)))
}

/// The tool's text when the user declined or cancelled `key`.
fn refused(key: &str, answer: &Value) -> Option<String> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => None,
        other => Some(format!(
            "onboarding stopped: {key:?} was answered {}",
            other.unwrap_or("(no action)")
        )),
    }
}

fn summary(answers: &Map<String, Value>) -> String {
    let text = |k: &str| match answers.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "(none)".to_owned(),
    };
    format!(
        "onboarded {} to team {} ({}); newsletter: {}; confirmed: {}",
        text("name"),
        text("team"),
        text("email"),
        text("newsletter"),
        text("confirm")
    )
}

/// The consents `elicit-url-required` asked for (process-wide: the demo has one user).
struct Consents {
    next: u64,
    /// Asked, not yet given.
    pending: Option<String>,
    /// Given, not yet used by a call.
    given: BTreeSet<String>,
}

static CONSENTS: Mutex<Consents> = Mutex::new(Consents {
    next: 1,
    pending: None,
    given: BTreeSet::new(),
});

/// Runs `elicit-url-required`: `-32042` until the consent is given (legacy), or a URL round
/// (modern, where `-32042` does not exist).
pub(crate) async fn url_required(
    shared: &Shared,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    if is_modern(context) {
        return interaction::call(shared, request, context).await;
    }
    let (id, fresh) = {
        let mut c = lock(&CONSENTS);
        if let Some(id) = c.given.pop_first() {
            return Ok(text_result(format!(
                "consent given (elicitation {id} completed); the call went through"
            )));
        }
        match c.pending.clone() {
            Some(id) => (id, false),
            None => {
                let id = format!("demo-consent-required-{}", c.next);
                c.next += 1;
                c.pending = Some(id.clone());
                (id, true)
            }
        }
    };
    if fresh {
        complete_later(id.clone(), context.peer.clone());
    }
    let url = format!("{}?elicitation={id}", catalog::CONSENT_URL);
    let data = json!({"elicitations": [{
        "mode": "url",
        "elicitationId": id,
        "url": url,
        "message": "Open the demo consent page, then call the tool again.",
    }]});
    Err(McpError::new(
        ErrorCode(URL_ELICITATION_REQUIRED),
        "This request requires more information: open the consent URL, then retry",
        Some(data),
    ))
}

/// Marks consent `id` as given after [`CONSENT_DELAY`] and sends
/// `notifications/elicitation/complete` for it.
fn complete_later(id: String, peer: rmcp::Peer<RoleServer>) {
    tokio::spawn(async move {
        tokio::time::sleep(CONSENT_DELAY).await;
        {
            let mut c = lock(&CONSENTS);
            c.pending = None;
            c.given.insert(id.clone());
        }
        let done = CustomNotification::new(
            "notifications/elicitation/complete",
            Some(json!({"elicitationId": id})),
        );
        let _gone_is_fine = peer
            .send_notification(ServerNotification::CustomNotification(done))
            .await;
    });
}

/// What [`ask_once`] found: the user's answer (an `ElicitResult`), or the `input_required`
/// result that asks (modern, before the answer came back).
pub(crate) enum Asked {
    Answer(Value),
    Ask(InputRequiredResult),
}

/// One form question `key` asked for a prompt or a resource read, in either era: modern answers
/// `input_required` (the state sealed and bound to `bind`, so it cannot be replayed elsewhere)
/// until the retry carries the answer; legacy sends `elicitation/create` and waits.
pub(crate) async fn ask_once(
    shared: &Shared,
    bind: &str,
    key: &str,
    question: ElicitRequestParams,
    retry: (Option<&InputResponses>, Option<&String>),
    context: &RequestContext<RoleServer>,
) -> Result<Asked, McpError> {
    if !is_modern(context) {
        let answer = context
            .peer
            .create_elicitation(question)
            .await
            .map_err(|e| {
                McpError::internal_error(format!("the client's answer was an error: {e}"), None)
            })?;
        return Ok(Asked::Answer(
            serde_json::to_value(answer).unwrap_or(Value::Null),
        ));
    }
    let (responses, state) = retry;
    if let Some(sealed) = state {
        shared
            .codec
            .open_json_with::<Progress>(sealed, bind.as_bytes())
            .map_err(|e| McpError::invalid_params(format!("requestState rejected: {e}"), None))?;
        if let Some(answer) = responses.and_then(|r| r.get(key)) {
            return Ok(Asked::Answer(answer.clone()));
        }
    }
    let progress = Progress {
        round: 1,
        answers: Map::new(),
    };
    let sealed = shared
        .codec
        .seal_json_with(
            &progress,
            &SealOptions::new()
                .associated_data(bind.as_bytes())
                .ttl(STATE_TTL),
        )
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    let mut requests = InputRequests::new();
    requests.insert(
        key.to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(question)),
    );
    Ok(Asked::Ask(InputRequiredResult::new(
        Some(requests),
        Some(sealed),
    )))
}

/// A one-field form question.
fn question(message: &str, key: &str, property: Value) -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(one_field(key, property))
        .expect("the demo's questions are elicitation schemas");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.to_owned(),
        requested_schema: schema,
    }
}

/// The accepted content's `key`, or why there is none ("declined", "cancelled").
fn accepted(answer: &Value, key: &str) -> Result<Value, String> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(answer
            .get("content")
            .and_then(|c| c.get(key))
            .cloned()
            .unwrap_or(Value::Null)),
        other => Err(format!("answered {}", other.unwrap_or("(no action)"))),
    }
}

/// The prompt `ask-topic`: asks which topic (input_required / elicitation/create), then
/// returns a prompt about it.
pub(crate) async fn ask_topic(
    shared: &Shared,
    request: &GetPromptRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetPromptResponse, McpError> {
    let q = question(
        "Which topic should the prompt be about?",
        "topic",
        json!({"type": "string", "title": "Topic", "enum": ["rust", "mcp", "tea"], "default": "mcp"}),
    );
    let retry = (
        request.input_responses.as_ref(),
        request.request_state.as_ref(),
    );
    let answer = match ask_once(shared, "prompt:ask-topic", "topic", q, retry, context).await? {
        Asked::Ask(ask) => return Ok(ask.into()),
        Asked::Answer(a) => a,
    };
    let text = match accepted(&answer, "topic") {
        Ok(Value::String(topic)) => format!("Write three sentences about {topic}."),
        Ok(other) => format!("Write three sentences about {other}."),
        Err(why) => format!("No topic: the question was {why}."),
    };
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("A prompt on the topic the user chose")
            .into(),
    )
}

/// `demo://files/private/{path}`: asks to allow the read first.
pub(crate) async fn private_file(
    shared: &Shared,
    request: &ReadResourceRequestParams,
    path: &str,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, McpError> {
    let uri = request.uri.as_str();
    let q = question(
        &format!("Allow reading the private file {path}?"),
        "allow",
        json!({"type": "boolean", "title": "Allow the read", "default": false}),
    );
    let retry = (
        request.input_responses.as_ref(),
        request.request_state.as_ref(),
    );
    let answer = match ask_once(shared, uri, "allow", q, retry, context).await? {
        Asked::Ask(ask) => return Ok(ask.into()),
        Asked::Answer(a) => a,
    };
    match accepted(&answer, "allow") {
        Ok(Value::Bool(true)) => Ok(ReadResourceResult::new(vec![
            ResourceContents::text(format!("The private file {path}: the answer is 42.\n"), uri)
                .with_mime_type("text/plain"),
        ])
        .into()),
        Ok(_) => Err(McpError::invalid_params(
            format!("reading {uri} was not allowed"),
            None,
        )),
        Err(why) => Err(McpError::invalid_params(
            format!("reading {uri} needs permission; the question was {why}"),
            None,
        )),
    }
}
