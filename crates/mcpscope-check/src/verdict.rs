//! What a check concludes: one [`Verdict`] per check and era — pass, warn, fail or skipped (with
//! why) — with the frames that prove it and the one `mcpscope --cli` command that reproduces it.

use crate::catalog::{self, Def, Level};
use serde::Serialize;

/// A check's outcome. Ordered worst first, so a report can sort failures to the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A MUST broken.
    Fail,
    /// A SHOULD broken, or something worth a look that breaks no rule.
    Warn,
    /// Checked, and held.
    Pass,
    /// Not checked; the message says why (capability not declared, needs `--call-tools`, …).
    Skipped,
}

impl Outcome {
    /// The outcome's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Fail => "fail",
            Outcome::Warn => "warn",
            Outcome::Pass => "pass",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One frame cited as evidence, cut to a readable excerpt.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    /// The frame's number in the run of its era (as `--trace` numbers them).
    pub frame: u64,
    /// `out` (we sent it) or `in` (the server did).
    pub direction: &'static str,
    /// What kind of frame (`stdout-line`, `http-response`, …), with the HTTP status when there is one.
    pub kind: String,
    /// The first bytes of the frame, as text.
    pub excerpt: String,
}

/// One check's verdict in one era.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The check's id (the catalogue's).
    pub id: &'static str,
    /// The protocol revision it was judged under (`2025-11-25`, `2026-07-28`).
    pub era: &'static str,
    /// What it concluded.
    pub outcome: Outcome,
    /// What was seen, in words; for a skip, why.
    pub message: String,
    /// The frames that prove it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// One command that shows the same exchange again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    /// Listed in the expected-failures baseline (does not fail the run).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub expected: bool,
}

impl Verdict {
    /// A verdict with no evidence.
    pub fn new(id: &'static str, era: &'static str, outcome: Outcome, message: String) -> Verdict {
        Verdict {
            id,
            era,
            outcome,
            message,
            evidence: Vec::new(),
            reproduce: None,
            expected: false,
        }
    }

    /// The verdict of a rule broken: fail for a MUST, warn for a SHOULD.
    pub fn broken(id: &'static str, era: &'static str, message: String) -> Verdict {
        let outcome = match catalog::def(id).level {
            Level::Must => Outcome::Fail,
            Level::Should => Outcome::Warn,
        };
        Verdict::new(id, era, outcome, message)
    }

    /// The catalogue entry of this verdict's check.
    pub fn def(&self) -> &'static Def {
        catalog::def(self.id)
    }

    /// With these frames as evidence.
    pub fn with_evidence(mut self, evidence: Vec<Evidence>) -> Verdict {
        self.evidence = evidence;
        self
    }

    /// With the command that reproduces it.
    pub fn with_reproduce(mut self, command: Option<String>) -> Verdict {
        self.reproduce = command;
        self
    }
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
