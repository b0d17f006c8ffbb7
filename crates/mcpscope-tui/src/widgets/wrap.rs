//! Long lines made readable: [`rows`] wraps a styled line into rows of a width (at a space when
//! there is one, else mid-word), for prose; [`shifted`] shows a window of it from a column, for
//! JSON and tables, which keep their shape and scroll sideways. Widths are in characters, as
//! everywhere in the terminal UI.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The pieces of a line: its text, each with its style.
pub type Parts<'a> = &'a [(String, Style)];

/// The characters of `parts`, each with its style.
fn styled_chars(parts: Parts) -> Vec<(char, Style)> {
    parts
        .iter()
        .flat_map(|(s, st)| s.chars().map(move |c| (c, *st)))
        .collect()
}

/// Characters back into spans (one per run of the same style).
fn spans(chars: &[(char, Style)]) -> Line<'static> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for (c, st) in chars {
        if style.is_some_and(|s| s != *st) {
            out.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(*st);
        text.push(*c);
    }
    if let Some(st) = style {
        out.push(Span::styled(text, st));
    }
    Line::from(out)
}

/// How many rows [`rows`] makes of `parts` in `width` columns.
pub fn row_count(parts: Parts, width: usize) -> usize {
    rows(parts, width).len()
}

/// `parts` wrapped into rows at most `width` columns wide: each row ends after the last space
/// that fits, or at `width` when a word is longer than the row. Always at least one row.
pub fn rows(parts: Parts, width: usize) -> Vec<Line<'static>> {
    let chars = styled_chars(parts);
    let width = width.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let window = &chars[start..start + width];
        let cut = match window.iter().rposition(|(c, _)| *c == ' ') {
            Some(space) if space > 0 => space + 1,
            _ => width,
        };
        out.push(spans(&chars[start..start + cut]));
        start += cut;
    }
    out.push(spans(&chars[start..]));
    out
}

/// Every line of `lines` wrapped into rows `width` columns wide (their styles kept).
pub fn wrap_lines(lines: &[Line], width: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|l| {
            let parts: Vec<(String, Style)> = l
                .spans
                .iter()
                .map(|s| (s.content.to_string(), l.style.patch(s.style)))
                .collect();
            rows(&parts, width)
        })
        .collect()
}

/// The columns `left..left + width` of `parts` (a line scrolled sideways).
pub fn shifted(parts: Parts, left: usize, width: usize) -> Line<'static> {
    let chars = styled_chars(parts);
    let from = left.min(chars.len());
    let to = (left + width).min(chars.len());
    spans(&chars[from..to])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn wraps_at_spaces_and_splits_long_words() {
        let p = vec![("the quick brown fox".to_string(), Style::default())];
        let r: Vec<String> = rows(&p, 10).iter().map(text).collect();
        assert_eq!(r, ["the quick ", "brown fox"]);
        let p = vec![("abcdefghijkl".to_string(), Style::default())];
        let r: Vec<String> = rows(&p, 5).iter().map(text).collect();
        assert_eq!(r, ["abcde", "fghij", "kl"]);
        assert_eq!(row_count(&[], 5), 1);
    }

    #[test]
    fn keeps_styles_across_rows_and_shifts() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let p = vec![
            ("ab".to_string(), bold),
            ("cdef".to_string(), Style::default()),
        ];
        let r = rows(&p, 3);
        assert_eq!(r[0].spans.len(), 2);
        assert_eq!(r[0].spans[0].style, bold);
        assert_eq!(text(&shifted(&p, 1, 3)), "bcd");
        assert_eq!(text(&shifted(&p, 10, 3)), "");
    }
}
