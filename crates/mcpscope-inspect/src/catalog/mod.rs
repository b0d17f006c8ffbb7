//! The catalog: the servers the user can connect to, kept as the ecosystem's `mcp.json`, so users
//! can bring their configs and take ours elsewhere. The one owner of that format for every view
//! (the web UI's catalog and imports, the CLI's `--config FILE --server NAME`):
//!
//! - [`entry`]: one server ([`CatalogEntry`]) and what it means;
//! - [`dialect`]: `mcp.json` as Claude Desktop, Cursor, the official Inspector, VS Code (`servers`,
//!   `mcp.servers`, comments) and Windsurf write it;
//! - [`registry`]: the MCP Registry's `server.json`, checked and turned into an entry (`lines`
//!   says on which line of the pasted text each finding is); [`verify`] asks the package's
//!   registry, the PATH and the remote what the text cannot say;
//! - [`secrets`]: `{"secret"}` values moved to the secret store and `{"secretRef"}` values
//!   resolved from it;
//! - this module: the catalog file itself.
//!
//! Writes are atomic (a temporary file in the same directory, owner-only, synced, then renamed
//! over the old one), so a crash never leaves half a catalog; a temporary file a crash left
//! behind is removed at the next load. Every edit re-reads the file first and applies itself to
//! what is there now, so a change made meanwhile in a text editor (or by another program) is kept,
//! not overwritten. Unknown fields of entries and of the document are kept as they were, and the
//! servers stay under the key the file had them (`mcpServers`, `servers`, `mcp.servers`). A
//! catalog opened with `--config` is read-only: edits are refused with a message saying how to
//! get an editable one; so is one with comments, which a rewrite would lose.

pub mod dialect;
pub mod entry;
mod lines;
pub mod registry;
pub mod secrets;
pub mod verify;

pub use dialect::{Dialect, McpJson, McpJsonError};
pub use entry::{CatalogEntry, OAuthEntry};

use crate::error::{Error, Result};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The catalog file and its servers, in file order.
#[derive(Debug, Clone)]
pub struct Catalog {
    path: Option<PathBuf>,
    read_only: bool,
    /// Where the document keeps its servers.
    dialect: Dialect,
    /// The file had comments or trailing commas (VS Code allows them); a rewrite would lose them.
    had_comments: bool,
    /// The rest of the document, kept as it was.
    doc: Map<String, Value>,
    servers: Vec<(String, CatalogEntry)>,
}

impl Catalog {
    /// A catalog that lives only in memory (tests, or no data directory).
    pub fn in_memory(servers: Vec<(String, CatalogEntry)>) -> Catalog {
        Catalog {
            path: None,
            read_only: false,
            dialect: Dialect::McpServers,
            had_comments: false,
            doc: Map::new(),
            servers,
        }
    }

    /// Load `path`, in any dialect. A missing file is an empty catalog (created on the first
    /// write). An editable catalog's stale temporary files (a crash between write and rename)
    /// are removed.
    pub fn load(path: &Path, read_only: bool) -> Result<Catalog, String> {
        if !read_only {
            remove_stale_temps(path);
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !read_only => String::new(),
            Err(e) => return Err(format!("cannot read the catalog {}: {e}", path.display())),
        };
        let mut catalog = Catalog {
            path: Some(path.to_path_buf()),
            ..Catalog::in_memory(Vec::new())
        };
        catalog.read_only = read_only;
        if text.trim().is_empty() {
            return Ok(catalog);
        }
        let file = match McpJson::parse(&text) {
            Ok(f) => f,
            // A document without servers yet: they go under `mcpServers`, beside what it has.
            Err(McpJsonError::NoServers { doc, had_comments }) => {
                catalog.doc = doc;
                catalog.had_comments = had_comments;
                return Ok(catalog);
            }
            Err(McpJsonError::NotJson(e)) => {
                return Err(format!(
                    "the catalog {} is not valid JSON ({e}); fix it or move it away",
                    path.display()
                ));
            }
            Err(McpJsonError::NotObject) => {
                return Err(format!(
                    "the catalog {} is not a JSON object; it should look like {{\"mcpServers\": {{…}}}}",
                    path.display()
                ));
            }
        };
        for (name, entry) in file.servers {
            let entry = entry.map_err(|e| {
                format!(
                    "the catalog {}: server {name:?} is malformed ({e}); fix or remove it",
                    path.display()
                )
            })?;
            catalog.servers.push((name, entry));
        }
        catalog.dialect = file.dialect;
        catalog.had_comments = file.had_comments;
        catalog.doc = file.rest;
        Ok(catalog)
    }

    /// The file, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Servers in file order.
    pub fn servers(&self) -> &[(String, CatalogEntry)] {
        &self.servers
    }

    /// One server.
    pub fn get(&self, name: &str) -> Option<&CatalogEntry> {
        self.servers.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    /// Refuse an edit of a read-only catalog; else re-read the file, so the edit applies to what
    /// it holds now (an edit made in a text editor since we read it stays).
    fn writable(&mut self) -> Result<()> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        if self.read_only {
            let path = path.display();
            return Err(Error::conflict(format!(
                "the catalog {path} was opened read-only (--config); start mcpscope with --catalog {path} to edit it"
            )));
        }
        if self.had_comments {
            return Err(Error::conflict(format!(
                "the catalog {} has comments or trailing commas, which mcpscope would lose by rewriting it; edit it in a text editor, or remove them to edit it here",
                path.display()
            )));
        }
        let now = Catalog::load(&path, false).map_err(|e| {
            Error::conflict(format!(
                "{e}; it changed since mcpscope read it, so mcpscope did not write over it"
            ))
        })?;
        *self = now;
        Ok(())
    }

    /// Add a server (409 when the name exists).
    pub fn add(&mut self, name: &str, entry: CatalogEntry) -> Result<()> {
        self.writable()?;
        check_name(name)?;
        if self.get(name).is_some() {
            return Err(Error::conflict(format!(
                "a server named {name:?} exists already; choose another name or edit that one"
            )));
        }
        self.servers.push((name.to_string(), entry));
        self.save()
    }

    /// Replace a server's entry, renaming it when `new_name` differs.
    pub fn update(&mut self, name: &str, new_name: &str, entry: CatalogEntry) -> Result<()> {
        self.writable()?;
        check_name(new_name)?;
        if new_name != name && self.get(new_name).is_some() {
            return Err(Error::conflict(format!(
                "cannot rename {name:?} to {new_name:?}: that name is taken"
            )));
        }
        let slot = self
            .servers
            .iter_mut()
            .find(|(n, _)| n == name)
            .ok_or_else(|| Error::not_found(format!("no server named {name:?} in the catalog")))?;
        *slot = (new_name.to_string(), entry);
        self.save()
    }

    /// Remove a server.
    pub fn remove(&mut self, name: &str) -> Result<()> {
        self.writable()?;
        let before = self.servers.len();
        self.servers.retain(|(n, _)| n != name);
        if self.servers.len() == before {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        }
        self.save()
    }

    /// The document as written to disk: the servers under the key the file had them.
    pub fn to_json(&self) -> Value {
        let servers: Map<String, Value> = self
            .servers
            .iter()
            .map(|(n, e)| {
                (
                    n.clone(),
                    serde_json::to_value(e).unwrap_or_else(|_| json!({})),
                )
            })
            .collect();
        self.dialect.put(self.doc.clone(), servers)
    }

    fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut text = serde_json::to_string_pretty(&self.to_json())
            .map_err(|e| Error::internal(format!("cannot serialise the catalog: {e}")))?;
        text.push('\n');
        write_atomically(path, text.as_bytes()).map_err(|e| {
            Error::internal(format!(
                "cannot write the catalog {}: {e}; check the directory's permissions and free space",
                path.display()
            ))
        })
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(Error::usage("a server needs a name"));
    }
    if name == "import" {
        return Err(Error::usage(
            "\"import\" is reserved (it is the path /api/servers/import); choose another name",
        ));
    }
    if name.len() > 200 || name.chars().any(char::is_control) {
        return Err(Error::usage(format!(
            "server name {name:?} is not usable: at most 200 characters, no control characters"
        )));
    }
    Ok(())
}

/// The directory of `path` and the prefix of its temporary files (`.mcp.json.`).
fn temp_prefix(path: &Path) -> (&Path, String) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "catalog".into());
    (dir, format!(".{file_name}."))
}

/// A temporary file older than this was left by a crash: a write takes milliseconds. Age, not the
/// pid in the name, because pids are reused.
const STALE_TEMP: Duration = Duration::from_secs(60);

/// Remove the temporary files of `path` (`.mcp.json.<pid>.tmp`) a crash left behind.
fn remove_stale_temps(path: &Path) {
    let (dir, prefix) = temp_prefix(path);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if ours && stale && std::fs::remove_file(entry.path()).is_ok() {
            eprintln!(
                "mcpscope: removed {}, a temporary catalog file left by a crash",
                entry.path().display()
            );
        }
    }
}

/// Write `bytes` to `path` atomically: a temporary file beside it (readable by its owner only),
/// synced, renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let (dir, prefix) = temp_prefix(path);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("{prefix}{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = crate::datadir::create_private(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_order_survive_a_round_trip() {
        let dir = std::env::temp_dir().join(format!("mcpscope-catalog-{}", std::process::id()));
        let path = dir.join("mcp.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            &path,
            r#"{"inputs": [1], "servers": {"b": {"command": "x", "disabled": true}, "a": {"url": "http://h/mcp"}}}"#,
        )
        .unwrap();
        let mut c = Catalog::load(&path, false).unwrap();
        c.add(
            "c",
            CatalogEntry {
                command: Some("y".into()),
                ..Default::default()
            },
        )
        .unwrap();
        let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let names: Vec<&String> = back["servers"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["b", "a", "c"]);
        assert_eq!(back["servers"]["b"]["disabled"], json!(true));
        assert_eq!(back["inputs"], json!([1]));
        let ro = Catalog::load(&path, true).unwrap();
        assert_eq!(
            ro.clone()
                .add("d", CatalogEntry::default())
                .unwrap_err()
                .code,
            mcpscope_proto::error_code::ErrorCode::Conflict
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_temporary_file_left_by_a_crash_is_removed_at_load_and_a_fresh_one_kept() {
        let dir = std::env::temp_dir().join(format!("mcpscope-catalog-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        let old = dir.join(".mcp.json.4242.tmp");
        let fresh = dir.join(".mcp.json.4243.tmp");
        let other = dir.join(".other.json.4242.tmp");
        for f in [&old, &fresh, &other] {
            std::fs::write(f, "{").unwrap();
        }
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        for f in [&old, &other] {
            std::fs::File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(hour_ago)
                .unwrap();
        }
        Catalog::load(&path, true).unwrap_err();
        assert!(old.exists(), "a read-only load changes nothing");
        Catalog::load(&path, false).unwrap();
        assert!(!old.exists(), "left by a crash an hour ago");
        assert!(fresh.exists(), "may be another writer's, mid-write");
        assert!(other.exists(), "not this catalog's");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn the_catalog_is_written_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("mcpscope-catalog-mode-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        write_atomically(&path, b"{}").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
