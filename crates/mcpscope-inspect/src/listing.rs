//! Every page of a list, for a view's call: the engine's one pagination (`Session::list_all_with`,
//! every page under the call's control), and a walk that stopped early — a repeated cursor, the
//! page limit — named, never silent: a `warning` event for every view, and the `pagination`
//! field of the call's outcome, in the words the CLI uses.

use crate::queue::{Item, Queue};
use crate::request::Call;
use mcpscope_client::{ClientError, Listing, RequestOptions, SessionEvent};
use serde_json::{Value, json};

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
