//! What a `resources/read` answered, as the tab keeps it: each content's head (URI, MIME type,
//! text or blob and its size), the text in a pager, and the bytes of the first content for `w`
//! (save to a file). Bounded: text past [`MAX_TEXT_BYTES`] and blobs past [`MAX_BLOB_BYTES`] are
//! described, not kept.

use crate::widgets::completion::{MAX_TEXT, clean, field_text};
use crate::widgets::pager::Pager;
use base64::Engine;
use serde_json::Value;

/// Text kept of one read (all its contents).
pub const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Bytes of a blob kept to save.
pub const MAX_BLOB_BYTES: usize = 8 * 1024 * 1024;
/// Contents described of one read.
const MAX_CONTENTS: usize = 200;

/// A read's answer.
#[derive(Debug, Clone, Default)]
pub struct ReadView {
    /// The URI read.
    pub uri: String,
    /// One line per content (`text/markdown · 1,234 chars`).
    pub heads: Vec<String>,
    /// The contents' text (blobs described).
    pub pager: Pager,
    /// The first content, to save: a file name for it and its bytes (`None`: too large).
    pub save: Option<(String, Option<Vec<u8>>)>,
    /// The server's error instead of contents.
    pub error: Option<String>,
    /// The history entry of the read.
    pub history_id: Option<i64>,
}

/// A file name for `uri`: its last path segment, made of safe characters.
pub fn file_name(uri: &str) -> String {
    let last = uri
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("");
    let safe: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c))
        .take(64)
        .collect();
    match safe.trim_start_matches('.') {
        "" => "resource.bin".into(),
        s => s.to_string(),
    }
}

impl ReadView {
    /// The view of `call` (the call's value: `{historyId, result | error}`) for `uri`.
    pub fn of(uri: &str, call: &Value) -> ReadView {
        let mut v = ReadView {
            uri: clean(uri, MAX_TEXT),
            history_id: call.get("historyId").and_then(Value::as_i64),
            ..ReadView::default()
        };
        if let Some(e) = call.get("error") {
            v.error = Some(error_text(e));
            return v;
        }
        let contents = call
            .pointer("/result/contents")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut text = String::new();
        let many = contents.len() > 1;
        for (i, c) in contents.iter().take(MAX_CONTENTS).enumerate() {
            v.content(i, many, c, &mut text);
        }
        if contents.len() > MAX_CONTENTS {
            v.heads
                .push(format!("… {} more contents", contents.len() - MAX_CONTENTS));
        }
        if contents.is_empty() {
            v.heads.push("No contents.".into());
        }
        v.pager = Pager::new(v.uri.clone(), &text);
        v
    }

    fn content(&mut self, i: usize, many: bool, c: &Value, text: &mut String) {
        let uri = field_text(c, "uri");
        let mime = match field_text(c, "mimeType") {
            m if m.is_empty() => "no MIME type".to_string(),
            m => m,
        };
        let name = file_name(if uri.is_empty() { &self.uri } else { &uri });
        if let Some(t) = c.get("text").and_then(Value::as_str) {
            let room = MAX_TEXT_BYTES.saturating_sub(text.len());
            let kept = cut_bytes(t, room);
            let cut = if kept.len() < t.len() {
                format!(" (only the first {} bytes kept)", kept.len())
            } else {
                String::new()
            };
            let chars = t.chars().count();
            self.heads
                .push(format!("{mime} · text, {chars} chars{cut} · {uri}"));
            if many {
                text.push_str(&format!("── {mime} · {uri}\n"));
            }
            text.push_str(&clean_lines(kept));
            if kept.len() < t.len() {
                text.push_str(&format!(
                    "\n… {} more bytes not kept\n",
                    t.len() - kept.len()
                ));
            }
            text.push('\n');
            if i == 0 {
                let bytes = (t.len() <= MAX_BLOB_BYTES).then(|| t.as_bytes().to_vec());
                self.save = Some((name, bytes));
            }
        } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
            let size = b.len() / 4 * 3;
            let bytes = (b.len() <= MAX_BLOB_BYTES * 4 / 3 + 4)
                .then(|| base64::engine::general_purpose::STANDARD.decode(b).ok())
                .flatten();
            let n = bytes.as_ref().map_or(size, Vec::len);
            let what = format!("{mime} · blob, {n} bytes · {uri}");
            if many {
                text.push_str(&format!("── {what}\n"));
            }
            text.push_str(&format!("[binary: {n} bytes; w saves it to a file]\n\n"));
            self.heads.push(what);
            if i == 0 {
                self.save = Some((name, bytes));
            }
        } else {
            self.heads
                .push(format!("{mime} · neither text nor blob · {uri}"));
        }
    }
}

/// An error object (`{code, message, rpcCode?}`) in a line.
pub fn error_text(e: &Value) -> String {
    let msg = field_text(e, "message");
    let code = e
        .get("rpcCode")
        .or_else(|| e.get("code"))
        .map(|c| match c {
            Value::String(s) => clean(s, 64),
            other => other.to_string(),
        })
        .unwrap_or_default();
    if code.is_empty() {
        msg
    } else {
        format!("{msg} ({code})")
    }
}

/// `s` cut to at most `n` bytes on a character boundary.
fn cut_bytes(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A resource's text made safe to draw, lines kept: the one rule for server text on a
/// terminal (`mcpscope_proto::terminal`; the text is already bounded by [`MAX_TEXT_BYTES`]).
fn clean_lines(s: &str) -> String {
    mcpscope_proto::terminal::clean(s, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_blobs_are_described_and_kept_to_save() {
        let call = json!({"historyId": 4, "result": {"contents": [
            {"uri": "demo://logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="},
            {"uri": "demo://readme", "mimeType": "text/markdown", "text": "# Hi\x1b[31m\nthere \u{202e}gnp.exe"},
        ]}});
        let v = ReadView::of("demo://logo.png", &call);
        assert_eq!(v.heads[0], "image/png · blob, 8 bytes · demo://logo.png");
        let (name, bytes) = v.save.clone().unwrap();
        assert_eq!(name, "logo.png");
        assert_eq!(bytes.unwrap().len(), 8);
        // Server text by the terminal rule: escapes shown as pictures, a bidi override as `�`.
        assert!(
            v.pager.lines.iter().any(|l| l == "# Hi␛[31m"),
            "{:?}",
            v.pager.lines
        );
        assert!(v.pager.lines.iter().any(|l| l == "there \u{fffd}gnp.exe"));
        assert_eq!(v.history_id, Some(4));
        let e = ReadView::of(
            "x",
            &json!({"error": {"code": "rpc", "rpcCode": -32002, "message": "nope"}}),
        );
        assert_eq!(e.error.as_deref(), Some("nope (-32002)"));
        assert_eq!(file_name("demo://greeting/Ada"), "Ada");
        assert_eq!(file_name("demo://"), "resource.bin");
    }
}
