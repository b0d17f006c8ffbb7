//! Reading traffic back across the window/SQLite boundary: with a window of 8 frames, every
//! page — oldest first after a seq, newest before a seq, with and without a source filter — is
//! exactly the matching slice of the whole log, with no gap and no frame twice where memory
//! hands over to SQLite.

use crate::inspector::{eventually, parsed, seqs, setup};
use mcpscope_inspect::{Call, FramePage, Inspector};
use std::sync::Arc;

fn page(after: Option<u64>, before: Option<u64>, limit: usize, sources: &[&str]) -> FramePage {
    FramePage {
        after,
        before,
        limit: Some(limit),
        sources: sources.iter().map(|s| s.to_string()).collect(),
    }
}

async fn frames(app: &Arc<Inspector>, q: FramePage) -> Vec<u64> {
    seqs(&app.frames("modern", q).await.expect("frames"))
}

/// The whole log, `1..=newest`, once SQLite holds everything the window has let go.
async fn whole_log(app: &Arc<Inspector>) -> Vec<u64> {
    eventually("SQLite to catch up with the window", || async {
        let newest = frames(app, page(None, None, 1, &[])).await;
        let all = frames(app, page(Some(0), None, 10_000, &[])).await;
        (all == (1..=newest[0]).collect::<Vec<_>>()).then_some(all)
    })
    .await
}

/// The `jsonrpc` frames of the whole log: a part of it holding at least every frame shown as a
/// JSON-RPC one (a message over HTTP belongs to `http` too, which the view does not show).
async fn jsonrpc_log(app: &Arc<Inspector>, log: &[u64]) -> Vec<u64> {
    let q = page(Some(0), None, 10_000, &["jsonrpc"]);
    let filtered = frames(app, q).await;
    let everything = parsed(
        &app.frames("modern", page(Some(0), None, 10_000, &[]))
            .await
            .unwrap(),
    );
    for f in everything.iter().filter(|f| f["source"] == "jsonrpc") {
        assert!(filtered.contains(&f["seq"].as_u64().unwrap()), "{f}");
    }
    assert!(filtered.iter().all(|s| log.contains(s)));
    filtered
}

#[tokio::test]
async fn pages_are_slices_of_the_whole_log_across_the_window_boundary() {
    let s = setup("traffic", 8).await;
    let app = &s.inspector;
    app.connect("modern", None).await.expect("connect");
    for _ in 0..6 {
        let out = app
            .call(
                "modern",
                Call {
                    method: "tools/list".into(),
                    ..Default::default()
                },
            )
            .await
            .expect("call");
        out.result.expect("tools/list answered");
    }
    let log = whole_log(app).await;
    let n = log.len();
    assert!(n > 16, "more frames than twice the window: {n}");

    for (sources, log) in [
        (&[][..], log.clone()),
        (&["jsonrpc"][..], jsonrpc_log(app, &log).await),
    ] {
        assert!(log.len() > 8, "{sources:?}: {log:?}");
        // Oldest first after each seq, three at a time: SQLite, then memory.
        for (i, &after) in std::iter::once(&0).chain(&log).enumerate() {
            let want: Vec<u64> = log.iter().skip(i).take(3).copied().collect();
            assert_eq!(
                frames(app, page(Some(after), None, 3, sources)).await,
                want,
                "{sources:?} after {after}"
            );
        }
        // Newest first below each seq (and below none), three at a time: memory, then SQLite.
        for (i, &before) in log.iter().enumerate() {
            let want: Vec<u64> = log[i.saturating_sub(3)..i].to_vec();
            assert_eq!(
                frames(app, page(None, Some(before), 3, sources)).await,
                want,
                "{sources:?} before {before}"
            );
        }
        let newest: Vec<u64> = log[log.len() - 5..].to_vec();
        assert_eq!(
            frames(app, page(None, None, 5, sources)).await,
            newest,
            "{sources:?} newest"
        );
    }
    // Nothing arrived meanwhile, so every slice above was of one log.
    assert_eq!(whole_log(app).await, log);

    // A frame's whole body, from SQLite (the first message left the window long ago) and from
    // memory (the newest), the same bytes its view shows as text.
    let messages = parsed(
        &app.frames("modern", page(Some(0), None, 10_000, &["jsonrpc"]))
            .await
            .unwrap(),
    );
    for f in [&messages[0], &messages[messages.len() - 1]] {
        let seq = f["seq"].as_u64().unwrap();
        let body = app.frame_body("modern", seq).await.expect("body");
        assert!(body.json, "a JSON-RPC message downloads as JSON: {f}");
        assert!(!body.bytes.is_empty(), "{f}");
        assert_eq!(
            String::from_utf8(body.bytes).unwrap(),
            f["text"].as_str().unwrap(),
            "{f}"
        );
    }
    assert!(
        messages[0]["seq"].as_u64().unwrap() < log[n - 8],
        "the first message is out of the window"
    );
    let missing = app
        .frame_body("modern", log[n - 1] + 1000)
        .await
        .unwrap_err();
    assert_eq!(missing.code.code(), "not_found");
    app.shutdown().await;
}
