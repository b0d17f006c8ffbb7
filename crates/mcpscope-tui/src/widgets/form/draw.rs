//! Drawing a form: one line per row (label, required mark, value), under the selected row its
//! description and bounds, under every row its validation errors; errors no row claims and a
//! schema that cannot validate go on top. In JSON mode: the editor and what is wrong with the
//! text. Pure: scrolled so the cursor shows, from the state alone.

use super::rows::{Row, value_at};
use super::{Choice, Form, choices_of};
use crate::widgets::style::Theme;
use mcpscope_proto::form::{Field, FieldKind};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

/// Characters of a value or a message drawn (the line is cut to the screen anyway).
const MAX_SHOWN: usize = 300;
/// An open enum's choices drawn at once.
const PICKER_LINES: usize = 8;

/// `s` cut to [`MAX_SHOWN`] characters, line breaks shown as `⏎`.
/// Control characters made visible, as the dialogs clean a server's text (schemas come from
/// servers too).
fn shown(s: &str) -> String {
    crate::modals::interaction::clean_line(s, MAX_SHOWN)
}

impl Form {
    /// Draw the form into `area`; the cursor and the edit caret show when `focused`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: Theme, focused: bool) {
        if self.json.is_some() {
            return self.render_json(f, area, theme, focused);
        }
        let mut head: Vec<Line> = Vec::new();
        if let Some(why) = &self.unusable {
            head.push(Line::styled(
                shown(&format!("not validated here: {why}")),
                theme.warn(),
            ));
        }
        for e in self.unclaimed() {
            head.push(Line::styled(shown(&format!("✗ {e}")), theme.error()));
        }
        if self.field_count() == 0 {
            head.push(Line::styled("This takes no arguments.", theme.dim()));
        }
        let hh = (head.len() as u16).min(area.height);
        f.render_widget(Paragraph::new(head), Rect { height: hh, ..area });
        let body = Rect {
            y: area.y + hh,
            height: area.height - hh,
            ..area
        };
        let (lines, first, last) = self.lines(theme, focused, body.width as usize);
        let height = body.height.max(1) as usize;
        let mut start = self.top.min(first);
        if last >= start + height {
            start = (last + 1 - height).min(first);
        }
        let visible: Vec<Line> = lines.into_iter().skip(start).take(height).collect();
        f.render_widget(Paragraph::new(visible), body);
    }

    /// Every line of the rows, and the first and last line of the cursor's row.
    fn lines(
        &self,
        theme: Theme,
        focused: bool,
        width: usize,
    ) -> (Vec<Line<'static>>, usize, usize) {
        let mut out = Vec::new();
        let (mut first, mut last) = (0, 0);
        for (i, row) in self.rows.iter().enumerate() {
            let here = i == self.cursor;
            if here {
                first = out.len();
            }
            self.row_lines(row, here, focused, theme, width, &mut out);
            if here {
                last = out.len().saturating_sub(1);
            }
        }
        (out, first, last)
    }

    fn row_lines(
        &self,
        row: &Row,
        here: bool,
        focused: bool,
        theme: Theme,
        width: usize,
        out: &mut Vec<Line<'static>>,
    ) {
        let indent = "  ".repeat(row.depth);
        if let Some(n) = row.more {
            out.push(Line::styled(
                format!("{indent}… {n} more items (edit them as JSON: Ctrl-T)"),
                theme.dim(),
            ));
            return;
        }
        let Some(field) = super::rows::field_at(&self.model, &row.steps) else {
            return;
        };
        let value = value_at(&self.value, &row.path);
        let label = match row.item {
            Some(i) => format!("[{i}]"),
            None => shown(&field.title),
        };
        let mark = if field.required && row.item.is_none() {
            " *"
        } else {
            ""
        };
        let style = if here && focused {
            theme.selected()
        } else {
            theme.plain()
        };
        let head = format!("{indent}{}{label}{mark}", if here { "› " } else { "  " });
        let mut spans = vec![Span::styled(head, style.patch(label_style(field, theme)))];
        let editing = self.editing.as_ref().filter(|_| here);
        if let Some(e) = editing {
            spans.push(Span::raw(": "));
            let room = width.saturating_sub(spans_width(&spans)).max(4);
            spans.extend(e.input.spans(focused, room).spans);
        } else {
            let object = matches!(field.kind, FieldKind::Object { .. });
            spans.push(Span::raw(if object { " " } else { ": " }));
            spans.extend(value_spans(field, value, row.item.is_some(), theme));
        }
        out.push(Line::from(spans));
        let sub = format!("{indent}    ");
        let early = self.revealed || !self.direct; // a direct edit's "not a number" waits too
        if let Some(why) = editing.and_then(|e| e.error.as_ref()).filter(|_| early) {
            out.push(Line::styled(format!("{sub}✗ {why}"), theme.error()));
        }
        if here && let Some(p) = self.picker {
            self.picker_lines(field, row, p.at, &sub, theme, out);
        }
        if here && let Some(d) = describe(field) {
            out.push(Line::styled(format!("{sub}{}", shown(&d)), theme.dim()));
        }
        for e in self.errors_at(row, field) {
            out.push(Line::styled(format!("{sub}✗ {}", shown(&e)), theme.error()));
        }
    }

    fn picker_lines(
        &self,
        field: &Field,
        row: &Row,
        at: usize,
        sub: &str,
        theme: Theme,
        out: &mut Vec<Line<'static>>,
    ) {
        let choices = choices_of(field, row.item.is_some());
        let value = value_at(&self.value, &row.path);
        let start = at.saturating_sub(PICKER_LINES - 1);
        for (i, c) in choices.iter().enumerate().skip(start).take(PICKER_LINES) {
            let chosen = match (c, value) {
                (Choice::Value(v, _), Some(Value::Array(a))) => a.contains(v),
                (Choice::Value(v, _), Some(x)) => v == x,
                (Choice::Null, Some(Value::Null)) | (Choice::Unset, None) => true,
                _ => false,
            };
            let mark = if chosen { "[x] " } else { "[ ] " };
            let style = if i == at {
                theme.selected()
            } else {
                theme.plain()
            };
            out.push(Line::styled(
                format!("{sub}{mark}{}", choice_label(c)),
                style,
            ));
        }
        let hint = if matches!(field.kind, FieldKind::Enum { multi: true, .. }) {
            "Space choose · Enter done"
        } else {
            "Enter choose · Esc back"
        };
        out.push(Line::styled(
            format!("{sub}{} of {} · {hint}", at + 1, choices.len()),
            theme.dim(),
        ));
    }

    /// The validation errors drawn under `row` (as the web's `errorsAt`): errors at its pointer,
    /// and "required" when its parent says this key is missing.
    fn errors_at(&self, row: &Row, field: &Field) -> Vec<String> {
        let p = row.pointer();
        let parent = &p[..p.rfind('/').unwrap_or(0)];
        let keyed = row.item.is_none();
        let mut out = Vec::new();
        for e in self.errors.iter().filter(|_| self.revealed) {
            if e.path == p {
                if keyed && required_key(&e.message).is_some() && is_header(field) {
                    continue; // about a child: the child shows it
                }
                out.push(e.message.clone());
            } else if keyed
                && e.path == parent
                && required_key(&e.message) == Some(field.key.clone())
            {
                out.push("required".into());
            }
        }
        out
    }

    /// Errors no row shows: the root's own, and those under a path no row has.
    fn unclaimed(&self) -> Vec<String> {
        let pointers: std::collections::HashSet<String> = self
            .rows
            .iter()
            .filter(|r| r.more.is_none())
            .map(Row::pointer)
            .collect();
        let root_keys: Vec<&str> = match &self.model.kind {
            FieldKind::Object { fields, .. } => fields.iter().map(|f| f.key.as_str()).collect(),
            _ => Vec::new(),
        };
        self.errors
            .iter()
            .filter(|_| self.revealed)
            .filter(|e| {
                if e.path.is_empty() {
                    return match required_key(&e.message) {
                        Some(k) => !root_keys.contains(&k.as_str()),
                        None => true,
                    };
                }
                if pointers.contains(&e.path) {
                    return false;
                }
                !pointers
                    .iter()
                    .any(|p| e.path.starts_with(&format!("{p}/")))
            })
            .map(|e| {
                format!(
                    "{}: {}",
                    if e.path.is_empty() { "(root)" } else { &e.path },
                    e.message
                )
            })
            .collect()
    }

    fn render_json(&self, f: &mut Frame, area: Rect, theme: Theme, focused: bool) {
        let Some(j) = &self.json else { return };
        let head = if self.drawable() {
            Line::styled("JSON · Ctrl-T back to the form", theme.dim())
        } else {
            Line::styled(
                shown(&format!("Edited as JSON: {}", self.json_reason())),
                theme.dim(),
            )
        };
        let mut foot: Vec<Line> = Vec::new();
        if let Some(e) = &self.json_error {
            foot.push(Line::styled(shown(&format!("✗ {e}")), theme.error()));
        } else if let Some(why) = &self.unusable {
            foot.push(Line::styled(
                shown(&format!("not validated here: {why}")),
                theme.warn(),
            ));
        } else {
            for e in self.errors.iter().filter(|_| self.revealed).take(3) {
                let at = if e.path.is_empty() { "(root)" } else { &e.path };
                foot.push(Line::styled(
                    shown(&format!("✗ {at}: {}", e.message)),
                    theme.error(),
                ));
            }
            if self.revealed && self.errors.len() > 3 {
                foot.push(Line::styled(
                    format!("… {} more errors", self.errors.len() - 3),
                    theme.error(),
                ));
            }
        }
        let fh = (foot.len() as u16).min(area.height.saturating_sub(2));
        f.render_widget(
            Paragraph::new(head),
            Rect {
                height: 1.min(area.height),
                ..area
            },
        );
        let mid = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1 + fh),
            ..area
        };
        j.render(f, mid, theme, focused);
        f.render_widget(
            Paragraph::new(foot),
            Rect {
                y: mid.y + mid.height,
                height: fh,
                ..area
            },
        );
    }
}

fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.content.chars().count()).sum()
}

fn is_header(f: &Field) -> bool {
    matches!(f.kind, FieldKind::Object { .. } | FieldKind::Array { .. })
}

fn label_style(f: &Field, theme: Theme) -> ratatui::style::Style {
    if is_header(f) {
        theme.title()
    } else {
        theme.plain()
    }
}

/// The key a `"key" is a required property` message names.
fn required_key(message: &str) -> Option<String> {
    let quoted = message.strip_suffix(" is a required property")?;
    serde_json::from_str(quoted).ok()
}

fn choice_label(c: &Choice) -> String {
    match c {
        Choice::Unset => "not set".into(),
        Choice::Null => "null".into(),
        Choice::Value(_, label) => shown(label),
    }
}

/// The value of a row as drawn.
fn value_spans(f: &Field, v: Option<&Value>, in_array: bool, theme: Theme) -> Vec<Span<'static>> {
    let unset = || match &f.default {
        Some(d) => Span::styled(shown(&format!("not set (default {d})")), theme.dim()),
        None => Span::styled("not set", theme.dim()),
    };
    if v == Some(&Value::Null) && !matches!(f.kind, FieldKind::Json { .. }) {
        return vec![Span::styled("null", theme.dim())];
    }
    match (&f.kind, v) {
        (FieldKind::Object { .. }, _) => vec![],
        (FieldKind::Array { .. }, Some(Value::Array(a))) => vec![Span::styled(
            format!(
                "({} item{}) + add",
                a.len(),
                if a.len() == 1 { "" } else { "s" }
            ),
            theme.dim(),
        )],
        (FieldKind::Array { .. }, _) => vec![unset(), Span::styled(" + add", theme.dim())],
        (FieldKind::Boolean, v) if f.required || in_array => {
            vec![Span::raw(if v == Some(&Value::Bool(true)) {
                "[x]"
            } else {
                "[ ]"
            })]
        }
        (FieldKind::Boolean, Some(b)) => vec![Span::raw(format!("‹ {b} ›"))],
        (FieldKind::Boolean, None) => vec![Span::raw("‹ "), unset(), Span::raw(" ›")],
        (
            FieldKind::Enum {
                multi: true,
                options,
            },
            v,
        ) => {
            let chosen: Vec<String> = match v {
                Some(Value::Array(a)) => options
                    .iter()
                    .filter(|o| a.contains(&o.value))
                    .map(|o| o.label.clone())
                    .collect(),
                _ => Vec::new(),
            };
            vec![Span::raw(shown(&format!("[{}]", chosen.join(", "))))]
        }
        (FieldKind::Enum { options, .. }, Some(x)) => {
            let label = options
                .iter()
                .find(|o| o.value == *x)
                .map_or_else(|| format!("{x} (not a choice)"), |o| o.label.clone());
            vec![Span::raw(shown(&format!("‹ {label} ›")))]
        }
        (FieldKind::Enum { .. }, None) => vec![Span::raw("‹ "), unset(), Span::raw(" ›")],
        (_, None) => vec![unset()],
        (FieldKind::String { .. }, Some(Value::String(s))) if s.is_empty() => {
            vec![Span::styled("\"\"", theme.dim())]
        }
        (FieldKind::String { .. }, Some(Value::String(s))) => vec![Span::raw(shown(s))],
        (FieldKind::Json { .. }, Some(x)) => vec![
            Span::raw(shown(&x.to_string())),
            Span::styled(" (JSON)", theme.dim()),
        ],
        (_, Some(x)) => vec![Span::raw(shown(&x.to_string()))],
    }
}

/// What the selected row says under itself: its description, kind and bounds.
fn describe(f: &Field) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(d) = &f.description {
        parts.push(d.clone());
    }
    match &f.kind {
        FieldKind::String {
            format,
            min_length,
            max_length,
            pattern,
        } => {
            if let Some(fm) = format {
                let s = serde_json::to_value(fm)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string));
                parts.push(format!("format {}", s.unwrap_or_default()));
            }
            if let Some(n) = min_length {
                parts.push(format!("≥ {n} chars"));
            }
            if let Some(n) = max_length {
                parts.push(format!("≤ {n} chars"));
            }
            if let Some(p) = pattern {
                parts.push(format!("pattern {p}"));
            }
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
        } => {
            parts.push(if *integer { "integer" } else { "number" }.into());
            if let Some(n) = minimum {
                parts.push(format!("≥ {n}"));
            }
            if let Some(n) = maximum {
                parts.push(format!("≤ {n}"));
            }
        }
        FieldKind::Array {
            min_items,
            max_items,
            ..
        } => {
            parts.push("+ add · - remove".into());
            if let Some(n) = min_items {
                parts.push(format!("≥ {n} items"));
            }
            if let Some(n) = max_items {
                parts.push(format!("≤ {n} items"));
            }
        }
        FieldKind::Json { reason } => parts.push(format!("JSON: {reason}")),
        FieldKind::Enum { .. } => parts.push("←→ or Enter to choose".into()),
        FieldKind::Boolean => parts.push("Space toggles".into()),
        FieldKind::Object { .. } => {}
    }
    if f.nullable {
        parts.push("Ctrl-N null".into());
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}
