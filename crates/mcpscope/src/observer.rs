//! What the CLI does with traffic: write the `--trace` file, lint frames, and show progress,
//! logs and warnings on stderr (text mode) or collect them for the JSON document.
//!
//! The trace is what is left when a run goes wrong, often because it was killed (a CI job's
//! timeout: SIGTERM, then SIGKILL), so each frame is one line written and flushed at once: a kill
//! at any moment leaves every frame up to it. Credentials and secret values are redacted with the
//! rule the web backend uses ([`mcpscope_proto::redact`]) unless `--trace-secrets` asks for the
//! bytes as they were.

use crate::say;
use base64::Engine as _;
use mcpscope_client::{Observer, Recorded, SessionEvent};
use mcpscope_proto::lint::{LintContext, Linter, Revision};
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_proto::{Direction, Frame, FrameKind};
use serde::Serialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// One lint finding tied to its frame.
#[derive(Debug, Clone, Serialize)]
pub struct FrameFinding {
    /// Frame sequence number.
    pub seq: u64,
    /// Direction of the frame.
    pub direction: Direction,
    /// The method involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Schema revision and definition checked.
    pub definition: String,
    /// Revision.
    pub revision: Revision,
    /// JSON pointer.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The CLI observer.
pub struct CliObserver {
    trace: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
    /// What the trace and `--show-stderr` redact; `None` with `--trace-secrets` (byte-exact).
    trace_redact: Option<Secrets>,
    linter: Option<Linter>,
    /// Print progress, logs and warnings on stderr.
    pub print: bool,
    show_stderr: bool,
    /// Collected for the JSON document / exit status.
    pub findings: Mutex<Vec<FrameFinding>>,
    /// Warnings (collected always; printed in text mode).
    pub warnings: Mutex<Vec<String>>,
    /// Notifications other than progress (collected when `collect` is set).
    pub notifications: Mutex<Vec<Value>>,
    /// Collect notifications (listen/subscribe).
    pub collect: bool,
    trace_error: Mutex<Option<String>>,
    /// The one-shot has its answer and is closing the connection: a question the server asks
    /// now is not printed as one (it is not answered; the trace says so).
    closing: AtomicBool,
}

impl CliObserver {
    /// A new observer; `trace_redact` is what the trace keeps out (`None`: nothing, byte-exact).
    pub fn new(
        trace: Option<std::fs::File>,
        trace_redact: Option<Secrets>,
        lint: bool,
        print: bool,
        show_stderr: bool,
        collect: bool,
    ) -> CliObserver {
        CliObserver {
            // Buffered so a frame is one write, flushed after each frame.
            trace: trace.map(|f| Mutex::new(std::io::BufWriter::with_capacity(1 << 16, f))),
            trace_redact,
            linter: lint.then(Linter::new),
            print,
            show_stderr,
            findings: Mutex::new(vec![]),
            warnings: Mutex::new(vec![]),
            notifications: Mutex::new(vec![]),
            collect,
            trace_error: Mutex::new(None),
            closing: AtomicBool::new(false),
        }
    }

    /// The answer is in: from now on the server's questions are not announced ("server asks")
    /// on stderr — server-everything asks `roots/list` 350 ms after `initialized`, usually after
    /// a one-shot has closed its stdin, and the engine then stops it at once.
    pub fn closing(&self) {
        self.closing.store(true, Ordering::Relaxed);
    }

    /// Flush the trace file; returns a write error if one happened.
    pub fn finish(&self) -> Option<String> {
        if let Some(t) = &self.trace
            && let Err(e) = t.lock().expect("trace lock").flush()
        {
            return Some(format!("writing the trace failed: {e}"));
        }
        self.trace_error.lock().expect("trace error lock").clone()
    }
}

#[derive(Serialize)]
struct TraceLine<'a> {
    seq: u64,
    time: String,
    #[serde(rename = "timeUs")]
    time_us: u64,
    direction: Direction,
    kind: FrameKind,
    #[serde(skip_serializing_if = "is_default_meta")]
    meta: &'a mcpscope_proto::FrameMeta,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    base64: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lint: Option<Value>,
}

fn is_default_meta(m: &&mcpscope_proto::FrameMeta) -> bool {
    **m == mcpscope_proto::FrameMeta::default()
}

/// A copy of `f` as the trace shows it by default.
fn redacted(f: &Frame, secrets: &Secrets) -> Frame {
    let mut f = f.clone();
    redact::frame(f.kind, &mut f.meta, &mut f.body, secrets);
    f
}

impl CliObserver {
    /// Lint a classified frame against the schema of its revision (a frame that is not JSON is
    /// one finding); the findings are collected, and returned as the trace line's `lint`.
    fn lint_frame(&self, rec: &Recorded<'_>) -> Option<Value> {
        let (linter, classified) = (self.linter.as_ref()?, rec.classified?);
        let revision = rec
            .protocol_version
            .map(Revision::for_version)
            .unwrap_or(Revision::Legacy20251125);
        let report = match rec.message {
            Some(m) => linter.lint(
                revision,
                m,
                LintContext {
                    request_method: rec.method,
                },
            ),
            None => mcpscope_proto::lint::LintReport {
                revision,
                definition: "(not JSON)".into(),
                findings: vec![mcpscope_proto::lint::Finding {
                    path: String::new(),
                    message: match classified {
                        mcpscope_proto::Classified::Invalid(r) => r.clone(),
                        other => other.kind_name().to_string(),
                    },
                }],
            },
        };
        if report.findings.is_empty() {
            return None;
        }
        let f = rec.frame;
        let mut all = self.findings.lock().expect("findings lock");
        for finding in &report.findings {
            all.push(FrameFinding {
                seq: f.seq,
                direction: f.direction,
                method: rec.method.map(str::to_string),
                definition: report.definition.clone(),
                revision: report.revision,
                path: finding.path.clone(),
                message: finding.message.clone(),
            });
        }
        Some(
            json!({"definition": report.definition, "revision": report.revision, "findings": report.findings}),
        )
    }

    /// `--show-stderr`: the server's stderr line on ours, redacted like the trace.
    fn show_stderr_line(&self, f: &Frame) {
        // The same rule as the trace: a server that logs the token it was given must not put
        // it in a terminal or a CI log (`--trace-secrets` keeps both exact).
        let line = String::from_utf8_lossy(&f.body);
        let line = match self.trace_redact.as_ref().and_then(|s| s.text(&line)) {
            Some(redacted) => Cow::Owned(redacted),
            None => line,
        };
        say::line(&format!("server stderr: {line}"));
    }

    /// Write the frame (redacted unless `--trace-secrets`) as one trace line, flushed at once; a
    /// write error is kept for [`CliObserver::finish`].
    fn write_trace(
        &self,
        trace: &Mutex<std::io::BufWriter<std::fs::File>>,
        rec: &Recorded<'_>,
        mut lint_value: Option<Value>,
    ) {
        let f = match &self.trace_redact {
            Some(secrets) => {
                if let Some(l) = lint_value.as_mut() {
                    secrets.value(l);
                }
                Cow::Owned(redacted(rec.frame, secrets))
            }
            None => Cow::Borrowed(rec.frame),
        };
        let text = f.text();
        let line = TraceLine {
            seq: f.seq,
            time: mcpscope_proto::rfc3339(f.at_us),
            time_us: f.at_us,
            direction: f.direction,
            kind: f.kind,
            meta: &f.meta,
            message: rec.classified.map(|c| c.kind_name()),
            method: rec.method,
            text,
            base64: if text.is_none() {
                Some(base64::engine::general_purpose::STANDARD.encode(&f.body))
            } else {
                None
            },
            lint: lint_value,
        };
        let mut w = trace.lock().expect("trace lock");
        // Flushed per frame: the file must hold every frame up to a kill.
        let r = serde_json::to_writer(&mut *w, &line)
            .map_err(std::io::Error::from)
            .and_then(|_| w.write_all(b"\n"))
            .and_then(|_| w.flush());
        if let Err(e) = r {
            *self.trace_error.lock().expect("trace error lock") =
                Some(format!("writing the trace failed: {e}"));
        }
    }
}

impl Observer for CliObserver {
    fn on_frame(&self, rec: &Recorded<'_>) {
        let lint_value = self.lint_frame(rec);
        if self.show_stderr && rec.frame.kind == FrameKind::StderrLine {
            self.show_stderr_line(rec.frame);
        }
        if let Some(trace) = &self.trace {
            self.write_trace(trace, rec, lint_value);
        }
    }

    fn on_event(&self, event: SessionEvent) {
        match &event {
            SessionEvent::Progress {
                method,
                progress,
                total,
                message,
                ..
            } => {
                if self.print {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    let msg = message
                        .as_deref()
                        .map(|m| format!(" {m}"))
                        .unwrap_or_default();
                    say::line(&format!("progress {method}: {progress}{of}{msg}"));
                }
            }
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                if self.print {
                    let logger = logger
                        .as_deref()
                        .map(|l| format!(" {l}:"))
                        .unwrap_or_default();
                    let text = match data {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    say::line(&format!("[{level}]{logger} {text}"));
                }
                if self.collect {
                    self.notifications
                        .lock()
                        .expect("notifications lock")
                        .push(json!({
                            "method": "notifications/message",
                            "params": {"level": level, "logger": logger, "data": data}
                        }));
                }
            }
            SessionEvent::Notification { method, params } => {
                if self.collect {
                    let mut n = json!({"method": method});
                    if let Some(p) = params {
                        n["params"] = p.clone();
                    }
                    if self.print {
                        say::line(&format!("notification {n}"));
                    }
                    self.notifications
                        .lock()
                        .expect("notifications lock")
                        .push(n);
                }
            }
            SessionEvent::ServerRequest { method, origin } => {
                if self.print && !self.closing.load(Ordering::Relaxed) {
                    say::line(&format!("server asks: {method} ({origin})"));
                }
            }
            SessionEvent::Warning { message, frame_seq } => {
                let text = match frame_seq {
                    Some(s) => format!("{message} [frame {s}]"),
                    None => message.clone(),
                };
                if self.print {
                    say::line(&format!("warning: {text}"));
                }
                self.warnings.lock().expect("warnings lock").push(text);
            }
            // The CLI's output has one list for what the session said: a note is in it too.
            SessionEvent::Note { message } => {
                if self.print {
                    say::line(&format!("warning: {message}"));
                }
                self.warnings
                    .lock()
                    .expect("warnings lock")
                    .push(message.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_time() {
        assert_eq!(mcpscope_proto::rfc3339(0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            mcpscope_proto::rfc3339(1_764_460_800_123_456),
            "2025-11-30T00:00:00.123456Z"
        );
    }
}
