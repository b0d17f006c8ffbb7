//! Every page of a list, for a view's call: the engine's one pagination (`Session::list_all_with`,
//! every page under the call's control), and a walk that stopped early — a repeated cursor, the
//! page limit — named, never silent: a `warning` event for every view, and the `pagination`
//! field of the call's outcome, in the words the CLI uses. And the quality lint of a
//! `tools/list` answer (`mcpscope_proto::tool_lint`), for the tools' badges.

use crate::queue::{Item, Queue};
use crate::request::Call;
use mcpscope_client::{ClientError, Listing, RequestOptions, SessionEvent};
use mcpscope_proto::era::Era;
use mcpscope_proto::lint::Linter;
use mcpscope_proto::tool_lint::{ToolLint, lint_list_result};
use serde_json::{Value, json};
use std::sync::Arc;

/// Walk every page of `call`'s list, merging the arrays under `key`; the merged result and, when
/// the walk stopped early, what to tell the view.
pub(crate) async fn all_pages(
    session: &mcpscope_client::Session,
    call: &Call,
    key: &str,
    opts: &RequestOptions,
    processor: &Queue,
) -> (Result<Value, ClientError>, Option<Value>) {
    match session
        .list_all_with(&call.method, key, call.params.clone(), opts)
        .await
    {
        Ok(listing) => {
            let pagination = named_stop(&call.method, &listing, processor);
            (Ok(listing.result), pagination)
        }
        Err(e) => (Err(e), None),
    }
}

/// `{pages, stop}` of a walk that stopped early, with the same words as a `warning` event (sent
/// through the connection's processor, after the frames of the pages it names).
fn named_stop(method: &str, listing: &Listing, processor: &Queue) -> Option<Value> {
    let stop = listing.stop.as_ref()?;
    let message = format!("{method}: {stop}");
    processor.send(Item::Event(SessionEvent::Warning {
        message,
        frame_seq: None,
    }));
    let mut why = serde_json::to_value(stop).unwrap_or_default();
    why["message"] = json!(stop.to_string());
    Some(json!({"pages": listing.pages, "stop": why}))
}

/// The tool lint of a `tools/list` result, under the rules of the era it was answered in.
/// Off the async threads: 10,000 tools take about a second (bounded by the lint itself). The
/// result moves to the blocking thread and back, so nothing is copied; a panic in the lint loses
/// its findings, never the answer.
pub(crate) async fn lint_tools(
    linter: Arc<Linter>,
    era: Era,
    result: Result<Value, crate::error::Error>,
) -> (Result<Value, crate::error::Error>, Option<ToolLint>) {
    let Ok(value) = result else {
        return (result, None);
    };
    let done = tokio::task::spawn_blocking(move || {
        let lint = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lint_list_result(&linter, era, &value)
        }));
        (value, lint.ok())
    })
    .await;
    match done {
        Ok((value, lint)) => (Ok(value), lint),
        // Only a cancelled runtime gets here (the closure catches its panics).
        Err(e) => (
            Err(crate::error::Error::internal(format!(
                "the tools/list answer was lost while its tools were linted ({e})"
            ))),
            None,
        ),
    }
}
