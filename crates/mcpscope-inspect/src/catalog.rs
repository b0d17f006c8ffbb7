//! The catalog: the servers the user can connect to, kept as the ecosystem's `mcp.json`
//! (`{"mcpServers": {name: entry}}`, the format of Claude Desktop, Cursor and the official
//! Inspector), so users can bring their configs and take ours elsewhere.
//!
//! Writes are atomic (a temporary file in the same directory, owner-only, synced, then renamed
//! over the old one), so a crash never leaves half a catalog; a temporary file a crash left
//! behind is removed at the next load. Every edit re-reads the file first and applies itself to
//! what is there now, so a change made meanwhile in a text editor (or by another program) is kept,
//! not overwritten. Unknown fields of entries and of the document are kept as they were. A
//! catalog opened with `--config` is read-only: edits are refused with a message saying how to
//! get an editable one.

use crate::error::{Error, Result};
use mcpscope_client::ClientOptions;
use mcpscope_proto::era::EraPreference;
use mcpscope_transport::Target;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One server of the catalog, as `mcp.json` spells it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// `stdio`, `http` or `sse` (absent: stdio with a command, else guessed from the URL).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Program to run (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment (stdio).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub env: Map<String, Value>,
    /// Working directory (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Endpoint (http, sse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extra request headers (http, sse).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub headers: Map<String, Value>,
    /// `legacy`, `modern` or `auto` (absent: auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_era: Option<String>,
    /// Connect timeout in ms (0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_timeout: Option<u64>,
    /// Request timeout in ms (0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout: Option<u64>,
    /// OAuth settings (http, sse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthEntry>,
    /// Fields we do not know, kept as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How mcpscope identifies itself to a server's authorization server. Client secrets are not
/// kept here: the catalog is a plain file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthEntry {
    /// A pre-registered (public) client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// A Client ID Metadata Document URL (https, with a path): the client id itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for (space-separated) instead of the challenge's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Credentials profile: two profiles keep separate tokens for one server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

impl CatalogEntry {
    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        match self.kind.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("sse") => "sse",
            Some("http" | "streamable-http" | "streamablehttp") => "http",
            Some("stdio") => "stdio",
            _ => match (&self.command, &self.url) {
                (Some(_), _) => "stdio",
                (None, Some(u)) if u.trim_end_matches('/').ends_with("/sse") => "sse",
                (None, Some(_)) => "http",
                (None, None) => "stdio",
            },
        }
    }

    /// What the server card shows: the command line, or the URL.
    pub fn target_text(&self) -> String {
        match self.transport() {
            "stdio" => {
                let mut parts = vec![self.command.clone().unwrap_or_default()];
                parts.extend(self.args.iter().map(|a| {
                    if a.is_empty() || a.contains(char::is_whitespace) {
                        format!("{a:?}")
                    } else {
                        a.clone()
                    }
                }));
                parts.join(" ")
            }
            _ => self.url.clone().unwrap_or_default(),
        }
    }

    /// Why the entry cannot be used, if it cannot.
    pub fn problem(&self) -> Option<String> {
        match self.transport() {
            "stdio" if self.command.as_deref().is_none_or(str::is_empty) => {
                Some("a stdio server needs a \"command\"".into())
            }
            "http" | "sse" => match &self.url {
                None => Some(format!("a {} server needs a \"url\"", self.transport())),
                Some(u) => match url::Url::parse(u) {
                    Ok(p) if matches!(p.scheme(), "http" | "https") => None,
                    Ok(p) => Some(format!(
                        "url {u:?} has scheme {:?}; use http or https",
                        p.scheme()
                    )),
                    Err(e) => Some(format!("url {u:?} is not a URL: {e}")),
                },
            },
            _ => None,
        }
        .or_else(|| {
            self.protocol_era.as_deref().and_then(|e| {
                e.parse::<EraPreference>()
                    .err()
                    .map(|m| format!("protocolEra: {m}"))
            })
        })
    }

    /// The transport target and session options this entry describes. `era` overrides the
    /// entry's `protocolEra` for one connection.
    pub fn connection(&self, era: Option<&str>) -> Result<(Target, ClientOptions)> {
        if let Some(p) = self.problem() {
            return Err(Error::usage(format!("{p}; edit the server and fix it")));
        }
        let text = |m: &Map<String, Value>| -> Vec<(String, String)> {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        };
        let target = match self.transport() {
            "stdio" => Target::Stdio {
                command: self.command.clone().unwrap_or_default(),
                args: self.args.clone(),
                env: text(&self.env),
                cwd: self.cwd.as_ref().map(PathBuf::from),
            },
            "sse" => Target::Sse {
                url: self.url.clone().unwrap_or_default(),
                headers: text(&self.headers),
            },
            _ => Target::Http {
                url: self.url.clone().unwrap_or_default(),
                headers: text(&self.headers),
            },
        };
        let mut opts = ClientOptions::default();
        let era_text = era.or(self.protocol_era.as_deref()).unwrap_or("auto");
        opts.era = era_text
            .parse()
            .map_err(|m: String| Error::usage(format!("protocolEra: {m}")))?;
        if let Some(ms) = self.connection_timeout {
            opts.connect_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(ms) = self.request_timeout {
            opts.request_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        // As in the CLI: an HTTP URL whose transport was not named falls back to HTTP+SSE when
        // Streamable HTTP is refused.
        opts.sse_fallback = matches!(target, Target::Http { .. }) && self.kind.is_none();
        Ok((target, opts))
    }

    /// Normalise an entry written in another tool's dialect: `transport`/`type` spellings
    /// (`streamable-http`, `streamableHttp`), `serverUrl` (Windsurf).
    pub fn normalized(mut self) -> CatalogEntry {
        if self.kind.is_none()
            && let Some(Value::String(t)) = self.extra.remove("transport")
        {
            self.kind = Some(t);
        }
        if let Some(k) = &self.kind {
            let k = k.to_ascii_lowercase();
            self.kind = Some(
                match k.as_str() {
                    "streamable-http" | "streamablehttp" | "http" => "http",
                    "sse" => "sse",
                    "stdio" => "stdio",
                    _ => return self,
                }
                .to_string(),
            );
        }
        if self.url.is_none()
            && let Some(Value::String(u)) = self.extra.remove("serverUrl")
        {
            self.url = Some(u);
        }
        self
    }
}

/// The catalog file and its servers, in file order.
#[derive(Debug, Clone)]
pub struct Catalog {
    path: Option<PathBuf>,
    read_only: bool,
    /// The key the servers live under (`mcpServers`, or `servers` for VS Code files).
    key: String,
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
            key: "mcpServers".into(),
            doc: Map::new(),
            servers,
        }
    }

    /// Load `path`. A missing file is an empty catalog (created on the first write). An editable
    /// catalog's stale temporary files (a crash between write and rename) are removed.
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
            read_only,
            key: "mcpServers".into(),
            doc: Map::new(),
            servers: Vec::new(),
        };
        if text.trim().is_empty() {
            return Ok(catalog);
        }
        let doc: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "the catalog {} is not valid JSON ({e}); fix it or move it away",
                path.display()
            )
        })?;
        let Value::Object(mut doc) = doc else {
            return Err(format!(
                "the catalog {} is not a JSON object; it should look like {{\"mcpServers\": {{…}}}}",
                path.display()
            ));
        };
        let key = ["mcpServers", "servers"]
            .into_iter()
            .find(|k| doc.get(*k).is_some_and(Value::is_object))
            .unwrap_or("mcpServers");
        catalog.key = key.to_string();
        if let Some(Value::Object(servers)) = doc.remove(key) {
            for (name, v) in servers {
                let entry: CatalogEntry = serde_json::from_value(v).map_err(|e| {
                    format!(
                        "the catalog {}: server {name:?} is malformed ({e}); fix or remove it",
                        path.display()
                    )
                })?;
                catalog.servers.push((name, entry.normalized()));
            }
        }
        catalog.doc = doc;
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

    /// The document as written to disk.
    pub fn to_json(&self) -> Value {
        let mut doc = self.doc.clone();
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
        doc.insert(self.key.clone(), Value::Object(servers));
        Value::Object(doc)
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
    fn transports_are_named_and_guessed() {
        let e = |v: Value| {
            serde_json::from_value::<CatalogEntry>(v)
                .unwrap()
                .normalized()
        };
        assert_eq!(e(json!({"command": "node"})).transport(), "stdio");
        assert_eq!(e(json!({"url": "http://h/mcp"})).transport(), "http");
        assert_eq!(e(json!({"url": "http://h/sse"})).transport(), "sse");
        assert_eq!(
            e(json!({"type": "streamable-http", "url": "http://h/x"}))
                .kind
                .as_deref(),
            Some("http")
        );
        assert_eq!(
            e(json!({"transport": "sse", "url": "http://h/x"})).transport(),
            "sse"
        );
        assert_eq!(
            e(json!({"serverUrl": "http://h/mcp"})).url.as_deref(),
            Some("http://h/mcp")
        );
        assert!(e(json!({"type": "http"})).problem().is_some());
        assert!(e(json!({"url": "ftp://h"})).problem().is_some());
        assert!(
            e(json!({"command": "x", "protocolEra": "future"}))
                .problem()
                .is_some()
        );
        assert_eq!(
            e(json!({"command": "mcpscope", "args": ["demo-server", "a b"]})).target_text(),
            "mcpscope demo-server \"a b\""
        );
    }

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
