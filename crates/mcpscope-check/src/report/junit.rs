//! JUnit XML: one `testsuite` per area, one `testcase` per check and era (`name="id [era]"`).
//! A failure is a `failure` with the message, the spec sentence, the frames and the reproduce
//! command; a warning is a `failure` under `--strict` and `system-out` otherwise; a skip is
//! `skipped` with why; a failure the baseline expects is `system-out`, not a failure.

use crate::catalog::Area;
use crate::run::Report;
use crate::verdict::{Outcome, Verdict};
use std::fmt::Write;

/// Text made safe inside XML 1.0 (attribute or element): the five entities escaped, characters
/// XML cannot carry (most C0 controls) replaced.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn body(v: &Verdict) -> String {
    let d = v.def();
    let mut s = format!(
        "{}\nrule: {} · {} — {}\n",
        v.message,
        d.level.name(),
        d.source,
        d.sentence
    );
    for e in &v.evidence {
        let _ = writeln!(
            s,
            "frame {} {} {}: {}",
            e.frame, e.direction, e.kind, e.excerpt
        );
    }
    if let Some(r) = &v.reproduce {
        let _ = writeln!(s, "reproduce: {r}");
    }
    s
}

fn case(out: &mut String, v: &Verdict, strict: bool) {
    let area = v.def().area.name();
    let _ = write!(
        out,
        "    <testcase classname=\"mcpscope.check.{area}\" name=\"{} [{}]\">",
        esc(v.id),
        v.era
    );
    match v.outcome {
        Outcome::Fail | Outcome::Warn if v.expected => {
            let _ = write!(
                out,
                "<system-out>expected by the baseline: {}</system-out>",
                esc(&body(v))
            );
        }
        Outcome::Fail => {
            let _ = write!(
                out,
                "<failure message=\"{}\" type=\"MUST\">{}</failure>",
                esc(&v.message),
                esc(&body(v))
            );
        }
        Outcome::Warn if strict => {
            let _ = write!(
                out,
                "<failure message=\"{}\" type=\"warning\">{}</failure>",
                esc(&v.message),
                esc(&body(v))
            );
        }
        Outcome::Warn => {
            let _ = write!(out, "<system-out>warning: {}</system-out>", esc(&body(v)));
        }
        Outcome::Skipped => {
            let _ = write!(out, "<skipped message=\"{}\"/>", esc(&v.message));
        }
        Outcome::Pass => {}
    }
    out.push_str("</testcase>\n");
}

/// The run as JUnit XML.
pub fn junit(report: &Report, strict: bool) -> String {
    let mut areas: Vec<Area> = report.verdicts.iter().map(|v| v.def().area).collect();
    areas.dedup();
    areas.sort();
    areas.dedup();
    let failed = |v: &Verdict| {
        !v.expected && (v.outcome == Outcome::Fail || (strict && v.outcome == Outcome::Warn))
    };
    let total_failed = report.verdicts.iter().filter(|v| failed(v)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"mcpscope check\" tests=\"{}\" failures=\"{total_failed}\" time=\"{:.3}\">",
        report.verdicts.len(),
        report.elapsed_ms as f64 / 1000.0
    );
    for area in areas {
        let cases: Vec<&Verdict> = report
            .verdicts
            .iter()
            .filter(|v| v.def().area == area)
            .collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            area.name(),
            cases.len(),
            cases.iter().filter(|v| failed(v)).count(),
            cases
                .iter()
                .filter(|v| v.outcome == Outcome::Skipped)
                .count()
        );
        for v in cases {
            case(&mut out, v, strict);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn server_text_cannot_break_the_xml() {
        assert_eq!(
            esc("a<b>&\"'\u{1b}[31m"),
            "a&lt;b&gt;&amp;&quot;&apos;\u{FFFD}[31m"
        );
    }
}
