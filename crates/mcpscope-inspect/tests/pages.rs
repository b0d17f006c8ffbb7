//! A list's pages as a view asks for them (`Pages`), against the demo's `resources/list`, which
//! answers two resources a page: the first page with its cursor, the page after a cursor, and
//! every page merged under the method's own list key.

use crate::inspector::setup;
use mcpscope_inspect::{Call, Inspector, Pages};
use serde_json::Value;
use std::sync::Arc;

async fn list(app: &Arc<Inspector>, method: &str, pages: Pages) -> Value {
    let c = Call {
        method: method.into(),
        ..Default::default()
    }
    .with_pages(pages);
    app.call("legacy", c)
        .await
        .expect("call")
        .result
        .expect(method)
}

fn uris(page: &Value) -> Vec<String> {
    page["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn first_after_a_cursor_and_all_pages() {
    let s = setup("pages", 10_000).await;
    let app = &s.inspector;
    app.connect("legacy", None).await.expect("connect");

    // By hand: the first page, then each page after its cursor.
    let mut page = list(app, "resources/list", Pages::First).await;
    assert_eq!(uris(&page).len(), 2, "{page}");
    let mut by_hand = uris(&page);
    while let Some(cursor) = page["nextCursor"].as_str() {
        page = list(app, "resources/list", Pages::After(cursor.to_string())).await;
        by_hand.extend(uris(&page));
    }
    assert!(by_hand.len() > 2, "the demo paginates: {by_hand:?}");

    // Every page in one call: the same resources, merged under `resources`, no cursor left.
    let all = list(app, "resources/list", Pages::All { key: None }).await;
    assert_eq!(uris(&all), by_hand);
    assert!(all.get("nextCursor").is_none(), "{all}");

    // The key is the method table's, not the name's first segment.
    let templates = list(app, "resources/templates/list", Pages::All { key: None }).await;
    assert!(templates["resourceTemplates"].is_array(), "{templates}");
    app.shutdown().await;
}
