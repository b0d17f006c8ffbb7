//! `Session::list_all`, the one owner of pagination, against servers whose lists never end on
//! their own: a repeated cursor (`cursor-loop`) and more pages than the engine walks
//! (`many-tools` with one tool a page). The items are kept and the stop is named.

use crate::support::{Keep, testkit};
use mcpscope_client::{
    ClientOptions, DeclineAll, ListStop, MAX_LIST_PAGES, RequestControl, RequestOptions, Session,
};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};
use std::sync::Arc;

async fn connect(mode: &StdioMode) -> (Session, Arc<Keep>) {
    let keep = Arc::new(Keep::default());
    let session = Session::connect(
        testkit(mode),
        ClientOptions::default(),
        Arc::new(DeclineAll),
        keep.clone(),
    )
    .await
    .expect("connect to the testkit");
    (session, keep)
}

fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[tokio::test]
async fn a_repeated_cursor_stops_the_walk_by_name_with_every_item_kept() {
    let (session, keep) = connect(&StdioMode::CursorLoop {
        count: 5,
        page_size: 2,
    })
    .await;
    let control = Arc::new(RequestControl::new());
    let opts = RequestOptions {
        control: Some(control.clone()),
        ..Default::default()
    };
    let listing = session
        .list_all_with("tools/list", "tools", None, &opts)
        .await
        .expect("tools/list");
    session.close().await;
    let want: Vec<String> = (0..5).map(|i| format!("tool-{i:04}")).collect();
    assert_eq!(names(&listing.result), want, "{}", keep.dump());
    assert!(listing.result.get("nextCursor").is_none());
    assert_eq!(listing.pages, 3);
    assert_eq!(
        listing.stop,
        Some(ListStop::RepeatedCursor {
            cursor: json!("cursor-2"),
            page: 3,
            first_page: 1
        })
    );
    // The caller is the one to show it: the engine does not also warn (it would be said twice).
    assert!(keep.warnings().is_empty(), "{}", keep.dump());
    // One control followed every page.
    assert_eq!(control.wire_ids().len(), 3);
    assert_eq!(
        serde_json::to_value(&listing.stop).expect("serializable"),
        json!({"reason": "repeatedCursor", "cursor": "cursor-2", "page": 3, "firstPage": 1})
    );
}

#[tokio::test]
async fn the_walk_stops_at_the_page_limit_and_says_which_cursor_it_left() {
    let count = u32::try_from(MAX_LIST_PAGES).expect("small") + 3;
    let (session, _keep) = connect(&StdioMode::ManyTools {
        count,
        page_size: 1,
    })
    .await;
    let listing = session
        .list_all("tools/list", "tools", None)
        .await
        .expect("tools/list");
    session.close().await;
    assert_eq!(names(&listing.result).len(), MAX_LIST_PAGES);
    assert_eq!(listing.pages, MAX_LIST_PAGES);
    assert_eq!(
        listing.stop,
        Some(ListStop::PageLimit {
            pages: MAX_LIST_PAGES,
            next_cursor: json!(format!("cursor-{MAX_LIST_PAGES}")),
        })
    );
}

#[tokio::test]
async fn a_list_that_ends_has_no_stop() {
    let (session, _keep) = connect(&StdioMode::ManyTools {
        count: 7,
        page_size: 3,
    })
    .await;
    let listing = session
        .list_all("tools/list", "tools", None)
        .await
        .expect("tools/list");
    session.close().await;
    assert_eq!(names(&listing.result).len(), 7);
    assert_eq!((listing.pages, listing.stop), (3, None));
}
