//! The schema lint on any message a server may send, in both revisions, with and without the
//! request it answers.
//!
//! Bounds: at most 20 findings a message, each message at most 1 KiB (+ `…`); per case 500 ms
//! (long budget; the first case of a definition compiles its validator).

use crate::generate::{any_schema, json};
use mcpscope_proto::lint::{LintContext, Linter, Revision};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::time::Duration;

const METHODS: &[&str] = &[
    "initialize",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/read",
    "prompts/get",
    "completion/complete",
    "elicitation/create",
    "sampling/createMessage",
    "tasks/get",
    "notifications/message",
    "notifications/progress",
    "subscriptions/listen",
    "nope",
];

fn message() -> impl Strategy<Value = (Value, Option<&'static str>)> {
    let method = prop::sample::select(METHODS);
    let tool = (any_schema(), json()).prop_map(
        |(schema, extra)| json!({"name": "t", "inputSchema": schema, "outputSchema": extra}),
    );
    prop_oneof![
        (method.clone(), json()).prop_map(|(m, p)| (
            json!({"jsonrpc": "2.0", "id": 1, "method": m, "params": p}),
            None
        )),
        (method.clone(), json())
            .prop_map(|(m, p)| (json!({"jsonrpc": "2.0", "method": m, "params": p}), None)),
        (method.clone(), json())
            .prop_map(|(m, r)| (json!({"jsonrpc": "2.0", "id": 1, "result": r}), Some(m))),
        prop::collection::vec(tool, 0..3).prop_map(|tools| {
            (
                json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
                Some("tools/list"),
            )
        }),
        json().prop_map(|v| (v, None)),
    ]
}

#[test]
fn lint_reports_at_most_twenty_short_findings() {
    let linter = Linter::new();
    let cases = (message(), any::<bool>());
    mcpscope_fuzz::run(
        "lint",
        400,
        Duration::from_millis(500),
        cases,
        |((msg, method), modern)| {
            let revision = if modern {
                Revision::Modern20260728
            } else {
                Revision::Legacy20251125
            };
            let r = linter.lint(
                revision,
                &msg,
                LintContext {
                    request_method: method,
                },
            );
            prop_assert!(r.findings.len() <= 20, "{} findings", r.findings.len());
            for f in &r.findings {
                prop_assert!(f.message.len() <= 1024 + 3, "{} bytes", f.message.len());
            }
            Ok(())
        },
    );
}
