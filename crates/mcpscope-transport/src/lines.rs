//! Newline framing with no fixed line cap and bounded memory.
//!
//! A server may print a 100 MB JSON line; we must deliver it intact without doubling memory. The
//! buffer grows by a quarter at a time with `reserve_exact` (large reallocations are `mremap`s on
//! Linux, not copies), and a long line that starts at the front of the buffer is handed over
//! without copying. A line longer than the configured maximum is cut short: its first bytes are
//! kept for display, the rest is skipped up to the next newline, and reading goes on.
//!
//! What comes out depends on the bytes only, never on how the reads cut them: a line of `n`
//! bytes is `Complete` when `n <= max`, else `TooLong` with its first `min(n, 64 KiB)` bytes.
//! The buffer holds at most `max(max, 64 KiB)` bytes of a line plus one read before skipping.

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Keep this much of an over-long line for display.
const TRUNCATED_KEEP: usize = 64 * 1024;
/// Read at least this much at a time.
const READ_CHUNK: usize = 64 * 1024;
/// Lines at least this long are taken out of the buffer without a copy.
const ZERO_COPY_MIN: usize = 1024 * 1024;

/// One line read from a stream.
#[derive(Debug)]
pub(crate) enum Line {
    /// A complete line without its `\n`. `terminated` is false for a final line without newline.
    Complete { bytes: Bytes, terminated: bool },
    /// A line over the limit: its first bytes and its full length (known once the newline came).
    TooLong { head: Bytes, total: usize },
}

/// Splits a byte stream into lines.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Bytes of `buf` already scanned for a newline.
    scanned: usize,
    max: usize,
    /// When skipping the tail of an over-long line: its head and the bytes seen so far.
    skipping: Option<(Bytes, usize)>,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(READ_CHUNK),
            scanned: 0,
            max: max.max(1),
            skipping: None,
            eof: false,
        }
    }

    /// The next line, `Ok(None)` at end of stream.
    pub(crate) async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let end = self.scanned + pos;
                self.scanned = 0;
                if let Some((head, seen)) = self.skipping.take() {
                    self.buf.drain(..=end);
                    return Ok(Some(Line::TooLong {
                        head,
                        total: seen + end,
                    }));
                }
                // Over the limit though it arrived before skipping began (in one large read).
                if end > self.max {
                    return Ok(Some(self.cut_line(end, end + 1)));
                }
                let line = self.take_line(end, end + 1);
                return Ok(Some(Line::Complete {
                    bytes: line,
                    terminated: true,
                }));
            }
            self.scanned = self.buf.len();
            if self.eof {
                if let Some((head, seen)) = self.skipping.take() {
                    let total = seen + self.buf.len();
                    self.buf.clear();
                    return Ok(Some(Line::TooLong { head, total }));
                }
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let len = self.buf.len();
                self.scanned = 0;
                if len > self.max {
                    return Ok(Some(self.cut_line(len, len)));
                }
                let line = self.take_line(len, len);
                return Ok(Some(Line::Complete {
                    bytes: line,
                    terminated: false,
                }));
            }
            if self.skipping.is_some() {
                // Discard what we have of the over-long line; keep counting.
                if let Some((_, seen)) = &mut self.skipping {
                    *seen += self.buf.len();
                }
                self.buf.clear();
                self.scanned = 0;
            } else if self.buf.len() > self.max && self.buf.len() >= TRUNCATED_KEEP {
                // Skipping starts once the head to keep is complete, so the head is the same
                // however the reads came; a shorter over-long line is cut when it ends.
                let head = Bytes::copy_from_slice(&self.buf[..TRUNCATED_KEEP]);
                self.skipping = Some((head, self.buf.len()));
                self.buf.clear();
                self.buf.shrink_to(READ_CHUNK);
                self.scanned = 0;
            }
            let spare = self.buf.capacity() - self.buf.len();
            if spare < READ_CHUNK {
                let grow = (self.buf.len() / 4).max(READ_CHUNK);
                self.buf.reserve_exact(grow);
            }
            let n = self.inner.read_buf(&mut self.buf).await?;
            if n == 0 {
                self.eof = true;
            }
        }
    }

    /// What the buffer holds room for (the memory bound the fuzz test checks).
    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// `buf[..line_end]` is over the limit: keep its head, drop `buf[..consume]`.
    fn cut_line(&mut self, line_end: usize, consume: usize) -> Line {
        let head = Bytes::copy_from_slice(&self.buf[..TRUNCATED_KEEP.min(line_end)]);
        self.buf.drain(..consume);
        Line::TooLong {
            head,
            total: line_end,
        }
    }

    /// Take `buf[..line_end]` as a line and drop `buf[..consume]`.
    fn take_line(&mut self, line_end: usize, consume: usize) -> Bytes {
        if line_end >= ZERO_COPY_MIN {
            // Hand the allocation over; only the (small) rest is copied.
            let rest = self.buf.split_off(consume);
            let mut line = std::mem::replace(&mut self.buf, rest);
            line.truncate(line_end);
            if self.buf.capacity() < READ_CHUNK {
                self.buf.reserve(READ_CHUNK);
            }
            Bytes::from(line)
        } else {
            let line = Bytes::copy_from_slice(&self.buf[..line_end]);
            self.buf.drain(..consume);
            line
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = LineReader::new(input, max);
        let mut out = vec![];
        while let Some(l) = r.next_line().await.unwrap() {
            out.push(l);
        }
        out
    }

    #[tokio::test]
    async fn splits_keeps_crlf_and_final_unterminated_line() {
        let lines = all(b"a\r\nbb\n\nlast", 100).await;
        let texts: Vec<(Vec<u8>, bool)> = lines
            .into_iter()
            .map(|l| match l {
                Line::Complete { bytes, terminated } => (bytes.to_vec(), terminated),
                Line::TooLong { .. } => panic!(),
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                (b"a\r".to_vec(), true),
                (b"bb".to_vec(), true),
                (b"".to_vec(), true),
                (b"last".to_vec(), false)
            ]
        );
    }

    #[tokio::test]
    async fn big_line_arrives_intact() {
        let mut input = vec![b'x'; 3 * 1024 * 1024 + 7];
        input.push(b'\n');
        input.extend_from_slice(b"next\n");
        let lines = all(&input, usize::MAX).await;
        match &lines[0] {
            Line::Complete { bytes, .. } => assert_eq!(bytes.len(), 3 * 1024 * 1024 + 7),
            _ => panic!(),
        }
        match &lines[1] {
            Line::Complete { bytes, .. } => assert_eq!(&bytes[..], b"next"),
            _ => panic!(),
        }
    }

    #[tokio::test]
    async fn over_long_line_is_cut_and_reading_goes_on() {
        let mut input = vec![b'y'; 500_000];
        input.push(b'\n');
        input.extend_from_slice(b"ok\n");
        let lines = all(&input, 100_000).await;
        match &lines[0] {
            Line::TooLong { head, total } => {
                assert_eq!(*total, 500_000);
                assert_eq!(head.len(), TRUNCATED_KEEP);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&lines[1], Line::Complete { bytes, .. } if &bytes[..] == b"ok"));
    }

    /// Found by the fuzzer: a line a little over the limit came through whole when its newline
    /// was in the same read, and was cut when the reads split it; now it is cut either way.
    #[tokio::test]
    async fn a_line_over_the_limit_is_cut_even_when_it_arrives_in_one_read() {
        let lines = all(b"0123456789abc\nok\n0123456789abc", 10).await;
        assert_eq!(lines.len(), 3);
        match &lines[0] {
            Line::TooLong { head, total } => {
                assert_eq!((&head[..], *total), (&b"0123456789abc"[..], 13))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&lines[1], Line::Complete { bytes, .. } if &bytes[..] == b"ok"));
        assert!(matches!(&lines[2], Line::TooLong { total: 13, .. }));
    }
}
