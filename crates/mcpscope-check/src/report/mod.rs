//! What a run tells its reader: the counts, the exit code, and the three forms — text for a
//! person (failures first, each with its rule, its spec sentence, its frames and a command that
//! reproduces it), one JSON document, and JUnit XML for CI. Server text in the text form goes
//! through `mcpscope_proto::terminal`, so a server's escape sequences are shown, never obeyed.

mod junit;
mod text;

pub use junit::junit;
pub use text::text;

use crate::run::Report;
use crate::verdict::Outcome;
use serde::Serialize;
use serde_json::{Value, json};

/// The exit code of a run `--timeout` cut short with nothing failed before the cut (as the CLI's
/// timeouts: 4).
pub const EXIT_TIMED_OUT: i32 = 4;

/// `mcpscope check`'s exit code when a check failed (as `--lint`'s).
pub const EXIT_FAILED: i32 = 6;

/// How many verdicts of each outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Warnings (not excused by the baseline).
    pub warnings: usize,
    /// Failed (not excused by the baseline).
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Failures and warnings the baseline expects.
    pub expected: usize,
}

/// Count the verdicts.
pub fn counts(report: &Report) -> Counts {
    let mut c = Counts::default();
    for v in &report.verdicts {
        match v.outcome {
            _ if v.expected => c.expected += 1,
            Outcome::Pass => c.passed += 1,
            Outcome::Warn => c.warnings += 1,
            Outcome::Fail => c.failed += 1,
            Outcome::Skipped => c.skipped += 1,
        }
    }
    c
}

/// `mcpscope check`'s exit code when the server wanted credentials the run did not have (only
/// the authorization checks ran), as every command's `auth_required`.
pub const EXIT_AUTH_REQUIRED: i32 = 3;

/// How to give `mcpscope check` credentials, for the reader of a run that had none.
pub const CREDENTIALS_HINT: &str = "give --header \"Authorization: Bearer …\", or log in once with --login (the tokens are stored for the next run)";

/// 3 when only the authorization checks could run for want of credentials; else 0 when nothing
/// failed (nor warned, with `strict`) and the baseline is not stale, else 6.
pub fn exit_code(report: &Report, strict: bool, stale: &[String]) -> i32 {
    if report.auth_required.is_some() {
        return EXIT_AUTH_REQUIRED;
    }
    let c = counts(report);
    if c.failed > 0 || (strict && c.warnings > 0) || !stale.is_empty() {
        EXIT_FAILED
    } else if report.timed_out {
        // Checks were cut unjudged: a CI run must not go green on what it never saw.
        EXIT_TIMED_OUT
    } else {
        0
    }
}

/// The run as one JSON document.
pub fn json(report: &Report, stale: &[String]) -> Value {
    let verdicts: Vec<Value> = report
        .verdicts
        .iter()
        .map(|v| {
            let d = v.def();
            let mut j = serde_json::to_value(v).unwrap_or(Value::Null);
            j["area"] = json!(d.area.name());
            j["level"] = json!(d.level);
            j["source"] = json!(d.source);
            j["sentence"] = json!(d.sentence);
            j
        })
        .collect();
    json!({
        "counts": counts(report),
        "eras": report.eras,
        "staleBaseline": stale,
        "timedOut": report.timed_out,
        "authRequired": report.auth_required,
        "elapsedMs": report.elapsed_ms,
        "verdicts": verdicts,
    })
}
