//! Pagination that never ends on its own, through the CLI: a server that hands a cursor back
//! (the testkit's `cursor-loop`) and one with more pages than the engine walks (`many-tools`
//! with one tool a page). Either way the items gathered are kept and the stop is named — on
//! stderr and in `--format json` — never a silent stop and never an endless loop.

use crate::misbehaving_support::{cli, server};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};

/// `args` followed by the server command for `mode`.
fn with_server(args: &[&str], mode: &StdioMode) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    all.extend(server(mode));
    all
}

fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[test]
fn a_repeated_cursor_is_named_and_the_items_are_kept() {
    let mode = StdioMode::CursorLoop {
        count: 7,
        page_size: 2,
    };
    let run = cli(
        "cursor-loop",
        &with_server(&["--method", "tools/list", "--format", "json"], &mode),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    let doc = run.json();
    let want: Vec<String> = (0..7).map(|i| format!("tool-{i:04}")).collect();
    assert_eq!(names(&doc["result"]), want, "{}", run.dump());
    assert!(doc["result"].get("nextCursor").is_none());
    // Pages 1-4 asked once each; page 4 handed back page 1's cursor, which was not followed.
    let cursors: Vec<Value> = run
        .sent("tools/list")
        .iter()
        .map(|m| m["params"]["cursor"].clone())
        .collect();
    assert_eq!(
        cursors,
        [
            Value::Null,
            json!("cursor-2"),
            json!("cursor-4"),
            json!("cursor-6")
        ],
        "{}",
        run.dump()
    );
    let stop = &doc["pagination"]["stop"];
    assert_eq!(doc["pagination"]["pages"], 4, "{}", run.dump());
    assert_eq!(stop["reason"], "repeatedCursor", "{}", run.dump());
    assert_eq!(stop["cursor"], "cursor-2");
    assert_eq!(stop["page"], 4);
    assert_eq!(stop["firstPage"], 1);
    let warnings = doc["warnings"].to_string();
    assert!(
        warnings.contains("tools/list: the server repeated cursor \\\"cursor-2\\\" on page 4"),
        "{}",
        run.dump()
    );

    // In text mode the warning is on stderr, the merged list on stdout.
    let text = cli(
        "cursor-loop-text",
        &with_server(&["--method", "tools/list"], &mode),
    );
    assert_eq!(text.code, 0, "{}", text.dump());
    assert!(
        text.stderr.contains(
            "warning: tools/list: the server repeated cursor \"cursor-2\" on page 4 (page 1 had handed it out already)"
        ),
        "{}",
        text.dump()
    );
    let listed: Value = serde_json::from_slice(&text.stdout).expect("the list on stdout");
    assert_eq!(names(&listed), want);
}

#[test]
fn a_list_longer_than_the_page_limit_stops_there_and_says_so() {
    let limit = mcpscope_client::MAX_LIST_PAGES;
    let count = u32::try_from(limit).expect("small") + 5;
    let mode = StdioMode::ManyTools {
        count,
        page_size: 1,
    };
    let run = cli(
        "many-tools-page-limit",
        &with_server(&["--method", "tools/list", "--format", "json"], &mode),
    );
    assert_eq!(run.code, 0, "{}", run.dump());
    let doc = run.json();
    assert_eq!(names(&doc["result"]).len(), limit, "{}", run.dump());
    assert_eq!(run.sent("tools/list").len(), limit);
    let stop = &doc["pagination"]["stop"];
    assert_eq!(stop["reason"], "pageLimit", "{}", run.dump());
    assert_eq!(stop["pages"], limit);
    assert_eq!(stop["nextCursor"], format!("cursor-{limit}"));
    assert!(
        doc["warnings"]
            .to_string()
            .contains(&format!("after {limit} pages, the limit")),
        "{}",
        run.dump()
    );
}
