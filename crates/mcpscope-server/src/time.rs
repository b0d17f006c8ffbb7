//! Time as the API shows it: RFC 3339 UTC strings with microseconds, without a date library.

/// RFC 3339 UTC time with microseconds for `us` microseconds since the Unix epoch.
pub(crate) fn rfc3339(us: u64) -> String {
    let secs = us / 1_000_000;
    let micros = us % 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Parse the `from`/`to` query values: microseconds as a number, or an RFC 3339 UTC time
/// (`2026-11-30T12:00:00Z`, fractional seconds allowed).
pub(crate) fn parse_time_us(s: &str) -> Option<u64> {
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
