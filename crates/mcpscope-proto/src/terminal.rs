//! Server text made safe for a terminal: the one rule every view that writes to a terminal (the
//! TUI's screen, the CLI's stderr) applies to what a server controls.
//!
//! A server's error message, log line, progress message or stderr line may hold escape sequences
//! that set the clipboard (OSC 52), retitle the window or clear the screen. Here every control
//! character but the newline becomes its visible picture (`␛` for ESC), so the text is still
//! readable and nothing reaches the terminal as a command. Where bytes must stay exact — the
//! `--trace` file, a `--format json` document — this is not applied.
//!
//! ```
//! use mcpscope_proto::terminal::{clean, clean_line};
//! assert_eq!(clean("\u{1b}]52;c;aGk=\u{7}hi", 80), "␛]52;c;aGk=␇hi");
//! assert_eq!(clean_line("a\nb", 80), "a⏎b");
//! ```

/// `s` made safe to draw and bounded: at most `max` characters (a mark says when cut), every
/// control character but newline shown as its visible picture (`␛` for ESC) so a server cannot
/// move the cursor, clear the screen or retitle the terminal; tabs become spaces; C1 controls
/// and bidirectional overrides (which could make a URL read as another) become `�`.
pub fn clean(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4).saturating_add(4)));
    for (n, c) in s.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            '\r' => {}
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7f}' => out.push('␡'),
            c if is_hidden_control(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// [`clean`] on one line: newlines shown as `⏎`.
pub fn clean_line(s: &str, max: usize) -> String {
    clean(s, max).replace('\n', "⏎")
}

/// C1 controls and bidirectional overrides: invisible, yet a terminal may obey the first and
/// the second reorder what is read.
fn is_hidden_control(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
        | '\u{200e}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Serialized JSON made safe for a terminal without changing its value: DEL, C1 controls and
/// bidirectional overrides written as `\uXXXX` escapes (JSON serializers escape only the C0
/// controls). These characters can only occur inside strings, so the escape is always valid.
pub fn json_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c == '\u{7f}' || is_hidden_control(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        // OSC 52 (clipboard), a title change and a screen clear, as a hostile server sends them.
        let s = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}2J ok";
        let c = clean(s, 1000);
        assert!(!c.chars().any(|c| c.is_control()), "{c:?}");
        assert!(c.ends_with(" ok"), "{c:?}");
        assert_eq!(clean("abc", 2), "ab…");
    }

    #[test]
    fn escaped_json_keeps_its_value() {
        let v = serde_json::json!({"m": "a\u{9b}b\u{202e}c\u{7f}"});
        let s = json_escaped(&v.to_string());
        assert!(!s.chars().any(|c| c.is_control()), "{s}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }
}
