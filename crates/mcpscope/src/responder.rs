//! The CLI's answers to server requests, chosen by flags: decline by default;
//! `--elicitation accept-defaults` fills the schema's defaults (SEP-1034), `--elicitation-json`
//! supplies content, `--sampling-text` answers sampling, `--root` (else the `--config` entry's
//! `roots`) offers roots. The flags are a
//! [`Policy`] of the core's interaction queue (`mcpscope_inspect::interactions`), so each question
//! is an interaction like the web UI's and the wire answer comes from the one `wire_answer`.

use crate::observer::CliObserver;
use futures::future::BoxFuture;
use mcpscope_client::{Responder, ServerRequest, full_capabilities, without_apps};
use mcpscope_inspect::interactions::{
    Answer, DEFAULT_INTERACTION_TIMEOUT, Decision, Interaction, InteractionQueue, NoSink, Policy,
    QueueResponder, WaitForView,
};
use mcpscope_inspect::roots::Root;
use mcpscope_proto::RpcError;
use mcpscope_proto::era::Era;
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};

/// How the CLI answers.
#[derive(Clone, Default)]
pub struct CliResponder {
    /// Accept form elicitations with schema defaults (and URL elicitations).
    pub accept_defaults: bool,
    /// Accept form elicitations with this content (over the defaults).
    pub elicitation_content: Option<Map<String, Value>>,
    /// Answer sampling with this text.
    pub sampling_text: Option<String>,
    /// Roots to offer.
    pub roots: Vec<Root>,
    /// Print what the server asked on stderr.
    pub verbose: bool,
    /// Where a declined form's reason goes: the CLI's warnings (stderr, the JSON document).
    pub observer: Option<Arc<CliObserver>>,
    /// Declare MCP Apps (`--advertise-apps`, implied by `--app-info`). Off by default, as in the
    /// official Inspector's CLI: a terminal cannot render an app, so servers should fall back.
    pub advertise_apps: bool,
}

impl std::fmt::Debug for CliResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliResponder")
            .field("accept_defaults", &self.accept_defaults)
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

/// The root a `--root URI` flag offers: named after the URI's last path segment.
pub fn root_of_flag(uri: &str) -> Root {
    let name = uri.trim_end_matches('/').rsplit('/').next().unwrap_or(uri);
    Root {
        uri: uri.to_string(),
        name: Some(name.to_string()),
    }
}

/// Why `content` does not answer the form `schema` (`None`: it does): the required fields the
/// flags left without a value, named, else the first error of the schema validator the TUI's
/// form checks with (`mcpscope_proto::form`).
fn unfilled(schema: &Value, content: &Map<String, Value>) -> Option<String> {
    let missing: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|k| !content.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
        return Some(format!(
            "the form requires {} with no default; give a value with --elicitation-json '{{\"{}\": …}}'",
            names.join(", "),
            missing[0]
        ));
    }
    let errors = mcpscope_proto::form::validate(schema, &Value::Object(content.clone())).ok()?;
    let e = errors.first()?;
    let at = if e.path.is_empty() { "/" } else { &e.path };
    Some(format!(
        "the answer is not valid for the form ({at}: {}); correct it with --elicitation-json",
        e.message
    ))
}

/// The schema's defaults for each property of a flat elicitation `requestedSchema`.
pub fn schema_defaults(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            if let Some(d) = p.get("default") {
                out.insert(k.clone(), d.clone());
            }
        }
    }
    out
}

impl CliResponder {
    /// What the flags answer to `method` with `params`.
    fn decision(&self, method: &str, params: &Value) -> Answer {
        match Method::from_name(method) {
            Some(Method::ElicitationCreate) => self.elicitation(params),
            Some(Method::SamplingCreateMessage) => match &self.sampling_text {
                Some(text) => Answer::Accept(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": "mcpscope-cli",
                    "stopReason": "endTurn",
                })),
                None => Answer::Decline,
            },
            Some(Method::RootsList) => {
                Answer::Accept(serde_json::to_value(&self.roots).unwrap_or_else(|_| json!([])))
            }
            _ => Answer::Decline,
        }
    }

    fn elicitation(&self, params: &Value) -> Answer {
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        let message = params.get("message").and_then(Value::as_str).unwrap_or("");
        let accepting = self.accept_defaults || self.elicitation_content.is_some();
        if mode == "url" {
            let url = params.get("url").and_then(Value::as_str).unwrap_or("");
            if self.verbose {
                crate::say::line(&format!(
                    "elicitation (url): {message}\n  the server asks you to open: {url}"
                ));
            }
            return if accepting {
                Answer::Accept(Value::Null)
            } else {
                Answer::Decline
            };
        }
        if self.verbose {
            crate::say::line(&format!("elicitation (form): {message}"));
        }
        if !accepting {
            return Answer::Decline;
        }
        let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
        let mut content = schema_defaults(schema);
        if let Some(c) = &self.elicitation_content {
            content.extend(c.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        // Never an answer the server must refuse: a form the flags cannot fill is declined.
        if let Some(why) = unfilled(schema, &content) {
            let text = format!("elicitation declined: {why}");
            match &self.observer {
                Some(o) => o.on_warning(text),
                None if self.verbose => crate::say::line(&format!("warning: {text}")),
                None => {}
            }
            return Answer::Decline;
        }
        Answer::Accept(Value::Object(content))
    }

    /// The wire answer the flags give `req` (what the server receives).
    #[cfg(test)]
    fn answer(&self, req: &ServerRequest) -> Result<Value, RpcError> {
        mcpscope_inspect::interactions::wire_answer(
            &req.method,
            &req.params,
            &self.decision(&req.method, &req.params),
        )
    }
}

/// The flags are the CLI's policy over the interaction queue: they answer every question at
/// once, so nothing waits for a view (the CLI has none).
impl Policy for CliResponder {
    fn decide(&self, interaction: &Interaction) -> Decision {
        Decision::now(self.decision(&interaction.method, &interaction.payload))
    }
}

/// The process's interaction queue (one CLI run, one connection at a time).
fn queue() -> &'static Arc<InteractionQueue> {
    static QUEUE: OnceLock<Arc<InteractionQueue>> = OnceLock::new();
    QUEUE.get_or_init(|| Arc::new(InteractionQueue::new()))
}

impl Responder for CliResponder {
    fn capabilities(&self, era: Era) -> Value {
        if self.advertise_apps {
            full_capabilities(era)
        } else {
            without_apps(full_capabilities(era))
        }
    }

    /// Through the same queue as the web UI's: the interaction opens, the flags close it.
    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>> {
        let through = QueueResponder {
            queue: queue().clone(),
            server: "cli".into(),
            connection: 0,
            policy: Arc::new(WaitForView),
            timeout: DEFAULT_INTERACTION_TIMEOUT,
            sink: Arc::new(NoSink),
        };
        // The shared refusal names no view's vocabulary; the CLI's says which flag answers it
        // (the server gets it, and a modern round's refusal quotes it on stderr).
        let hint = request.method == "sampling/createMessage" && self.sampling_text.is_none();
        let answer = through.ask(self, request);
        Box::pin(async move {
            answer.await.map_err(|mut e| {
                if hint {
                    e.message
                        .push_str(" (mcpscope declines sampling unless --sampling-text is given)");
                }
                e
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpscope_client::RequestOrigin;

    fn elicit(params: Value) -> ServerRequest {
        ServerRequest {
            method: "elicitation/create".into(),
            params,
            origin: RequestOrigin::Legacy {
                id: mcpscope_proto::RequestId::Number(1),
            },
        }
    }

    #[test]
    fn accept_defaults_fills_every_default() {
        let r = CliResponder {
            accept_defaults: true,
            ..Default::default()
        };
        let out = r
            .answer(&elicit(
                json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "ok": {"type": "boolean", "default": true},
                    "none": {"type": "string"}
                }}}),
            ))
            .unwrap();
        assert_eq!(
            out,
            json!({"action": "accept", "content": {"name": "John Doe", "age": 30, "ok": true}})
        );
    }

    #[test]
    fn a_required_field_without_a_default_declines_instead_of_an_invalid_accept() {
        let form = json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "default": 30}
            },
            "required": ["name"]}});
        let defaults = CliResponder {
            accept_defaults: true,
            ..Default::default()
        };
        assert_eq!(
            defaults.answer(&elicit(form.clone())).unwrap(),
            json!({"action": "decline"})
        );
        assert_eq!(
            unfilled(&form["requestedSchema"], &Map::new()).unwrap(),
            "the form requires `name` with no default; give a value with --elicitation-json '{\"name\": …}'"
        );
        // --elicitation-json fills it; a wrong type is declined too, with the validator's reason.
        let given = |name: Value| CliResponder {
            accept_defaults: true,
            elicitation_content: Some(Map::from_iter([("name".into(), name)])),
            ..Default::default()
        };
        assert_eq!(
            given(json!("Ada")).answer(&elicit(form.clone())).unwrap(),
            json!({"action": "accept", "content": {"name": "Ada", "age": 30}})
        );
        assert_eq!(
            given(json!(7)).answer(&elicit(form)).unwrap(),
            json!({"action": "decline"})
        );
    }

    #[test]
    fn declines_by_default() {
        let r = CliResponder::default();
        assert_eq!(
            r.answer(&elicit(json!({"message": "m"}))).unwrap(),
            json!({"action": "decline"})
        );
        let s = ServerRequest {
            method: "sampling/createMessage".into(),
            params: json!({}),
            origin: RequestOrigin::Legacy {
                id: mcpscope_proto::RequestId::Number(1),
            },
        };
        assert!(r.answer(&s).is_err());
    }

    #[tokio::test]
    async fn the_flags_answer_through_the_interaction_queue() {
        let r = CliResponder {
            elicitation_content: Some(Map::from_iter([("name".into(), json!("Ada"))])),
            ..Default::default()
        };
        let out = r.respond(elicit(json!({"message": "m"}))).await.unwrap();
        assert_eq!(out, json!({"action": "accept", "content": {"name": "Ada"}}));
        let roots = ServerRequest {
            method: "roots/list".into(),
            params: json!({}),
            origin: RequestOrigin::Legacy {
                id: mcpscope_proto::RequestId::Number(2),
            },
        };
        assert_eq!(r.respond(roots).await.unwrap(), json!({"roots": []}));
        assert!(
            queue().pending().is_empty(),
            "the flags close every interaction"
        );
    }
}
