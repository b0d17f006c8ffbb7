//! Resources: a listed resource read back with contents (`resources-read-listed`) and a URI that
//! names nothing refused with the error of the revision (`resource-not-found`: -32002 in
//! 2025-11-25; -32602 in 2026-07-28, SEP-2164, never an empty `contents`: that one is a MUST NOT,
//! so it fails where the rest of the check warns).

use super::Lists;
use crate::run::{Asked, Cx, Failure};
use crate::verdict::{Outcome, Verdict};
use mcpscope_proto::era::{Era, INVALID_PARAMS};
use serde_json::{Value, json};

/// 2025-11-25's "Resource not found".
const RESOURCE_NOT_FOUND: i64 = -32002;

/// Run the resource checks.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    if !cx.has("resources") {
        for id in ["resources-read-listed", "resource-not-found"] {
            cx.skip(id, "the server does not declare the resources capability");
        }
        return;
    }
    if let Some(why) = lists.unserved_note("resources") {
        for id in ["resources-read-listed", "resource-not-found"] {
            cx.skip(id, why.clone());
        }
        return;
    }
    read_listed(cx, &lists.resources).await;
    not_found(cx).await;
}

async fn read_listed(cx: &Cx, resources: &[Value]) {
    let Some(uri) = resources
        .iter()
        .find_map(|r| r.get("uri").and_then(Value::as_str))
    else {
        cx.skip(
            "resources-read-listed",
            "resources/list returned no resources",
        );
        return;
    };
    let asked = cx.ask("resources/read", json!({"uri": uri})).await;
    match &asked.answer {
        Ok(r)
            if r.get("contents")
                .and_then(Value::as_array)
                .is_some_and(|c| !c.is_empty()) =>
        {
            cx.pass(
                "resources-read-listed",
                format!(
                    "{uri}: {} contents",
                    r["contents"].as_array().map_or(0, Vec::len)
                ),
            )
        }
        Ok(_) => cx.broken(
            "resources-read-listed",
            format!("{uri} (listed) was read with empty or no contents"),
            Some(&asked),
        ),
        Err(f) => cx.broken(
            "resources-read-listed",
            format!("{uri} (listed): {f}"),
            Some(&asked),
        ),
    }
}

async fn not_found(cx: &Cx) {
    let uri = "mcpscope-check://no-such-resource";
    let asked = cx.ask("resources/read", json!({"uri": uri})).await;
    let expected = match cx.era {
        Era::Legacy => RESOURCE_NOT_FOUND,
        Era::Modern => INVALID_PARAMS,
    };
    match &asked.answer {
        Err(Failure::Rpc(e)) if e.code == expected => {
            cx.pass("resource-not-found", format!("refused with {expected}"))
        }
        Err(Failure::Rpc(e)) if cx.era == Era::Legacy && e.code == INVALID_PARAMS => cx.pass(
            "resource-not-found",
            "refused with -32602 (2025-11-25 names -32002; 2026-07-28 moves to -32602, which clients accept)",
        ),
        Ok(r) if r.get("contents").and_then(Value::as_array).is_some_and(Vec::is_empty) => {
            empty_contents(cx, uri, expected, &asked)
        }
        Ok(_) => cx.broken("resource-not-found", format!("{uri} (which names nothing) was answered with contents"), Some(&asked)),
        Err(f) => cx.broken("resource-not-found", format!("{uri}: {f}, expected {expected}"), Some(&asked)),
    }
}

/// An empty `contents` for a URI that names nothing: a SHOULD broken in 2025-11-25, but SEP-2164's
/// MUST NOT in 2026-07-28, so a fail there where the rest of the check warns (the official suite's
/// `sep-2164-no-empty-contents` fails it too: docs/checks.md, "Agreement with the official suite").
fn empty_contents(cx: &Cx, uri: &str, expected: i64, asked: &Asked) {
    let message = format!(
        "{uri} (which names nothing) was answered with empty contents instead of an error {expected}"
    );
    if cx.era == Era::Legacy {
        cx.broken("resource-not-found", message, Some(asked));
        return;
    }
    let message = format!(
        "{message}: 2026-07-28 says servers MUST NOT return an empty contents array for a non-existent resource"
    );
    let v = Verdict::new("resource-not-found", cx.version(), Outcome::Fail, message)
        .with_evidence(asked.evidence.clone())
        .with_reproduce(Some(asked.reproduce.clone()));
    cx.add(v);
}
