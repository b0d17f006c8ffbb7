//! The CLI's answers to server requests, chosen by flags: decline by default;
//! `--elicitation accept-defaults` fills the schema's defaults (SEP-1034), `--elicitation-json`
//! supplies content, `--sampling-text` answers sampling, `--root` offers roots.

use futures::future::BoxFuture;
use mcpscope_client::{Responder, ServerRequest, decline, full_capabilities};
use mcpscope_proto::RpcError;
use mcpscope_proto::era::Era;
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};

/// How the CLI answers.
#[derive(Debug, Clone, Default)]
pub struct CliResponder {
    /// Accept form elicitations with schema defaults (and URL elicitations).
    pub accept_defaults: bool,
    /// Accept form elicitations with this content (over the defaults).
    pub elicitation_content: Option<Map<String, Value>>,
    /// Answer sampling with this text.
    pub sampling_text: Option<String>,
    /// Roots to offer.
    pub roots: Vec<String>,
    /// Print what the server asked on stderr.
    pub verbose: bool,
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
    fn answer(&self, req: &ServerRequest) -> Result<Value, RpcError> {
        match Method::from_name(&req.method) {
            Some(Method::ElicitationCreate) => {
                let mode = req
                    .params
                    .get("mode")
                    .and_then(Value::as_str)
                    .unwrap_or("form");
                let message = req
                    .params
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let accepting = self.accept_defaults || self.elicitation_content.is_some();
                if mode == "url" {
                    let url = req.params.get("url").and_then(Value::as_str).unwrap_or("");
                    if self.verbose {
                        eprintln!(
                            "elicitation (url): {message}\n  the server asks you to open: {url}"
                        );
                    }
                    return Ok(json!({"action": if accepting { "accept" } else { "decline" }}));
                }
                if self.verbose {
                    eprintln!("elicitation (form): {message}");
                }
                if !accepting {
                    return Ok(json!({"action": "decline"}));
                }
                let mut content =
                    schema_defaults(req.params.get("requestedSchema").unwrap_or(&Value::Null));
                if let Some(c) = &self.elicitation_content {
                    content.extend(c.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Ok(json!({"action": "accept", "content": content}))
            }
            Some(Method::SamplingCreateMessage) => match &self.sampling_text {
                Some(text) => Ok(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": "mcpscope-cli",
                    "stopReason": "endTurn",
                })),
                None => decline(&req.method),
            },
            Some(Method::RootsList) => Ok(json!({
                "roots": self.roots.iter().map(|u| {
                    let name = u.trim_end_matches('/').rsplit('/').next().unwrap_or(u);
                    json!({"uri": u, "name": name})
                }).collect::<Vec<_>>()
            })),
            _ => decline(&req.method),
        }
    }
}

impl Responder for CliResponder {
    fn capabilities(&self, era: Era) -> Value {
        full_capabilities(era)
    }

    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>> {
        let answer = self.answer(&request);
        Box::pin(async move { answer })
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
}
