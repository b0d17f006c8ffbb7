//! Legacy (2025-11-25) subscriptions: `resources/subscribe` / `resources/unsubscribe` per URI,
//! each a request with its history entry; the URI's state follows the server's answer (an error
//! answer leaves it as it was, with the error shown beside it).

use super::{TransitionKind, change};
use crate::error::{Error, Result};
use crate::request::Call;
use crate::state::Inspector;
use mcpscope_client::Session;
use mcpscope_proto::era::Era;
use serde_json::{Value, json};
use std::sync::Arc;

/// A server that does not declare `resources.subscribe` would refuse `resources/subscribe`
/// (-32601, or worse: accept it and never notify). Say so before asking, naming the capability.
fn declares_subscribe(session: &Session, name: &str) -> Result<()> {
    let capabilities = session
        .server_info()
        .map(|i| i.capabilities)
        .unwrap_or(Value::Null);
    if capabilities["resources"]["subscribe"] == json!(true) {
        return Ok(());
    }
    let declared = match capabilities.get("resources") {
        Some(r) => format!("it declares resources {r}"),
        None => "it declares no resources capability".to_string(),
    };
    Err(Error::conflict(format!(
        "{name:?} does not declare the resources.subscribe capability ({declared}), so it does not offer resources/subscribe: read the resource again to see changes"
    ))
    .with("capability", "resources.subscribe"))
}

/// Subscribe to (`on`) or unsubscribe from `uri` on `name`: `{historyId, result, subscriptions}`,
/// or the server's error (with its `historyId`).
pub(super) async fn subscribe(
    app: &Arc<Inspector>,
    name: &str,
    uri: &str,
    on: bool,
) -> Result<Value> {
    let (session, _, _) = crate::conn::connected_named(app, name)?;
    if session.era() != Era::Legacy {
        return Err(Error::conflict(format!(
            "{name:?} speaks the modern era (2026-07-28), which has no resources/subscribe: \
             watch the URI in the desired filter instead (subscriptions/listen)"
        )));
    }
    if uri.is_empty() {
        return Err(Error::usage(
            "uri is required (the resource to subscribe to)",
        ));
    }
    if on {
        declares_subscribe(&session, name)?;
    }
    let method = if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    change(app, name, false, |st| {
        if let Some(u) = st.uri(uri) {
            u.pending = Some(if on { "subscribing" } else { "unsubscribing" }.into());
            u.error = None;
        }
    });
    let call = Call {
        method: method.into(),
        params: Some(json!({"uri": uri})),
        ..Call::default()
    };
    let outcome = app.call(name, call).await;
    let answer = outcome
        .as_ref()
        .map(|o| o.result.clone())
        .map_err(Clone::clone);
    let view = change(app, name, true, |st| {
        let (kind, message) = match &answer {
            Ok(Ok(v)) => {
                let kind = if on {
                    TransitionKind::Subscribed
                } else {
                    TransitionKind::Unsubscribed
                };
                (kind, format!("{method}: the server answered {v}"))
            }
            Ok(Err(e)) | Err(e) => (
                TransitionKind::Error,
                format!("{method} failed: {}", e.message),
            ),
        };
        if let Some(u) = st.uri(uri) {
            u.pending = None;
            match &answer {
                Ok(Ok(_)) => u.subscribed = on,
                Ok(Err(e)) | Err(e) => u.error = Some(e.message.clone()),
            }
        }
        st.record(kind, message, Some(uri), None);
        st.snapshot()
    });
    let outcome = outcome?;
    let result = outcome.result?;
    Ok(json!({"historyId": outcome.history_id, "result": result, "subscriptions": view}))
}
