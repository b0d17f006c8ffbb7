//! What the CLI writes on stderr for a person: every line through here, so text a server
//! controls (an error message, a log line, a progress message, its stderr) has its escape
//! sequences shown, never obeyed (`mcpscope_proto::terminal`, the rule the TUI draws with).
//! The `--trace` file and the `--format json` document on stdout keep the bytes exact.

use mcpscope_proto::terminal::{clean, json_escaped};

/// One message on stderr, cleaned (newlines kept: a stack trace stays readable).
pub fn line(text: &str) {
    eprintln!("{}", clean(text, usize::MAX));
}

/// One serialized JSON value on stderr (the `{"error": …}` line): C0 controls are already
/// escaped by the serializer, the rest here, so its value is unchanged.
pub fn json_line(json: &str) {
    eprintln!("{}", json_escaped(json));
}
