//! Time as the views show it: RFC 3339 UTC strings with microseconds (formatted by
//! [`mcpscope_proto::rfc3339`]), parsed back without a date library.

pub(crate) use mcpscope_proto::rfc3339;

/// Parse the `from`/`to` query values: microseconds as a number, or an RFC 3339 UTC time
/// (`2026-11-30T12:00:00Z`, fractional seconds allowed).
pub fn parse_time_us(s: &str) -> Option<u64> {
    if let Ok(n) = s.parse::<u64>() {
        return Some(n);
    }
    let s = s.trim();
    let (date, time) = s.split_once(['T', 't', ' '])?;
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    let time = time.strip_suffix(['Z', 'z']).unwrap_or(time);
    let (hms, frac) = match time.split_once('.') {
        Some((a, b)) => (a, b),
        None => (time, ""),
    };
    let mut t = hms.split(':');
    let hh: i64 = t.next()?.parse().ok()?;
    let mm: i64 = t.next()?.parse().ok()?;
    let ss: i64 = t.next().unwrap_or("0").parse().ok()?;
    let micros: i64 = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(6).collect();
        digits.parse::<i64>().ok()? * 10i64.pow(6 - digits.len() as u32)
    };
    // Days-from-civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hh * 3600 + mm * 60 + ss;
    u64::try_from(secs * 1_000_000 + micros).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let us = 1_764_460_800_123_456;
        let s = rfc3339(us);
        assert_eq!(s, "2025-11-30T00:00:00.123456Z");
        assert_eq!(parse_time_us(&s), Some(us));
        assert_eq!(
            parse_time_us("2025-11-30T00:00:00Z"),
            Some(1_764_460_800_000_000)
        );
        assert_eq!(parse_time_us("42"), Some(42));
        assert_eq!(parse_time_us("yesterday"), None);
    }
}
