//! Reading a server's traffic back: a page of frames in either direction, merged from the
//! in-memory window (the newest) and SQLite (everything older), and one frame's whole body.

use crate::error::{Error, Result};
use crate::frames::{self, VIEW_BODY_CAP};
use crate::state::Inspector;
use mcpscope_store::{FrameQuery, HistoryStore, StoredFrame};

/// Which frames a view asks for.
#[derive(Debug, Clone, Default)]
pub struct FramePage {
    /// Oldest first, above this seq.
    pub after: Option<u64>,
    /// Newest `limit` below this seq (when `after` is not given; `None`: the newest overall).
    pub before: Option<u64>,
    /// At most this many (clamped to 1..=10,000; default 500).
    pub limit: Option<usize>,
    /// Only these sources (`jsonrpc`, `http`, `stderr`, `lifecycle`, `oauth`); empty: all.
    pub sources: Vec<String>,
}

impl Inspector {
    /// A page of `name`'s frames as `FrameView` JSON objects, oldest first, bodies cut to
    /// [`VIEW_BODY_CAP`].
    pub async fn frames(&self, name: &str, q: FramePage) -> Result<Vec<String>> {
        let slot = self.slot(name).await?;
        let limit = q.limit.unwrap_or(500).clamp(1, 10_000);
        let sources = q.sources;
        let first = slot.frames().first_seq();
        let mut rendered: Vec<String> = Vec::new();
        let render = |f: &StoredFrame| frames::render(&f.view, &f.body, VIEW_BODY_CAP);
        match q.after {
            // Oldest first above `after`: SQLite for what the window no longer holds, then memory.
            Some(after) => {
                if after.saturating_add(1) < first {
                    let fq = FrameQuery {
                        after: Some(after),
                        before: Some(first),
                        limit,
                        sources: sources.clone(),
                    };
                    let older = self.stored_frames(name, fq).await?;
                    rendered.extend(older.iter().map(render));
                }
                if rendered.len() < limit {
                    let from = after.max(first.saturating_sub(1));
                    let w = slot.frames().after(from, limit - rendered.len(), &sources);
                    rendered.extend(w.iter().map(|f| f.render(VIEW_BODY_CAP)));
                }
            }
            // The newest `limit` below `before` (or overall): memory, then SQLite for the rest.
            None => {
                let before = q.before.unwrap_or(u64::MAX);
                let from_window = slot.frames().before(before, limit, &sources);
                let below = before.min(first);
                if from_window.len() < limit && below > 1 {
                    let fq = FrameQuery {
                        after: None,
                        before: Some(below),
                        limit: limit - from_window.len(),
                        sources: sources.clone(),
                    };
                    let older = self.stored_frames(name, fq).await?;
                    rendered.extend(older.iter().map(render));
                }
                rendered.extend(from_window.iter().map(|f| f.render(VIEW_BODY_CAP)));
            }
        }
        Ok(rendered)
    }

    async fn stored_frames(&self, name: &str, fq: FrameQuery) -> Result<Vec<StoredFrame>> {
        let server = name.to_string();
        blocking(&self.store, move |st| st.frames(&server, &fq)).await
    }

    /// The whole body of `name`'s frame `seq`, from memory or SQLite.
    pub async fn frame_body(&self, name: &str, seq: u64) -> Result<FrameBody> {
        let slot = self.slot(name).await?;
        let in_window = slot.frames().get(seq).map(|f| f.body.to_vec());
        if let Some(bytes) = in_window {
            return Ok(FrameBody::new(bytes));
        }
        let server = name.to_string();
        blocking(&self.store, move |st| st.frame(&server, seq))
            .await?
            .map(|f| FrameBody::new(f.body))
            .ok_or_else(|| {
                Error::not_found(format!(
                    "server {name:?} has no frame {seq} (pruned, or never recorded)"
                ))
            })
    }
}

/// A frame's whole body, and whether it reads as JSON (what a download names it).
#[derive(Debug, Clone)]
pub struct FrameBody {
    /// The exact bytes.
    pub bytes: Vec<u8>,
    /// Its first non-blank byte opens a JSON object or array (`.json`, else `.bin`).
    pub json: bool,
}

impl FrameBody {
    fn new(bytes: Vec<u8>) -> FrameBody {
        let json = bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'{' || *b == b'[');
        FrameBody { bytes, json }
    }
}

/// Run `f` on the history database off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    store: &std::sync::Arc<HistoryStore>,
    f: impl FnOnce(&HistoryStore) -> Result<T, mcpscope_store::HistoryError> + Send + 'static,
) -> Result<T> {
    let store = store.clone();
    Ok(tokio::task::spawn_blocking(move || f(&store)).await??)
}
