//! The data directory (`mcp.json`, `history.sqlite`, the secrets file): one web UI at a time, and
//! nobody else's to read.
//!
//! Two backends on one directory would each hold the catalog in memory and write over the other's
//! edits, and a second start would mark the first one's requests in flight `interrupted` when it
//! opens the history. So the web UI holds an advisory lock on `mcpscope.lock` for its whole life
//! (the OS drops it when the process ends, even on a crash); the file says who holds it, so the
//! loser can name the pid and URL. It is taken before the history is opened and before the port
//! is bound. The CLI only reads, and takes no lock.
//!
//! The directory is created 0700 and every file in it is 0600: the history holds whatever servers
//! answered, the catalog their commands and headers. Looser modes found at startup are tightened
//! and reported.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "mcpscope.lock";

/// Create `path` (truncated) readable and writable by its owner only.
pub(crate) fn create_private(path: &Path) -> std::io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    owner_only(&mut opts);
    opts.open(path)
}

#[cfg(unix)]
fn owner_only(opts: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    opts.mode(0o600);
}

#[cfg(not(unix))]
fn owner_only(_: &mut OpenOptions) {}

/// The lock on a data directory, held until dropped (or the process ends).
#[derive(Debug)]
pub struct DataDirLock {
    file: File,
    path: PathBuf,
}

impl DataDirLock {
    /// Lock `dir` for this process. When another process holds it, the error says which (its pid
    /// and URL, from the lock file) and what to do.
    pub fn acquire(dir: &Path) -> Result<DataDirLock, String> {
        let path = dir.join(LOCK_FILE);
        let mut opts = OpenOptions::new();
        // Never truncate before the lock is ours: the file names the holder.
        opts.read(true).write(true).create(true).truncate(false);
        owner_only(&mut opts);
        let mut file = opts
            .open(&path)
            .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(format!(
                    "the data directory {} is in use by another mcpscope web UI ({}); stop that one, use it, or set MCPSCOPE_DATA_DIR to another directory",
                    dir.display(),
                    describe_holder(&holder)
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(format!("cannot lock {}: {e}", path.display()));
            }
        }
        let mut lock = DataDirLock { file, path };
        lock.announce(None);
        Ok(lock)
    }

    /// Say in the lock file who holds it: this pid and, once listening, the URL (without the
    /// token).
    pub fn announce(&mut self, url: Option<&str>) {
        let doc = serde_json::json!({"pid": std::process::id(), "url": url});
        let written = self
            .file
            .set_len(0)
            .and_then(|()| self.file.rewind())
            .and_then(|()| writeln!(self.file, "{doc}"));
        if let Err(e) = written {
            eprintln!(
                "mcpscope: could not write {} ({e}); a second start will not be able to say which process holds it",
                self.path.display()
            );
        }
    }
}

/// `held by pid 123 (http://127.0.0.1:6274)` from the lock file's content.
fn describe_holder(content: &str) -> String {
    let doc: serde_json::Value = serde_json::from_str(content.trim()).unwrap_or_default();
    match (doc["pid"].as_u64(), doc["url"].as_str()) {
        (Some(pid), Some(url)) => format!("held by pid {pid} ({url})"),
        (Some(pid), None) => format!("held by pid {pid}, still starting"),
        _ => "its lock file does not say which process holds it".to_string(),
    }
}

/// Make `dir` private: create it 0700, or tighten it and every file directly in it that others
/// could read. Returns what was tightened (`"mcp.json (was 644)"`), for a warning.
pub fn make_private(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    tighten(dir)
}

#[cfg(unix)]
fn tighten(dir: &Path) -> std::io::Result<Vec<String>> {
    use std::os::unix::fs::PermissionsExt;
    let mut changed = Vec::new();
    let mut fix = |path: &Path, meta: std::fs::Metadata, mode: u32, what: String| {
        let was = meta.permissions().mode() & 0o777;
        if was & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
            changed.push(format!("{what} (was {was:o})"));
        }
        std::io::Result::Ok(())
    };
    fix(
        dir,
        std::fs::metadata(dir)?,
        0o700,
        dir.display().to_string(),
    )?;
    for entry in std::fs::read_dir(dir)?.flatten() {
        // Symlinks are left alone: their target is not ours to change.
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            fix(&entry.path(), meta, 0o600, name)?;
        }
    }
    Ok(changed)
}

#[cfg(not(unix))]
fn tighten(_: &Path) -> std::io::Result<Vec<String>> {
    Ok(Vec::new())
}

/// Create the history database file owner-only before SQLite opens it: SQLite creates it with
/// the umask's mode otherwise, and gives its `-wal` and `-shm` files the database file's mode.
pub fn precreate_private(path: &Path) -> std::io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    owner_only(&mut opts);
    match opts.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_holder_is_named_from_the_lock_file() {
        assert_eq!(
            describe_holder(r#"{"pid": 42, "url": "http://127.0.0.1:6274"}"#),
            "held by pid 42 (http://127.0.0.1:6274)"
        );
        assert_eq!(
            describe_holder(r#"{"pid": 42, "url": null}"#),
            "held by pid 42, still starting"
        );
        assert!(describe_holder("").contains("does not say"));
    }

    #[test]
    fn a_second_lock_in_the_same_directory_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("mcpscope-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        make_private(&dir).unwrap();
        let mut first = DataDirLock::acquire(&dir).unwrap();
        first.announce(Some("http://127.0.0.1:1234"));
        // flock locks belong to the open file, so a second open in this process conflicts too.
        let second = DataDirLock::acquire(&dir).unwrap_err();
        assert!(
            second.contains(&format!(
                "held by pid {} (http://127.0.0.1:1234)",
                std::process::id()
            )),
            "{second}"
        );
        drop(first);
        assert!(DataDirLock::acquire(&dir).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
