//! What a `prompts/get` answered, as the tab keeps it: the description and the messages (role,
//! text; images, audio, resources and links described), in a pager. Bounded: text past
//! [`MAX_TEXT_BYTES`] is cut, at most [`MAX_MESSAGES`] messages are shown.

use crate::tabs::resources::read::error_text;
use crate::widgets::completion::{MAX_TEXT, clean, field_text};
use crate::widgets::pager::Pager;
use serde_json::Value;

/// Text kept of one answer.
pub(crate) const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Messages shown of one answer.
pub(crate) const MAX_MESSAGES: usize = 500;

/// A prompt's messages.
#[derive(Debug, Clone, Default)]
pub struct Messages {
    /// The prompt's name.
    pub name: String,
    /// The answer's description.
    pub description: String,
    /// How many messages came.
    pub count: usize,
    /// The messages as text.
    pub pager: Pager,
    /// The server's error instead.
    pub error: Option<String>,
}

impl Messages {
    /// The messages of `call` (`{historyId, result | error}`) for prompt `name`.
    pub fn of(name: &str, call: &Value) -> Messages {
        let mut m = Messages {
            name: clean(name, MAX_TEXT),
            ..Messages::default()
        };
        if let Some(e) = call.get("error") {
            m.error = Some(error_text(e));
            return m;
        }
        let r = call.get("result").unwrap_or(&Value::Null);
        m.description = field_text(r, "description");
        let list = r
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        m.count = list.len();
        let mut text = String::new();
        for msg in list.iter().take(MAX_MESSAGES) {
            if text.len() >= MAX_TEXT_BYTES {
                text.push_str("… the rest is not kept\n");
                break;
            }
            text.push_str(&format!("── {} ──\n", field_text(msg, "role")));
            match msg.get("content") {
                Some(Value::Array(blocks)) => {
                    for b in blocks.iter().take(MAX_MESSAGES) {
                        block(b, &mut text);
                    }
                }
                Some(b) => block(b, &mut text),
                None => text.push_str("(no content)\n"),
            }
            text.push('\n');
        }
        if list.len() > MAX_MESSAGES {
            text.push_str(&format!("… {} more messages\n", list.len() - MAX_MESSAGES));
        }
        if list.is_empty() {
            text.push_str("No messages.\n");
        }
        m.pager = Pager::new(format!("prompt {}", m.name), &text);
        m
    }
}

/// One content block, as lines appended to `out`.
fn block(b: &Value, out: &mut String) {
    let mime = field_text(b, "mimeType");
    let size = |k: &str| {
        b.get(k)
            .and_then(Value::as_str)
            .map_or(0, |s| s.len() / 4 * 3)
    };
    match super::super::text(b, "type") {
        "text" => push_text(out, super::super::text(b, "text")),
        "image" | "audio" => out.push_str(&format!(
            "[{} {mime}, {} bytes]\n",
            field_text(b, "type"),
            size("data")
        )),
        "resource" => {
            let r = b.get("resource").unwrap_or(&Value::Null);
            out.push_str(&format!(
                "[resource {} {}]\n",
                field_text(r, "uri"),
                field_text(r, "mimeType")
            ));
            match r.get("text").and_then(Value::as_str) {
                Some(t) => push_text(out, t),
                None => out.push_str(&format!(
                    "[blob, {} bytes]\n",
                    r.get("blob")
                        .and_then(Value::as_str)
                        .map_or(0, |s| s.len() / 4 * 3)
                )),
            }
        }
        "resource_link" => out.push_str(&format!(
            "[link {} {}]\n",
            field_text(b, "uri"),
            field_text(b, "name")
        )),
        other => out.push_str(&format!("[{} content]\n", clean(other, 64))),
    }
}

/// `t` appended to `out`, cut to the room left, made safe to draw with its lines kept (the one
/// rule for server text on a terminal, `mcpscope_proto::terminal`).
fn push_text(out: &mut String, t: &str) {
    let room = MAX_TEXT_BYTES.saturating_sub(out.len());
    let mut end = room.min(t.len());
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&mcpscope_proto::terminal::clean(&t[..end], usize::MAX));
    if end < t.len() {
        out.push('…');
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_show_roles_text_and_described_media() {
        let call = json!({"historyId": 1, "result": {"description": "d", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Hi\nthere\u{1b}]0;owned\u{7}"}},
            {"role": "assistant", "content": [
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "demo://readme", "mimeType": "text/markdown", "text": "# R"}},
            ]},
        ]}});
        let m = Messages::of("showcase", &call);
        assert_eq!(m.count, 2);
        assert_eq!(m.description, "d");
        let lines = &m.pager.lines;
        assert_eq!(lines[0], "── user ──");
        assert!(lines.contains(&"[image image/png, 3 bytes]".to_string()));
        assert!(lines.contains(&"[resource demo://readme text/markdown]".to_string()));
        assert!(lines.contains(&"# R".to_string()));
        // Server text by the terminal rule: the title change shown, not obeyed.
        assert!(lines.contains(&"there␛]0;owned␇".to_string()), "{lines:?}");
    }
}
