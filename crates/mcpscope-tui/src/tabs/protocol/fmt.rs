//! How the traffic tabs (Protocol, Network, Console, Logs) write times, sizes and durations, and
//! how they cut what a server sent before keeping it: every string kept from a frame goes
//! through [`cut`], so a hostile server's megabyte of text costs a line.

/// `HH:MM:SS.mmm` (UTC) of `us` µs since the Unix epoch: the column every traffic tab starts
/// with. UTC, not local time: no time-zone database is read, and snapshots do not move.
pub fn clock(us: u64) -> String {
    let ms = us / 1_000;
    let s = ms / 1_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        s / 3_600 % 24,
        s / 60 % 60,
        s % 60,
        ms % 1_000
    )
}

/// A size for humans: 850 B, 1.2 KiB, 3.4 MiB.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}

/// A duration for humans, as the web UI writes it: 850 ms, 1.2 s, 2 m 05 s.
pub fn duration(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        return String::new();
    }
    if ms < 1_000.0 {
        format!("{} ms", ms.round() as u64)
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1_000.0)
    } else {
        let total = ms as u64 / 1_000;
        format!("{} m {:02} s", total / 60, total % 60)
    }
}

/// `s` as one line of at most `max` characters: line breaks and tabs become spaces, control
/// characters are dropped (they would move the terminal's cursor), and a cut one ends in `…`.
pub fn cut(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max + 3));
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// [`cut`] into a boxed string (the compact form the rows keep).
pub fn boxed(s: &str, max: usize) -> Box<str> {
    cut(s, max).into_boxed_str()
}

/// `s` padded or cut to exactly `w` columns (one character = one column: what a server sends
/// is cut before it is drawn, and wide characters only shift the rest of the line).
pub fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n > w {
        let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
        if w > 0 {
            t.push('…');
        }
        t
    } else {
        format!("{s}{}", " ".repeat(w - n))
    }
}

/// A frame body as the pager shows it: a JSON object or array pretty-printed, anything else as
/// it is (the core's `FrameBody.json` only says the body looks like JSON).
pub fn pretty(body: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) if v.is_object() || v.is_array() => {
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| body.to_string())
        }
        _ => body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_like_the_web_ui() {
        assert_eq!(clock(1_780_000_000_123_456), "20:26:40.123");
        assert_eq!(bytes(850), "850 B");
        assert_eq!(bytes(1_300), "1.3 KiB");
        assert_eq!(duration(12.4), "12 ms");
        assert_eq!(duration(1_250.0), "1.2 s");
        assert_eq!(duration(125_000.0), "2 m 05 s");
        assert_eq!(cut("a\nb\x1b[2Jc", 10), "a b[2Jc");
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(pad("abc", 5), "abc  ");
        assert_eq!(pad("abcdef", 4), "abc…");
    }
}
