//! A tool call's outcome as lines the user moves through: success or `isError` (apart from a
//! protocol error or a cancel), `structuredContent` checked against the tool's `outputSchema`,
//! each content block (text; JSON as a foldable tree; images, audio and blobs described, with
//! `w` to save them to a file; resource links that Enter follows into Resources), and
//! `structuredContent` as a foldable tree. Bounded: [`MAX_LINES`] lines, each cut when made.
//!
//! Where the terminal draws images (`widgets/image.rs`; not under `NO_COLOR`), the image under
//! the cursor (else the first) is drawn in a panel beside the lines (below them when narrow);
//! each is decoded off the loop once per size of panel, and a line under its description says
//! what it is (size, format, a declared type that is not the real one) or why it cannot be
//! drawn.

use crate::msg::Job;
use crate::widgets::image::{self, Inbox, Info, Picture};
use crate::widgets::list::Cursor;
use crate::widgets::style::Theme;
use crate::widgets::wrap;
use base64::Engine;
use ratatui::Frame;
use ratatui::layout::{Rect, Size};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Lines of one outcome.
pub(crate) const MAX_LINES: usize = 20_000;
/// Lines of one text block.
const MAX_TEXT_LINES: usize = 2_000;
/// Content blocks drawn.
const MAX_BLOCKS: usize = 200;
/// A container with more children than this starts folded.
const FOLD_OVER: usize = 50;
/// Characters of a line made.
const MAX_CHARS: usize = 500;
/// Image blocks of one result that can be drawn (the others are described).
const MAX_IMAGES: usize = 8;
/// The image panel goes beside the lines from this many columns, else below them.
const PANEL_BESIDE: u16 = 50;
/// Columns of a panel beside the lines at least (its caption, a reason it cannot draw).
const MIN_PANEL: u16 = 24;
/// Columns ← and → scroll the lines that do not wrap by.
const SIDEWAYS: usize = 8;

/// How `structuredContent` compared with the tool's `outputSchema`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check {
    /// It matches.
    Valid,
    /// It does not: the errors (pointer: message).
    Invalid(Vec<String>),
    /// The tool declares an `outputSchema` but the result has no `structuredContent`.
    Missing,
    /// The schema cannot be used to validate.
    Unusable(String),
}

/// What came back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// A result (maybe `isError`).
    Result {
        result: Value,
        history_id: Option<i64>,
        check: Option<Check>,
    },
    /// A protocol or transport error (the error body: `{code, message, rpcCode?, data?}`).
    Error { error: Value },
    /// Cancelled by the user.
    Cancelled,
}

/// What Enter (or `w`) does on a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    None,
    /// Fold or unfold a node of tree `.0` at pointer `.1`.
    Fold(usize, String),
    /// Save content block `.0` to a file.
    Save(usize),
    /// Open this resource in the Resources tab.
    Open(String),
}

/// How a piece of a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    Dim,
    Title,
    Error,
    Ok,
    Warn,
}

/// One line of the outcome.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RLine {
    pub parts: Vec<(String, Tone)>,
    pub action: Action,
    /// Prose (a text block, a message): wraps; other lines (JSON) scroll sideways.
    pub prose: bool,
}

/// An outcome with its lines, folds and cursor.
#[derive(Debug, Clone)]
pub(crate) struct ResultView {
    pub outcome: Outcome,
    /// The tool it came from (names saved files).
    pub tool: String,
    /// How long it took, in µs.
    pub duration_us: u64,
    /// Nodes whose fold was flipped from the default: (tree, pointer).
    toggled: HashSet<(usize, String)>,
    pub lines: Vec<RLine>,
    pub cursor: Cursor,
    /// Its images and their pictures.
    pub images: Images,
    /// Every line wraps (`z`), not only prose.
    pub wrap_all: bool,
    /// The first column drawn of the lines that do not wrap (← →).
    pub left: usize,
}

/// A picture of an image block for one size of panel, or why it cannot be drawn.
type Drawn = (Size, Result<(Picture, Info), String>);

/// The image blocks of a result and what became of them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Images {
    /// The content blocks that are images (the first [`MAX_IMAGES`]).
    pub blocks: Vec<usize>,
    /// Each block's last picture, or why it cannot be drawn.
    drawn: HashMap<usize, Drawn>,
    /// Keys of the jobs on their way.
    asked: HashSet<String>,
    /// Where the jobs leave their pictures.
    inbox: Inbox,
}

/// Where the picture goes in the result's `area`: the lines' part, and the panel with the side
/// its border is on (beside the lines, or below them when narrow); no panel when too small.
/// Beside, the panel takes half the width at most, and only as much as a picture `picture`
/// cells wide needs (with room for its caption), so the lines keep the rest.
fn split(area: Rect, picture: Option<u16>) -> (Rect, Option<(Rect, Borders)>) {
    if area.width >= PANEL_BESIDE && area.height >= 3 {
        let half = area.width / 2;
        let w = picture.map_or(half, |p| half.min((p + 1).max(MIN_PANEL)));
        let text = Rect {
            width: area.width - w,
            ..area
        };
        let panel = Rect {
            x: area.x + area.width - w,
            width: w,
            ..area
        };
        (text, Some((panel, Borders::LEFT)))
    } else if area.height >= 10 {
        let h = area.height / 2;
        let text = Rect {
            height: area.height - h,
            ..area
        };
        let panel = Rect {
            y: area.y + area.height - h,
            height: h,
            ..area
        };
        (text, Some((panel, Borders::TOP)))
    } else {
        (area, None)
    }
}

/// Inside a panel: a caption line, then the picture.
fn panel_parts(panel: Rect, side: Borders) -> (Rect, Rect) {
    let inner = Block::default().borders(side).inner(panel);
    let caption = Rect { height: 1, ..inner };
    let picture = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    (caption, picture)
}

/// The cells a picture may take in the result's lines `area`, if a panel fits there.
pub(crate) fn image_box(area: Rect) -> Option<Size> {
    let (panel, side) = split(area, None).1?;
    let picture = panel_parts(panel, side).1;
    (picture.height >= 1 && picture.width >= 1).then(|| Size::new(picture.width, picture.height))
}

fn cut(s: &str) -> String {
    super::cut(s, MAX_CHARS)
}

fn line(parts: Vec<(String, Tone)>) -> RLine {
    RLine {
        parts,
        action: Action::None,
        prose: false,
    }
}

fn one(s: impl Into<String>, t: Tone) -> RLine {
    line(vec![(s.into(), t)])
}

/// A line of prose (it wraps).
fn prose(s: impl Into<String>, t: Tone) -> RLine {
    RLine {
        prose: true,
        ..one(s, t)
    }
}

/// A duration in words: `850 ms`, `2.4 s`.
pub(crate) fn duration(us: u64) -> String {
    if us < 1_000_000 {
        format!("{} ms", us / 1_000)
    } else {
        format!("{:.1} s", us as f64 / 1e6)
    }
}

/// A byte count in words.
fn size(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1 << 20 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1u64 << 20) as f64)
    }
}

/// The image blocks of `result`, the first [`MAX_IMAGES`].
fn image_blocks(result: &Value) -> Vec<usize> {
    let blocks = result.get("content").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .enumerate()
        .take(MAX_BLOCKS)
        .filter(|(_, b)| super::text_of(b, "type") == Some("image"))
        .map(|(i, _)| i)
        .take(MAX_IMAGES)
        .collect()
}

impl ResultView {
    /// The view of `outcome` of a call of `tool` that took `duration_us`.
    pub(crate) fn new(outcome: Outcome, tool: &str, duration_us: u64) -> ResultView {
        let mut v = ResultView {
            outcome,
            tool: tool.to_string(),
            duration_us,
            toggled: HashSet::new(),
            lines: Vec::new(),
            cursor: Cursor::default(),
            images: Images::default(),
            wrap_all: false,
            left: 0,
        };
        if let Outcome::Result { result, .. } = &v.outcome {
            v.images.blocks = image_blocks(result);
        }
        v.rebuild();
        v
    }

    fn rebuild(&mut self) {
        let mut out = Vec::new();
        self.head(&mut out);
        if let Outcome::Result { result, .. } = &self.outcome {
            let notes = self.image_notes(result);
            body(result, &self.toggled, &notes, &mut out);
        }
        if out.len() > MAX_LINES {
            out.truncate(MAX_LINES);
            out.push(one(
                "… more lines not shown (f: the whole result)",
                Tone::Dim,
            ));
        }
        self.lines = out;
        self.cursor.clamp(self.lines.len());
    }

    fn head(&self, out: &mut Vec<RLine>) {
        let took = duration(self.duration_us);
        match &self.outcome {
            Outcome::Cancelled => out.push(one(format!("Cancelled after {took}."), Tone::Warn)),
            Outcome::Error { error } => {
                let code = super::text_of(error, "code").unwrap_or("error");
                let title = match error.get("rpcCode") {
                    Some(rpc) if code == "rpc_error" => {
                        format!("✗ Protocol error (JSON-RPC {rpc})")
                    }
                    _ => format!("✗ Request failed: {code}"),
                };
                out.push(line(vec![
                    (title, Tone::Error),
                    (format!(" · {took}"), Tone::Dim),
                ]));
                for l in super::text_of(error, "message")
                    .unwrap_or("")
                    .lines()
                    .take(20)
                {
                    out.push(prose(cut(l), Tone::Error));
                }
                if let Some(d) = error.get("data").filter(|d| !d.is_null()) {
                    out.push(one(cut(&format!("data: {d}")), Tone::Dim));
                }
            }
            Outcome::Result {
                result,
                history_id,
                check,
            } => {
                let is_error = result.get("isError") == Some(&Value::Bool(true));
                let (s, t) = if is_error {
                    ("✗ isError: the tool reported a failure", Tone::Error)
                } else {
                    ("✓ success", Tone::Ok)
                };
                let mut meta = format!(" · {took}");
                if let Some(h) = history_id {
                    meta.push_str(&format!(" · history #{h}"));
                }
                out.push(line(vec![(s.into(), t), (meta, Tone::Dim)]));
                check_lines(check.as_ref(), out);
            }
        }
    }

    /// Enter: fold a node, follow a link (its URI returned), save a block (its index returned).
    pub(crate) fn activate(&mut self) -> Action {
        let Some(l) = self.lines.get(self.cursor.selected) else {
            return Action::None;
        };
        match l.action.clone() {
            Action::Fold(t, p) => {
                if !self.toggled.remove(&(t, p.clone())) {
                    self.toggled.insert((t, p));
                }
                self.rebuild();
                Action::None
            }
            other => other,
        }
    }

    /// The block `w` saves: the one under the cursor, else the first that can be saved.
    pub(crate) fn save_target(&self) -> Option<usize> {
        let at = self.lines.get(self.cursor.selected).map(|l| &l.action);
        if let Some(Action::Save(i)) = at {
            return Some(*i);
        }
        self.lines.iter().find_map(|l| match l.action {
            Action::Save(i) => Some(i),
            _ => None,
        })
    }

    /// The bytes of content block `i` and a file name for them (tool, history id, index).
    pub(crate) fn file_of(&self, i: usize) -> Option<(String, Vec<u8>)> {
        let Outcome::Result {
            result, history_id, ..
        } = &self.outcome
        else {
            return None;
        };
        let block = result.get("content")?.get(i)?;
        let (data, mime) = match super::text_of(block, "type")? {
            "resource" => {
                let r = block.get("resource")?;
                (
                    super::text_of(r, "blob")?,
                    super::text_of(r, "mimeType").unwrap_or(""),
                )
            }
            _ => (
                super::text_of(block, "data")?,
                super::text_of(block, "mimeType").unwrap_or(""),
            ),
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok()?;
        Some((
            format!("{}-{i}.{}", self.file_stem(*history_id), extension(mime)),
            bytes,
        ))
    }

    /// What `w` saves when no block holds data: the text of the result's text blocks (and of
    /// its embedded text resources), one after the other; else the whole result as JSON.
    pub(crate) fn text_file(&self, whole: &str) -> (String, Vec<u8>) {
        let history_id = match &self.outcome {
            Outcome::Result { history_id, .. } => *history_id,
            _ => None,
        };
        let texts: Vec<&str> = match &self.outcome {
            Outcome::Result { result, .. } => result
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|b| {
                    super::text_of(b, "text")
                        .or_else(|| b.get("resource").and_then(|r| super::text_of(r, "text")))
                })
                .collect(),
            _ => Vec::new(),
        };
        let stem = self.file_stem(history_id);
        if texts.is_empty() {
            return (format!("{stem}.json"), whole.as_bytes().to_vec());
        }
        (format!("{stem}.txt"), texts.join("\n").into_bytes())
    }

    /// A file name's start: the tool (safe characters only) and the history id.
    fn file_stem(&self, history_id: Option<i64>) -> String {
        let tool: String = self
            .tool
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect();
        let h = history_id.map_or("result".to_string(), |h| h.to_string());
        format!("{tool}-{h}")
    }

    fn has_panel(&self, pictures: bool) -> bool {
        pictures && !self.images.blocks.is_empty()
    }

    /// The width of the shown image's picture, once made.
    fn picture_width(&self) -> Option<u16> {
        match self.images.drawn.get(&self.shown_image()?) {
            Some((_, Ok((pic, _)))) => Some(pic.size().width),
            _ => None,
        }
    }

    /// Where the lines go in the result's `area` (beside the picture, if one is drawn).
    pub(crate) fn lines_area(&self, area: Rect, pictures: bool) -> Rect {
        match self.has_panel(pictures) {
            true => split(area, self.picture_width()).0,
            false => area,
        }
    }

    /// The line said under each image block that was decoded, or could not be.
    fn image_notes(&self, result: &Value) -> Notes {
        let mut notes = Notes::new();
        for (i, (_, drawn)) in &self.images.drawn {
            let note = match drawn {
                Ok((_, info)) => {
                    let declared = result
                        .pointer(&format!("/content/{i}/mimeType"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let what = format!(
                        "{}×{} {} · drawn as {}",
                        info.width,
                        info.height,
                        info.format,
                        image::graphics().name()
                    );
                    let mut note = vec![(what, Tone::Dim)];
                    if declared != image::mime_of(info.format) {
                        let d = cut(declared);
                        let lie = format!("declared {d}, but the bytes are {}", info.format);
                        note.push((lie, Tone::Warn));
                    }
                    note
                }
                Err(why) => vec![(format!("cannot draw: {why}"), Tone::Warn)],
            };
            notes.insert(*i, note);
        }
        notes
    }

    /// The image block drawn in the panel: the one under the cursor, else the first.
    pub(crate) fn shown_image(&self) -> Option<usize> {
        let at = self.lines.get(self.cursor.selected).map(|l| &l.action);
        match at {
            Some(Action::Save(i)) if self.images.blocks.contains(i) => Some(*i),
            _ => self.images.blocks.first().copied(),
        }
    }

    /// The job that makes the shown image a picture for a panel of `max` cells, with its key;
    /// `None` when it is made, on its way, or cannot be drawn at any size.
    pub(crate) fn ask_image(&mut self, max: Size) -> Option<(String, Job)> {
        let i = self.shown_image()?;
        match self.images.drawn.get(&i) {
            Some((_, Err(_))) => return None,
            Some((size, Ok(_))) if *size == max => return None,
            _ => {}
        }
        let key = format!("{i}:{}x{}", max.width, max.height);
        if self.images.asked.contains(&key) {
            return None;
        }
        let Outcome::Result { result, .. } = &self.outcome else {
            return None;
        };
        let data = result
            .pointer(&format!("/content/{i}/data"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if data.len() > image::MAX_BASE64 {
            // Said at once, without copying the data into a job.
            let why = image::decode(data).err().unwrap_or_default();
            self.images.drawn.insert(i, (max, Err(why)));
            self.rebuild();
            return None;
        }
        self.images.asked.insert(key.clone());
        let job = image::job(Arc::from(data), max, key.clone(), self.images.inbox.clone());
        Some((key, job))
    }

    /// The job of `key` answered: keep its picture (or why not) and say so under the image.
    pub(crate) fn image_done(&mut self, key: &str) {
        self.images.asked.remove(key);
        let Some(drawn) = self.images.inbox.take(key) else {
            return;
        };
        let parsed = key.split_once(':').and_then(|(i, wh)| {
            let (w, h) = wh.split_once('x')?;
            Some((i.parse().ok()?, Size::new(w.parse().ok()?, h.parse().ok()?)))
        });
        let Some((i, size)) = parsed else {
            return;
        };
        let selected = self.lines.get(self.cursor.selected).cloned();
        let before = self.lines.len();
        self.images.drawn.insert(i, (size, drawn));
        self.rebuild();
        // A note line came in above the cursor: keep the cursor on its line.
        if self.lines.len() > before && selected != self.lines.get(self.cursor.selected).cloned() {
            self.cursor.selected = (self.cursor.selected + 1).min(self.lines.len() - 1);
        }
    }

    fn render_image(&self, f: &mut Frame, panel: (Rect, Borders), theme: Theme) {
        let (area, side) = panel;
        f.render_widget(
            Block::default().borders(side).border_style(theme.dim()),
            area,
        );
        let (caption, picture) = panel_parts(area, side);
        let Some(i) = self.shown_image() else {
            return;
        };
        let n = self.images.blocks.len();
        let k = self.images.blocks.iter().position(|b| *b == i).unwrap_or(0) + 1;
        let mut head = match n {
            1 => "image".to_string(),
            _ => format!("image {k} of {n}"),
        };
        if let Some((_, Ok((_, info)))) = self.images.drawn.get(&i) {
            head.push_str(&format!(
                " · {}×{} {}",
                info.width, info.height, info.format
            ));
        }
        f.render_widget(Paragraph::new(Line::styled(head, theme.dim())), caption);
        let say = |f: &mut Frame, text: String, style: Style| {
            let p = Paragraph::new(Line::styled(text, style)).wrap(Wrap { trim: true });
            f.render_widget(p, picture);
        };
        match self.images.drawn.get(&i) {
            Some((_, Ok((pic, _)))) => {
                if !image::draw(f, picture, pic) {
                    let s = pic.size();
                    let text = format!(
                        "the picture needs {}×{} cells: a larger window draws it",
                        s.width, s.height
                    );
                    say(f, text, theme.dim());
                }
            }
            Some((_, Err(why))) => say(f, format!("cannot draw: {why}"), theme.warn()),
            None => say(f, "decoding…".into(), theme.dim()),
        }
    }

    /// Draw the lines into `area`, the cursor's line marked when `focused`, and the image
    /// panel beside them when `pictures` (the terminal draws images) and there is an image.
    pub(crate) fn render(
        &self,
        f: &mut Frame,
        area: Rect,
        theme: Theme,
        focused: bool,
        pictures: bool,
    ) {
        let panel = split(area, self.picture_width()).1;
        if let (true, Some(p)) = (self.has_panel(pictures), panel) {
            self.render_image(f, p, theme);
        }
        let area = self.lines_area(area, pictures);
        let mut rows: Vec<Line> = self
            .shown(area, theme, focused)
            .into_iter()
            .flat_map(|(_, rows)| rows)
            .collect();
        rows.truncate(area.height as usize);
        f.render_widget(Paragraph::new(rows), area);
    }

    /// ← → (the lines that do not wrap scroll sideways) and `z` (every line wraps, or only
    /// prose); false when `key` is none of them (← at the first column is the owner's).
    pub(crate) fn sideways(&mut self, key: crossterm::event::KeyCode) -> bool {
        use crossterm::event::KeyCode;
        match key {
            KeyCode::Char('z') => {
                self.wrap_all = !self.wrap_all;
                self.left = 0;
            }
            KeyCode::Right if !self.wrap_all => {
                let widest = self.lines.iter().map(width_of).max().unwrap_or(0);
                self.left = (self.left + SIDEWAYS).min(widest.saturating_sub(1));
            }
            KeyCode::Left if self.left > 0 => self.left = self.left.saturating_sub(SIDEWAYS),
            _ => return false,
        }
        true
    }

    /// Line `i` as the rows it takes `width` columns wide: prose (or every line, after `z`)
    /// wrapped, the others from column `left`; highlighted when `here`.
    fn rows_of(&self, i: usize, width: usize, theme: Theme, here: bool) -> Vec<Line<'static>> {
        let l = &self.lines[i];
        let parts: Vec<(String, Style)> = l
            .parts
            .iter()
            .map(|(s, t)| {
                let st = if here {
                    theme.selected()
                } else {
                    tone(*t, theme)
                };
                (s.clone(), st)
            })
            .collect();
        if l.prose || self.wrap_all {
            wrap::rows(&parts, width)
        } else {
            vec![wrap::shifted(&parts, self.left, width)]
        }
    }

    /// The lines drawn in the lines' `area`, each with its rows: from the cursor's window,
    /// moved down until the cursor's line fits whole under the wrapped lines above it.
    fn shown(&self, area: Rect, theme: Theme, focused: bool) -> Vec<(usize, Vec<Line<'static>>)> {
        let (width, height) = (area.width as usize, area.height as usize);
        if self.lines.is_empty() {
            return Vec::new();
        }
        let selected = self.cursor.selected.min(self.lines.len() - 1);
        let mut start = self.cursor.window(self.lines.len(), height).start;
        let rows = |i: usize| self.rows_of(i, width, theme, false).len();
        while start < selected && (start..=selected).map(rows).sum::<usize>() > height {
            start += 1;
        }
        let mut out = Vec::new();
        let mut used = 0;
        for i in start..self.lines.len() {
            if used >= height {
                break;
            }
            let drawn = self.rows_of(i, width, theme, focused && i == selected);
            used += drawn.len();
            out.push((i, drawn));
        }
        out
    }

    /// The line drawn at row `y` of the lines' `area`, if any.
    pub(crate) fn line_at(&self, area: Rect, y: u16) -> Option<usize> {
        let mut top = 0u16;
        for (i, rows) in self.shown(area, Theme::new(false), false) {
            top += rows.len() as u16;
            if y < top {
                return Some(i);
            }
        }
        None
    }
}

/// A line's length, in characters.
fn width_of(l: &RLine) -> usize {
    l.parts.iter().map(|(s, _)| s.chars().count()).sum()
}

fn tone(t: Tone, theme: Theme) -> Style {
    match t {
        Tone::Plain => theme.plain(),
        Tone::Dim => theme.dim(),
        Tone::Title => theme.title(),
        Tone::Error => theme.error(),
        Tone::Ok => theme.ok(),
        Tone::Warn => theme.warn(),
    }
}

fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "text/plain" => "txt",
        _ => "bin",
    }
}

fn check_lines(check: Option<&Check>, out: &mut Vec<RLine>) {
    match check {
        None => {}
        Some(Check::Valid) => out.push(one("✓ structuredContent matches outputSchema", Tone::Ok)),
        Some(Check::Missing) => out.push(one(
            "✗ structuredContent is missing, though the tool declares an outputSchema",
            Tone::Error,
        )),
        Some(Check::Unusable(why)) => {
            out.push(prose(
                cut(&format!("outputSchema cannot be used: {why}")),
                Tone::Warn,
            ));
        }
        Some(Check::Invalid(errors)) => {
            out.push(one(
                format!(
                    "✗ structuredContent does not match outputSchema ({} errors)",
                    errors.len()
                ),
                Tone::Error,
            ));
            for e in errors.iter().take(20) {
                out.push(prose(cut(&format!("  {e}")), Tone::Error));
            }
        }
    }
}

/// What is said under an image block: what it is, or why it cannot be drawn.
type Notes = BTreeMap<usize, Vec<(String, Tone)>>;

/// The content blocks, then `structuredContent`.
fn body(result: &Value, toggled: &HashSet<(usize, String)>, notes: &Notes, out: &mut Vec<RLine>) {
    let blocks = result.get("content").and_then(Value::as_array);
    let n = blocks.map_or(0, Vec::len);
    out.push(one(
        format!("── content ({n} block{}) ──", if n == 1 { "" } else { "s" }),
        Tone::Title,
    ));
    for (i, b) in blocks.into_iter().flatten().enumerate().take(MAX_BLOCKS) {
        if out.len() > MAX_LINES {
            return;
        }
        block(i, b, toggled, out);
        for (note, tone) in notes.get(&i).into_iter().flatten() {
            out.push(RLine {
                parts: vec![(cut(&format!("  {note}")), *tone)],
                action: Action::Save(i),
                prose: false,
            });
        }
    }
    if n > MAX_BLOCKS {
        out.push(one(
            format!("… {} more blocks (f: the whole result)", n - MAX_BLOCKS),
            Tone::Dim,
        ));
    }
    if let Some(s) = result.get("structuredContent") {
        out.push(one("── structuredContent ──", Tone::Title));
        tree(0, s, None, String::new(), 0, toggled, out);
    }
}

fn block(i: usize, b: &Value, toggled: &HashSet<(usize, String)>, out: &mut Vec<RLine>) {
    let kind = super::text_of(b, "type").unwrap_or("?");
    let mime = super::text_of(b, "mimeType").unwrap_or("?");
    match kind {
        "text" => text_block(i, super::text_of(b, "text").unwrap_or(""), toggled, out),
        "image" | "audio" => {
            let bytes = super::text_of(b, "data").map_or(0, |d| d.len() / 4 * 3);
            out.push(RLine {
                parts: vec![
                    (
                        format!("[{kind}] {} · {}", cut(mime), size(bytes)),
                        Tone::Plain,
                    ),
                    ("  w: save to file".into(), Tone::Dim),
                ],
                action: Action::Save(i),
                prose: false,
            });
        }
        "resource_link" => {
            let uri = super::text_of(b, "uri").unwrap_or("");
            let name = super::text_of(b, "name").unwrap_or("");
            out.push(RLine {
                parts: vec![
                    (format!("→ {} {}", cut(uri), cut(name)), Tone::Plain),
                    ("  Enter: open in Resources".into(), Tone::Dim),
                ],
                action: Action::Open(uri.to_string()),
                prose: false,
            });
        }
        "resource" => resource_block(i, b.get("resource").unwrap_or(&Value::Null), out),
        other => out.push(one(cut(&format!("[{other}] {b}")), Tone::Dim)),
    }
}

fn text_block(i: usize, text: &str, toggled: &HashSet<(usize, String)>, out: &mut Vec<RLine>) {
    let t = text.trim_start();
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(text)
    {
        out.push(one("[text: JSON] Enter folds", Tone::Dim));
        return tree(i + 1, &v, None, String::new(), 0, toggled, out);
    }
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(MAX_TEXT_LINES) {
        out.push(prose(cut(l), Tone::Plain));
    }
    if lines.len() > MAX_TEXT_LINES {
        out.push(one(
            format!(
                "… {} more lines (f: the whole result)",
                lines.len() - MAX_TEXT_LINES
            ),
            Tone::Dim,
        ));
    }
}

fn resource_block(i: usize, r: &Value, out: &mut Vec<RLine>) {
    let uri = super::text_of(r, "uri").unwrap_or("");
    let mime = super::text_of(r, "mimeType").unwrap_or("");
    out.push(RLine {
        parts: vec![
            (
                format!("[resource] {} {}", cut(uri), cut(mime)),
                Tone::Plain,
            ),
            ("  Enter: open in Resources".into(), Tone::Dim),
        ],
        action: Action::Open(uri.to_string()),
        prose: false,
    });
    if let Some(text) = super::text_of(r, "text") {
        for l in text.lines().take(MAX_TEXT_LINES) {
            out.push(prose(cut(&format!("  {l}")), Tone::Plain));
        }
    } else if let Some(blob) = super::text_of(r, "blob") {
        out.push(RLine {
            parts: vec![
                (
                    format!("  [blob] {}", size(blob.len() / 4 * 3)),
                    Tone::Plain,
                ),
                ("  w: save to file".into(), Tone::Dim),
            ],
            action: Action::Save(i),
            prose: false,
        });
    }
}

/// A JSON value as foldable lines: containers open unless large (or flipped by the user).
fn tree(
    id: usize,
    v: &Value,
    key: Option<&str>,
    pointer: String,
    depth: usize,
    toggled: &HashSet<(usize, String)>,
    out: &mut Vec<RLine>,
) {
    if out.len() > MAX_LINES {
        return;
    }
    let indent = "  ".repeat(depth.min(40));
    let label = key.map_or(String::new(), |k| format!("{}: ", cut(k)));
    let (n, open_s, close_s) = match v {
        Value::Object(m) => (m.len(), "{", "}"),
        Value::Array(a) => (a.len(), "[", "]"),
        scalar => {
            let t = if scalar.is_string() {
                Tone::Ok
            } else {
                Tone::Plain
            };
            out.push(line(vec![
                (format!("{indent}  {label}"), Tone::Dim),
                (cut(&scalar.to_string()), t),
            ]));
            return;
        }
    };
    if n == 0 {
        out.push(one(
            format!("{indent}  {label}{open_s}{close_s}"),
            Tone::Plain,
        ));
        return;
    }
    let open = (n <= FOLD_OVER && depth < 8) != toggled.contains(&(id, pointer.clone()));
    let fold = Action::Fold(id, pointer.clone());
    if !open {
        let what = if v.is_object() { "keys" } else { "items" };
        out.push(RLine {
            parts: vec![(
                format!("{indent}▸ {label}{open_s}…{close_s} {n} {what}"),
                Tone::Plain,
            )],
            action: fold,
            prose: false,
        });
        return;
    }
    out.push(RLine {
        parts: vec![(format!("{indent}▾ {label}{open_s}"), Tone::Plain)],
        action: fold,
        prose: false,
    });
    let child = |k: &str| format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                tree(id, x, Some(k), child(k), depth + 1, toggled, out);
            }
        }
        Value::Array(a) => {
            for (j, x) in a.iter().enumerate() {
                tree(id, x, None, child(&j.to_string()), depth + 1, toggled, out);
            }
        }
        _ => {}
    }
    out.push(one(format!("{indent}  {close_s}"), Tone::Plain));
}
