//! What the frame pipeline tells the panel: every notification a subscription may concern
//! ([`notified`]), and every listen or subscribe request that went out from anywhere ([`sent`]),
//! so a notification for another screen's subscription is not mistaken for an unrequested one.
//!
//! Modern notifications are matched to their subscription by the
//! `io.modelcontextprotocol/subscriptionId` in `_meta` (on stdio several subscriptions share one
//! pipe); legacy `notifications/resources/updated` by its URI. What does not match is rejected:
//! recorded with why, counted, never acted on.

use super::{Filter, IdSource, ServerSubs, StreamStatus, TransitionKind, apply};
use crate::state::Inspector;
use mcpscope_proto::era::Era;
use mcpscope_proto::{RequestId, now_us};
use serde_json::Value;
use std::sync::Arc;

const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const UPDATED: &str = "notifications/resources/updated";
const LIST_CHANGED: [&str; 3] = [
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
];
/// The `_meta` key naming a notification's subscription.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A notification from `server` (redacted params), before views see it.
pub(crate) fn notified(app: &Arc<Inspector>, server: &str, method: &str, params: Option<&Value>) {
    if method != ACKNOWLEDGED && method != UPDATED && !LIST_CHANGED.contains(&method) {
        return;
    }
    let id = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        .and_then(RequestId::from_value);
    let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
    apply(app, server, |st| {
        let publish = match st.view.era {
            Some(Era::Modern) if method == ACKNOWLEDGED => acknowledged(st, id, params),
            Some(Era::Modern) => modern(st, method, id, uri),
            Some(Era::Legacy) if method == UPDATED => legacy_updated(st, uri),
            _ => None,
        };
        ((), publish)
    });
}

/// A request went out on `server`'s connection: remember listens that are not the panel's, and
/// subscribes sent from other screens (the Resources screen's own Subscribe button).
pub(crate) fn sent(
    app: &Arc<Inspector>,
    server: &str,
    method: Option<&str>,
    id: Option<&RequestId>,
    message: Option<&Value>,
) {
    let uri = || {
        message
            .and_then(|m| m.pointer("/params/uri"))
            .and_then(Value::as_str)
    };
    match (method, id) {
        (Some("subscriptions/listen"), Some(id)) => apply(app, server, |st| {
            let ours = st.stream.as_ref().is_some_and(|s| s.control.owns(id));
            if !ours {
                ServerSubs::remember(&mut st.foreign, id.clone());
            }
            ((), None)
        }),
        (Some(m @ ("resources/subscribe" | "resources/unsubscribe")), _) => {
            let Some(uri) = uri() else { return };
            let on = m == "resources/subscribe";
            apply(app, server, |st| {
                let Some(u) = st.uri(uri) else {
                    return ((), None);
                };
                // The panel's own requests say so themselves, with the server's answer.
                if u.pending.is_some() || u.subscribed == on {
                    return ((), None);
                }
                u.subscribed = on;
                let kind = if on {
                    TransitionKind::Subscribed
                } else {
                    TransitionKind::Unsubscribed
                };
                let message = format!("{m} sent from another screen");
                st.record(kind, message, Some(uri), None);
                ((), Some(true))
            })
        }
        _ => {}
    }
}

/// `notifications/subscriptions/acknowledged`: the stream is active, with what it honours.
fn acknowledged(
    st: &mut ServerSubs,
    id: Option<RequestId>,
    params: Option<&Value>,
) -> Option<bool> {
    let Some(id) = id else {
        let why = "an acknowledgement without a subscriptionId in _meta: it cannot be matched to a subscription";
        st.record(TransitionKind::Rejected, why.into(), None, None);
        return Some(true);
    };
    let Some(s) = st.stream.as_mut().filter(|s| s.control.owns(&id)) else {
        return foreign_or_rejected(st, &id, ACKNOWLEDGED);
    };
    if s.view.acknowledged.is_some() {
        let why = format!("a second acknowledgement for subscription {id}");
        st.record(TransitionKind::Rejected, why, None, Some(id.to_value()));
        return Some(true);
    }
    let honoured = Filter::from_wire(params.and_then(|p| p.get("notifications")));
    s.view.not_honoured = s.view.requested.not_honoured_by(&honoured);
    let extra = honoured.not_honoured_by(&s.view.requested);
    s.view.status = StreamStatus::Active;
    s.view.subscription_id = Some(id.to_value());
    s.view.id_source = Some(IdSource::Reported);
    let mut message = format!("acknowledged: {}", honoured.to_wire());
    if !s.view.not_honoured.is_empty() {
        message.push_str(&format!(
            "; not honoured: {}",
            s.view.not_honoured.join(", ")
        ));
    }
    if !extra.is_empty() {
        message.push_str(&format!("; more than asked for: {}", extra.join(", ")));
    }
    let watched = honoured.resource_subscriptions.clone();
    s.view.acknowledged = Some(honoured);
    for u in st.uris.values_mut() {
        u.subscribed = watched.contains(&u.uri);
    }
    for uri in &watched {
        if let Some(u) = st.uri(uri) {
            u.subscribed = true;
        }
    }
    st.record(TransitionKind::Active, message, None, Some(id.to_value()));
    Some(true)
}

/// A change notification on a modern connection.
fn modern(
    st: &mut ServerSubs,
    method: &str,
    id: Option<RequestId>,
    uri: Option<&str>,
) -> Option<bool> {
    let Some(id) = id else {
        // The list-changed listener's notifications carry their id too; without one, only a
        // resource update (which only this panel asks for) is clearly ours to judge.
        if method != UPDATED {
            return None;
        }
        let why = format!("{method} without a subscriptionId in _meta");
        st.record(TransitionKind::Rejected, why, uri, None);
        return Some(true);
    };
    let Some(s) = st.stream.as_mut().filter(|s| s.control.owns(&id)) else {
        return foreign_or_rejected(st, &id, method);
    };
    let mut transition = false;
    if s.view.subscription_id.is_none() {
        s.view.subscription_id = Some(id.to_value());
        s.view.id_source = Some(IdSource::Observed);
        s.view.status = StreamStatus::Active;
        let why = format!("subscription id {id} observed on {method}, before any acknowledgement");
        st.record(TransitionKind::Active, why, None, Some(id.to_value()));
        transition = true;
    }
    let Some(s) = st.stream.as_mut() else {
        return Some(transition);
    };
    let filter = s.view.acknowledged.as_ref().unwrap_or(&s.view.requested);
    if !filter.allows(method, uri) {
        let what = uri.map_or(String::new(), |u| format!(" for {u}"));
        let why = format!("{method}{what}: not in the filter of subscription {id}");
        st.record(TransitionKind::Rejected, why, uri, Some(id.to_value()));
        return Some(true);
    }
    s.view.notifications += 1;
    match uri.filter(|_| method == UPDATED) {
        Some(uri) => Some(mark_updated(st, uri, Some(id.to_value())) || transition),
        None => Some(transition),
    }
}

/// A notification for an id that is not the current stream's: another listen's (left alone),
/// an ended stream's (late), or nobody's.
fn foreign_or_rejected(st: &mut ServerSubs, id: &RequestId, method: &str) -> Option<bool> {
    if st.foreign.contains(id) {
        return None;
    }
    let why = match st.ended.iter().find(|(e, _, _)| e == id) {
        Some((_, at, how)) => format!(
            "{method} for subscription {id}, which ended ({}) {} ms before",
            status_words(*how),
            now_us().saturating_sub(*at) / 1000
        ),
        None => format!("{method} for subscription id {id}, which no open listen has"),
    };
    st.record(TransitionKind::Rejected, why, None, Some(id.to_value()));
    Some(true)
}

fn status_words(s: StreamStatus) -> &'static str {
    match s {
        StreamStatus::Opening => "opening",
        StreamStatus::Active => "active",
        StreamStatus::ClosedByServer => "closed by server",
        StreamStatus::ConnectionLost => "connection lost",
        StreamStatus::CancelledLocally => "cancelled locally",
        StreamStatus::Error => "error",
    }
}

/// Legacy `notifications/resources/updated`: for a subscribed URI (or below one), else rejected.
fn legacy_updated(st: &mut ServerSubs, uri: Option<&str>) -> Option<bool> {
    let Some(uri) = uri else {
        let why = format!("{UPDATED} without a uri");
        st.record(TransitionKind::Rejected, why, None, None);
        return Some(true);
    };
    let subscribed: Vec<String> = (st.uris.values())
        .filter(|u| u.subscribed || u.pending.is_some())
        .map(|u| u.uri.clone())
        .collect();
    if !super::watched(&subscribed, uri) {
        let why = format!("{UPDATED} for {uri}, which is not subscribed");
        st.record(TransitionKind::Rejected, why, Some(uri), None);
        return Some(true);
    }
    Some(mark_updated(st, uri, None))
}

/// Count an update of `uri` and mark it updated; the first update since the page read it is a
/// history row. Always `false`: published with the rest of a stream of updates (at most every
/// `PUBLISH_EVERY`), so a server updating 2,000 URIs is not 2,000 whole panels.
fn mark_updated(st: &mut ServerSubs, uri: &str, id: Option<Value>) -> bool {
    st.view.updates += 1;
    let Some(u) = st.uri(uri) else { return false };
    u.updates += 1;
    u.last_updated_us = Some(now_us());
    if !u.updated {
        u.updated = true;
        st.record(
            TransitionKind::Updated,
            format!("{uri} updated"),
            Some(uri),
            id,
        );
    }
    false
}
