//! Property and fuzz tests for the two parsers of server bytes in this crate: the newline
//! splitter (`lines`, what stdio reads stdout and stderr with) and the SSE parser (`sse`, for
//! Streamable HTTP and HTTP+SSE). Both must give the same result however the bytes are cut into
//! reads, never panic, and stay within their memory bounds.
//!
//! Case counts: a small default for `cargo test`; the long run is `python3 bench/fuzz.py`. The
//! budget, the per-case time bound and the hang watchdog are the `mcpscope-fuzz` runner's.

use crate::lines::{Line, LineReader};
use crate::sse::{SseEvent, SseParser};
use mcpscope_fuzz::run;
use proptest::prelude::*;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};

/// Bytes handed out in reads of the given sizes (cycled), as a pipe or socket would.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    next: usize,
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let size = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = size.min(buf.remaining()).min(self.data.len() - self.at);
        let at = self.at;
        buf.put_slice(&self.data[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

/// A line as the splitter gives it, for comparing.
#[derive(Debug, PartialEq)]
enum Got {
    Complete(Vec<u8>, bool),
    TooLong(Vec<u8>, usize),
}

/// Lines of mostly short text with `\r`s, some long (past one 64 KiB read), some unterminated.
fn line_input() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        8 => prop::collection::vec(prop_oneof![8 => b'a'..=b'z', 1 => Just(b'\r'), 1 => any::<u8>()], 0..40),
        1 => (1usize..200_000, any::<u8>()).prop_map(|(n, b)| vec![if b == b'\n' { b'x' } else { b }; n]),
    ];
    (prop::collection::vec(line, 0..12), any::<bool>()).prop_map(|(lines, last_open)| {
        let mut out = Vec::new();
        let n = lines.len();
        for (i, l) in lines.into_iter().enumerate() {
            out.extend_from_slice(&l);
            if !(last_open && i + 1 == n) {
                out.push(b'\n');
            }
        }
        out
    })
}

/// What the splitter must give for `data`: every line split at `\n`, cut when over `max`.
fn expected_lines(data: &[u8], max: usize) -> Vec<Got> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (line, terminated, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (&rest[..p], true, &rest[p + 1..]),
            None => (rest, false, &rest[rest.len()..]),
        };
        out.push(if line.len() > max {
            Got::TooLong(line[..line.len().min(64 * 1024)].to_vec(), line.len())
        } else {
            Got::Complete(line.to_vec(), terminated)
        });
        rest = next;
    }
    out
}

/// Bounds: each line as `expected_lines` says; the buffer's capacity at most
/// `max(max, 64 KiB) * 5 / 4 + 3 reads (192 KiB)` plus the longest line when the limit is
/// above it; per case 1 s (long budget).
#[test]
fn lines_do_not_depend_on_how_reads_cut_the_bytes() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let cases = (
        line_input(),
        prop::collection::vec(prop_oneof![1usize..16, 1usize..100_000], 1..8),
        prop::sample::select(vec![1usize, 7, 100, 70_000, 150_000, usize::MAX]),
    );
    run(
        "stdio_lines",
        150,
        Duration::from_secs(1),
        cases,
        |(data, sizes, max)| {
            let expected = expected_lines(&data, max);
            let longest = data
                .split(|b| *b == b'\n')
                .map(<[u8]>::len)
                .max()
                .unwrap_or(0);
            let bound = max.min(longest).max(64 * 1024) * 5 / 4 + 3 * 64 * 1024;
            let mut r = LineReader::new(
                Chunked {
                    data,
                    at: 0,
                    sizes,
                    next: 0,
                },
                max,
            );
            let mut got = Vec::new();
            rt.block_on(async {
                while let Some(line) = r.next_line().await.expect("in-memory reads do not fail") {
                    got.push(match line {
                        Line::Complete { bytes, terminated } => {
                            Got::Complete(bytes.to_vec(), terminated)
                        }
                        Line::TooLong { head, total } => Got::TooLong(head.to_vec(), total),
                    });
                    assert!(
                        r.buffer_capacity() <= bound,
                        "{} > {bound}",
                        r.buffer_capacity()
                    );
                }
            });
            prop_assert_eq!(got, expected);
            Ok(())
        },
    );
}

/// Event streams: fields (known, unknown, comments, no colon), values with colons, spaces, NULs
/// and non-UTF-8, every line ending, blank lines, and raw bytes.
fn sse_input() -> impl Strategy<Value = Vec<u8>> {
    let field = prop::sample::select(vec![
        &b"data"[..],
        b"data:",
        b"data: ",
        b"event: ",
        b"id: ",
        b"id:\0",
        b"retry: ",
        b"retry: 12",
        b":",
        b": keepalive",
        b"other: ",
        b"",
    ]);
    let value = prop_oneof![
        4 => "[a-z0-9 :{}\"]{0,12}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..12),
        1 => (1usize..3_000).prop_map(|n| vec![b'v'; n]),
    ];
    let ending = prop::sample::select(vec![&b"\n"[..], b"\r", b"\r\n", b"\n\n", b"\r\n\r\n", b""]);
    prop::collection::vec((field, value, ending), 0..24).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(f, v, e)| [f.to_vec(), v, e.to_vec()].concat())
            .collect()
    })
}

fn feed_all(max: usize, chunks: impl Iterator<Item = Vec<u8>>) -> (Vec<SseEvent>, bool) {
    let mut p = SseParser::with_max(max);
    let mut events = Vec::new();
    for c in chunks {
        events.extend(p.feed(&c));
    }
    events.extend(p.finish());
    (events, p.overflow)
}

/// Bounds: every event's data at most `max` bytes; the pending line at most `max + 64`; the
/// events' wire lengths add up to no more than the input; per case 200 ms (long budget).
#[test]
fn sse_events_do_not_depend_on_how_reads_cut_the_bytes() {
    let cases = (
        sse_input(),
        prop::collection::vec(1usize..64, 1..8),
        prop::sample::select(vec![0usize, 1, 5, 100, 1_000, 1 << 20]),
    );
    run(
        "sse",
        1_500,
        Duration::from_millis(200),
        cases,
        |(data, sizes, max)| {
            let (whole, whole_over) = feed_all(max, std::iter::once(data.clone()));
            let mut chunks = Vec::new();
            let (mut at, mut i) = (0, 0);
            while at < data.len() {
                let n = sizes[i % sizes.len()].min(data.len() - at);
                chunks.push(data[at..at + n].to_vec());
                at += n;
                i += 1;
            }
            let (cut, cut_over) = feed_all(max, chunks.into_iter());
            prop_assert_eq!(&cut, &whole);
            prop_assert_eq!(cut_over, whole_over);
            let mut wire = 0;
            for e in &whole {
                prop_assert!(e.data.len() <= max, "{} > {max}", e.data.len());
                wire += e.wire_len;
            }
            prop_assert!(wire <= data.len(), "{wire} > {}", data.len());
            Ok(())
        },
    );
}
