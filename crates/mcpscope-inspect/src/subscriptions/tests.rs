//! Unit tests of the filter arithmetic and the bounds (the wire behaviour is tested against the
//! demo server in `tests/subscriptions.rs`).

use super::*;

fn filter(tools: bool, uris: &[&str]) -> Filter {
    Filter {
        tools_list_changed: tools,
        resource_subscriptions: uris.iter().map(|u| u.to_string()).collect(),
        ..Default::default()
    }
}

#[test]
fn the_wire_filter_carries_only_what_is_asked_for() {
    assert_eq!(Filter::default().to_wire(), json!({}));
    assert_eq!(
        filter(true, &["demo://counter"]).to_wire(),
        json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://counter"]})
    );
    let back = Filter::from_wire(Some(
        &json!({"toolsListChanged": true, "promptsListChanged": "yes",
        "resourceSubscriptions": ["a", 7]}),
    ));
    assert_eq!(back, filter(true, &["a"]));
}

#[test]
fn interests_not_honoured_are_named_in_the_protocol_s_words() {
    let mut asked = filter(true, &["demo://counter", "demo://nope"]);
    asked.prompts_list_changed = true;
    let honoured = filter(true, &["demo://counter"]);
    assert_eq!(
        asked.not_honoured_by(&honoured),
        vec!["prompts/list_changed", "resources/updated demo://nope"]
    );
}

#[test]
fn a_filter_allows_sub_resources_of_a_watched_uri_only() {
    let f = filter(false, &["file:///dir", "demo://counter"]);
    let updated = "notifications/resources/updated";
    assert!(f.allows(updated, Some("demo://counter")));
    assert!(f.allows(updated, Some("file:///dir/a.txt")));
    assert!(!f.allows(updated, Some("file:///directory")));
    assert!(!f.allows(updated, None));
    assert!(!f.allows("notifications/tools/list_changed", None));
}

#[test]
fn history_and_uris_are_bounded() {
    let mut st = ServerSubs::default();
    for i in 0..MAX_HISTORY + 10 {
        st.record(TransitionKind::Rejected, format!("r{i}"), None, None);
    }
    assert_eq!(st.history.len(), MAX_HISTORY);
    assert_eq!(st.view.history_omitted, 10);
    assert_eq!(st.view.rejected, (MAX_HISTORY + 10) as u64);
    for i in 0..MAX_URIS + 5 {
        if let Some(u) = st.uri(&format!("demo://r/{i}")) {
            u.updated = true;
        }
    }
    assert_eq!(st.uris.len(), MAX_URIS);
    assert_eq!(st.view.uris_omitted, 5);
}
