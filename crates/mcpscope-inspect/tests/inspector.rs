//! Shared plumbing of the core's tests: an `Inspector` whose history lives in a temp directory,
//! over the real demo server on a loopback port (Streamable HTTP), with no HTTP server of ours.

use mcpscope_inspect::{Catalog, CatalogEntry, Inspector, Options};
use mcpscope_store::{HistoryStore, Retention};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A fresh directory under the system temp dir, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-inspect-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl TempDir {
    /// Where it is.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

/// An inspector over `servers` (catalog entries as JSON) with its history and tokens in `dir`,
/// `window_frames` frames per server in memory and no pinger (its frames would come at any time).
pub(crate) fn inspector_over(
    dir: &TempDir,
    servers: Vec<(&str, Value)>,
    window_frames: usize,
) -> Arc<Inspector> {
    let options = Options {
        window_frames,
        ..Options::default()
    };
    inspector_with(dir, servers, options)
}

/// [`inspector_over`] with `options` (no pinger and tokens in `dir` whatever they say).
pub(crate) fn inspector_with(
    dir: &TempDir,
    servers: Vec<(&str, Value)>,
    options: Options,
) -> Arc<Inspector> {
    let store = HistoryStore::open(&dir.0.join("history.sqlite"), Retention::default())
        .expect("history database");
    let entries = servers
        .into_iter()
        .map(|(name, e)| {
            let e: CatalogEntry = serde_json::from_value(e).expect("entry");
            (name.to_string(), e.normalized())
        })
        .collect();
    let options = Options {
        ping_interval: None,
        // Tokens in the test's own directory, never in the user's keyring or home.
        secrets: Some(mcpscope_store::SecretStoreConfig::file(
            dir.0.join("secrets.enc"),
            None,
        )),
        ..options
    };
    Inspector::new(Catalog::in_memory(entries), store, options)
}

/// The demo at `url` as `legacy` and `modern` (one catalog entry per era).
pub(crate) fn demo_in_both_eras(url: &str) -> Vec<(&'static str, Value)> {
    let entry = |era: &str| json!({"type": "http", "url": url, "protocolEra": era});
    vec![("legacy", entry("legacy")), ("modern", entry("modern"))]
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The demo server over Streamable HTTP on a loopback port; stops when dropped.
pub(crate) type Demo = mcpscope_demo::LoopbackDemo;

pub(crate) async fn demo() -> Demo {
    mcpscope_demo::on_loopback().await.expect("start the demo")
}

/// An inspector, its demo and its directory, kept together so none outlives the others.
pub(crate) struct Setup {
    pub inspector: Arc<Inspector>,
    _demo: Demo,
    _dir: TempDir,
}

/// An inspector whose catalog holds the demo as `legacy` and `modern` (one entry per era)
/// ([`inspector_over`]).
pub(crate) async fn setup(name: &str, window_frames: usize) -> Setup {
    let dir = TempDir::new(name);
    let demo = demo().await;
    Setup {
        inspector: inspector_over(&dir, demo_in_both_eras(&demo.url), window_frames),
        _demo: demo,
        _dir: dir,
    }
}

/// The frames as JSON objects.
pub(crate) fn parsed(rendered: &[String]) -> Vec<Value> {
    rendered
        .iter()
        .map(|f| serde_json::from_str(f).expect("a frame is JSON"))
        .collect()
}

/// Their `seq`s.
pub(crate) fn seqs(rendered: &[String]) -> Vec<u64> {
    parsed(rendered)
        .iter()
        .map(|f| f["seq"].as_u64().expect("seq"))
        .collect()
}

/// Retry `f` until it gives `Some`, for at most 30 s (SQLite is written behind the window).
pub(crate) async fn eventually<T, F, Fut>(what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
