//! The text report: what failed first, in full (rule, spec sentence, frames, reproduce
//! command), then every check in one line grouped by area, then the counts.

use super::counts;
use crate::run::Report;
use crate::verdict::{Outcome, Verdict};
use mcpscope_proto::terminal::clean_line;
use std::fmt::Write;

/// Longest line of server text in the report.
const LINE: usize = 300;

fn paint(color: bool, code: &str, s: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

fn label(color: bool, v: &Verdict) -> String {
    match (v.outcome, v.expected) {
        (_, true) => paint(color, "2", "XFAIL"),
        (Outcome::Fail, _) => paint(color, "1;31", "FAIL "),
        (Outcome::Warn, _) => paint(color, "33", "WARN "),
        (Outcome::Pass, _) => paint(color, "32", "pass "),
        (Outcome::Skipped, _) => paint(color, "2", "skip "),
    }
}

fn detail(out: &mut String, color: bool, v: &Verdict) {
    let d = v.def();
    let _ = writeln!(
        out,
        "{} {} [{}] {}",
        label(color, v),
        paint(color, "1", v.id),
        v.era,
        clean_line(&v.message, LINE)
    );
    let _ = writeln!(
        out,
        "      rule: {} · {} — “{}”",
        d.level.name(),
        d.source,
        d.sentence
    );
    for e in &v.evidence {
        let _ = writeln!(
            out,
            "      frame {} {:<3} {}: {}",
            e.frame,
            e.direction,
            e.kind,
            clean_line(&e.excerpt, 160)
        );
    }
    if let Some(r) = &v.reproduce {
        let _ = writeln!(out, "      reproduce: {}", clean_line(r, 600));
    }
}

/// The report for a person; `color` adds ANSI colours (a terminal).
pub fn text(report: &Report, color: bool, stale: &[String]) -> String {
    let mut out = String::new();
    for era in &report.eras {
        let state = if era.offered {
            "checked"
        } else {
            "not checked"
        };
        let _ = writeln!(out, "{} {state}: {}", era.era, clean_line(&era.note, LINE));
    }
    out.push('\n');
    let mut bad: Vec<&Verdict> = report
        .verdicts
        .iter()
        .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn) && !v.expected)
        .collect();
    bad.sort_by_key(|v| v.outcome);
    for v in &bad {
        detail(&mut out, color, v);
    }
    if !bad.is_empty() {
        out.push('\n');
    }
    let mut area = None;
    for v in &report.verdicts {
        let a = v.def().area;
        if area != Some(a) {
            let _ = writeln!(out, "{}", paint(color, "1", a.name()));
            area = Some(a);
        }
        let _ = writeln!(
            out,
            "  {} {} [{}] {}",
            label(color, v),
            v.id,
            v.era,
            clean_line(&v.message, LINE)
        );
    }
    for s in stale {
        let _ = writeln!(
            out,
            "{} baseline entry {s} now passes: remove it from the baseline",
            paint(color, "1;31", "STALE")
        );
    }
    if let Some(why) = &report.auth_required {
        let _ = writeln!(
            out,
            "\n{} only the authorization checks ran: {} — {}",
            paint(color, "1;31", "AUTH"),
            clean_line(why, LINE),
            super::CREDENTIALS_HINT
        );
    }
    let c = counts(report);
    let _ = writeln!(
        out,
        "\n{} passed · {} warnings · {} failed · {} skipped{} ({:.2} s){}",
        c.passed,
        c.warnings,
        c.failed,
        c.skipped,
        if c.expected > 0 {
            format!(" · {} expected by the baseline", c.expected)
        } else {
            String::new()
        },
        report.elapsed_ms as f64 / 1000.0,
        if report.timed_out {
            " — stopped by --timeout: the checks it cut are skipped, and the run exits 4"
        } else {
            ""
        },
    );
    out
}
