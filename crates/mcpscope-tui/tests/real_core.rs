//! The real core under the TUI's tests: an `Inspector` over `mcpscope demo-server` (stdio; the
//! binary is `target/debug/mcpscope`, built first with `cargo build -p mcpscope`) with its
//! history and tokens in a temp directory, and a pump that performs a state's effects on it
//! (`effects::perform`) and feeds the answers back through the reducer until none is left.

use mcpscope_inspect::{Catalog, CatalogEntry, Inspector, Options};
use mcpscope_store::{HistoryStore, Retention};
use mcpscope_tui::msg::{Effect, Msg};
use mcpscope_tui::state::AppState;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A directory removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The demo server's binary.
pub(crate) fn mcpscope_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/mcpscope")
}

/// An inspector with one server, `demo` (the demo server over stdio), and its temp directory.
pub(crate) fn inspector(name: &str) -> (TempDir, Arc<Inspector>) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "mcpscope-tui-{name}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = HistoryStore::open(&dir.join("history.sqlite"), Retention::default())
        .expect("history database");
    let bin = mcpscope_bin();
    assert!(
        bin.exists(),
        "build it first: cargo build -p mcpscope ({bin:?})"
    );
    let entry: CatalogEntry = serde_json::from_value(json!({
        "command": bin.display().to_string(),
        "args": ["demo-server"],
    }))
    .expect("entry");
    let options = Options {
        ping_interval: None,
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.join("secrets.enc"),
            None,
        )),
        ..Options::default()
    };
    let catalog = Catalog::in_memory(vec![("demo".to_string(), entry.normalized())]);
    (TempDir(dir), Inspector::new(catalog, store, options))
}

/// True when the loop answers `e` with a `Msg::Done`.
fn answers(e: &Effect) -> bool {
    !matches!(
        e,
        Effect::Cancel { .. }
            | Effect::Answer { .. }
            | Effect::AnswerWithProfile { .. }
            | Effect::Copy(_)
            | Effect::OpenUrl(_)
            | Effect::Quit
            | Effect::Goto { .. }
            | Effect::Toast { .. }
            | Effect::ShowPager(_)
    )
}

/// Perform `effects` and every effect their answers bring, until none is waiting.
pub(crate) async fn pump(s: &mut AppState, inspector: &Arc<Inspector>, effects: Vec<Effect>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Msg>();
    let mut waiting = 0usize;
    let start = |effects: Vec<Effect>, waiting: &mut usize| {
        for e in effects {
            if answers(&e) {
                *waiting += 1;
                mcpscope_tui::effects::perform(inspector, e, &tx);
            }
        }
    };
    start(effects, &mut waiting);
    while waiting > 0 {
        let m = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("an effect's answer within 30 s")
            .expect("channel open");
        waiting -= 1;
        let more = mcpscope_tui::update::update(s, m, mcpscope_tui::app::now_us());
        start(more, &mut waiting);
    }
}
