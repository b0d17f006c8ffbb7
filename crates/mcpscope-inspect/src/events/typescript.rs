//! The SPA's TypeScript types for the event vocabulary, generated from the Rust types with
//! `ts-rs` into one file, `web/src/generated/events.ts`.
//!
//! One file rather than ts-rs's file per type: the SPA imports one module, and CI compares one
//! file with a regeneration (`tests/typescript.rs`; `MCPSCOPE_WRITE_TYPES=1` rewrites it). Types
//! that other crates own and the SPA already writes by hand (`Json`, `CatalogEntry`, `FrameMeta`,
//! `AuthSummary`, …) are imported from `web/src/utils/types.ts` by name: the Rust fields that hold
//! them say which with `#[ts(type = "…")]`.

use super::vocabulary::*;
use crate::auth::{AuthPending, AuthView};
use crate::frames::{FrameHead, FrameView, LintFinding};
use crate::interactions::{Interaction, InteractionClosed, InteractionKind, Outcome};
use crate::verdicts::{HeaderVerdicts, VerdictRow};
use crate::views::{HistoryChild, HistoryEntry, ServerView};
use ts_rs::{Config, TS};

/// The hand-written types of `web/src/utils/types.ts` the generated ones refer to.
const IMPORTED: &[&str] = &[
    "ApiErrorBody",
    "AuthState",
    "AuthStored",
    "AuthSummary",
    "CatalogEntry",
    "Era",
    "FrameDirection",
    "FrameMeta",
    "FrameSource",
    "HistoryStatus",
    "Json",
    "SecretStoreView",
    "ServerStatus",
    "Transport",
    "Verdict",
];

/// The text of `web/src/generated/events.ts`.
pub fn typescript() -> String {
    // 64-bit integers are JSON numbers on this wire (ids, µs times, sizes all stay below 2^53).
    let cfg = Config::new().with_large_int("number");
    let decls = [
        Event::decl(&cfg),
        ServerView::decl(&cfg),
        FrameView::decl(&cfg),
        FrameHead::decl(&cfg),
        LintFinding::decl(&cfg),
        HeaderVerdicts::decl(&cfg),
        VerdictRow::decl(&cfg),
        ProgressEvent::decl(&cfg),
        LogEvent::decl(&cfg),
        NotificationEvent::decl(&cfg),
        ServerRequestEvent::decl(&cfg),
        HistoryEntry::decl(&cfg),
        HistoryChild::decl(&cfg),
        WarningEvent::decl(&cfg),
        ResetEvent::decl(&cfg),
        CatalogEvent::decl(&cfg),
        AuthView::decl(&cfg),
        AuthPending::decl(&cfg),
        ResyncEvent::decl(&cfg),
        Interaction::decl(&cfg),
        InteractionKind::decl(&cfg),
        InteractionClosed::decl(&cfg),
        Outcome::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust types of crates/mcpscope-inspect/src/events/ by ts-rs: do not\n\
         // edit. Regenerate with `MCPSCOPE_WRITE_TYPES=1 cargo test -p mcpscope-inspect --test\n\
         // tests typescript::`; CI fails when this file differs from a regeneration.\n",
    );
    out.push_str(&format!(
        "import type {{ {} }} from '../utils/types';\n\n",
        IMPORTED.join(", ")
    ));
    // serde_json::Value: the SPA's own JSON type.
    out.push_str("export type JsonValue = Json;\n");
    for d in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(d.trim());
        out.push('\n');
    }
    out
}
