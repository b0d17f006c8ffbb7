//! The tools that need the client's help: `elicit-form`, `elicit-url`, `sample`, `list-roots`
//! (and `elicit-url-required` in 2026-07-28; its 2025-11-25 path is in `crate::rounds`).
//!
//! Legacy (2025-11-25) asks with a server→client JSON-RPC request and waits for the answer.
//! Modern (2026-07-28) may not send requests: it answers `input_required` with the same request
//! embedded in `inputRequests` plus a sealed `requestState`, and finishes when the client retries
//! with `inputResponses`. The state is sealed with rmcp's HMAC codec and bound to the tool name,
//! so a client can neither forge it nor replay it against another tool.

#![expect(
    deprecated,
    reason = "sampling and roots are deprecated by SEP-2577 (2026-07-28) but the demo must still serve them"
)]

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateMessageRequest,
        CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema,
        InputRequest, InputRequests, InputRequiredResult, ListRootsRequest, SamplingMessage,
        SealOptions,
    },
    service::RequestContext,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{
    catalog,
    shared::{Shared, is_modern, text_result, tool_error},
};

/// The key of the single entry each tool puts in `inputRequests`.
const INPUT_KEY: &str = "answer";
/// How long a sealed `requestState` stays valid.
const STATE_TTL: Duration = Duration::from_secs(600);

/// What a tool asks the client for.
enum Ask {
    Form,
    Url,
    Sampling(String),
    Roots,
}

/// The payload sealed into `requestState`; the tool name is also the associated data.
#[derive(Serialize, Deserialize)]
struct State {
    tool: String,
    round: u32,
}

/// Runs one of the interactive tools in whichever era the request speaks.
pub(crate) async fn call(
    shared: &Shared,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let tool = request.name.as_ref();
    let ask = match tool {
        "elicit-form" => Ask::Form,
        // `elicit-url-required` asks this way in 2026-07-28, which has no -32042 (crate::rounds).
        "elicit-url" | "elicit-url-required" => Ask::Url,
        "list-roots" => Ask::Roots,
        _ => {
            let prompt = request
                .arguments
                .as_ref()
                .and_then(|args| args.get("prompt"))
                .and_then(Value::as_str);
            let Some(prompt) = prompt else {
                return Ok(tool_error("sample needs a string argument \"prompt\""));
            };
            Ask::Sampling(prompt.to_owned())
        }
    };
    if is_modern(context) {
        modern(shared, tool, &ask, request, context)
    } else {
        legacy(&ask, context).await
    }
}

/// The capability the client must have declared for `ask`, as `-32021` reports it.
fn required_capability(ask: &Ask) -> Value {
    match ask {
        Ask::Form => json!({"elicitation": {"form": {}}}),
        Ask::Url => json!({"elicitation": {"url": {}}}),
        Ask::Sampling(_) => json!({"sampling": {}}),
        Ask::Roots => json!({"roots": {}}),
    }
}

fn has_capability(ask: &Ask, caps: Option<&ClientCapabilities>) -> bool {
    let Some(caps) = caps else { return false };
    match ask {
        // `elicitation: {}` means form mode only, for backwards compatibility.
        Ask::Form => caps
            .elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none()),
        Ask::Url => caps.elicitation.as_ref().is_some_and(|e| e.url.is_some()),
        Ask::Sampling(_) => caps.sampling.is_some(),
        Ask::Roots => caps.roots.is_some(),
    }
}

/// What the user is asked, per elicitation mode.
const FORM_MESSAGE: &str = "Please fill in the demo form (every field type elicitation supports).";
const URL_MESSAGE: &str = "Please open the demo consent page to continue.";

static ELICITATION_IDS: AtomicU64 = AtomicU64::new(1);

fn input_request(ask: &Ask, modern: bool) -> InputRequest {
    match ask {
        Ask::Form => InputRequest::Elicitation(ElicitRequest::new(form_params())),
        Ask::Url => InputRequest::Elicitation(ElicitRequest::new(url_params(modern))),
        Ask::Sampling(prompt) => {
            InputRequest::CreateMessage(CreateMessageRequest::new(sampling_params(prompt)))
        }
        Ask::Roots => InputRequest::ListRoots(ListRootsRequest::default()),
    }
}

fn form_params() -> ElicitRequestParams {
    let schema: ElicitationSchema = serde_json::from_value(catalog::elicitation_form_schema())
        .expect("the form schema is a valid elicitation schema");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: FORM_MESSAGE.to_owned(),
        requested_schema: schema,
    }
}

fn url_params(modern: bool) -> ElicitRequestParams {
    // 2025-11-25 requires an elicitationId; 2026-07-28 removed it. rmcp's type always has the
    // field and writes "" when it is empty, which is the closest it can get to "absent".
    let elicitation_id = if modern {
        String::new()
    } else {
        format!(
            "demo-consent-{}",
            ELICITATION_IDS.fetch_add(1, Ordering::Relaxed)
        )
    };
    ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: URL_MESSAGE.to_owned(),
        url: catalog::CONSENT_URL.to_owned(),
        elicitation_id,
    }
}

fn sampling_params(prompt: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 200)
}

/// The modern flow: ask with `input_required`, or finish when the retry carries the answer.
fn modern(
    shared: &Shared,
    tool: &str,
    ask: &Ask,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let mut round = 1;
    if let Some(sealed) = &request.request_state {
        let state: State = shared
            .codec
            .open_json_with(sealed, tool.as_bytes())
            .map_err(|error| {
                McpError::invalid_params(format!("requestState rejected: {error}"), None)
            })?;
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(INPUT_KEY));
        if let Some(answer) = answer {
            return Ok(describe(ask, answer));
        }
        // The retry came back without our answer: ask again, as the spec recommends.
        round = state.round + 1;
    }
    if !has_capability(ask, context.client_capabilities().as_ref()) {
        let required: ClientCapabilities =
            serde_json::from_value(required_capability(ask)).expect("capability literal is valid");
        return Err(McpError::missing_required_client_capability(required));
    }
    let sealed = shared
        .codec
        .seal_json_with(
            &State {
                tool: tool.to_owned(),
                round,
            },
            &SealOptions::new()
                .associated_data(tool.as_bytes())
                .ttl(STATE_TTL),
        )
        .map_err(|error| McpError::internal_error(error.to_string(), None))?;
    let mut requests = InputRequests::new();
    requests.insert(INPUT_KEY.to_owned(), input_request(ask, true));
    Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
}

/// The legacy flow: a server→client request on the same session, answered in place.
async fn legacy(
    ask: &Ask,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    if !has_capability(ask, context.client_capabilities().as_ref()) {
        // The spec forbids sending a request the client did not declare; say so to the caller.
        return Ok(tool_error(format!(
            "the client did not declare the capability this tool needs in initialize: {}",
            required_capability(ask)
        )));
    }
    let peer = &context.peer;
    let answer = async {
        let value = match ask {
            Ask::Form => serde_json::to_value(peer.create_elicitation(form_params()).await?),
            Ask::Url => serde_json::to_value(peer.create_elicitation(url_params(false)).await?),
            Ask::Sampling(prompt) => {
                serde_json::to_value(peer.create_message(sampling_params(prompt)).await?)
            }
            Ask::Roots => serde_json::to_value(peer.list_roots().await?),
        };
        Ok::<_, rmcp::ServiceError>(value.unwrap_or(Value::Null))
    };
    tokio::select! {
        () = context.ct.cancelled() => Err(McpError::internal_error("cancelled", None)),
        answer = answer => match answer {
            Ok(value) => Ok(describe(ask, &value)),
            Err(error) => Ok(tool_error(format!("the client's answer was an error: {error}"))),
        },
    }
}

/// Turns the client's answer (an `ElicitResult`, `CreateMessageResult` or `ListRootsResult`,
/// identical in both eras) into the tool's text.
fn describe(ask: &Ask, answer: &Value) -> CallToolResponse {
    match ask {
        Ask::Form | Ask::Url => {
            let action = answer
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("(missing)");
            let content = answer
                .get("content")
                .map_or_else(|| "(none)".to_owned(), Value::to_string);
            let what = if matches!(ask, Ask::Url) {
                format!(" (consent to open {})", catalog::CONSENT_URL)
            } else {
                String::new()
            };
            text_result(format!("action: {action}{what}\ncontent: {content}"))
        }
        Ask::Sampling(_) => {
            let content = answer.get("content");
            let blocks: Vec<&Value> = match content {
                Some(Value::Array(items)) => items.iter().collect(),
                Some(block) => vec![block],
                None => Vec::new(),
            };
            let text: Vec<&str> = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if text.is_empty() {
                tool_error(format!("the model's answer had no text: {answer}"))
            } else {
                text_result(text.join("\n"))
            }
        }
        Ask::Roots => {
            let roots = answer
                .get("roots")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let lines: Vec<String> = roots
                .iter()
                .map(|root| {
                    let uri = root.get("uri").and_then(Value::as_str).unwrap_or("?");
                    match root.get("name").and_then(Value::as_str) {
                        Some(name) => format!("{uri} ({name})"),
                        None => uri.to_owned(),
                    }
                })
                .collect();
            text_result(format!("{} roots\n{}", lines.len(), lines.join("\n")))
        }
    }
}
