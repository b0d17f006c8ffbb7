//! A tool call on its way: its request id (what `x` cancels), when it started, the last
//! `progress` event (a gauge when it has a total, the step text, the elapsed time), and how its
//! answer becomes an outcome (with `structuredContent` checked against the `outputSchema` the
//! tool declared when it was called). Also the open tool's header line.

use super::result::{Check, Outcome, ResultView, duration};
use super::{cut, name, text_of};
use crate::msg::Failure;
use crate::widgets::form::Form;
use crate::widgets::style::Theme;
use mcpscope_proto::form::validate;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{LineGauge, Paragraph};
use serde_json::Value;

/// Validation errors of `structuredContent` kept.
const MAX_CHECK_ERRORS: usize = 50;

/// The last progress a server reported.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// A call in flight.
#[derive(Debug, Clone)]
pub(crate) struct Running {
    pub request_id: String,
    pub tool: String,
    /// The tool's `outputSchema`, as it was when called.
    output_schema: Option<Value>,
    pub started_us: u64,
    pub progress: Option<Progress>,
    /// `x` was pressed; the answer is awaited.
    pub cancelling: bool,
}

impl Running {
    /// A call of `tool` as `request_id`, started at `now_us`.
    pub(crate) fn new(tool: &Value, request_id: &str, now_us: u64) -> Running {
        Running {
            request_id: request_id.to_string(),
            tool: name(tool).to_string(),
            output_schema: tool.get("outputSchema").cloned(),
            started_us: now_us,
            progress: None,
            cancelling: false,
        }
    }

    /// A `progress` event for this call.
    pub(crate) fn progress(&mut self, data: &Value) {
        let Some(progress) = data.get("progress").and_then(Value::as_f64) else {
            return;
        };
        self.progress = Some(Progress {
            progress,
            total: data.get("total").and_then(Value::as_f64),
            message: text_of(data, "message").map(|m| cut(m, 300)),
        });
    }

    /// The outcome of its answer (`{historyId, result | error}` or why there is none).
    pub(crate) fn finish(self, answer: Result<Value, Failure>, now_us: u64) -> ResultView {
        let took = now_us.saturating_sub(self.started_us);
        let outcome = match answer {
            Ok(v) => match (v.get("result"), v.get("error")) {
                (Some(r), _) => Outcome::Result {
                    check: self.check(r),
                    result: r.clone(),
                    history_id: v.get("historyId").and_then(Value::as_i64),
                },
                (None, Some(e)) if text_of(e, "code") == Some("cancelled") => Outcome::Cancelled,
                (None, Some(e)) => Outcome::Error { error: e.clone() },
                (None, None) => Outcome::Error {
                    error: serde_json::json!({"code": "internal", "message": "an empty answer"}),
                },
            },
            Err(f) if f.code == "cancelled" => Outcome::Cancelled,
            Err(f) => Outcome::Error { error: f.body },
        };
        ResultView::new(outcome, &self.tool, took)
    }

    /// `structuredContent` against the declared `outputSchema` (none declared: no check).
    fn check(&self, result: &Value) -> Option<Check> {
        let schema = self.output_schema.as_ref()?;
        let Some(s) = result.get("structuredContent") else {
            let failed = result.get("isError") == Some(&Value::Bool(true));
            return (!failed).then_some(Check::Missing);
        };
        Some(match validate(schema, s) {
            Ok(e) if e.is_empty() => Check::Valid,
            Ok(e) => Check::Invalid(
                e.iter()
                    .take(MAX_CHECK_ERRORS)
                    .map(|e| {
                        let at = if e.path.is_empty() { "(root)" } else { &e.path };
                        format!("{at}: {}", e.message)
                    })
                    .collect(),
            ),
            Err(why) => Check::Unusable(why),
        })
    }

    /// Two lines: what is happening (step text, elapsed, how to cancel) and the gauge.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme, now_us: u64) {
        let elapsed = duration(now_us.saturating_sub(self.started_us));
        let mut spans = vec![Span::styled(
            if self.cancelling {
                "cancelling… "
            } else {
                "running… "
            },
            theme.warn(),
        )];
        spans.push(Span::raw(elapsed));
        if let Some(p) = &self.progress {
            let step = match p.total {
                Some(t) => format!(" · {}/{}", p.progress, t),
                None => format!(" · {}", p.progress),
            };
            spans.push(Span::raw(step));
            if let Some(m) = &p.message {
                spans.push(Span::raw(format!(" · {m}")));
            }
        }
        if !self.cancelling {
            spans.push(Span::styled(" · x cancel", theme.dim()));
        }
        let first = Rect {
            height: 1.min(area.height),
            ..area
        };
        f.render_widget(Paragraph::new(Line::from(spans)), first);
        if area.height < 2 {
            return;
        }
        let gauge_area = Rect {
            y: area.y + 1,
            height: 1,
            ..area
        };
        let ratio = self
            .progress
            .as_ref()
            .and_then(|p| p.total.filter(|t| *t > 0.0).map(|t| p.progress / t))
            .map(|r| r.clamp(0.0, 1.0));
        match ratio {
            Some(r) => {
                let g = LineGauge::default()
                    .ratio(r)
                    .filled_symbol("█")
                    .unfilled_symbol("░")
                    .filled_style(theme.ok())
                    .unfilled_style(theme.dim())
                    .label(format!("{:>3}%", (r * 100.0).round() as u32));
                f.render_widget(g, gauge_area);
            }
            None => {
                let what = "no total reported: the step text above is all the server says";
                let hint = if self.progress.is_some() {
                    what
                } else {
                    "waiting for the answer"
                };
                f.render_widget(Paragraph::new(Line::styled(hint, theme.dim())), gauge_area);
            }
        }
    }
}

/// The open tool's first line: its name, title, the form's state, the keys.
pub(crate) fn header(tool: &Value, form: &Form, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(cut(name(tool), 60), theme.title())];
    if let Some(t) = text_of(tool, "title") {
        spans.push(Span::styled(format!(" {}", cut(t, 60)), theme.dim()));
    }
    let n = form.errors().len();
    if n > 0 {
        spans.push(Span::styled(
            format!(" ✗ {n} error{}", if n == 1 { "" } else { "s" }),
            theme.error(),
        ));
    } else if form.unusable().is_none() {
        spans.push(Span::styled(" ✓ valid", theme.ok()));
    }
    spans.push(Span::styled(" · Ctrl-R run · Esc back", theme.dim()));
    Line::from(spans)
}
