//! The expected-failures baseline (`--baseline FILE`), as the official suite's
//! `--expected-failures`: a YAML list of check ids, each optionally `@REVISION`
//! (`tools-unknown-tool-error@2026-07-28`), or a mapping whose `checks` key holds that list.
//! A listed check that fails or warns does not fail the run; a listed check that now passes
//! *does* — the baseline is stale and should lose that line. An id not in the catalogue is an
//! error: a typo must not silently excuse nothing.

use crate::catalog::CHECKS;
use crate::verdict::{Outcome, Verdict};
use serde_json::Value;

/// One line of the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The check.
    pub id: String,
    /// Only in this revision; `None`: in every era.
    pub era: Option<String>,
}

/// A parsed baseline.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Its entries.
    pub entries: Vec<Entry>,
}

impl Baseline {
    /// Read a baseline file's text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let doc: Value = serde_norway::from_str(text).map_err(|e| format!("not YAML: {e}"))?;
        let list = match &doc {
            Value::Null => return Ok(Baseline::default()),
            Value::Array(a) => a,
            Value::Object(m) => match m.get("checks") {
                Some(Value::Array(a)) => a,
                _ => return Err("a mapping must hold the list under `checks:`".into()),
            },
            _ => return Err("expected a list of check ids (`- tools-unknown-tool-error`)".into()),
        };
        let mut entries = Vec::new();
        for item in list {
            let Some(s) = item.as_str() else {
                return Err(format!("{item} is not a check id"));
            };
            let (id, era) = match s.split_once('@') {
                Some((id, era)) => (id.trim(), Some(era.trim().to_string())),
                None => (s.trim(), None),
            };
            if !CHECKS.iter().any(|d| d.id == id) {
                return Err(format!(
                    "{id:?} is not a check (mcpscope check --list names them all)"
                ));
            }
            if let Some(e) = &era
                && e != mcpscope_proto::era::LEGACY_VERSION
                && e != mcpscope_proto::era::MODERN_VERSION
            {
                return Err(format!(
                    "{s:?}: the revision after @ is 2025-11-25 or 2026-07-28"
                ));
            }
            entries.push(Entry {
                id: id.to_string(),
                era,
            });
        }
        Ok(Baseline { entries })
    }

    /// Mark the verdicts the baseline expects; return its stale entries (listed, now passing).
    pub fn apply(&self, verdicts: &mut [Verdict]) -> Vec<String> {
        let mut stale = Vec::new();
        for entry in &self.entries {
            let matching =
                |v: &Verdict| v.id == entry.id && entry.era.as_deref().is_none_or(|e| e == v.era);
            let mut any_bad = false;
            let mut any_pass = false;
            for v in verdicts.iter_mut().filter(|v| matching(v)) {
                match v.outcome {
                    Outcome::Fail | Outcome::Warn => {
                        v.expected = true;
                        any_bad = true;
                    }
                    Outcome::Pass => any_pass = true,
                    Outcome::Skipped => {}
                }
            }
            if any_pass && !any_bad {
                let name = match &entry.era {
                    Some(e) => format!("{}@{e}", entry.id),
                    None => entry.id.clone(),
                };
                stale.push(name);
            }
        }
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_a_mapping_and_eras_parse_and_a_typo_is_an_error() {
        let b = Baseline::parse("- ping\n- tools-unknown-tool-error@2026-07-28\n").unwrap();
        assert_eq!(b.entries.len(), 2);
        assert_eq!(b.entries[1].era.as_deref(), Some("2026-07-28"));
        assert_eq!(
            Baseline::parse("checks:\n  - ping\n")
                .unwrap()
                .entries
                .len(),
            1
        );
        let e = Baseline::parse("- pnig\n").unwrap_err();
        assert!(e.contains("\"pnig\" is not a check"), "{e}");
        assert!(Baseline::parse("- ping@2024-01-01").is_err());
    }

    #[test]
    fn an_expected_failure_passes_and_a_listed_pass_is_stale() {
        let b = Baseline::parse("- ping\n- server-initialize\n").unwrap();
        let mut v = vec![
            Verdict::new("ping", "2025-11-25", Outcome::Fail, "x".into()),
            Verdict::new(
                "server-initialize",
                "2025-11-25",
                Outcome::Pass,
                "ok".into(),
            ),
        ];
        let stale = b.apply(&mut v);
        assert!(v[0].expected);
        assert_eq!(stale, vec!["server-initialize".to_string()]);
    }
}
