//! The Protocol tab: every frame of the server as one compact row — time, direction, source,
//! message, method, id, duration, lint, header verdicts, size — filtered by source (`f`) and by
//! text (`/`), followed as frames arrive, with the selected frame's lint findings and header
//! verdicts below the list, its partner a key away (`j`), and its whole body in the pager
//! (`Enter`, from the core: `Inspector::frame_body`).
//!
//! Bounded: at most [`MAX_ROWS`] rows (the oldest dropped, said in the title) of a few dozen
//! bytes each, and the details of at most [`DETAIL_BUDGET`] bytes (the oldest forgotten). Only
//! the rows on screen are drawn; the filtered index changes with each frame in O(1) and is
//! rebuilt only when the filter does (see `feed.rs`). Older frames (before the TUI started, or
//! dropped) are read from the core when the cursor goes past the top.

pub mod feed;
pub mod fmt;
pub mod row;
mod view;

use super::history::Filter;
use super::{Binding, Ctx, Handled, TabId};
use crate::msg::{Effect, Route};
use crate::widgets::input::{Edit, Input};
use crossterm::event::{KeyCode, KeyEvent};
use feed::Feed;
use ratatui::layout::Rect;
use row::{Detail, Dir, Message, Row, SOURCES};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// Rows kept: past this the oldest go.
pub const MAX_ROWS: usize = 200_000;
/// Bytes of detail lines kept (lint, verdicts, headers): past this the oldest are forgotten.
pub const DETAIL_BUDGET: usize = 4 << 20;
/// Requests waiting for their answer, remembered for pairing (a server that never answers
/// cannot grow it without bound).
const MAX_PENDING: usize = 10_000;
/// Frames asked for per older page.
const OLDER_PAGE: usize = 500;

/// The Protocol tab's state.
#[derive(Debug)]
pub struct Protocol {
    feed: Feed<Row>,
    /// Detail lines by seq, for the frames that have any; `order` is their age.
    details: HashMap<u64, Detail>,
    order: VecDeque<u64>,
    detail_bytes: usize,
    /// Requests not yet answered: (the request's direction is out, its id) → its seq.
    pending: HashMap<(bool, Box<str>), u64>,
    /// The source shown (an index of `SOURCES`); `None`: all.
    source: Option<usize>,
    /// The text filter, as typed.
    search: Input,
    /// The text filter, lower-cased.
    query: String,
    /// The query read as History's filter words (what rows are matched against).
    filter: Filter,
    /// The text filter has the keyboard.
    editing: bool,
    /// An older page is on its way.
    loading: bool,
    /// The core said nothing is older.
    no_older: bool,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            feed: Feed::new(MAX_ROWS),
            details: HashMap::new(),
            order: VecDeque::new(),
            detail_bytes: 0,
            pending: HashMap::new(),
            source: None,
            search: Input::default(),
            query: String::new(),
            filter: Filter::default(),
            editing: false,
            loading: false,
            no_older: false,
        }
    }
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "Enter",
        what: "body",
    },
    Binding {
        keys: "f",
        what: "source",
    },
    Binding {
        keys: "/",
        what: "filter (method: status:)",
    },
    Binding {
        keys: "j",
        what: "request ↔ response",
    },
    Binding {
        keys: "G End",
        what: "follow",
    },
    Binding {
        keys: "↑↓ PgUp PgDn Home",
        what: "move (past the top: older frames)",
    },
    Binding {
        keys: "Esc",
        what: "clear the filter",
    },
];

/// Where the parts of the tab go: the title line, the list, the detail area.
fn parts(area: Rect) -> (Rect, Rect, Rect) {
    let detail_h = if area.height < 10 {
        0
    } else {
        (area.height / 4).clamp(4, 12)
    };
    let list_h = area.height.saturating_sub(1 + detail_h);
    let head = Rect {
        height: 1.min(area.height),
        ..area
    };
    let list = Rect {
        y: area.y + 1,
        height: list_h,
        ..area
    };
    let detail = Rect {
        y: area.y + 1 + list_h,
        height: detail_h,
        ..area
    };
    (head, list, detail)
}

impl Protocol {
    /// Rows kept.
    pub fn len(&self) -> usize {
        self.feed.len()
    }

    /// True when no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.feed.is_empty()
    }

    /// Rows the filter shows.
    pub fn shown(&self) -> usize {
        self.feed.shown_len()
    }

    /// Rows dropped past the bound.
    pub fn dropped(&self) -> u64 {
        self.feed.dropped
    }

    /// Detail entries kept, and their bytes.
    pub fn details(&self) -> (usize, usize) {
        (self.details.len(), self.detail_bytes)
    }

    /// The selected row.
    pub fn selected(&self) -> Option<&Row> {
        self.feed.selected_item()
    }

    /// The row of frame `seq`.
    pub fn row(&self, seq: u64) -> Option<&Row> {
        let i = self.feed.partition_point(|r| r.seq < seq);
        self.feed.get(self.feed.abs(i)).filter(|r| r.seq == seq)
    }

    /// True while following.
    pub fn following(&self) -> bool {
        self.feed.follow
    }

    /// The rows drawn in a list of `height`, as (seq, selected): what `render` touches.
    pub fn visible_seqs(&self, height: usize) -> Vec<(u64, bool)> {
        self.feed
            .visible(height)
            .map(|(_, r, s)| (r.seq, s))
            .collect()
    }

    /// True when `r` is shown by the source and the filter (History's words: `method:M`, a
    /// method or a prefix ending in `/`; `status:S`, see [`status_is`]; the rest searched in
    /// the row's text and id).
    fn keeps(source: Option<usize>, filter: &Filter, r: &Row) -> bool {
        source.is_none_or(|s| r.is(s))
            && filter.method.as_deref().is_none_or(|m| {
                r.has_method
                    && (r.summary.eq_ignore_ascii_case(m)
                        || m.ends_with('/') && r.summary.to_lowercase().starts_with(m))
            })
            && filter.status.as_deref().is_none_or(|st| status_is(r, st))
            && filter.text.as_deref().is_none_or(|q| {
                r.summary.to_lowercase().contains(q)
                    || r.id
                        .as_deref()
                        .is_some_and(|id| id.to_lowercase().contains(q))
            })
    }

    fn rebuild(&mut self) {
        self.filter = Filter::of(&self.query);
        let (source, filter) = (self.source, self.filter.clone());
        self.feed.rebuild(|r| Protocol::keeps(source, &filter, r));
    }

    /// Take one `FrameView`: a new row at the end, a row replaced (same seq: the verdicts
    /// completed), or a late one put in its place.
    pub fn ingest(&mut self, v: &Value) {
        let Some(mut row) = Row::of(v) else {
            return;
        };
        let seq = row.seq;
        self.keep_detail(seq, row::detail(v));
        if self.feed.last().is_some_and(|last| seq <= last.seq) {
            let i = self.feed.partition_point(|r| r.seq < seq);
            let abs = self.feed.abs(i);
            if let Some(old) = self.feed.get_mut(abs).filter(|r| r.seq == seq) {
                row.partner = old.partner;
                *old = row;
                return;
            }
            self.pair(&mut row);
            let (source, filter) = (self.source, self.filter.clone());
            self.feed
                .insert(i, row, |r| Protocol::keeps(source, &filter, r));
            return;
        }
        self.pair(&mut row);
        let keep = Protocol::keeps(self.source, &self.filter, &row);
        self.feed.push(row, keep);
    }

    /// Pair a request with its answer by id (the answer goes the other way).
    fn pair(&mut self, row: &mut Row) {
        let Some(id) = row.id.clone() else {
            return;
        };
        if row.message == Message::Request && row.dir != Dir::Local {
            if self.pending.len() >= MAX_PENDING {
                self.pending.clear();
            }
            self.pending.insert((row.dir == Dir::Out, id), row.seq);
        } else if row.message.answers() {
            let Some(req) = self.pending.remove(&(row.dir != Dir::Out, id)) else {
                return;
            };
            row.partner = Some(req);
            let i = self.feed.partition_point(|r| r.seq < req);
            let abs = self.feed.abs(i);
            if let Some(r) = self.feed.get_mut(abs).filter(|r| r.seq == req) {
                r.partner = Some(row.seq);
            }
        }
    }

    fn keep_detail(&mut self, seq: u64, d: Detail) {
        if d.is_empty() {
            return;
        }
        self.detail_bytes += row::detail_bytes(&d);
        if let Some(old) = self.details.insert(seq, d) {
            self.detail_bytes -= row::detail_bytes(&old);
        } else {
            self.order.push_back(seq);
        }
        while self.detail_bytes > DETAIL_BUDGET {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(d) = self.details.remove(&old) {
                self.detail_bytes -= row::detail_bytes(&d);
            }
        }
    }

    /// Older frames arrived (oldest first): those before the first row go before it.
    fn older(&mut self, frames: &[Value]) {
        let first = self.feed.first().map_or(u64::MAX, |r| r.seq);
        let mut rows = Vec::new();
        for v in frames {
            if let Some(r) = Row::of(v).filter(|r| r.seq < first) {
                self.keep_detail(r.seq, row::detail(v));
                rows.push(r);
            }
        }
        if rows.is_empty() {
            self.no_older = true;
            return;
        }
        let (source, filter) = (self.source, self.filter.clone());
        self.feed
            .prepend(rows, |r| Protocol::keeps(source, &filter, r));
    }

    fn ask_older(&mut self, ctx: &Ctx) -> Vec<Effect> {
        if self.loading || self.no_older || self.feed.len() >= MAX_ROWS {
            return Vec::new();
        }
        self.loading = true;
        vec![Effect::Frames {
            route: Route::new(&ctx.server.name, TabId::Protocol, "older", ""),
            before: self.feed.first().map(|r| r.seq),
            limit: OLDER_PAGE,
        }]
    }

    fn jump(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let height = parts(ctx.area).1.height as usize;
        let Some(partner) = self.selected().and_then(|r| r.partner) else {
            return toast("this frame has no request/response partner here");
        };
        let i = self.feed.partition_point(|r| r.seq < partner);
        let abs = self.feed.abs(i);
        if self.feed.get(abs).is_none_or(|r| r.seq != partner) {
            return toast(format!("frame {partner} is no longer kept"));
        }
        if !self.feed.select_abs(abs, height) {
            return toast(format!("frame {partner} is hidden by the filter"));
        }
        Vec::new()
    }

    fn open(&self, ctx: &Ctx) -> Vec<Effect> {
        match self.selected() {
            Some(r) => vec![Effect::FrameBody {
                route: Route::new(&ctx.server.name, TabId::Protocol, "body", r.seq.to_string()),
                seq: r.seq,
            }],
            None => Vec::new(),
        }
    }

    fn edit(&mut self, key: KeyEvent) -> Handled {
        match key.code {
            KeyCode::Enter => self.editing = false,
            KeyCode::Esc => {
                self.editing = false;
                self.search.set("");
                self.set_query();
            }
            _ => {
                if self.search.key(key) == Edit::Changed {
                    self.set_query();
                }
            }
        }
        Handled::done()
    }

    fn set_query(&mut self) {
        let q = self.search.text().trim().to_lowercase();
        if q != self.query {
            self.query = q;
            self.rebuild();
        }
    }

    /// The pager's text for frame `seq`: what the row and the detail say, then the body.
    fn body_text(&self, seq: u64, v: &Value) -> String {
        let mut out = String::new();
        if let Some(r) = self.row(seq) {
            out.push_str(&describe(r));
            out.push('\n');
        }
        for (_, l) in self.details.get(&seq).into_iter().flatten() {
            out.push_str(l);
            out.push('\n');
        }
        let size = v.get("size").and_then(Value::as_u64).unwrap_or(0);
        out.push_str(&format!("\nBody ({}):\n", fmt::bytes(size)));
        out.push_str(&fmt::pretty(super::text(v, "text")));
        out
    }
}

/// True when `r` has the status `status:` asks for, in History's words: `error` (drawn red, a
/// JSON-RPC error, an invalid message), `ok` (an answer that is not an error), `pending` (a
/// request not answered yet), `cancelled` (`notifications/cancelled`); or an HTTP status or
/// its class (`404`, `4xx`).
fn status_is(r: &Row, status: &str) -> bool {
    let bad = r.red || matches!(r.message, Message::Error | Message::Invalid);
    match status {
        "error" | "err" => bad,
        "ok" | "success" => r.message == Message::Response && !bad,
        "pending" => r.message == Message::Request && r.partner.is_none(),
        "cancelled" => r.has_method && &*r.summary == "notifications/cancelled",
        code if code.starts_with(|c: char| c.is_ascii_digit()) => {
            let digits = code.trim_end_matches('x');
            r.summary
                .strip_prefix("HTTP ")
                .is_some_and(|s| s.starts_with(digits))
        }
        _ => false,
    }
}

fn toast(text: impl Into<String>) -> Vec<Effect> {
    vec![Effect::Toast {
        text: text.into(),
        error: false,
    }]
}

/// The first line of a frame's detail: what it is, in words.
fn describe(r: &Row) -> String {
    let mut s = format!(
        "frame {} · {} {} · {} {}",
        r.seq,
        fmt::clock(r.time_us),
        r.dir.arrow(),
        SOURCES[r.source as usize % SOURCES.len()],
        match r.message {
            Message::None => "",
            Message::Notification => "notification",
            Message::Request => "request",
            Message::Response => "response",
            Message::Error => "error",
            Message::Batch => "batch",
            Message::Invalid => "invalid message",
        }
    );
    if let Some(id) = &r.id {
        s.push_str(&format!(" · id {id}"));
    }
    s.push_str(&format!(" · {}", fmt::bytes(r.size)));
    if let Some(d) = r.duration_ms {
        s.push_str(&format!(" · took {}", fmt::duration(d as f64)));
    }
    if let Some(h) = r.history_id {
        s.push_str(&format!(" · history #{h}"));
    }
    if let Some(p) = r.partner {
        s.push_str(&format!(
            " · {} is frame {p} (j)",
            if r.message == Message::Request {
                "answer"
            } else {
                "request"
            }
        ));
    }
    s
}
