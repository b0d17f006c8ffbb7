//! A Server-Sent Events parser that keeps every field, for recording rather than for hiding.
//!
//! It follows the WHATWG event-stream rules (lines end in CRLF, LF or CR; `data` lines join with
//! LF; a blank line dispatches; a leading space after the colon is dropped; comments start with
//! `:`), but unlike a browser it also reports events whose `data` is empty — a server's priming
//! event (`id` plus empty `data`) is traffic the user should see.

use bytes::{Bytes, BytesMut};
use mcpscope_proto::{Direction, Frame, FrameKind, FrameMeta};

/// Bytes a line may hold beyond the data limit (the field name, `: `), so a line is cut only
/// when its value would be anyway.
const LINE_SLACK: usize = 64;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// `id` field, if the event had one.
    pub id: Option<String>,
    /// `event` field, if any (absent means `message`).
    pub event: Option<String>,
    /// `data` lines joined with `\n`.
    pub data: String,
    /// `retry` field in milliseconds, if any.
    pub retry: Option<u64>,
    /// Number of bytes the event occupied on the wire.
    pub wire_len: usize,
}

impl SseEvent {
    /// True when the event carries a JSON-RPC message: data under the `message` event name.
    pub fn is_message(&self) -> bool {
        !self.data.is_empty() && self.event.as_deref().is_none_or(|e| e == "message")
    }

    /// The inbound frame that records this event of HTTP exchange `exchange`; `overflow` says
    /// its data was cut at the limit (so it carries no message to classify).
    pub(crate) fn into_frame(self, exchange: u64, note: Option<String>, overflow: bool) -> Frame {
        let carries_message = self.is_message() && !overflow;
        let mut f = Frame::new(Direction::In, FrameKind::SseEvent, Bytes::from(self.data))
            .with_meta(FrameMeta {
                exchange: Some(exchange),
                sse_id: self.id,
                sse_event: self.event,
                sse_retry: self.retry,
                note,
                truncated: overflow,
                ..Default::default()
            });
        f.carries_message = carries_message;
        f
    }
}

/// Incremental parser: feed chunks, collect events.
#[derive(Debug, Default)]
pub struct SseParser {
    line: BytesMut,
    pending_cr: bool,
    current: SseEvent,
    has_data: bool,
    has_fields: bool,
    /// Largest event we accept; bigger data is cut (and flagged by the caller through `overflow`).
    /// Bounds memory too: a line is kept up to `max + LINE_SLACK` bytes, the rest skipped.
    max: Option<usize>,
    /// Set when an event's data was cut short.
    pub overflow: bool,
}

impl SseParser {
    /// A parser that cuts an event's data at `max` bytes.
    pub fn with_max(max: usize) -> Self {
        SseParser {
            max: Some(max),
            ..Default::default()
        }
    }

    /// Feed a chunk; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if self.pending_cr {
                self.pending_cr = false;
                if b == b'\n' {
                    self.current.wire_len += 1;
                    i += 1;
                    start = i;
                    continue;
                }
            }
            if b == b'\n' || b == b'\r' {
                self.push_line(&chunk[start..i]);
                self.current.wire_len += i - start + 1;
                if b == b'\r' {
                    self.pending_cr = true;
                }
                let line = self.line.split().freeze();
                if let Some(ev) = self.process_line(&line) {
                    out.push(ev);
                }
                i += 1;
                start = i;
                continue;
            }
            i += 1;
        }
        self.push_line(&chunk[start..]);
        self.current.wire_len += chunk.len() - start;
        out
    }

    /// Add bytes to the line being read, up to the line limit; what is over it is dropped (the
    /// line's value would be cut at `max` anyway) and `overflow` set. Without this a server that
    /// never ends a line would grow the buffer without bound.
    fn push_line(&mut self, bytes: &[u8]) {
        let room = match self.max {
            Some(m) => m.saturating_add(LINE_SLACK).saturating_sub(self.line.len()),
            None => usize::MAX,
        };
        if bytes.len() > room {
            self.overflow = true;
        }
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// End of stream: an event without its final blank line is discarded by browsers; we return
    /// it so it is not lost, and the caller notes that it was incomplete.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() {
            let line = self.line.split().freeze();
            self.process_line(&line);
        }
        if self.has_fields {
            Some(self.take())
        } else {
            None
        }
    }

    fn take(&mut self) -> SseEvent {
        self.has_data = false;
        self.has_fields = false;
        std::mem::take(&mut self.current)
    }

    fn process_line(&mut self, line: &Bytes) -> Option<SseEvent> {
        if line.is_empty() {
            if self.has_fields {
                return Some(self.take());
            }
            self.current.wire_len = 0;
            return None;
        }
        if line[0] == b':' {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.find(':') {
            Some(p) => {
                let v = &text[p + 1..];
                (&text[..p], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (&text[..], ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.push_data("\n");
                }
                self.push_data(value);
                self.has_data = true;
                self.has_fields = true;
            }
            "event" => {
                self.current.event = Some(value.to_string());
                self.has_fields = true;
            }
            "id" => {
                if !value.contains('\0') {
                    self.current.id = Some(value.to_string());
                }
                self.has_fields = true;
            }
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.current.retry = Some(ms);
                }
                self.has_fields = true;
            }
            _ => {}
        }
        None
    }

    /// Append to the event's data, cut at `max` (on a character boundary) with `overflow` set.
    /// The joining newlines count too: a stream of bare `data` lines must not grow past `max`.
    fn push_data(&mut self, s: &str) {
        let data = &mut self.current.data;
        match self.max {
            Some(m) if data.len() + s.len() > m => {
                let mut cut = m.saturating_sub(data.len()).min(s.len());
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                data.push_str(&s[..cut]);
                self.overflow = true;
            }
            _ => data.push_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_across_chunks_and_line_endings() {
        let mut p = SseParser::default();
        let mut evs = p.feed(b"id: 1\r\nretry: 500\r\ndata:\r\n\r\nevent: mess");
        evs.extend(p.feed(b"age\ndata: {\"a\":\ndata: 1}\n\n: keepalive\n\rdata: x\r"));
        evs.extend(p.feed(b"\r"));
        assert_eq!(evs.len(), 3);
        assert_eq!(evs[0].id.as_deref(), Some("1"));
        assert_eq!(evs[0].retry, Some(500));
        assert_eq!(evs[0].data, "");
        assert_eq!(evs[1].event.as_deref(), Some("message"));
        assert_eq!(evs[1].data, "{\"a\":\n1}");
        assert_eq!(evs[2].data, "x");
    }

    #[test]
    fn unterminated_event_is_returned_at_finish() {
        let mut p = SseParser::default();
        assert!(p.feed(b"data: tail").is_empty());
        assert_eq!(p.finish().unwrap().data, "tail");
    }

    /// A server that never ends its line: the line buffer stops at the limit (it grew without
    /// bound), reading goes on, and the event still arrives with its data cut.
    #[test]
    fn an_endless_line_is_bounded() {
        let mut p = SseParser::with_max(1000);
        p.feed(b"data: ");
        for _ in 0..1000 {
            assert!(p.feed(&[b'x'; 10_000]).is_empty());
            assert!(p.line.len() <= 1000 + LINE_SLACK, "{}", p.line.len());
        }
        let evs = p.feed(b"\n\n");
        assert_eq!(evs[0].data.len(), 1000);
        assert_eq!(evs[0].wire_len, 6 + 10_000_000 + 2);
        assert!(p.overflow);
    }

    /// Bare `data` lines each add a joining newline; those count against the limit too.
    #[test]
    fn joining_newlines_count_against_the_limit() {
        let mut p = SseParser::with_max(100);
        assert!(p.feed(&b"data\n".repeat(10_000)).is_empty());
        assert!(p.current.data.len() <= 100, "{}", p.current.data.len());
        assert!(p.overflow);
    }
}
