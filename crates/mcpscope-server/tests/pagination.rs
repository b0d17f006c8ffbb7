//! One pagination: `/api/servers/:name/list` walks pages with the engine's `Session::list_all_with`,
//! so a server that hands back a cursor it already gave (the testkit's `cursor-loop`) is named —
//! which cursor, on which page, first handed out on which — in the answer's `pagination` and in a
//! `warning` event, with every tool gathered kept. (The backend's own walk stopped there silently.)

use crate::support::{Options, TempDir, start};
use serde_json::{Value, json};

#[tokio::test]
async fn a_repeated_cursor_is_named_in_the_answer_and_a_warning() {
    let dir = TempDir::new("pagination");
    let testkit = mcpscope_testkit::bin_path().expect("testkit binary");
    let mode = mcpscope_testkit::StdioMode::CursorLoop {
        count: 6,
        page_size: 2,
    };
    let entry = json!({"type": "stdio", "command": testkit, "args": mode.args()});
    let b = start(dir.path(), vec![("loop".into(), entry)], Options::default()).await;
    let events = b.events(None).await;
    b.ok("/api/servers/loop/connect", json!({})).await;

    let listed = b
        .ok("/api/servers/loop/list", json!({"method": "tools/list"}))
        .await;
    let tools: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(tools.len(), 6, "every tool of the three pages: {listed}");
    assert!(listed["result"].get("nextCursor").is_none(), "{listed}");
    let stop = &listed["pagination"]["stop"];
    assert_eq!(listed["pagination"]["pages"], 3, "{listed}");
    assert_eq!(stop["reason"], "repeatedCursor", "{listed}");
    assert_eq!(stop["cursor"], "cursor-2");
    assert_eq!(
        (stop["page"].clone(), stop["firstPage"].clone()),
        (json!(3), json!(1))
    );
    let message = stop["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.contains("repeated cursor \"cursor-2\""),
        "{message}"
    );

    let warning = events
        .wait("warning", |e| {
            e.name == "warning"
                && e.data["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("cursor-2"))
        })
        .await;
    assert_eq!(warning.data["server"], "loop");
    assert_eq!(
        warning.data["message"],
        Value::String(format!("tools/list: {message}"))
    );

    // A list that ends on its own says nothing about pagination.
    let first = b
        .ok(
            "/api/servers/loop/list",
            json!({"method": "tools/list", "allPages": false}),
        )
        .await;
    assert!(first.get("pagination").is_none(), "{first}");
    assert_eq!(first["result"]["nextCursor"], "cursor-2");
}
