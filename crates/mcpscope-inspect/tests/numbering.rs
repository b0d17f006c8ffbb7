//! One number per frame, from the engine to the view: the engine numbers a server's frames from
//! the slot's counter, so a warning's `frameSeq` is the `seq` the traffic shows — across a
//! reconnect, and for a frame far older than the last thousand (the core used to keep its own
//! numbers and a map of the engine's last 1,024, so such a link was lost).

use crate::inspector::{TempDir, eventually, inspector_over, parsed};
use mcpscope_inspect::{Call, FramePage, Inspector};
use serde_json::{Value, json};
use std::sync::Arc;

fn testkit(mode: mcpscope_testkit::StdioMode) -> Value {
    let bin = mcpscope_testkit::bin_path().expect("testkit binary");
    json!({"type": "stdio", "command": bin, "args": mode.args()})
}

async fn call(app: &Arc<Inspector>, server: &str, method: &str, params: Value) -> Value {
    let out = app
        .call(
            server,
            Call {
                method: method.into(),
                params: Some(params),
                ..Default::default()
            },
        )
        .await
        .expect("call");
    out.result.expect("answered")
}

/// Every frame of `server`, oldest first (window, then SQLite behind it).
async fn all_frames(app: &Arc<Inspector>, server: &str) -> Vec<Value> {
    let q = FramePage {
        after: Some(0),
        limit: Some(10_000),
        ..Default::default()
    };
    parsed(&app.frames(server, q).await.expect("frames"))
}

/// The warnings published so far, as `(message, frameSeq)`.
fn warnings(app: &Arc<Inspector>) -> Vec<(String, Option<u64>)> {
    let (events, _) = app.events().since(0, usize::MAX);
    events
        .iter()
        .filter(|e| e.name == "warning")
        .map(|e| {
            let d: Value = serde_json::from_str(&e.data).expect("JSON");
            (
                d["message"].as_str().unwrap_or("").to_string(),
                d["frameSeq"].as_u64(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_warning_names_the_frame_the_traffic_shows_across_reconnects() {
    let dir = TempDir::new("numbering");
    let servers = vec![("garbage", testkit(mcpscope_testkit::StdioMode::Garbage))];
    // A small window: most frames are read back from SQLite by the number the warning gave.
    let app = inspector_over(&dir, servers, 16);
    for round in 0..2 {
        app.connect("garbage", None).await.expect("connect");
        for i in 0..3 {
            let r = call(
                &app,
                "garbage",
                "tools/call",
                json!({"name": "echo", "arguments": {"text": format!("{round}-{i}")}}),
            )
            .await;
            assert!(r.to_string().contains(&format!("{round}-{i}")), "{r}");
        }
        app.disconnect("garbage").await.expect("disconnect");
    }
    let frames = eventually("SQLite to hold every frame", || async {
        let f = all_frames(&app, "garbage").await;
        let seqs: Vec<u64> = f.iter().map(|f| f["seq"].as_u64().unwrap()).collect();
        let mut sorted = seqs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        (sorted == seqs && seqs.len() > 60).then_some(f)
    })
    .await;
    let by_seq = |s: u64| frames.iter().find(|f| f["seq"] == s);
    let warned = warnings(&app);
    let crlf: Vec<u64> = warned
        .iter()
        .filter(|(m, _)| m.contains("CR LF"))
        .filter_map(|(_, s)| *s)
        .collect();
    // One CRLF noise line before each of the 3 × 2 answers (and the handshake's).
    assert!(crlf.len() >= 6, "{warned:?}");
    for seq in &crlf {
        let f = by_seq(*seq).unwrap_or_else(|| panic!("no frame {seq} in the traffic"));
        assert_eq!(f["kind"], "stdout-line", "{f}");
        assert!(
            f["text"].as_str().is_some_and(|t| t.ends_with('\r')),
            "frame {seq} is the CRLF line: {f}"
        );
    }
    for (message, seq) in warned
        .iter()
        .filter(|(m, _)| m.contains("not a JSON-RPC message"))
    {
        let seq = seq.unwrap_or_else(|| panic!("{message} names no frame"));
        let f = by_seq(seq).unwrap_or_else(|| panic!("no frame {seq}"));
        assert_eq!(f["direction"], "in", "{message}: {f}");
        assert!(
            f["lint"].is_array(),
            "{message}: the named frame carries the parse error: {f}"
        );
    }
    // The second connection's frames carry on from the first's.
    assert!(crlf.windows(2).all(|w| w[0] < w[1]), "{crlf:?}");
}
