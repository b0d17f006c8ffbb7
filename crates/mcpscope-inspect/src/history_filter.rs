//! A view's history search, in the words a view has — text as typed, a status name, times as
//! RFC 3339 or microseconds, `pinned` as `true`/`false` — checked and turned into the store's
//! query. The web API's query string and the TUI's filter bar both end here, so a status or a
//! time is refused with the same message in every view.

use crate::error::{Error, Result};
use crate::time::parse_time_us;
use mcpscope_store::HistoryQuery;

/// The statuses a history entry can be searched by.
pub const SEARCHABLE_STATUSES: [&str; 4] = ["ok", "error", "cancelled", "pending"];

/// A page of the history view holds this many entries unless asked otherwise…
pub const PAGE_DEFAULT: usize = 100;
/// …and at most this many.
pub const PAGE_MAX: usize = 1000;
/// An export holds at most (and by default) this many entries.
pub const EXPORT_MAX: usize = 100_000;

/// A history search as a view receives it; every field optional, an empty text is no filter.
#[derive(Debug, Clone, Default)]
pub struct HistoryFilter {
    /// Full text over method, params and result.
    pub text: Option<String>,
    /// Only this server's entries.
    pub server: Option<String>,
    /// Only this method's.
    pub method: Option<String>,
    /// One of [`SEARCHABLE_STATUSES`].
    pub status: Option<String>,
    /// Started at or after (RFC 3339 or microseconds since the epoch).
    pub from: Option<String>,
    /// Started at or before (the same forms).
    pub to: Option<String>,
    /// `true`/`1` or `false`/`0`; anything else: both.
    pub pinned: Option<String>,
    /// How many entries; clamped to the page's or the export's bounds.
    pub limit: Option<usize>,
    /// Only entries older than this id (paging).
    pub before: Option<i64>,
}

impl HistoryFilter {
    /// The store's query for one page of the history view (default [`PAGE_DEFAULT`] entries, at
    /// most [`PAGE_MAX`]). `usage` when a status or a time is not one the history knows.
    pub fn page(&self) -> Result<HistoryQuery> {
        self.query(PAGE_DEFAULT, PAGE_MAX)
    }

    /// The store's query for an export (up to [`EXPORT_MAX`] entries).
    pub fn export(&self) -> Result<HistoryQuery> {
        self.query(EXPORT_MAX, EXPORT_MAX)
    }

    fn query(&self, default_limit: usize, max_limit: usize) -> Result<HistoryQuery> {
        if let Some(st) = self.status.as_deref()
            && !SEARCHABLE_STATUSES.contains(&st)
        {
            return Err(Error::usage(format!(
                "status must be ok, error, cancelled or pending, got {st:?}"
            )));
        }
        Ok(HistoryQuery {
            text: self.text.clone().filter(|s| !s.trim().is_empty()),
            server: self.server.clone().filter(|s| !s.is_empty()),
            method: self.method.clone().filter(|s| !s.is_empty()),
            status: self.status.clone(),
            from_us: time(&self.from, "from")?,
            to_us: time(&self.to, "to")?,
            pinned: match self.pinned.as_deref() {
                Some("true" | "1") => Some(true),
                Some("false" | "0") => Some(false),
                _ => None,
            },
            before: self.before,
            limit: self.limit.unwrap_or(default_limit).clamp(1, max_limit),
        })
    }
}

/// A time bound: absent or empty is none; otherwise RFC 3339 or microseconds, or `usage`.
fn time(v: &Option<String>, name: &str) -> Result<Option<u64>> {
    match v.as_deref().filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(t) => parse_time_us(t).map(Some).ok_or_else(|| {
            Error::usage(format!(
                "{name} must be an RFC 3339 time or microseconds, got {t:?}"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_the_history_does_not_know_is_refused_by_name() {
        let f = HistoryFilter {
            status: Some("interrupted".into()),
            ..Default::default()
        };
        let e = f.page().unwrap_err();
        assert_eq!(e.code.code(), "usage");
        assert!(e.message.contains("\"interrupted\""), "{}", e.message);
    }

    #[test]
    fn times_in_both_forms_and_limits_clamped_per_use() {
        let f = HistoryFilter {
            from: Some("1970-01-01T00:00:01Z".into()),
            to: Some("2000000".into()),
            limit: Some(5000),
            text: Some("  ".into()),
            pinned: Some("1".into()),
            ..Default::default()
        };
        let q = f.page().unwrap();
        assert_eq!((q.from_us, q.to_us), (Some(1_000_000), Some(2_000_000)));
        assert_eq!(q.limit, PAGE_MAX);
        assert_eq!(q.text, None);
        assert_eq!(q.pinned, Some(true));
        assert_eq!(f.export().unwrap().limit, 5000);
        assert_eq!(HistoryFilter::default().export().unwrap().limit, EXPORT_MAX);
        let bad = HistoryFilter {
            to: Some("yesterday".into()),
            ..Default::default()
        };
        assert!(bad.page().unwrap_err().message.starts_with("to must be"));
    }
}
