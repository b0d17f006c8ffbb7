//! The `modern` stdio fixture: a minimal 2026-07-28 server with no handshake, the per-request
//! `_meta` envelope checked on every request, and `input_required` rounds carried in
//! `requestState` (the server keeps no state between requests, as the modern era requires).

use super::{Lines, MODERN_PROTOCOL_VERSION, Sink};
use crate::jsonrpc::{
    self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION, call_echo, echo_tool,
};
use serde_json::{Map, Value, json};
use tokio::io::AsyncRead;

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// Serve until stdin closes; returns the exit status.
pub(super) async fn serve<R: AsyncRead + Unpin>(mut lines: Lines<R>, out: Sink) -> i32 {
    while let Some(bytes) = lines.next().await {
        let reply = match jsonrpc::classify(bytes) {
            _ if bytes.trim_ascii().is_empty() => continue,
            Incoming::Request { id, method, params } if method == "subscriptions/listen" => {
                let answer = answer(&id, &method, &params);
                let messages = if answer.get("error").is_some() {
                    vec![answer]
                } else {
                    listen_and_end(&id, &params)
                };
                for m in messages {
                    if out.send(&m).await.is_err() {
                        return 1;
                    }
                }
                continue;
            }
            Incoming::Request { id, method, params } => answer(&id, &method, &params),
            // Modern clients send no notifications we act on; responses cannot occur because
            // a modern server never sends requests.
            Incoming::Notification { .. } | Incoming::Other => continue,
            Incoming::Unparsable => jsonrpc::error(&Value::Null, PARSE_ERROR, "Parse error", None),
        };
        if out.send(&reply).await.is_err() {
            return 1;
        }
    }
    0
}

fn answer(id: &Value, method: &str, params: &Value) -> Value {
    match method {
        // ping was removed in 2026-07-28, but every fixture answers it so liveness checks work.
        "ping" => return jsonrpc::result(id, json!({})),
        // Checked before the envelope: a legacy client's initialize has no `_meta`, and what it
        // must learn is "wrong era", with the versions we do speak.
        "initialize" => {
            return jsonrpc::error(
                id,
                METHOD_NOT_FOUND,
                "Method not found: initialize (this server speaks only 2026-07-28; use server/discover)",
                Some(json!({"supported": [MODERN_PROTOCOL_VERSION]})),
            );
        }
        _ => {}
    }
    let meta = params.get("_meta");
    let Some(version) = meta.and_then(|m| m.get(PROTOCOL_VERSION_KEY)) else {
        return missing_meta(id, PROTOCOL_VERSION_KEY);
    };
    if version != MODERN_PROTOCOL_VERSION {
        return jsonrpc::error(
            id,
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            Some(json!({"supported": [MODERN_PROTOCOL_VERSION], "requested": version})),
        );
    }
    // The spec makes clientCapabilities as mandatory as the version ("`{}` = none").
    let Some(capabilities) = meta
        .and_then(|m| m.get(CLIENT_CAPABILITIES_KEY))
        .filter(|c| c.is_object())
    else {
        return missing_meta(id, CLIENT_CAPABILITIES_KEY);
    };
    match method {
        "server/discover" => complete(
            id,
            json!({
                "supportedVersions": [MODERN_PROTOCOL_VERSION],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "public"
            }),
        ),
        "tools/list" => complete(
            id,
            json!({
                "tools": [echo_tool(), ask_tool(false), ask_tool(true), empty_round_tool()],
                "ttlMs": 0,
                "cacheScope": "public"
            }),
        ),
        "tools/call" => tools_call(id, params, capabilities),
        // Envelope checked; `serve` writes the stream itself.
        "subscriptions/listen" => complete(id, json!({})),
        _ => jsonrpc::error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {method}"),
            None,
        ),
    }
}

/// A `subscriptions/listen` that lives for one change: the acknowledgement (of the tools list
/// only, as that is all this server has), one `tools/list_changed`, then the end the stdio way,
/// `notifications/cancelled` naming the listen request (cancellation.mdx).
fn listen_and_end(id: &Value, params: &Value) -> Vec<Value> {
    let tag = json!({"io.modelcontextprotocol/subscriptionId": id});
    let asked = params["notifications"]["toolsListChanged"] == json!(true);
    let mut out = vec![jsonrpc::notification(
        "notifications/subscriptions/acknowledged",
        json!({"_meta": tag, "notifications": if asked {
            json!({"toolsListChanged": true})
        } else {
            json!({})
        }}),
    )];
    if asked {
        out.push(jsonrpc::notification(
            "notifications/tools/list_changed",
            json!({"_meta": tag}),
        ));
    }
    out.push(jsonrpc::notification(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "this fixture ends every subscription after one change"}),
    ));
    out
}

fn tools_call(id: &Value, params: &Value, capabilities: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    match name {
        "echo" => complete(id, call_echo(params)),
        "ask" | "ask-forever" => {
            // A server must not send an input request the client cannot answer.
            if !can_elicit_form(capabilities) {
                return jsonrpc::error(
                    id,
                    MISSING_CLIENT_CAPABILITY,
                    "Missing required client capability: elicitation (form)",
                    Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}})),
                );
            }
            let round = params
                .get("requestState")
                .and_then(Value::as_str)
                .and_then(parse_state);
            if name == "ask"
                && let Some(round) = round
                && let Some(text) = ask_outcome(params, round)
            {
                return complete(id, jsonrpc::text_content(&text));
            }
            input_required(id, name == "ask-forever", round.unwrap_or(0) + 1)
        }
        "empty-round" => {
            let round = params
                .get("requestState")
                .and_then(Value::as_str)
                .and_then(parse_state);
            empty_round(id, round.unwrap_or(0) + 1)
        }
        _ => jsonrpc::error(id, INVALID_PARAMS, &format!("Unknown tool: {name}"), None),
    }
}

/// `empty-round`: `input_required` whose `inputRequests` is empty, every time — a round that
/// asks nothing, which a client can only retry (until its round limit).
fn empty_round(id: &Value, round: u64) -> Value {
    jsonrpc::result(
        id,
        json!({"resultType": "input_required", "inputRequests": {},
            "requestState": format!("state-{round}"), "_meta": server_meta()}),
    )
}

fn empty_round_tool() -> Value {
    json!({
        "name": "empty-round",
        "description": "Answers input_required with no inputRequests, every time; never completes.",
        "inputSchema": {"type": "object", "properties": {}}
    })
}

/// The final text of `ask` when the retry carries a usable answer to our `name` request.
fn ask_outcome(params: &Value, rounds: u64) -> Option<String> {
    let response = params.get("inputResponses")?.get("name")?;
    match response.get("action")?.as_str()? {
        "accept" => {
            let name = response.pointer("/content/name")?.as_str()?;
            Some(format!("Hello, {name}! (after {rounds} input round(s))"))
        }
        action @ ("decline" | "cancel") => Some(format!("ask ended: the user chose {action}")),
        _ => None,
    }
}

/// `state-N` → N; anything else was not issued by us.
fn parse_state(state: &str) -> Option<u64> {
    let n: u64 = state.strip_prefix("state-")?.parse().ok()?;
    (n > 0 && format!("state-{n}") == state).then_some(n)
}

fn input_required(id: &Value, forever: bool, round: u64) -> Value {
    let message = if forever {
        format!("Round {round}: what is your name? (this tool never completes)")
    } else {
        "What is your name?".to_owned()
    };
    let mut body = Map::new();
    body.insert("resultType".into(), json!("input_required"));
    body.insert(
        "inputRequests".into(),
        json!({
            "name": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": message,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "title": "Name"}},
                        "required": ["name"]
                    }
                }
            }
        }),
    );
    body.insert("requestState".into(), json!(format!("state-{round}")));
    body.insert("_meta".into(), server_meta());
    jsonrpc::result(id, Value::Object(body))
}

fn can_elicit_form(capabilities: &Value) -> bool {
    // `elicitation: {}` means form mode; an explicit mode list must name form.
    match capabilities.get("elicitation").and_then(Value::as_object) {
        Some(modes) => modes.is_empty() || modes.contains_key("form"),
        None => false,
    }
}

/// A `resultType: "complete"` result around `body`, with serverInfo in `_meta` as every modern
/// result should carry.
fn complete(id: &Value, body: Value) -> Value {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    if let Value::Object(fields) = body {
        result.extend(fields);
    }
    result.insert("_meta".into(), server_meta());
    jsonrpc::result(id, Value::Object(result))
}

fn server_meta() -> Value {
    json!({SERVER_INFO_KEY: {"name": "mcpscope-testkit-modern", "version": env!("CARGO_PKG_VERSION")}})
}

fn missing_meta(id: &Value, key: &str) -> Value {
    jsonrpc::error(
        id,
        INVALID_PARAMS,
        &format!("Missing required _meta key: {key}"),
        None,
    )
}

fn ask_tool(forever: bool) -> Value {
    let (name, description) = if forever {
        (
            "ask-forever",
            "Asks for your name again on every retry; never completes.",
        )
    } else {
        (
            "ask",
            "Asks for your name (input_required) and greets you once answered.",
        )
    };
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Value {
        json!({PROTOCOL_VERSION_KEY: MODERN_PROTOCOL_VERSION, CLIENT_CAPABILITIES_KEY: {"elicitation": {}}})
    }

    #[test]
    fn ask_completes_only_with_answer_and_state() {
        let first = answer(
            &json!(1),
            "tools/call",
            &json!({"name": "ask", "_meta": meta()}),
        );
        assert_eq!(first["result"]["resultType"], "input_required");
        assert_eq!(first["result"]["requestState"], "state-1");

        let no_state = json!({"name": "ask", "_meta": meta(),
            "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}});
        let again = answer(&json!(2), "tools/call", &no_state);
        assert_eq!(again["result"]["requestState"], "state-1");

        let mut retry = no_state.clone();
        retry["requestState"] = json!("state-1");
        let done = answer(&json!(3), "tools/call", &retry);
        assert_eq!(done["result"]["resultType"], "complete");
        assert_eq!(
            done["result"]["content"][0]["text"],
            "Hello, Ada! (after 1 input round(s))"
        );
    }

    #[test]
    fn states_are_spelled_exactly() {
        assert_eq!(parse_state("state-3"), Some(3));
        for bad in ["state-0", "state-03", "state-", "State-1", "state-1 "] {
            assert_eq!(parse_state(bad), None, "{bad}");
        }
    }
}
