//! What the CLI prints: the result document on stdout (or `--output`), warnings and lint findings
//! on stderr, and the `--list-stored-auth` listing. Logs never go to stdout: it is the result.

use super::execute::Outcome;
use super::failure::{Failure, exit};
use crate::args::{Args, FormatArg};
use crate::observer::CliObserver;
use crate::say;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::terminal::json_escaped;
use serde_json::{Map, Value, json};
use std::io::Write;

pub(super) fn format_text(args: &Args) -> bool {
    args.format == FormatArg::Text
}

impl CliObserver {
    /// A warning: on stderr (text format, not quiet) and in the JSON document's `warnings`.
    pub(crate) fn on_warning(&self, text: String) {
        if self.print {
            say::line(&format!("warning: {text}"));
        }
        self.warnings.lock().expect("warnings lock").push(text);
    }
}

/// The lint findings on stderr, one line per finding.
pub(super) fn report_lint(findings: &[crate::observer::FrameFinding]) {
    if findings.is_empty() {
        eprintln!("lint: every frame is valid against the official schema");
        return;
    }
    eprintln!("lint: {} finding(s):", findings.len());
    for f in findings {
        let dir = match f.direction {
            mcpscope_proto::Direction::Out => "sent",
            _ => "received",
        };
        let m = f
            .method
            .as_deref()
            .map(|m| format!(" {m}"))
            .unwrap_or_default();
        say::line(&format!(
            "  frame {} ({dir}{m}, {}): {} {}",
            f.seq,
            f.definition,
            if f.path.is_empty() { "/" } else { &f.path },
            f.message
        ));
    }
}

/// `--list-stored-auth`: one JSON document, or a line per stored grant.
pub(super) async fn list_stored_auth(args: &Args) -> Result<i32, Failure> {
    let doc = crate::oauth::stored_auth()
        .await
        .map_err(|e| Failure::new(ErrorCode::SecretStore, e))?;
    let mut out = std::io::stdout().lock();
    let r = if args.format == FormatArg::Json {
        writeln!(out, "{doc}")
    } else {
        out.write_all(stored_auth_text(&doc).as_bytes())
    };
    r.map_err(|e| {
        Failure::new(
            ErrorCode::OutputFailed,
            format!("cannot write the list: {e}"),
        )
    })?;
    Ok(exit::OK)
}

/// The `--list-stored-auth` document as text: a line per grant.
fn stored_auth_text(doc: &Value) -> String {
    let grants = doc["storedAuth"].as_array().cloned().unwrap_or_default();
    let mut text = String::new();
    if grants.is_empty() {
        text.push_str(
            "no stored OAuth credentials recorded (grants stored by an mcpscope older than \
             --list-stored-auth appear after their next login or refresh)\n",
        );
    }
    for g in &grants {
        text.push_str(&format!(
            "{}  {}  (issuer {})  {}\n",
            g["profile"].as_str().unwrap_or_default(),
            g["server"].as_str().unwrap_or_default(),
            g["issuer"].as_str().unwrap_or_default(),
            tokens_text(&g["tokens"]),
        ));
    }
    text
}

/// What a grant holds: scope, expiry, whether there is a refresh token.
fn tokens_text(t: &Value) -> String {
    if t.is_null() {
        return "no tokens (client registration only)".to_string();
    }
    let expires = match t["expiresAt"].as_u64() {
        Some(at) => format!(
            "{} {}",
            if t["expired"] == json!(true) {
                "expired"
            } else {
                "expires"
            },
            mcpscope_proto::rfc3339(at * 1_000_000)
        ),
        None => "no expiry stated".into(),
    };
    format!(
        "scope {}; {expires}; {}",
        t["scope"].as_str().unwrap_or("not stated"),
        if t["refreshToken"] == json!(true) {
            "refresh token"
        } else {
            "no refresh token"
        }
    )
}

/// The result on stdout (or `--output`): the JSON document, or the pretty result in text.
pub(super) fn print_result(
    args: &Args,
    observer: &CliObserver,
    outcome: Outcome,
    findings: &[crate::observer::FrameFinding],
    output: Option<std::fs::File>,
) -> Result<(), Failure> {
    let mut out: Box<dyn Write> = match output {
        Some(f) => Box::new(std::io::BufWriter::with_capacity(1 << 16, f)),
        None => Box::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        )),
    };
    let r = match args.format {
        FormatArg::Json => {
            let mut doc = Map::new();
            doc.insert("result".into(), outcome.result);
            doc.extend(outcome.extra);
            let warnings = observer.warnings.lock().expect("warnings lock").clone();
            if !warnings.is_empty() {
                doc.insert("warnings".into(), json!(warnings));
            }
            if args.lint {
                doc.insert(
                    "lint".into(),
                    serde_json::to_value(findings).unwrap_or_default(),
                );
            }
            serde_json::to_writer(&mut out, &Value::Object(doc))
                .map_err(std::io::Error::from)
                .and_then(|_| out.write_all(b"\n"))
        }
        FormatArg::Text => {
            // Text is for a person, maybe at a terminal: the same value with C1 controls and
            // bidi overrides escaped (the serializer escapes only C0).
            let r = serde_json::to_string_pretty(&outcome.result)
                .map_err(std::io::Error::from)
                .and_then(|s| out.write_all(json_escaped(&s).as_bytes()))
                .and_then(|_| out.write_all(b"\n"));
            if !outcome.extra.is_empty() && !args.quiet {
                for (k, v) in &outcome.extra {
                    say::json_line(&format!("{k}: {v}"));
                }
            }
            r
        }
    };
    match r.and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(
            ErrorCode::OutputFailed,
            format!("cannot write the result: {e}"),
        )),
    }
}
