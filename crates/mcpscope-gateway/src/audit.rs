//! The optional audit log (`--audit-log FILE`): one JSON line per relayed or refused exchange,
//! `{"time", "user", "gateway", "method", "name", "status", "outcome", "ms"}`, appended to a file
//! created owner-only. Never a token or a session id; a tool's arguments only with
//! `--audit-arguments` (they may hold secrets). The only thing this mode writes to disk.

use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// The audit log.
#[derive(Debug)]
pub(crate) struct Audit {
    file: Mutex<std::fs::File>,
    arguments: bool,
}

/// One line, before it is written.
#[derive(Debug, Default)]
pub(crate) struct Entry<'a> {
    /// The user.
    pub user: &'a str,
    /// The gateway's name.
    pub gateway: &'a str,
    /// The JSON-RPC method.
    pub method: &'a str,
    /// The tool or prompt (`params.name`), when the method names one.
    pub name: Option<&'a str>,
    /// The HTTP status answered.
    pub status: u16,
    /// `ok`, `refused:<rule>`, `http-error`, `rpc-error`, `tool-error`, `stream`, `failed`.
    pub outcome: String,
    /// Milliseconds until the answer's head.
    pub ms: u64,
    /// `params.arguments` (written only with `--audit-arguments`).
    pub arguments: Option<&'a Value>,
}

impl Audit {
    /// Open (create owner-only, append) the log.
    pub(crate) fn open(path: &Path, arguments: bool) -> Result<Audit, String> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path).map_err(|e| {
            format!(
                "--audit-log {}: cannot open it for appending: {e}",
                path.display()
            )
        })?;
        Ok(Audit {
            file: Mutex::new(file),
            arguments,
        })
    }

    /// Append one line; a failed write is said on stderr, and the exchange goes on.
    pub(crate) fn write(&self, e: &Entry<'_>) {
        let mut line = Map::new();
        line.insert(
            "time".into(),
            json!(mcpscope_proto::rfc3339(mcpscope_proto::now_us())),
        );
        line.insert("user".into(), json!(e.user));
        line.insert("gateway".into(), json!(e.gateway));
        line.insert("method".into(), json!(e.method));
        line.insert("name".into(), json!(e.name));
        line.insert("status".into(), json!(e.status));
        line.insert("outcome".into(), json!(e.outcome));
        line.insert("ms".into(), json!(e.ms));
        if self.arguments
            && let Some(a) = e.arguments
        {
            line.insert("arguments".into(), a.clone());
        }
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        let mut f = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(err) = f.write_all(text.as_bytes()) {
            eprintln!("mcpscope gateway: cannot write the audit log: {err}");
        }
    }
}
