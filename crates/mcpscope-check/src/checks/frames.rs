//! Every frame of the era, judged once the era's checks are done: each server message valid
//! against the schema of its revision (`wire-schema-valid`), every response answering an id we
//! sent (`response-ids-correlated`), and nothing but MCP messages on a stdio server's stdout
//! (`stdout-only-mcp`).

use crate::run::Cx;
use crate::verdict::Verdict;

/// Judge the era's frames.
pub(crate) fn judge(cx: &Cx) {
    // The modern and conduct checks read the same frames (checks/modern.rs, checks/conduct.rs).
    super::judge_frames(cx);
    let (linted, schema, stray, junk) = cx
        .rec
        .with(|s| (s.linted, s.schema.clone(), s.stray.clone(), s.junk.clone()));
    match schema.first() {
        None => cx.pass(
            "wire-schema-valid",
            format!(
                "{linted} server messages valid against the {} schema",
                cx.version()
            ),
        ),
        Some(first) => {
            let frames: Vec<u64> = schema.iter().map(|f| f.frame).take(3).collect();
            cx.add(
                Verdict::broken(
                    "wire-schema-valid",
                    cx.version(),
                    format!(
                        "{} findings in {} messages; first, in the answer to {}: {}",
                        schema.len(),
                        linted,
                        first.method,
                        first.message
                    ),
                )
                .with_evidence(cx.rec.frames(&frames)),
            );
        }
    }
    match stray.first() {
        None => cx.pass(
            "response-ids-correlated",
            "every response answered a request we sent",
        ),
        Some((frame, id)) => cx.add(
            Verdict::broken(
                "response-ids-correlated",
                cx.version(),
                format!(
                    "{} responses to ids we never sent; first: id {id}",
                    stray.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
    if !cx.is_stdio() {
        cx.skip("stdout-only-mcp", "not a stdio server");
        return;
    }
    match junk.first() {
        None => cx.pass("stdout-only-mcp", "every stdout line was an MCP message"),
        Some((frame, why)) => cx.add(
            Verdict::broken(
                "stdout-only-mcp",
                cx.version(),
                format!(
                    "{} stdout lines are not MCP messages; first: {why}",
                    junk.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}
