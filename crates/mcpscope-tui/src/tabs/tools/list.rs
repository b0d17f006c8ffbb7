//! The tool list of the Tools tab: the tools of the last `tools/list` with their annotation
//! badges (short tags) and quality badges (the core's `lint` beside the answer: errors red,
//! warnings amber), a `/` search over name, title and description, and a detail box for the
//! selected tool (its description, what the tags mean, its findings).

use crate::widgets::input::Input;
use crate::widgets::list::Cursor;
use crate::widgets::style::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use serde_json::Value;
use std::collections::BTreeMap;

/// Tools kept from one list (a server may answer a million).
pub(crate) const MAX_TOOLS: usize = 10_000;
/// Findings kept for one tool.
const MAX_FINDINGS: usize = 50;
/// Characters of a tool's description kept for its row (the search and the detail box); the
/// whole tool is kept as text for its form.
const MAX_DESCRIPTION: usize = 2_000;

/// Columns the search box keeps however narrow the list is (the count may be cut instead).
const MIN_SEARCH_W: usize = 8;
/// Columns a tool's name keeps however many badges it has.
const MIN_NAME_W: usize = 12;

/// One tool of the list: what the list draws and searches, and the tool itself as compact JSON
/// text, read again only when its form opens. A `serde_json::Value` per tool costs ten times
/// its text (a map per object): 10,000 tools were ~40 MiB as values.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The tool's name.
    pub name: Box<str>,
    /// Its `title`, else its annotations' `title`.
    pub title: Option<Box<str>>,
    /// Its description, cut to [`MAX_DESCRIPTION`] characters.
    pub description: Option<Box<str>>,
    /// Its annotation tags.
    pub tags: Box<[Tag]>,
    /// The whole tool as the server listed it, compact.
    json: Box<str>,
}

impl Row {
    fn new(tool: &Value) -> Row {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(Box::<str>::from);
        let description = tool.get("description").and_then(Value::as_str);
        Row {
            name: super::name(tool).into(),
            title: text(tool.get("title")).or_else(|| text(tool.pointer("/annotations/title"))),
            description: description.map(|d| d.chars().take(MAX_DESCRIPTION).collect()),
            tags: tags(tool).into(),
            json: tool.to_string().into(),
        }
    }

    /// The tool as the server listed it.
    pub(crate) fn tool(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }

    /// Case-insensitive search over name, title and description (`q` lowercased).
    fn matches(&self, q: &str) -> bool {
        [
            Some(&self.name),
            self.title.as_ref(),
            self.description.as_ref(),
        ]
        .into_iter()
        .flatten()
        .any(|s| s.to_lowercase().contains(q))
    }
}

/// One finding of the quality lint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub error: bool,
    pub code: String,
    pub message: String,
}

/// An annotation tag: its short form, its words, and its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tag {
    pub short: &'static str,
    pub long: &'static str,
    pub tone: Tone,
}

/// How a tag is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Good,
    Danger,
    Caution,
    Quiet,
}

/// The tags of a tool's annotations (as the web's `toolBadges`, shortened for a terminal).
pub(crate) fn tags(tool: &Value) -> Vec<Tag> {
    let a = tool.get("annotations").cloned().unwrap_or(Value::Null);
    let hint = |k: &str| a.get(k).and_then(Value::as_bool);
    let mut out = Vec::new();
    if hint("readOnlyHint") == Some(true) {
        out.push(Tag {
            short: "RO",
            long: "read-only",
            tone: Tone::Good,
        });
    }
    if hint("destructiveHint") == Some(true) {
        out.push(Tag {
            short: "DESTR",
            long: "destructive",
            tone: Tone::Danger,
        });
    }
    if hint("idempotentHint") == Some(true) {
        out.push(Tag {
            short: "IDEM",
            long: "idempotent",
            tone: Tone::Quiet,
        });
    }
    if hint("openWorldHint") == Some(true) {
        out.push(Tag {
            short: "OPEN",
            long: "open-world",
            tone: Tone::Caution,
        });
    }
    if hint("openWorldHint") == Some(false) {
        out.push(Tag {
            short: "CLOSED",
            long: "closed-world",
            tone: Tone::Quiet,
        });
    }
    out
}

fn tone_style(t: Tone, theme: Theme) -> Style {
    match t {
        Tone::Good => theme.ok(),
        Tone::Danger => theme.error(),
        Tone::Caution => theme.warn(),
        Tone::Quiet => theme.dim(),
    }
}

/// The list and its search.
#[derive(Debug, Default)]
pub(crate) struct List {
    /// The tools, as the server listed them (`None`: not listed yet).
    pub tools: Option<Vec<Row>>,
    /// Tools left out of the list past [`MAX_TOOLS`].
    pub omitted: usize,
    /// Findings by the tool's position in the list.
    pub findings: BTreeMap<usize, Vec<Finding>>,
    /// Tools the engine keeps out of its cache, with the reason.
    pub excluded: BTreeMap<String, String>,
    /// The lint's own note when it stopped early.
    pub lint_incomplete: Option<String>,
    /// The columns the widest row wants, from the last load.
    pub widest: usize,
    /// The search text.
    pub search: Input,
    /// True while the search box has the keyboard.
    pub searching: bool,
    /// Positions (in `tools`) of the tools the search lets through.
    pub shown: Vec<usize>,
    /// The cursor over `shown`.
    pub cursor: Cursor,
}

impl List {
    /// Take a `tools/list` answer (`{result: {tools}, lint?, excludedTools?}`), a row per tool
    /// (the answer itself is not kept).
    pub(crate) fn load(&mut self, answer: &Value) {
        let all = answer
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        self.omitted = all.len().saturating_sub(MAX_TOOLS);
        let tools: Vec<Row> = all.iter().take(MAX_TOOLS).map(Row::new).collect();
        self.findings = findings_of(answer.get("lint"));
        self.lint_incomplete = answer
            .pointer("/lint/incomplete")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.excluded = excluded_of(answer.get("excludedTools"));
        let selected = self.selected().map(|t| t.name.clone());
        self.tools = Some(tools);
        self.widest = self.widest_row();
        self.refilter();
        if let Some(name) = selected {
            self.select_name(&name);
        }
    }

    /// Apply the search again (the cursor stays on the same tool when it is still shown).
    pub(crate) fn refilter(&mut self) {
        let q = self.search.text().trim().to_lowercase();
        let was = self.shown.get(self.cursor.selected).copied();
        let tools = self.tools.as_deref().unwrap_or(&[]);
        self.shown = (0..tools.len())
            .filter(|&i| q.is_empty() || tools[i].matches(&q))
            .collect();
        self.cursor.selected = was
            .and_then(|w| self.shown.iter().position(|&i| i == w))
            .unwrap_or(0);
        self.cursor.clamp(self.shown.len());
    }

    /// Put the cursor on the tool called `name`; false when it is not shown.
    pub(crate) fn select_name(&mut self, name: &str) -> bool {
        let tools = self.tools.as_deref().unwrap_or(&[]);
        match self.shown.iter().position(|&i| &*tools[i].name == name) {
            Some(p) => {
                self.cursor.selected = p;
                true
            }
            None => false,
        }
    }

    /// The selected tool, with its position in the list.
    pub(crate) fn selected_at(&self) -> Option<(usize, &Row)> {
        let i = *self.shown.get(self.cursor.selected)?;
        Some((i, self.tools.as_ref()?.get(i)?))
    }

    /// The selected tool.
    pub(crate) fn selected(&self) -> Option<&Row> {
        self.selected_at().map(|(_, t)| t)
    }

    /// Draw the list (with its search line and the detail box) into `area`.
    pub(crate) fn render(&self, f: &mut Frame, area: Rect, theme: Theme, focused: bool) {
        let detail = self.detail_lines(theme);
        let dh = self.detail_height(area.height);
        let top = Rect {
            height: area.height - dh,
            ..area
        };
        let mut lines = vec![self.title_line(theme, area.width as usize)];
        let window = self.window(area.height);
        let tools = self.tools.as_deref().unwrap_or(&[]);
        for (row, &i) in self.shown[window.clone()].iter().enumerate() {
            let here = window.start + row == self.cursor.selected;
            let row = (i, &tools[i]);
            lines.push(self.row_line(row, (here, focused), theme, area.width as usize));
        }
        if self.tools.is_none() {
            lines.push(Line::styled("Listing the tools…", theme.dim()));
        } else if self.shown.is_empty() {
            let what = if self.search.text().is_empty() {
                "No tools."
            } else {
                "No tools match."
            };
            lines.push(Line::styled(what, theme.dim()));
        }
        f.render_widget(Paragraph::new(lines), top);
        let bottom = Rect {
            y: top.y + top.height,
            height: dh,
            ..area
        };
        let block = Block::default()
            .borders(Borders::TOP)
            .border_style(theme.dim());
        f.render_widget(
            Paragraph::new(detail)
                .wrap(Wrap { trim: false })
                .block(block),
            bottom,
        );
    }

    /// Lines the detail box takes (with its rule) in a list `height` lines high.
    fn detail_height(&self, height: u16) -> u16 {
        let n = self.detail_lines(Theme::new(false)).len() as u16;
        (n + 1).min(height / 2)
    }

    /// The rows drawn in a list `height` lines high (as `render` draws them: the same window
    /// places a click).
    pub(crate) fn window(&self, height: u16) -> std::ops::Range<usize> {
        let rows = height.saturating_sub(self.detail_height(height) + 1);
        self.cursor.window(self.shown.len(), rows as usize)
    }

    /// Keep the scroll where the last move left it (stable rather than re-centred).
    pub(crate) fn follow(&mut self, height: u16) {
        let rows = height.saturating_sub(self.detail_height(height) + 1);
        self.cursor.follow(self.shown.len(), rows as usize);
    }

    /// "Tools (24) /query 3 shown", at most `width` columns: a long query scrolls inside the
    /// room left between the title and the count, the cursor kept in view.
    fn title_line(&self, theme: Theme, width: usize) -> Line<'static> {
        // Until the list comes there is no count to give (not "0": that is an empty list).
        let title = match &self.tools {
            Some(t) => format!("Tools ({}) ", t.len()),
            None => "Tools (…) ".to_string(),
        };
        if self.searching || !self.search.text().is_empty() {
            let count = format!(" {} shown", self.shown.len());
            let used = title.chars().count() + 1 + count.chars().count();
            let room = width.saturating_sub(used).max(MIN_SEARCH_W);
            let mut spans = vec![Span::styled(title, theme.title())];
            spans.push(Span::styled("/", theme.key()));
            spans.extend(self.search.spans(self.searching, room).spans);
            spans.push(Span::styled(count, theme.dim()));
            return Line::from(spans);
        }
        let mut spans = vec![Span::styled(title, theme.title())];
        let (e, w) = self.totals();
        if e > 0 {
            spans.push(Span::styled(format!("✗{e} "), theme.error()));
        }
        if w > 0 {
            spans.push(Span::styled(format!("!{w} "), theme.warn()));
        }
        spans.push(Span::styled("/ search", theme.dim()));
        Line::from(spans)
    }

    fn totals(&self) -> (usize, usize) {
        let all = self.findings.values().flatten();
        let e = all.clone().filter(|f| f.error).count();
        (e, all.count() - e)
    }

    /// A tool's row, at most `width` columns; `(here, focused)`: it is the selected one, the
    /// list has the keyboard (the mark shows either way, the highlight only with the keyboard).
    /// The name gives way to its badges: the findings' markers first, then the tags, so the
    /// row the header's `✗`/`!` count comes from always says so.
    fn row_line(
        &self,
        (i, tool): (usize, &Row),
        at: (bool, bool),
        theme: Theme,
        width: usize,
    ) -> Line<'static> {
        let (here, focused) = at;
        let ex = self.excluded.contains_key(&*tool.name);
        let base = if here && focused {
            theme.selected()
        } else if ex {
            theme.dim()
        } else {
            theme.plain()
        };
        let badges = self.badges((i, tool), theme);
        let badge_w: usize = badges.iter().map(|b| b.content.chars().count()).sum();
        let room = width.saturating_sub(2 + badge_w).clamp(MIN_NAME_W, 48);
        let name = if tool.name.chars().count() <= room {
            super::cut(&tool.name, room)
        } else {
            super::cut(&tool.name, room - 1)
        };
        let mut spans = vec![Span::styled(
            format!("{} {name}", if here { "›" } else { " " }),
            base,
        )];
        spans.extend(badges);
        Line::from(spans)
    }

    /// A row's badges: its findings' markers, whether it is excluded, its tags.
    fn badges(&self, (i, tool): (usize, &Row), theme: Theme) -> Vec<Span<'static>> {
        let ex = self.excluded.contains_key(&*tool.name);
        let mut badges = Vec::new();
        let fs = self.findings.get(&i).map(Vec::as_slice).unwrap_or(&[]);
        let e = fs.iter().filter(|f| f.error).count();
        if e > 0 {
            badges.push(Span::styled(format!(" ✗{e}"), theme.error()));
        }
        if fs.len() > e {
            badges.push(Span::styled(format!(" !{}", fs.len() - e), theme.warn()));
        }
        if ex {
            badges.push(Span::styled(" (excluded)", theme.dim()));
        }
        for t in &tool.tags {
            badges.push(Span::styled(
                format!(" {}", t.short),
                tone_style(t.tone, theme),
            ));
        }
        badges
    }

    /// The columns the widest row wants (its name whole, with its badges).
    fn widest_row(&self) -> usize {
        let theme = Theme::new(false);
        let tools = self.tools.as_deref().unwrap_or(&[]);
        tools
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let badges: usize = self
                    .badges((i, t), theme)
                    .iter()
                    .map(|b| b.content.chars().count())
                    .sum();
                2 + t.name.chars().count().min(48) + badges
            })
            .max()
            .unwrap_or(0)
    }

    /// The selected tool's description, tags in words, findings (at most a few lines).
    fn detail_lines(&self, theme: Theme) -> Vec<Line<'static>> {
        let Some((i, tool)) = self.selected_at() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(t) = &tool.title {
            out.push(Line::styled(super::cut(t, 200), theme.title()));
        }
        if let Some(d) = &tool.description {
            let first = d.lines().next().unwrap_or("");
            out.push(Line::raw(super::cut(first, 300)));
        }
        if let Some(why) = self.excluded.get(&*tool.name) {
            out.push(Line::styled(
                super::cut(&format!("excluded: {why}"), 300),
                theme.warn(),
            ));
        }
        let words: Vec<&str> = tool.tags.iter().map(|t| t.long).collect();
        if !words.is_empty() {
            out.push(Line::styled(words.join(" · "), theme.dim()));
        }
        let fs = self.findings.get(&i).map(Vec::as_slice).unwrap_or(&[]);
        for f in fs.iter().take(3) {
            let (mark, style) = if f.error {
                ("✗", theme.error())
            } else {
                ("!", theme.warn())
            };
            out.push(Line::styled(
                super::cut(&format!("{mark} {}: {}", f.code, f.message), 300),
                style,
            ));
        }
        if fs.len() > 3 {
            out.push(Line::styled(
                format!("… {} more findings", fs.len() - 3),
                theme.dim(),
            ));
        }
        out
    }
}

impl List {
    /// The highlighted tool previewed in `width` × `height`: its name and title, its whole
    /// description (wrapped), and its input schema as JSON (what fits).
    pub(crate) fn preview(&self, theme: Theme, width: usize, height: usize) -> Vec<Line<'static>> {
        let Some(row) = self.selected() else {
            return Vec::new();
        };
        let mut head = vec![Line::from(vec![
            Span::styled(row.name.to_string(), theme.title()),
            Span::styled("  Enter opens its form", theme.dim()),
        ])];
        if let Some(t) = &row.title {
            head.push(Line::raw(t.to_string()));
        }
        for l in row.description.as_deref().unwrap_or("").lines() {
            head.push(Line::raw(l.to_string()));
        }
        let mut out = crate::widgets::wrap::wrap_lines(&head, width);
        out.push(Line::styled("Input schema", theme.title()));
        let schema = row
            .tool()
            .get("inputSchema")
            .cloned()
            .unwrap_or(Value::Null);
        let pretty = serde_json::to_string_pretty(&schema).unwrap_or_default();
        for l in pretty.lines() {
            if out.len() + 1 >= height {
                out.push(Line::styled(
                    "… (Enter: the form; Ctrl-T there: all of it)",
                    theme.dim(),
                ));
                break;
            }
            out.push(Line::styled(
                super::cut(l, width.saturating_sub(1)),
                theme.plain(),
            ));
        }
        out.truncate(height.max(1));
        out
    }
}

/// The lint's findings grouped by tool position (entries of the wrong shape left out).
fn findings_of(lint: Option<&Value>) -> BTreeMap<usize, Vec<Finding>> {
    let mut out: BTreeMap<usize, Vec<Finding>> = BTreeMap::new();
    let list = lint
        .and_then(|l| l.get("findings"))
        .and_then(Value::as_array);
    for f in list.into_iter().flatten() {
        let (Some(index), Some(sev)) = (
            f.get("index").and_then(Value::as_u64),
            f.get("severity").and_then(Value::as_str),
        ) else {
            continue;
        };
        if sev != "error" && sev != "warning" || index as usize >= MAX_TOOLS {
            continue;
        }
        let entry = out.entry(index as usize).or_default();
        if entry.len() < MAX_FINDINGS {
            entry.push(Finding {
                error: sev == "error",
                code: super::cut(super::text_of(f, "code").unwrap_or(""), 80),
                message: super::cut(super::text_of(f, "message").unwrap_or(""), 400),
            });
        }
    }
    out
}

/// Excluded tools, whichever shape they came in (`[[name, reason]]` or `[{name, reason}]`).
fn excluded_of(v: Option<&Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in v
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(MAX_TOOLS)
    {
        let (n, r) = match e {
            Value::Array(a) => (a.first(), a.get(1)),
            other => (other.get("name"), other.get("reason")),
        };
        if let Some(n) = n.and_then(Value::as_str) {
            let r = r.and_then(Value::as_str).unwrap_or("");
            out.insert(super::cut(n, 200), super::cut(r, 400));
        }
    }
    out
}
