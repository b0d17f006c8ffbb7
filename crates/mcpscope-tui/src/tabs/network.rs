//! The Network tab: the server's HTTP exchanges, one row each — method, URL, status, duration,
//! size, the JSON-RPC method it carried — made from the core's `http` frames: a request, its
//! response and its SSE events share the frame meta's `exchange` number (`FrameMeta` in
//! `mcpscope-proto/src/frame.rs`); a lifecycle note with `failed` says it got no answer.
//! `Enter` shows the request's and the response's headers and bodies in the pager (the bodies
//! from the core: `Inspector::frame_body`). Bounded: [`MAX_EXCHANGES`] rows, their headers within
//! [`HEADER_BUDGET`] bytes (the oldest exchanges' headers are forgotten first).

use super::protocol::feed::Feed;
use super::protocol::fmt::{bytes, clock, cut, duration, pad, pretty};
use super::{Binding, Ctx, Handled, Tab, TabId, text};
use crate::msg::{CoreEvent, Done, Effect, Route};
use crate::widgets::input::{Edit, Input};
use crate::widgets::pager::Pager;
use crate::widgets::style::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// Exchanges kept: past this the oldest go.
pub const MAX_EXCHANGES: usize = 5_000;
/// Bytes of headers kept over all exchanges.
pub const HEADER_BUDGET: usize = 4 << 20;
/// Headers kept per request or response, and characters per header.
const HEADERS: usize = 40;
const HEADER_CHARS: usize = 300;

/// Headers as kept: (name, value), cut.
type Headers = Vec<(Box<str>, Box<str>)>;

/// One HTTP exchange.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exchange {
    /// The exchange number of its frames.
    pub number: u64,
    /// The HTTP method.
    pub method: Box<str>,
    /// The URL.
    pub url: Box<str>,
    /// The JSON-RPC method the request carried.
    pub rpc: Option<Box<str>>,
    /// The response status.
    pub status: Option<u16>,
    /// Why it got no answer.
    pub failed: Option<Box<str>>,
    /// When the request went.
    pub start_us: u64,
    /// When its last frame came.
    pub end_us: Option<u64>,
    /// The request frame, and the response frame.
    pub req_seq: Option<u64>,
    /// The response frame.
    pub res_seq: Option<u64>,
    /// Bytes sent, and bytes received (the response body and every SSE event).
    pub sent: u64,
    /// Bytes received.
    pub received: u64,
    /// SSE events received.
    pub events: u32,
    /// The request's and the response's headers (empty once forgotten).
    pub req_headers: Headers,
    /// The response's headers.
    pub res_headers: Headers,
}

/// Bytes `h` holds, roughly (the strings and their boxes).
fn header_bytes(h: &Headers) -> usize {
    h.iter().map(|(k, v)| k.len() + v.len() + 32).sum()
}

impl Exchange {
    /// Bad news: 4xx/5xx or no answer.
    pub fn bad(&self) -> bool {
        self.failed.is_some() || self.status.is_some_and(|s| s >= 400)
    }
}

/// The bodies asked for to show one exchange.
#[derive(Debug, Default)]
struct Opening {
    abs: usize,
    waiting: usize,
    request: Option<String>,
    response: Option<String>,
}

/// The Network tab's state.
#[derive(Debug)]
pub struct Network {
    feed: Feed<Exchange>,
    /// The row of each exchange number (its latest).
    by_number: HashMap<u64, usize>,
    /// Rows holding headers, oldest first, with the bytes each added.
    with_headers: VecDeque<(usize, usize)>,
    header_bytes: usize,
    search: Input,
    query: String,
    editing: bool,
    opening: Option<Opening>,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            feed: Feed::new(MAX_EXCHANGES),
            by_number: HashMap::new(),
            with_headers: VecDeque::new(),
            header_bytes: 0,
            search: Input::default(),
            query: String::new(),
            editing: false,
            opening: None,
        }
    }
}

const KEYS: &[Binding] = &[
    Binding {
        keys: "Enter",
        what: "headers + bodies",
    },
    Binding {
        keys: "/",
        what: "filter",
    },
    Binding {
        keys: "G End",
        what: "follow",
    },
    Binding {
        keys: "↑↓ PgUp PgDn Home",
        what: "move",
    },
    Binding {
        keys: "Esc",
        what: "clear the filter",
    },
];

fn headers(meta: &Value) -> Headers {
    meta.get("headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let p = p.as_array()?;
            Some((
                cut(p.first()?.as_str()?, 80).into_boxed_str(),
                cut(p.get(1)?.as_str()?, HEADER_CHARS).into_boxed_str(),
            ))
        })
        .take(HEADERS)
        .collect()
}

impl Network {
    /// Exchanges kept.
    pub fn len(&self) -> usize {
        self.feed.len()
    }

    /// True when no exchange is kept.
    pub fn is_empty(&self) -> bool {
        self.feed.is_empty()
    }

    /// Exchanges the filter shows.
    pub fn shown(&self) -> usize {
        self.feed.shown_len()
    }

    /// The selected exchange.
    pub fn selected(&self) -> Option<&Exchange> {
        self.feed.selected_item()
    }

    /// Every exchange kept, oldest first.
    pub fn exchanges(&self) -> impl Iterator<Item = &Exchange> {
        self.feed.iter()
    }

    fn keeps(query: &str, x: &Exchange) -> bool {
        query.is_empty()
            || x.url.to_lowercase().contains(query)
            || x.method.to_lowercase().contains(query)
            || x.rpc
                .as_deref()
                .is_some_and(|m| m.to_lowercase().contains(query))
            || x.status.is_some_and(|s| s.to_string() == query)
    }

    /// Take one frame: the start, the answer, an event or the failure of an exchange.
    fn ingest(&mut self, v: &Value) {
        let meta = v.get("meta").unwrap_or(&Value::Null);
        let Some(number) = meta.get("exchange").and_then(Value::as_u64) else {
            return;
        };
        let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
        let time = v.get("timeUs").and_then(Value::as_u64).unwrap_or(0);
        let size = v.get("size").and_then(Value::as_u64).unwrap_or(0);
        let kind = text(v, "kind");
        let current = self.by_number.get(&number).copied();
        if kind == "http-request" {
            // The same frame again (its verdicts completed): only its headers may be news.
            let again = current
                .and_then(|a| self.feed.get(a))
                .is_some_and(|x| x.req_seq == Some(seq));
            if !again {
                self.start(number, seq, time, v, meta);
            }
            return;
        }
        let abs = match current {
            Some(a) if self.feed.get(a).is_some() => a,
            _ => self.start(number, 0, time, v, &Value::Null),
        };
        let mut grew = 0;
        if let Some(x) = self.feed.get_mut(abs) {
            x.end_us = Some(time.max(x.start_us));
            match kind {
                "http-response" => {
                    x.res_seq = Some(seq);
                    x.status = meta.get("status").and_then(Value::as_u64).map(|s| s as u16);
                    x.received += size;
                    x.res_headers = headers(meta);
                    grew = header_bytes(&x.res_headers);
                }
                "sse-event" => {
                    x.events = x.events.saturating_add(1);
                    x.received += size;
                }
                "lifecycle" if meta.get("failed").and_then(Value::as_bool) == Some(true) => {
                    x.failed = Some(cut(text(meta, "note"), 200).into_boxed_str());
                }
                _ => {}
            }
        }
        self.count_headers(abs, grew);
    }

    /// A new row for exchange `number` (from its request frame `v`, or a stand-in when the
    /// request was never seen); its position.
    fn start(&mut self, number: u64, seq: u64, time: u64, v: &Value, meta: &Value) -> usize {
        let rpc = Some(text(v, "method"))
            .filter(|m| !m.is_empty() && seq != 0)
            .map(|m| cut(m, 80).into_boxed_str());
        let x = Exchange {
            number,
            method: cut(text(meta, "method"), 16).into_boxed_str(),
            url: cut(text(meta, "url"), 400).into_boxed_str(),
            rpc,
            start_us: time,
            req_seq: (seq != 0).then_some(seq),
            sent: if seq != 0 {
                v.get("size").and_then(Value::as_u64).unwrap_or(0)
            } else {
                0
            },
            req_headers: headers(meta),
            ..Exchange::default()
        };
        let keep = Network::keeps(&self.query, &x);
        let added = header_bytes(&x.req_headers);
        let dropped = self.feed.dropped;
        self.feed.push(x, keep);
        let abs = self.feed.last_abs().unwrap_or(0);
        if self.feed.dropped > dropped {
            let front = self.feed.abs(0);
            self.by_number.retain(|_, a| *a >= front);
        }
        self.by_number.insert(number, abs);
        self.count_headers(abs, added);
        abs
    }

    /// Row `abs` holds `added` more bytes of headers: count them, forgetting the oldest
    /// exchanges' headers past the budget.
    fn count_headers(&mut self, abs: usize, added: usize) {
        if added == 0 {
            return;
        }
        self.with_headers.push_back((abs, added));
        self.header_bytes += added;
        while self.header_bytes > HEADER_BUDGET && self.with_headers.len() > 1 {
            let Some((old, n)) = self.with_headers.pop_front() else {
                break;
            };
            self.header_bytes -= n;
            if let Some(x) = self.feed.get_mut(old) {
                x.req_headers = Vec::new();
                x.res_headers = Vec::new();
            }
        }
    }
}

impl Network {
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
            let query = self.query.clone();
            self.feed.rebuild(|x| Network::keeps(&query, x));
        }
    }

    /// Ask for the bodies of the selected exchange; the pager opens when both are in.
    fn open(&mut self, ctx: &Ctx) -> Vec<Effect> {
        let Some(abs) = self.feed.selected() else {
            return Vec::new();
        };
        let Some(x) = self.feed.get(abs) else {
            return Vec::new();
        };
        let route = |tag| Route::new(&ctx.server.name, TabId::Network, tag, abs.to_string());
        let mut out = Vec::new();
        if let Some(seq) = x.req_seq {
            out.push(Effect::FrameBody {
                route: route("request"),
                seq,
            });
        }
        if let Some(seq) = x.res_seq {
            out.push(Effect::FrameBody {
                route: route("response"),
                seq,
            });
        }
        self.opening = Some(Opening {
            abs,
            waiting: out.len(),
            ..Opening::default()
        });
        if out.is_empty() {
            return self.show();
        }
        out
    }

    /// One body came (or could not be read).
    fn body(&mut self, done: Done) -> Vec<Effect> {
        let Some(o) = self.opening.as_mut() else {
            return Vec::new();
        };
        if done.route.key != o.abs.to_string() {
            return Vec::new();
        }
        let body = match done.result {
            Ok(v) => pretty(text(&v, "text")),
            Err(f) => format!("(cannot read it: {})", f.message),
        };
        if done.route.tag == "request" {
            o.request = Some(body);
        } else {
            o.response = Some(body);
        }
        o.waiting = o.waiting.saturating_sub(1);
        if o.waiting == 0 {
            self.show()
        } else {
            Vec::new()
        }
    }

    /// The pager over the exchange being opened.
    fn show(&mut self) -> Vec<Effect> {
        let Some(o) = self.opening.take() else {
            return Vec::new();
        };
        let Some(x) = self.feed.get(o.abs) else {
            return Vec::new();
        };
        let mut t = format!("{} {}\n{}\n\n", x.method, x.url, outcome(x));
        let section = |t: &mut String, name: &str, h: &Headers, body: Option<String>| {
            t.push_str(&format!("{name} headers\n"));
            if h.is_empty() {
                t.push_str("  (none kept)\n");
            }
            for (k, v) in h {
                t.push_str(&format!("  {k}: {v}\n"));
            }
            t.push_str(&format!("\n{name} body\n"));
            match body {
                Some(b) if !b.is_empty() => t.push_str(&b),
                Some(_) => t.push_str("(empty)"),
                None => t.push_str("(not seen)"),
            }
            t.push_str("\n\n");
        };
        section(&mut t, "Request", &x.req_headers, o.request);
        section(&mut t, "Response", &x.res_headers, o.response);
        if x.events > 0 {
            t.push_str(&format!(
                "{} SSE events followed (each is a frame in Protocol).\n",
                x.events
            ));
        }
        let title = format!("exchange {} · {} {}", x.number, x.method, x.url);
        vec![Effect::ShowPager(Pager::new(title, &t))]
    }
}

/// What came of an exchange, in words: status, time taken, bytes, events.
fn outcome(x: &Exchange) -> String {
    let mut s = match (&x.failed, x.status) {
        (Some(why), _) => format!("no answer: {why}"),
        (None, Some(st)) => format!("→ HTTP {st}"),
        (None, None) => "→ waiting".to_string(),
    };
    if let Some(end) = x.end_us {
        let ms = end.saturating_sub(x.start_us) as f64 / 1_000.0;
        s.push_str(&format!(" · {}", duration(ms)));
    }
    s.push_str(&format!(
        " · sent {} · received {}",
        bytes(x.sent),
        bytes(x.received)
    ));
    if x.events > 0 {
        s.push_str(&format!(" in {} SSE events", x.events));
    }
    if let Some(m) = &x.rpc {
        s.push_str(&format!(" · {m}"));
    }
    s
}

fn list_height(area: Rect) -> usize {
    area.height.saturating_sub(1) as usize
}

impl Tab for Network {
    fn captures(&self) -> bool {
        self.editing
    }

    fn key(&mut self, ctx: &Ctx, key: KeyEvent) -> Handled {
        if self.editing {
            return self.edit(key);
        }
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return Handled::No;
        }
        match key.code {
            KeyCode::Char('/') => self.editing = true,
            KeyCode::Enter => return Handled::Yes(self.open(ctx)),
            KeyCode::Esc if !self.query.is_empty() => {
                self.search.set("");
                self.set_query();
            }
            _ if self.feed.key(key, list_height(ctx.area)) => {}
            _ => return Handled::No,
        }
        Handled::done()
    }

    fn scroll(&mut self, ctx: &Ctx, down: bool) -> Vec<Effect> {
        self.feed.scroll(down, list_height(ctx.area));
        Vec::new()
    }

    fn click(&mut self, ctx: &Ctx, _col: u16, row: u16) -> Vec<Effect> {
        if row >= 1 {
            self.feed.click(row as usize - 1, list_height(ctx.area));
        }
        Vec::new()
    }

    fn core(&mut self, _ctx: &Ctx, event: &CoreEvent) -> Vec<Effect> {
        if event.name == "frame" {
            self.ingest(&event.data);
        }
        Vec::new()
    }

    fn done(&mut self, _ctx: &Ctx, done: Done) -> Vec<Effect> {
        self.body(done)
    }

    /// A new connection numbers its exchanges afresh: the rows stay (they are the log), the
    /// numbers are forgotten so a new exchange never joins an old row.
    fn reset(&mut self) {
        self.by_number.clear();
    }

    fn bindings(&self) -> &'static [Binding] {
        crate::tabs::or_search_keys(self.editing, KEYS)
    }

    fn render(&self, ctx: &Ctx, f: &mut Frame, area: Rect) {
        let theme = Theme::new(ctx.color);
        let head = Rect {
            height: area.height.min(1),
            ..area
        };
        let list = Rect {
            y: area.y + head.height,
            height: area.height - head.height,
            ..area
        };
        f.render_widget(Paragraph::new(self.title(theme, area.width)), head);
        if self.feed.shown_len() == 0 {
            let why = match (self.feed.is_empty(), ctx.server.transport.as_str()) {
                (false, _) => "No exchange matches the filter (Esc clears it).",
                (true, "stdio") => {
                    "No HTTP here: this server speaks over stdio (its traffic is in Protocol)."
                }
                (true, _) if !ctx.server.connected() => crate::strings::NOT_CONNECTED,
                (true, _) => "No HTTP exchanges yet.",
            };
            f.render_widget(Paragraph::new(Line::styled(why, theme.dim())), list);
            return;
        }
        let w = list.width as usize;
        let lines: Vec<Line> = self
            .feed
            .visible(list.height as usize)
            .map(|(_, x, sel)| exchange_line(x, sel, w, theme))
            .collect();
        f.render_widget(Paragraph::new(lines), list);
    }
}

impl Network {
    fn title(&self, theme: Theme, width: u16) -> Line<'static> {
        let mut spans = vec![Span::raw(format!(
            "{} of {} HTTP exchanges",
            self.feed.shown_len(),
            self.feed.len()
        ))];
        if self.feed.dropped > 0 {
            spans.push(Span::styled(
                format!(" ({} oldest dropped)", self.feed.dropped),
                theme.dim(),
            ));
        }
        spans.push(Span::raw(" · "));
        if self.editing || !self.query.is_empty() {
            spans.push(Span::styled("/", theme.key()));
            let room = (width as usize).saturating_sub(44).max(16);
            spans.extend(self.search.spans(self.editing, room).spans);
            spans.push(Span::raw(" · "));
        }
        spans.push(if self.feed.follow {
            Span::styled("following", theme.ok())
        } else {
            Span::styled("paused (G follows)", theme.warn())
        });
        Line::from(spans)
    }
}

/// One exchange: time, method, status, duration, size, the JSON-RPC method, the URL.
fn exchange_line(x: &Exchange, selected: bool, w: usize, theme: Theme) -> Line<'static> {
    let style = |s: Style| if selected { theme.selected() } else { s };
    let time = clock(x.start_us);
    let time = if w >= 90 { time } else { time[3..].to_string() };
    let status = match (&x.failed, x.status) {
        (Some(_), _) => "fail".to_string(),
        (None, Some(s)) => s.to_string(),
        (None, None) => "…".to_string(),
    };
    let took = x
        .end_us
        .map(|e| duration(e.saturating_sub(x.start_us) as f64 / 1_000.0))
        .unwrap_or_default();
    let size = if x.events > 0 {
        format!("{} ({}ev)", bytes(x.received), x.events)
    } else {
        bytes(x.received)
    };
    let left = format!(
        "{time} {:<6} {status:>4} {took:>8} {size:>14} ",
        pad(&x.method, 6)
    );
    let rpc = x
        .rpc
        .as_deref()
        .map(|m| format!("{m}  "))
        .unwrap_or_default();
    let room = w.saturating_sub(left.chars().count());
    let rest = pad(&format!("{rpc}{}", x.url), room);
    let tone = if x.bad() {
        theme.error()
    } else {
        theme.plain()
    };
    Line::from(vec![
        Span::styled(left, style(tone)),
        Span::styled(rest, style(theme.plain())),
    ])
}
