//! Request history, pins, saved requests and spilled traffic frames, in one SQLite file.
//!
//! The file is opened in WAL mode so a crash loses at most the last transaction and readers never
//! wait for the writer. The schema is versioned with `PRAGMA user_version` and migrated forward on
//! open. Full-text search uses an FTS5 table we maintain ourselves (not triggers on an external
//! content table) so that only the first [`FTS_TEXT_CAP`] bytes of a huge result are indexed: a
//! 100 MB result stays searchable by its head without an index as large as itself.
//!
//! Every call here blocks on SQLite: async callers run them on `spawn_blocking`. JSON columns are
//! kept as text and handed back as text, so this crate does not decide how views shape them.
//!
//! ```no_run
//! # fn f() -> Result<(), mcpscope_store::HistoryError> {
//! use mcpscope_store::{HistoryQuery, HistoryStore, NewEntry, Retention};
//! let store = HistoryStore::open(std::path::Path::new("history.sqlite"), Retention::default())?;
//! let id = store.insert(&NewEntry { server: "demo".into(), method: "tools/list".into(), ..Default::default() })?;
//! store.finish(id, "ok", Some(r#"{"tools":[]}"#), None, 12.0, &[1, 2])?;
//! store.pin(id, Some("baseline"))?;
//! let found = store.query(&HistoryQuery { text: Some("tools".into()), ..Default::default() }, 1024)?;
//! assert_eq!(found[0].label.as_deref(), Some("baseline"));
//! # Ok(()) }
//! ```

use rusqlite::{Connection, OptionalExtension, Row, params};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many bytes of `params` and of `result` go into the full-text index.
pub const FTS_TEXT_CAP: usize = 1 << 20;

/// The schema version this code writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

/// Failures of the history database. Each names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// SQLite refused (locked, full disk, corrupted file, …).
    #[error(
        "history database {path}: {source}\n\nif the file is damaged, move it away and mcpscope starts a new one"
    )]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file was written by a newer mcpscope.
    #[error(
        "history database {path} has schema version {found}, newer than this mcpscope understands ({SCHEMA_VERSION}); upgrade mcpscope or point MCPSCOPE_DATA_DIR elsewhere"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its `user_version`.
        found: i64,
    },
}

/// Result alias for this module.
pub type Result<T, E = HistoryError> = std::result::Result<T, E>;

/// How much is kept. Pinned entries are never pruned.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    /// Unpinned history entries kept (oldest pruned first).
    pub max_entries: usize,
    /// Frames kept per server (oldest pruned first).
    pub max_frames_per_server: u64,
    /// Bytes of frames kept per server (view and body; oldest pruned first, down to nine
    /// tenths so a flood does not prune on every batch): a count alone lets 1 MB notifications
    /// fill the disk.
    pub max_frame_bytes_per_server: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_entries: 20_000,
            max_frames_per_server: 500_000,
            max_frame_bytes_per_server: 256 * 1024 * 1024,
        }
    }
}

/// A history entry about to be recorded (status `pending`).
#[derive(Debug, Clone, Default)]
pub struct NewEntry {
    /// Catalog name of the server.
    pub server: String,
    /// JSON-RPC method.
    pub method: String,
    /// Params as JSON text.
    pub params: Option<String>,
    /// When it started, µs since the epoch.
    pub started_at_us: u64,
    /// `legacy` or `modern`.
    pub era: Option<String>,
    /// The entry that caused this one.
    pub parent_id: Option<i64>,
    /// The id the view chose for it (to cancel it).
    pub request_id: Option<String>,
}

/// One recorded request.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Row id.
    pub id: i64,
    /// Catalog name of the server.
    pub server: String,
    /// JSON-RPC method.
    pub method: String,
    /// Params as JSON text.
    pub params: Option<String>,
    /// `pending`, `ok`, `error` or `cancelled`.
    pub status: String,
    /// Result JSON text, cut to the cap the caller asked for (see `result_len`).
    pub result: Option<String>,
    /// Length in bytes of the whole result text.
    pub result_len: u64,
    /// Error JSON text.
    pub error: Option<String>,
    /// When it started, µs since the epoch.
    pub started_at_us: u64,
    /// How long it took (`None` while pending).
    pub duration_ms: Option<f64>,
    /// Pinned.
    pub pinned: bool,
    /// The pin's label.
    pub label: Option<String>,
    /// `legacy` or `modern`.
    pub era: Option<String>,
    /// The entry that caused this one.
    pub parent_id: Option<i64>,
    /// The id the view chose.
    pub request_id: Option<String>,
    /// Sequence numbers of the frames that belong to it.
    pub frames: Vec<u64>,
}

/// Something a request caused: progress, a log line, a server request, an input round.
#[derive(Debug, Clone, PartialEq)]
pub struct Child {
    /// `progress`, `log`, `serverRequest`, `notification`, …
    pub kind: String,
    /// Milliseconds after the parent started.
    pub offset_ms: f64,
    /// JSON text.
    pub data: String,
}

/// Filters for [`HistoryStore::query`].
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    /// Full-text search over method, params and result.
    pub text: Option<String>,
    /// Only this server.
    pub server: Option<String>,
    /// Exact method, or a prefix ending in `/` (`tools/`).
    pub method: Option<String>,
    /// Only this status.
    pub status: Option<String>,
    /// Started at or after (µs).
    pub from_us: Option<u64>,
    /// Started at or before (µs).
    pub to_us: Option<u64>,
    /// Only pinned (`Some(true)`) or only unpinned (`Some(false)`).
    pub pinned: Option<bool>,
    /// Entries with an id below this (paging backwards).
    pub before: Option<i64>,
    /// How many (newest first). 0 means 100.
    pub limit: usize,
}

/// A request saved by name.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedRequest {
    /// Row id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The server it was made for.
    pub server: String,
    /// Method.
    pub method: String,
    /// Params as JSON text.
    pub params: Option<String>,
    /// When it was saved (µs).
    pub created_at_us: u64,
}

/// One traffic frame as kept on disk: the view's description of it (JSON text, opaque here), the
/// sources it belongs to (for filtering) and the exact bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFrame {
    /// The server.
    pub server: String,
    /// Per-server sequence number.
    pub seq: u64,
    /// Wall-clock time (µs).
    pub time_us: u64,
    /// Sources it belongs to (`jsonrpc`, `http`, …).
    pub sources: Vec<String>,
    /// The view's JSON description, without the body.
    pub view: String,
    /// The exact bytes.
    pub body: Vec<u8>,
}

/// Filters for [`HistoryStore::frames`].
#[derive(Debug, Clone, Default)]
pub struct FrameQuery {
    /// Only frames with a larger seq (oldest first).
    pub after: Option<u64>,
    /// Only frames with a smaller seq (newest first, returned in ascending order).
    pub before: Option<u64>,
    /// At most this many. 0 means 500.
    pub limit: usize,
    /// Only frames belonging to one of these sources (empty: all).
    pub sources: Vec<String>,
}

/// The SQLite history database.
#[derive(Debug)]
pub struct HistoryStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    retention: Retention,
    /// Bytes of frames stored per server, as far as known (summed once, then kept up to date
    /// by `put_frames`; only ever locked inside `with`, after the connection).
    frame_bytes: Mutex<std::collections::HashMap<String, u64>>,
}

impl HistoryStore {
    /// Open (creating and migrating as needed) the database at `path`. Entries left `pending` by
    /// a previous run that stopped are marked as errors, so nothing waits forever.
    pub fn open(path: &Path, retention: Retention) -> Result<HistoryStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        let err = |source| HistoryError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
        // WAL: a crash loses at most the last transaction, and reads do not wait for writes.
        let _mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(err)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
            .map_err(err)?;
        let store = HistoryStore {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            retention,
            frame_bytes: Mutex::default(),
        };
        store.migrate()?;
        store.with(|c| {
            c.execute(
                "UPDATE history SET status = 'error', error = ?1 WHERE status = 'pending'",
                params![
                    r#"{"code":"interrupted","message":"mcpscope stopped before the answer arrived"}"#
                ],
            )
        })?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut conn).map_err(|source| HistoryError::Sqlite {
            path: self.path.clone(),
            source,
        })
    }

    fn migrate(&self) -> Result<()> {
        let version: i64 = self.with(|c| c.query_row("PRAGMA user_version", [], |r| r.get(0)))?;
        if version > SCHEMA_VERSION {
            return Err(HistoryError::TooNew {
                path: self.path.clone(),
                found: version,
            });
        }
        if version < 1 {
            self.with(|c| {
                let tx = c.transaction()?;
                tx.execute_batch(
                    "CREATE TABLE history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        server TEXT NOT NULL,
                        method TEXT NOT NULL,
                        params TEXT,
                        status TEXT NOT NULL,
                        result TEXT,
                        error TEXT,
                        started_at_us INTEGER NOT NULL,
                        duration_ms REAL,
                        pinned INTEGER NOT NULL DEFAULT 0,
                        label TEXT,
                        era TEXT,
                        parent_id INTEGER,
                        request_id TEXT,
                        frames TEXT NOT NULL DEFAULT '[]'
                    );
                    CREATE INDEX history_by_server ON history(server, id);
                    CREATE INDEX history_by_request ON history(request_id);
                    CREATE TABLE history_children (
                        history_id INTEGER NOT NULL REFERENCES history(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        offset_ms REAL NOT NULL,
                        data TEXT NOT NULL
                    );
                    CREATE INDEX children_by_parent ON history_children(history_id);
                    CREATE VIRTUAL TABLE history_fts USING fts5(method, params, result);
                    CREATE TABLE saved (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL,
                        server TEXT NOT NULL,
                        method TEXT NOT NULL,
                        params TEXT,
                        created_at_us INTEGER NOT NULL
                    );
                    CREATE TABLE frames (
                        server TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        time_us INTEGER NOT NULL,
                        sources TEXT NOT NULL,
                        view TEXT NOT NULL,
                        body BLOB NOT NULL,
                        PRIMARY KEY (server, seq)
                    ) WITHOUT ROWID;
                    PRAGMA user_version = 1;",
                )?;
                tx.commit()
            })?;
        }
        Ok(())
    }

    /// Record a new entry (status `pending`); returns its id.
    pub fn insert(&self, e: &NewEntry) -> Result<i64> {
        let id = self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "INSERT INTO history (server, method, params, status, started_at_us, era, parent_id, request_id)
                 VALUES (?1, ?2, ?3, 'pending', ?4, ?5, ?6, ?7)",
                params![e.server, e.method, e.params, e.started_at_us as i64, e.era, e.parent_id, e.request_id],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO history_fts (rowid, method, params, result) VALUES (?1, ?2, ?3, '')",
                params![id, e.method, e.params.as_deref().map(fts_text)],
            )?;
            tx.commit()?;
            Ok(id)
        })?;
        self.prune_entries()?;
        Ok(id)
    }

    /// Record how an entry ended.
    pub fn finish(
        &self,
        id: i64,
        status: &str,
        result: Option<&str>,
        error: Option<&str>,
        duration_ms: f64,
        frames: &[u64],
    ) -> Result<()> {
        let frames = serde_json::to_string(frames).unwrap_or_else(|_| "[]".into());
        self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "UPDATE history SET status = ?2, result = ?3, error = ?4, duration_ms = ?5, frames = ?6 WHERE id = ?1",
                params![id, status, result, error, duration_ms, frames],
            )?;
            // The index sees the error too, so a search for an error message finds the call.
            let searchable = match (result, error) {
                (Some(r), _) => Some(fts_text(r)),
                (None, Some(e)) => Some(fts_text(e)),
                _ => None,
            };
            tx.execute(
                "UPDATE history_fts SET result = ?2 WHERE rowid = ?1",
                params![id, searchable],
            )?;
            tx.commit()
        })
    }

    /// Attach something the request caused.
    pub fn add_child(&self, id: i64, child: &Child) -> Result<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO history_children (history_id, kind, offset_ms, data) VALUES (?1, ?2, ?3, ?4)",
                params![id, child.kind, child.offset_ms, child.data],
            )
            .map(|_| ())
        })
    }

    /// The children of an entry, in the order they happened.
    pub fn children(&self, id: i64) -> Result<Vec<Child>> {
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT kind, offset_ms, data FROM history_children WHERE history_id = ?1 ORDER BY rowid",
            )?;
            let rows = st.query_map(params![id], |r| {
                Ok(Child {
                    kind: r.get(0)?,
                    offset_ms: r.get(1)?,
                    data: r.get(2)?,
                })
            })?;
            rows.collect()
        })
    }

    /// One entry, its result cut to `result_cap` bytes.
    pub fn get(&self, id: i64, result_cap: usize) -> Result<Option<Entry>> {
        self.with(|c| {
            c.query_row(
                &format!("{} WHERE h.id = ?2", select_entries()),
                params![sql_cap(result_cap), id],
                entry_from_row,
            )
            .optional()
        })
    }

    /// The whole result text of an entry (`None`: no such entry or no result).
    pub fn result(&self, id: i64) -> Result<Option<String>> {
        self.with(|c| {
            c.query_row(
                "SELECT result FROM history WHERE id = ?1",
                params![id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
        })
    }

    /// Entries matching `q`, newest first, results cut to `result_cap` bytes.
    pub fn query(&self, q: &HistoryQuery, result_cap: usize) -> Result<Vec<Entry>> {
        let mut sql = select_entries();
        let mut clauses: Vec<String> = Vec::new();
        let mut args: Vec<rusqlite::types::Value> =
            vec![rusqlite::types::Value::Integer(sql_cap(result_cap))];
        let arg = |v: rusqlite::types::Value, args: &mut Vec<rusqlite::types::Value>| {
            args.push(v);
            format!("?{}", args.len())
        };
        use rusqlite::types::Value as V;
        if let Some(text) = q.text.as_deref().and_then(fts_query) {
            let p = arg(V::Text(text), &mut args);
            clauses.push(format!(
                "h.id IN (SELECT rowid FROM history_fts WHERE history_fts MATCH {p})"
            ));
        }
        if let Some(s) = &q.server {
            let p = arg(V::Text(s.clone()), &mut args);
            clauses.push(format!("h.server = {p}"));
        }
        if let Some(m) = &q.method {
            if m.ends_with('/') {
                let p = arg(V::Text(format!("{}%", like_escape(m))), &mut args);
                clauses.push(format!("h.method LIKE {p} ESCAPE '\\'"));
            } else {
                let p = arg(V::Text(m.clone()), &mut args);
                clauses.push(format!("h.method = {p}"));
            }
        }
        if let Some(s) = &q.status {
            let p = arg(V::Text(s.clone()), &mut args);
            clauses.push(format!("h.status = {p}"));
        }
        if let Some(f) = q.from_us {
            let p = arg(V::Integer(f as i64), &mut args);
            clauses.push(format!("h.started_at_us >= {p}"));
        }
        if let Some(t) = q.to_us {
            let p = arg(V::Integer(t as i64), &mut args);
            clauses.push(format!("h.started_at_us <= {p}"));
        }
        if let Some(pinned) = q.pinned {
            clauses.push(format!("h.pinned = {}", i64::from(pinned)));
        }
        if let Some(b) = q.before {
            let p = arg(V::Integer(b), &mut args);
            clauses.push(format!("h.id < {p}"));
        }
        if !clauses.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&clauses.join(" AND "));
        }
        let limit = if q.limit == 0 { 100 } else { q.limit };
        sql.push_str(&format!(" ORDER BY h.id DESC LIMIT {limit}"));
        self.with(|c| {
            let mut st = c.prepare(&sql)?;
            let rows = st.query_map(rusqlite::params_from_iter(args.iter()), entry_from_row)?;
            rows.collect()
        })
    }

    /// Pin an entry with an optional label (pinning again changes the label). `None` when there
    /// is no such entry.
    pub fn pin(&self, id: i64, label: Option<&str>) -> Result<Option<Entry>> {
        self.with(|c| {
            c.execute(
                "UPDATE history SET pinned = 1, label = ?2 WHERE id = ?1",
                params![id, label],
            )
        })?;
        self.get(id, usize::MAX)
    }

    /// Unpin an entry (its label goes too).
    pub fn unpin(&self, id: i64) -> Result<Option<Entry>> {
        self.with(|c| {
            c.execute(
                "UPDATE history SET pinned = 0, label = NULL WHERE id = ?1",
                params![id],
            )
        })?;
        self.get(id, usize::MAX)
    }

    /// Delete every unpinned entry (of one server, or all); returns how many went.
    pub fn clear(&self, server: Option<&str>) -> Result<usize> {
        self.with(|c| {
            let tx = c.transaction()?;
            let n = match server {
                Some(s) => tx.execute(
                    "DELETE FROM history WHERE pinned = 0 AND server = ?1",
                    params![s],
                )?,
                None => tx.execute("DELETE FROM history WHERE pinned = 0", [])?,
            };
            tx.execute(
                "DELETE FROM history_fts WHERE rowid NOT IN (SELECT id FROM history)",
                [],
            )?;
            tx.commit()?;
            Ok(n)
        })
    }

    fn prune_entries(&self) -> Result<()> {
        let keep = self.retention.max_entries as i64;
        self.with(|c| {
            let cutoff: Option<i64> = c
                .query_row(
                    "SELECT id FROM history WHERE pinned = 0 ORDER BY id DESC LIMIT 1 OFFSET ?1",
                    params![keep],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(cutoff) = cutoff {
                let tx = c.transaction()?;
                tx.execute(
                    "DELETE FROM history_fts WHERE rowid IN (SELECT id FROM history WHERE pinned = 0 AND id <= ?1)",
                    params![cutoff],
                )?;
                tx.execute(
                    "DELETE FROM history WHERE pinned = 0 AND id <= ?1",
                    params![cutoff],
                )?;
                tx.commit()?;
            }
            Ok(())
        })
    }

    /// Save a request by name.
    pub fn save(
        &self,
        name: &str,
        server: &str,
        method: &str,
        params: Option<&str>,
        now_us: u64,
    ) -> Result<SavedRequest> {
        let id = self.with(|c| {
            c.execute(
                "INSERT INTO saved (name, server, method, params, created_at_us) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![name, server, method, params, now_us as i64],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        Ok(SavedRequest {
            id,
            name: name.into(),
            server: server.into(),
            method: method.into(),
            params: params.map(str::to_string),
            created_at_us: now_us,
        })
    }

    /// Every saved request, oldest first.
    pub fn saved(&self) -> Result<Vec<SavedRequest>> {
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT id, name, server, method, params, created_at_us FROM saved ORDER BY id",
            )?;
            let rows = st.query_map([], |r| {
                Ok(SavedRequest {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    server: r.get(2)?,
                    method: r.get(3)?,
                    params: r.get(4)?,
                    created_at_us: r.get::<_, i64>(5)? as u64,
                })
            })?;
            rows.collect()
        })
    }

    /// Delete a saved request; false when there was none.
    pub fn delete_saved(&self, id: i64) -> Result<bool> {
        self.with(|c| c.execute("DELETE FROM saved WHERE id = ?1", params![id]))
            .map(|n| n > 0)
    }

    /// Write frames (a frame written again replaces the earlier copy), then prune each server's
    /// oldest frames beyond the retention.
    pub fn put_frames(&self, frames: &[StoredFrame]) -> Result<()> {
        if frames.is_empty() {
            return Ok(());
        }
        let keep = self.retention.max_frames_per_server;
        self.with(|c| {
            let tx = c.transaction()?;
            {
                let mut st = tx.prepare_cached(
                    "INSERT OR REPLACE INTO frames (server, seq, time_us, sources, view, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?;
                for f in frames {
                    st.execute(params![
                        f.server,
                        f.seq as i64,
                        f.time_us as i64,
                        sources_column(&f.sources),
                        f.view,
                        f.body
                    ])?;
                }
            }
            let mut servers: Vec<&str> = frames.iter().map(|f| f.server.as_str()).collect();
            servers.sort_unstable();
            servers.dedup();
            for s in servers {
                let max = frames
                    .iter()
                    .filter(|f| f.server == s)
                    .map(|f| f.seq)
                    .max()
                    .unwrap_or(0);
                let added: u64 = frames
                    .iter()
                    .filter(|f| f.server == s)
                    .map(|f| (f.view.len() + f.body.len()) as u64)
                    .sum();
                let mut bytes = self.frame_bytes.lock().unwrap_or_else(|p| p.into_inner());
                let mut total = match bytes.get(s) {
                    Some(t) => t + added,
                    None => frame_bytes(&tx, s, i64::MAX)?,
                };
                if max > keep {
                    let cut = (max - keep) as i64;
                    total = total.saturating_sub(frame_bytes(&tx, s, cut)?);
                    tx.execute(
                        "DELETE FROM frames WHERE server = ?1 AND seq <= ?2",
                        params![s, cut],
                    )?;
                }
                let cap = self.retention.max_frame_bytes_per_server;
                if total > cap {
                    prune_bytes(&tx, s, total - cap / 10 * 9)?;
                    // Exact again (a frame written twice was counted twice).
                    total = frame_bytes(&tx, s, i64::MAX)?;
                }
                bytes.insert(s.to_string(), total);
            }
            tx.commit()
        })
    }

    /// Frames of a server matching `q`, in ascending seq order.
    pub fn frames(&self, server: &str, q: &FrameQuery) -> Result<Vec<StoredFrame>> {
        use rusqlite::types::Value as V;
        let limit = if q.limit == 0 { 500 } else { q.limit };
        let mut args: Vec<V> = vec![V::Text(server.to_string())];
        let mut sql = String::from(
            "SELECT server, seq, time_us, sources, view, body FROM frames WHERE server = ?1",
        );
        if let Some(a) = q.after {
            args.push(V::Integer(a as i64));
            sql.push_str(&format!(" AND seq > ?{}", args.len()));
        }
        if let Some(b) = q.before {
            args.push(V::Integer(b as i64));
            sql.push_str(&format!(" AND seq < ?{}", args.len()));
        }
        if !q.sources.is_empty() {
            let ors: Vec<String> = q
                .sources
                .iter()
                .map(|s| {
                    args.push(V::Text(format!("%,{},%", like_escape(s))));
                    format!("sources LIKE ?{} ESCAPE '\\'", args.len())
                })
                .collect();
            sql.push_str(&format!(" AND ({})", ors.join(" OR ")));
        }
        // Paging backwards takes the newest below `before`; otherwise the oldest above `after`.
        let newest_first = q.before.is_some() && q.after.is_none();
        sql.push_str(if newest_first {
            " ORDER BY seq DESC"
        } else {
            " ORDER BY seq ASC"
        });
        sql.push_str(&format!(" LIMIT {limit}"));
        let mut out = self.with(|c| {
            let mut st = c.prepare(&sql)?;
            let rows = st.query_map(rusqlite::params_from_iter(args.iter()), frame_from_row)?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        if newest_first {
            out.reverse();
        }
        Ok(out)
    }

    /// One frame.
    pub fn frame(&self, server: &str, seq: u64) -> Result<Option<StoredFrame>> {
        self.with(|c| {
            c.query_row(
                "SELECT server, seq, time_us, sources, view, body FROM frames WHERE server = ?1 AND seq = ?2",
                params![server, seq as i64],
                frame_from_row,
            )
            .optional()
        })
    }

    /// The largest frame seq recorded for a server (0 when none), so numbering goes on after a
    /// restart.
    pub fn max_seq(&self, server: &str) -> Result<u64> {
        self.with(|c| {
            c.query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM frames WHERE server = ?1",
                params![server],
                |r| r.get::<_, i64>(0),
            )
        })
        .map(|n| n as u64)
    }

    /// Forget a server's frames (its name was removed from the catalog, or its screens reset).
    pub fn delete_frames(&self, server: &str) -> Result<usize> {
        self.with(|c| {
            self.frame_bytes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(server);
            c.execute("DELETE FROM frames WHERE server = ?1", params![server])
        })
    }
}

/// Bytes (view and body) of `server`'s frames up to `seq`.
fn frame_bytes(c: &Connection, server: &str, seq: i64) -> rusqlite::Result<u64> {
    c.query_row(
        "SELECT COALESCE(SUM(length(view) + length(body)), 0) FROM frames WHERE server = ?1 AND seq <= ?2",
        params![server, seq],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n as u64)
}

/// Delete `server`'s oldest frames until at least `excess` bytes are gone.
fn prune_bytes(c: &Connection, server: &str, excess: u64) -> rusqlite::Result<()> {
    let mut st = c.prepare_cached(
        "SELECT seq, length(view) + length(body) FROM frames WHERE server = ?1 ORDER BY seq",
    )?;
    let mut rows = st.query(params![server])?;
    let (mut freed, mut last) = (0u64, None);
    while freed < excess
        && let Some(r) = rows.next()?
    {
        last = Some(r.get::<_, i64>(0)?);
        freed += r.get::<_, i64>(1)? as u64;
    }
    drop(rows);
    if let Some(seq) = last {
        c.execute(
            "DELETE FROM frames WHERE server = ?1 AND seq <= ?2",
            params![server, seq],
        )?;
    }
    Ok(())
}

/// A byte cap as SQLite's `substr` length (a negative length would count backwards).
fn sql_cap(cap: usize) -> i64 {
    i64::try_from(cap).unwrap_or(i64::MAX)
}

fn select_entries() -> String {
    "SELECT h.id, h.server, h.method, h.params, h.status, substr(h.result, 1, ?1), \
     length(CAST(h.result AS BLOB)), h.error, h.started_at_us, h.duration_ms, h.pinned, h.label, \
     h.era, h.parent_id, h.request_id, h.frames FROM history h"
        .to_string()
}

fn entry_from_row(r: &Row<'_>) -> rusqlite::Result<Entry> {
    let frames: String = r.get(15)?;
    Ok(Entry {
        id: r.get(0)?,
        server: r.get(1)?,
        method: r.get(2)?,
        params: r.get(3)?,
        status: r.get(4)?,
        result: r.get(5)?,
        result_len: r.get::<_, Option<i64>>(6)?.unwrap_or(0) as u64,
        error: r.get(7)?,
        started_at_us: r.get::<_, i64>(8)? as u64,
        duration_ms: r.get(9)?,
        pinned: r.get::<_, i64>(10)? != 0,
        label: r.get(11)?,
        era: r.get(12)?,
        parent_id: r.get(13)?,
        request_id: r.get(14)?,
        frames: serde_json::from_str(&frames).unwrap_or_default(),
    })
}

fn frame_from_row(r: &Row<'_>) -> rusqlite::Result<StoredFrame> {
    let sources: String = r.get(3)?;
    Ok(StoredFrame {
        server: r.get(0)?,
        seq: r.get::<_, i64>(1)? as u64,
        time_us: r.get::<_, i64>(2)? as u64,
        sources: sources
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        view: r.get(4)?,
        body: r.get(5)?,
    })
}

/// Sources as `,a,b,` so one `LIKE '%,a,%'` matches exactly one source name.
fn sources_column(sources: &[String]) -> String {
    format!(",{},", sources.join(","))
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// The head of a JSON text that goes into the index (cut on a character boundary).
fn fts_text(s: &str) -> &str {
    if s.len() <= FTS_TEXT_CAP {
        return s;
    }
    let mut end = FTS_TEXT_CAP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A person's search text as an FTS5 query: every word must appear, each as a prefix, with FTS5
/// syntax characters taken literally (so `tools/call` or `a"b` never is a syntax error).
fn fts_query(text: &str) -> Option<String> {
    let terms: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|t| !t.is_empty())
        .map(|t| format!("\"{}\"*", t.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_text_becomes_a_safe_prefix_query() {
        assert_eq!(
            fts_query("tools/call hello").as_deref(),
            Some("\"tools\"* \"call\"* \"hello\"*")
        );
        assert_eq!(fts_query("  \"  ").as_deref(), None);
    }

    #[test]
    fn index_text_is_cut_on_a_character_boundary() {
        let s = "é".repeat(FTS_TEXT_CAP);
        let cut = fts_text(&s);
        assert!(cut.len() <= FTS_TEXT_CAP);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
