//! What a Testing Profile answers to one `sampling/createMessage`: the `CreateMessageResult`
//! (identical in 2025-11-25 and 2026-07-28: `role`, `content`, `model` required, `stopReason`
//! open) or a rejection, computed from the request's params.
//!
//! Everything here is bounded by what the profile holds, not by what the server sent: echo reads
//! the request from its end and copies at most [`ECHO_CAP`] bytes of text however many messages
//! or blocks it has, and a tool-use answer copies only the tool's name.

use super::{Profile, Strategy};
use crate::interactions::Answer;
use serde_json::{Value, json};

/// At most this many bytes of the last user message are echoed (a hostile request may hold a
/// 5 MB text in each of 10,000 messages).
pub const ECHO_CAP: usize = 16 * 1024;

/// At most this many messages are searched from the end for the last user message.
pub const ECHO_SCAN: usize = 1_000;

/// At most this many tools of the request are searched or named in an error.
const TOOL_SCAN: usize = 1_000;

/// The stop reason a strategy gives when the profile leaves it out.
pub fn default_stop_reason(strategy: &Strategy) -> &'static str {
    match strategy {
        Strategy::ToolUse { .. } => "toolUse",
        _ => "endTurn",
    }
}

/// The profile's answer to a sampling request with `params`; `Err` says why the profile cannot
/// answer it (a tool-use answer to a request that offers no such tool). `id` numbers the
/// `tool_use` block (the interaction's id: unique per run).
pub(crate) fn answer(profile: &Profile, params: &Value, id: u64) -> Result<Answer, String> {
    let content = match &profile.strategy {
        Strategy::Reject => return Ok(Answer::Decline),
        Strategy::Fixed { text } | Strategy::Delay { text, .. } => text_block(text.clone()),
        Strategy::Echo => text_block(last_user_text(params)),
        Strategy::ToolUse { tool, input } => {
            let name = offered_tool(params, tool)?;
            json!([{
                "type": "tool_use",
                "id": format!("mcpscope-tool-use-{id}"),
                "name": name,
                "input": input,
            }])
        }
    };
    let stop = match &profile.stop_reason {
        Some(s) => s.trim(),
        None => default_stop_reason(&profile.strategy),
    };
    let mut result = json!({
        "role": "assistant",
        "content": content,
        "model": model(profile),
    });
    // An empty stop reason is left out (it is optional; "" is no reason).
    if !stop.is_empty() {
        result["stopReason"] = json!(stop);
    }
    Ok(Answer::Accept(result))
}

/// The model name sent: the profile's, or the default when blank (`model` is required).
fn model(profile: &Profile) -> &str {
    let m = profile.model.trim();
    if m.is_empty() {
        super::DEFAULT_MODEL
    } else {
        m
    }
}

fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// The text blocks of the last message whose role is `user`, joined by blank lines and cut at
/// [`ECHO_CAP`] bytes on a character boundary; a note when there is none.
pub fn last_user_text(params: &Value) -> String {
    let Some(messages) = params.get("messages").and_then(Value::as_array) else {
        return "(the request has no messages to echo)".to_string();
    };
    let last_user = messages
        .iter()
        .rev()
        .take(ECHO_SCAN)
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let Some(message) = last_user else {
        return "(the request has no user message to echo)".to_string();
    };
    let texts: Box<dyn Iterator<Item = &str>> = match message.get("content") {
        Some(Value::Array(blocks)) => Box::new(blocks.iter().filter_map(text_of)),
        Some(block) => Box::new(text_of(block).into_iter()),
        None => Box::new(std::iter::empty()),
    };
    let mut out = String::new();
    for t in texts {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        if push_capped(&mut out, t) {
            break;
        }
    }
    if out.is_empty() {
        "(the last user message holds no text)".to_string()
    } else {
        out
    }
}

/// A block's text when it is a text block.
fn text_of(block: &Value) -> Option<&str> {
    if block.get("type").and_then(Value::as_str) == Some("text") {
        block.get("text").and_then(Value::as_str)
    } else {
        None
    }
}

/// Append `t` to `out` up to [`ECHO_CAP`] bytes in all; true when it was cut (stop reading).
fn push_capped(out: &mut String, t: &str) -> bool {
    let room = ECHO_CAP.saturating_sub(out.len());
    if t.len() <= room {
        out.push_str(t);
        return false;
    }
    let mut end = room;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&t[..end]);
    out.push_str(&format!(" … (echo cut at {ECHO_CAP} bytes)"));
    true
}

/// The tool a tool-use answer names: `wanted` when the request offers it, the request's first
/// tool when `wanted` is blank. Refused when the request offers no tools, not that one, or
/// forbids tool use (`toolChoice.mode: "none"`).
fn offered_tool(params: &Value, wanted: &str) -> Result<String, String> {
    let mode = params
        .pointer("/toolChoice/mode")
        .and_then(Value::as_str)
        .unwrap_or("auto");
    if mode == "none" {
        return Err("the request's toolChoice is \"none\": it forbids a tool_use answer".into());
    }
    let names: Vec<&str> = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .take(TOOL_SCAN)
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let wanted = wanted.trim();
    match names.first() {
        None => Err("the request offers no tools (sampling with tools sends them in `tools`), so a tool_use answer cannot name one".into()),
        Some(first) if wanted.is_empty() => Ok((*first).to_string()),
        Some(_) if names.contains(&wanted) => Ok(wanted.to_string()),
        Some(_) => Err(format!(
            "the request offers no tool {wanted:?} (it offers {})",
            shown_names(&names)
        )),
    }
}

/// Up to five names, quoted, and how many more.
fn shown_names(names: &[&str]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| format!("{:?}", crate::profiles::clip(n, 100)))
        .collect();
    if names.len() > 5 {
        shown.push(format!("and {} more", names.len() - 5));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpscope_proto::lint::{Linter, Revision};

    fn profile(strategy: Strategy) -> Profile {
        Profile {
            name: "p".into(),
            strategy,
            model: "mock-1".into(),
            stop_reason: None,
        }
    }

    fn accepted(a: Answer) -> Value {
        match a {
            Answer::Accept(v) => v,
            other => panic!("not an accept: {other:?}"),
        }
    }

    /// Valid as a `CreateMessageResult` in both revisions' official schema.
    fn valid_in_both_eras(result: &Value) {
        let linter = Linter::new();
        for rev in [Revision::Legacy20251125, Revision::Modern20260728] {
            let findings = linter.check_definition(rev, "CreateMessageResult", result);
            assert!(findings.is_empty(), "{rev:?}: {findings:?} in {result}");
        }
    }

    fn asking(text: &str) -> Value {
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 10})
    }

    #[test]
    fn fixed_text_answers_with_the_profile_model_and_end_turn() {
        let p = profile(Strategy::Fixed {
            text: "mock answer".into(),
        });
        let r = accepted(answer(&p, &asking("hi"), 1).unwrap());
        assert_eq!(
            r,
            json!({"role": "assistant", "content": {"type": "text", "text": "mock answer"},
                   "model": "mock-1", "stopReason": "endTurn"})
        );
        valid_in_both_eras(&r);
    }

    #[test]
    fn echo_answers_with_the_last_user_message_text() {
        let p = profile(Strategy::Echo);
        let params = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "first"}},
            {"role": "user", "content": [
                {"type": "text", "text": "second"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "third"}]},
            {"role": "assistant", "content": {"type": "text", "text": "not me"}}
        ], "maxTokens": 5});
        let r = accepted(answer(&p, &params, 1).unwrap());
        assert_eq!(r["content"]["text"], "second\n\nthird");
        valid_in_both_eras(&r);
        let none =
            json!({"messages": [{"role": "assistant", "content": {"type": "text", "text": "x"}}]});
        assert_eq!(
            last_user_text(&none),
            "(the request has no user message to echo)"
        );
        assert_eq!(
            last_user_text(&json!({})),
            "(the request has no messages to echo)"
        );
    }

    #[test]
    fn echo_of_a_hostile_request_copies_a_bounded_number_of_bytes() {
        // 10,000 messages, the last user one a 5 MB multi-byte text in 40 blocks.
        let huge = "é".repeat(2_500_000);
        let mut messages: Vec<Value> = (0..10_000)
            .map(|i| json!({"role": "assistant", "content": {"type": "text", "text": format!("m{i}")}}))
            .collect();
        let blocks: Vec<Value> = (0..40)
            .map(|_| json!({"type": "text", "text": huge}))
            .collect();
        messages[9_000] = json!({"role": "user", "content": blocks});
        let echoed = last_user_text(&json!({"messages": messages}));
        assert!(echoed.len() <= ECHO_CAP + 64, "{} bytes", echoed.len());
        assert!(echoed.starts_with('é') && echoed.contains("echo cut at"));
        // The user message beyond the scan window is not searched for.
        let mut far: Vec<Value> = (0..ECHO_SCAN + 1)
            .map(|_| json!({"role": "assistant", "content": {"type": "text", "text": "a"}}))
            .collect();
        far.insert(
            0,
            json!({"role": "user", "content": {"type": "text", "text": "too far"}}),
        );
        assert!(last_user_text(&json!({"messages": far})).contains("no user message"));
    }

    #[test]
    fn reject_declines() {
        let p = profile(Strategy::Reject);
        assert_eq!(answer(&p, &asking("hi"), 1).unwrap(), Answer::Decline);
    }

    #[test]
    fn delay_answers_its_text() {
        let p = profile(Strategy::Delay {
            ms: 500,
            text: "late".into(),
        });
        let r = accepted(answer(&p, &asking("hi"), 1).unwrap());
        assert_eq!(r["content"]["text"], "late");
        valid_in_both_eras(&r);
    }

    #[test]
    fn tool_use_names_an_offered_tool_with_the_input_and_stops_for_tool_use() {
        let params = json!({"messages": [], "maxTokens": 10,
            "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}},
                      {"name": "get_time", "inputSchema": {"type": "object"}}]});
        let named = profile(Strategy::ToolUse {
            tool: "get_time".into(),
            input: json!({"zone": "UTC"}),
        });
        let r = accepted(answer(&named, &params, 7).unwrap());
        assert_eq!(
            r["content"],
            json!([{"type": "tool_use", "id": "mcpscope-tool-use-7", "name": "get_time", "input": {"zone": "UTC"}}])
        );
        assert_eq!(r["stopReason"], "toolUse");
        valid_in_both_eras(&r);
        let first = profile(Strategy::ToolUse {
            tool: String::new(),
            input: json!({}),
        });
        let r = accepted(answer(&first, &params, 8).unwrap());
        assert_eq!(r["content"][0]["name"], "get_weather");
    }

    #[test]
    fn tool_use_is_refused_with_the_reason_when_the_request_cannot_take_it() {
        let p = profile(Strategy::ToolUse {
            tool: "nope".into(),
            input: json!({}),
        });
        let no_tools = answer(&p, &asking("hi"), 1).unwrap_err();
        assert!(no_tools.contains("offers no tools"), "{no_tools}");
        let other = json!({"messages": [], "tools": [{"name": "a"}, {"name": "b"}]});
        let wrong = answer(&p, &other, 1).unwrap_err();
        assert!(
            wrong.contains("no tool \"nope\"") && wrong.contains("\"a\", \"b\""),
            "{wrong}"
        );
        let none =
            json!({"messages": [], "tools": [{"name": "nope"}], "toolChoice": {"mode": "none"}});
        assert!(answer(&p, &none, 1).unwrap_err().contains("forbids"));
    }

    #[test]
    fn model_and_stop_reason_come_from_the_profile() {
        let mut p = profile(Strategy::Fixed { text: "x".into() });
        p.model = "  ".into();
        p.stop_reason = Some("maxTokens".into());
        let r = accepted(answer(&p, &asking("hi"), 1).unwrap());
        assert_eq!(r["model"], super::super::DEFAULT_MODEL);
        assert_eq!(r["stopReason"], "maxTokens");
        p.stop_reason = Some(String::new());
        let r = accepted(answer(&p, &asking("hi"), 1).unwrap());
        assert!(r.get("stopReason").is_none(), "{r}");
        valid_in_both_eras(&r);
    }
}
