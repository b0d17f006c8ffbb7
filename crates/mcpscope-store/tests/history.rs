//! The history database tested as the web UI meets it: a real SQLite file on disk, closed and
//! opened again as a restart would, searched, cleared, paged and pruned.

use mcpscope_store::{
    Child, FrameQuery, HistoryQuery, HistoryStore, NewEntry, Retention, StoredFrame,
};
use std::path::{Path, PathBuf};

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let unique = format!(
            "mcpscope-history-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let dir = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn entry(server: &str, method: &str, params: &str) -> NewEntry {
    NewEntry {
        server: server.into(),
        method: method.into(),
        params: Some(params.into()),
        started_at_us: 1_000,
        era: Some("legacy".into()),
        ..Default::default()
    }
}

#[test]
fn a_pin_and_its_label_survive_a_restart() {
    let dir = TempDir::new("pin");
    let db = dir.path().join("history.sqlite");
    let id = {
        let store = HistoryStore::open(&db, Retention::default()).unwrap();
        let id = store
            .insert(&entry("demo", "tools/call", r#"{"name":"echo"}"#))
            .unwrap();
        store
            .finish(id, "ok", Some(r#"{"content":[]}"#), None, 3.5, &[4, 5])
            .unwrap();
        store.pin(id, Some("the good one")).unwrap();
        id
    };
    let store = HistoryStore::open(&db, Retention::default()).unwrap();
    let e = store
        .get(id, 1 << 20)
        .unwrap()
        .expect("entry after restart");
    assert!(e.pinned);
    assert_eq!(e.label.as_deref(), Some("the good one"));
    assert_eq!(e.frames, vec![4, 5]);
    assert_eq!(e.duration_ms, Some(3.5));
    let pinned = store
        .query(
            &HistoryQuery {
                pinned: Some(true),
                ..Default::default()
            },
            1024,
        )
        .unwrap();
    assert_eq!(pinned.iter().map(|e| e.id).collect::<Vec<_>>(), vec![id]);
}

#[test]
fn full_text_search_finds_a_word_inside_a_result() {
    let dir = TempDir::new("fts");
    let store = HistoryStore::open(&dir.path().join("h.sqlite"), Retention::default()).unwrap();
    let a = store
        .insert(&entry("demo", "tools/call", r#"{"name":"echo"}"#))
        .unwrap();
    store
        .finish(
            a,
            "ok",
            Some(r#"{"content":[{"type":"text","text":"Echo: platypus"}]}"#),
            None,
            1.0,
            &[],
        )
        .unwrap();
    let b = store
        .insert(&entry("demo", "tools/call", r#"{"name":"add"}"#))
        .unwrap();
    store
        .finish(
            b,
            "ok",
            Some(r#"{"content":[{"text":"3"}]}"#),
            None,
            1.0,
            &[],
        )
        .unwrap();
    let search = |text: &str| -> Vec<i64> {
        store
            .query(
                &HistoryQuery {
                    text: Some(text.into()),
                    ..Default::default()
                },
                1024,
            )
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect()
    };
    assert_eq!(search("platypus"), vec![a], "a word of the result");
    assert_eq!(search("platy"), vec![a], "a prefix of it");
    assert_eq!(search("add"), vec![b], "a word of the params");
    assert_eq!(
        search("tools/call"),
        vec![b, a],
        "the method, slash and all"
    );
    assert!(search("wombat").is_empty());
    // Errors are searchable too.
    let c = store
        .insert(&entry("demo", "tools/call", r#"{"name":"nope"}"#))
        .unwrap();
    store
        .finish(
            c,
            "error",
            None,
            Some(r#"{"code":"rpc_error","message":"unknown tool: nope"}"#),
            1.0,
            &[],
        )
        .unwrap();
    assert_eq!(search("unknown tool"), vec![c]);
}

#[test]
fn clear_keeps_pinned_entries_and_their_search() {
    let dir = TempDir::new("clear");
    let store = HistoryStore::open(&dir.path().join("h.sqlite"), Retention::default()).unwrap();
    let keep = store
        .insert(&entry("demo", "tools/list", r#"{"keep":"kangaroo"}"#))
        .unwrap();
    let other = store
        .insert(&entry("other", "tools/list", r#"{"x":"kangaroo"}"#))
        .unwrap();
    let gone = store
        .insert(&entry("demo", "prompts/list", r#"{"x":"kangaroo"}"#))
        .unwrap();
    store.pin(keep, None).unwrap();
    store
        .add_child(
            gone,
            &Child {
                kind: "log".into(),
                offset_ms: 1.0,
                data: "{}".into(),
            },
        )
        .unwrap();
    assert_eq!(store.clear(Some("demo")).unwrap(), 1);
    assert!(store.get(gone, 10).unwrap().is_none());
    assert!(store.children(gone).unwrap().is_empty());
    assert!(store.get(other, 10).unwrap().is_some(), "another server's");
    assert_eq!(store.clear(None).unwrap(), 1);
    let found: Vec<i64> = store
        .query(
            &HistoryQuery {
                text: Some("kangaroo".into()),
                ..Default::default()
            },
            10,
        )
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(found, vec![keep]);
}

#[test]
fn children_results_and_paging() {
    let dir = TempDir::new("paging");
    let store = HistoryStore::open(&dir.path().join("h.sqlite"), Retention::default()).unwrap();
    let ids: Vec<i64> = (0..5)
        .map(|i| {
            store
                .insert(&entry("demo", "ping", &format!("{{\"i\":{i}}}")))
                .unwrap()
        })
        .collect();
    let page = |before: Option<i64>| -> Vec<i64> {
        store
            .query(
                &HistoryQuery {
                    before,
                    limit: 2,
                    ..Default::default()
                },
                10,
            )
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect()
    };
    assert_eq!(page(None), vec![ids[4], ids[3]]);
    assert_eq!(page(Some(ids[3])), vec![ids[2], ids[1]]);
    let big = "x".repeat(10_000);
    store
        .finish(ids[0], "ok", Some(&big), None, 1.0, &[])
        .unwrap();
    let cut = store.get(ids[0], 100).unwrap().unwrap();
    assert_eq!(cut.result.as_deref().map(str::len), Some(100));
    assert_eq!(cut.result_len, 10_000);
    assert_eq!(store.result(ids[0]).unwrap().as_deref(), Some(big.as_str()));
    for (i, kind) in ["progress", "log"].iter().enumerate() {
        store
            .add_child(
                ids[0],
                &Child {
                    kind: kind.to_string(),
                    offset_ms: i as f64,
                    data: "{}".into(),
                },
            )
            .unwrap();
    }
    let kinds: Vec<String> = store
        .children(ids[0])
        .unwrap()
        .into_iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(kinds, vec!["progress", "log"]);
}

#[test]
fn pending_entries_of_a_stopped_run_become_errors() {
    let dir = TempDir::new("pending");
    let db = dir.path().join("h.sqlite");
    let id = HistoryStore::open(&db, Retention::default())
        .unwrap()
        .insert(&entry("demo", "tools/call", "{}"))
        .unwrap();
    let store = HistoryStore::open(&db, Retention::default()).unwrap();
    let e = store.get(id, 10).unwrap().unwrap();
    assert_eq!(e.status, "error");
    assert!(e.error.unwrap().contains("stopped before the answer"));
}

#[test]
fn retention_prunes_old_unpinned_entries_and_frames() {
    let dir = TempDir::new("retention");
    let store = HistoryStore::open(
        &dir.path().join("h.sqlite"),
        Retention {
            max_entries: 3,
            max_frames_per_server: 10,
            ..Retention::default()
        },
    )
    .unwrap();
    let first = store.insert(&entry("demo", "ping", "{}")).unwrap();
    store.pin(first, None).unwrap();
    for _ in 0..6 {
        store.insert(&entry("demo", "ping", "{}")).unwrap();
    }
    let all = store.query(&HistoryQuery::default(), 10).unwrap();
    assert_eq!(all.len(), 4, "3 unpinned + the pinned one");
    assert!(all.iter().any(|e| e.id == first));

    let frames: Vec<StoredFrame> = (1..=25)
        .map(|seq| StoredFrame {
            server: "demo".into(),
            seq,
            time_us: seq,
            sources: vec![
                if seq.is_multiple_of(2) {
                    "jsonrpc"
                } else {
                    "stderr"
                }
                .into(),
            ],
            view: format!("{{\"seq\":{seq}}}"),
            body: vec![b'x'; seq as usize],
        })
        .collect();
    store.put_frames(&frames).unwrap();
    assert_eq!(store.max_seq("demo").unwrap(), 25);
    assert_eq!(store.max_seq("other").unwrap(), 0);
    let kept = store.frames("demo", &FrameQuery::default()).unwrap();
    assert_eq!(kept.first().map(|f| f.seq), Some(16));
    assert_eq!(kept.len(), 10);
    let back = store
        .frames(
            "demo",
            &FrameQuery {
                before: Some(25),
                limit: 3,
                sources: vec!["jsonrpc".into()],
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        back.iter().map(|f| f.seq).collect::<Vec<_>>(),
        vec![20, 22, 24]
    );
    assert_eq!(back[0].body.len(), 20);
    assert_eq!(
        store.frame("demo", 24).unwrap().unwrap().sources,
        vec!["jsonrpc"]
    );
}

#[test]
fn saved_requests_survive_a_restart() {
    let dir = TempDir::new("saved");
    let db = dir.path().join("h.sqlite");
    let s = HistoryStore::open(&db, Retention::default())
        .unwrap()
        .save(
            "echo hi",
            "demo",
            "tools/call",
            Some(r#"{"name":"echo"}"#),
            7,
        )
        .unwrap();
    let store = HistoryStore::open(&db, Retention::default()).unwrap();
    assert_eq!(store.saved().unwrap(), vec![s.clone()]);
    assert!(store.delete_saved(s.id).unwrap());
    assert!(!store.delete_saved(s.id).unwrap());
    assert!(store.saved().unwrap().is_empty());
}

/// Issue 24 item 28: retention counted frames only, so 40 notifications of 1 MB added 47 MB.
/// Bytes are bounded too: the oldest frames go first, the newest stay, another server's are
/// untouched, and a server whose frames were deleted counts from zero again.
#[test]
fn retention_bounds_the_bytes_of_frames_too() {
    let dir = TempDir::new("retention-bytes");
    let mb = 1024 * 1024;
    let store = HistoryStore::open(
        &dir.path().join("h.sqlite"),
        Retention {
            max_frame_bytes_per_server: 10 * mb,
            ..Retention::default()
        },
    )
    .unwrap();
    let frame = |server: &str, seq: u64| StoredFrame {
        server: server.into(),
        seq,
        time_us: seq,
        sources: vec!["jsonrpc".into()],
        view: String::new(),
        body: vec![b'x'; mb as usize],
    };
    store.put_frames(&[frame("small", 1)]).unwrap();
    for seq in 1..=40 {
        store.put_frames(&[frame("flood", seq)]).unwrap();
    }
    let stored = |server: &str| {
        store
            .frames(
                server,
                &FrameQuery {
                    limit: 1000,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let kept = stored("flood");
    let bytes: u64 = kept.iter().map(|f| f.body.len() as u64).sum();
    assert!(bytes <= 10 * mb, "{} MB kept", bytes / mb);
    assert_eq!(kept.last().map(|f| f.seq), Some(40), "the newest stay");
    assert!(
        kept.len() >= 8,
        "pruned down to nine tenths, not to nothing: {}",
        kept.len()
    );
    assert_eq!(stored("small").len(), 1);
    store.delete_frames("flood").unwrap();
    store.put_frames(&[frame("flood", 41)]).unwrap();
    assert_eq!(stored("flood").len(), 1);
}
