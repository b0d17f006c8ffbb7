//! Where Testing Profiles are kept: `profiles.json` beside the history database (the data
//! directory), one JSON document written atomically (a temp file renamed over it, 0600) on every
//! change, and read once when the inspector starts.
//!
//! A JSON file rather than the SQLite store: profiles are settings a user may read, edit by hand
//! or copy to another machine, like `mcp.json`, not history to prune by retention; and the policy
//! that reads them runs synchronously as a server's question arrives, which a copy in memory
//! serves without touching SQLite. The active profile of each server is kept here too, not in
//! the catalog entry: it works with a read-only catalog (`--config`) and leaves the ecosystem's
//! `mcp.json` free of keys other clients do not know.
//!
//! A file that cannot be read is never overwritten: the profiles start empty, every change is
//! refused with the reason, and the view shows it (`problem`), so a typo in a hand edit costs
//! nothing.

use super::{ActiveProfile, Profile, ProfilesView};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Doc {
    /// Every profile, in the order they were made.
    #[serde(default)]
    pub profiles: Vec<Profile>,
    /// The active profile and its switches, by server name (servers with none are left out).
    #[serde(default)]
    pub servers: BTreeMap<String, ActiveProfile>,
}

#[derive(Debug, Default)]
struct Book {
    doc: Doc,
    /// The file; `None`: kept in memory only.
    path: Option<PathBuf>,
    /// Why the file could not be read (then nothing is written to it).
    problem: Option<String>,
}

/// The Testing Profiles and the active one per server, shared by the inspector and its sampling
/// policy.
#[derive(Debug, Default)]
pub struct Profiles {
    book: Mutex<Book>,
}

impl Profiles {
    /// Profiles kept in memory only, until [`attach`](Self::attach)ed to a file.
    pub fn in_memory() -> Profiles {
        Profiles::default()
    }

    /// Profiles kept in `path` (read now; created on the first change).
    pub fn open(path: &Path) -> Profiles {
        let p = Profiles::default();
        p.attach(path);
        p
    }

    fn lock(&self) -> MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep the profiles in `path` from now on, reading what it holds. A no-op when a file is
    /// already attached (a store opened on its own file keeps it).
    pub fn attach(&self, path: &Path) {
        let mut book = self.lock();
        if book.path.is_some() {
            return;
        }
        book.path = Some(path.to_path_buf());
        match read(path) {
            Ok(doc) => book.doc = doc,
            Err(problem) => {
                eprintln!("mcpscope: {problem}");
                book.problem = Some(problem);
            }
        }
    }

    /// What the views see: every profile, each server's choice, the file and its problem.
    pub fn view(&self) -> ProfilesView {
        let book = self.lock();
        ProfilesView {
            profiles: book.doc.profiles.clone(),
            servers: book.doc.servers.clone(),
            file: book.path.as_ref().map(|p| p.display().to_string()),
            problem: book.problem.clone(),
        }
    }

    /// The profile named `name`.
    pub fn get(&self, name: &str) -> Option<Profile> {
        self.lock()
            .doc
            .profiles
            .iter()
            .find(|p| p.name == name)
            .cloned()
    }

    /// `server`'s choice (the default when it has none).
    pub fn choice(&self, server: &str) -> ActiveProfile {
        self.lock()
            .doc
            .servers
            .get(server)
            .cloned()
            .unwrap_or_default()
    }

    /// `server`'s active profile with its switches, when it has one that exists.
    pub fn active(&self, server: &str) -> Option<(Profile, ActiveProfile)> {
        let book = self.lock();
        let choice = book.doc.servers.get(server)?;
        let name = choice.profile.as_deref()?;
        let profile = book.doc.profiles.iter().find(|p| p.name == name)?;
        Some((profile.clone(), choice.clone()))
    }

    /// Change the document with `change` and write it; nothing changes when either fails.
    /// Blocking (it writes the file): call it off the async threads.
    pub(crate) fn change<T>(&self, change: impl FnOnce(&mut Doc) -> Result<T>) -> Result<T> {
        let mut book = self.lock();
        if let Some(problem) = &book.problem {
            return Err(Error::conflict(format!(
                "{problem}; changes are refused until it is fixed or removed (then restart)"
            )));
        }
        let mut doc = book.doc.clone();
        let out = change(&mut doc)?;
        if let Some(path) = &book.path {
            let bytes = serde_json::to_vec_pretty(&doc)
                .map_err(|e| Error::internal(format!("cannot serialise the profiles: {e}")))?;
            crate::catalog::write_atomically(path, &bytes).map_err(|e| {
                Error::internal(format!(
                    "cannot write {}: {e}; the change was not made",
                    path.display()
                ))
            })?;
        }
        book.doc = doc;
        Ok(out)
    }
}

/// The document in `path`: empty when there is no file yet; `Err` names the file and why.
fn read(path: &Path) -> std::result::Result<Doc, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Doc::default()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let doc: Doc = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{} is not a Testing Profiles file ({e}); it was left as it is",
            path.display()
        )
    })?;
    for p in &doc.profiles {
        if let Err(why) = super::check(p) {
            return Err(format!(
                "{}: profile {:?}: {why}; the file was left as it is",
                path.display(),
                super::clip(&p.name, 100)
            ));
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::Strategy;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcpscope-profiles-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("profiles.json")
    }

    fn quick() -> Profile {
        Profile {
            name: "Quick Mock".into(),
            strategy: Strategy::Fixed {
                text: "mock".into(),
            },
            model: "m".into(),
            stop_reason: None,
        }
    }

    #[test]
    fn a_change_is_written_and_read_back_by_the_next_start() {
        let path = temp("roundtrip");
        let p = Profiles::open(&path);
        p.change(|d| {
            d.profiles.push(quick());
            Ok(())
        })
        .unwrap();
        assert!(path.exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(
                mode, 0o600,
                "owner-only like every file of the data directory"
            );
        }
        let again = Profiles::open(&path);
        assert_eq!(again.get("Quick Mock"), Some(quick()));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn an_unreadable_file_is_kept_and_changes_are_refused_with_the_reason() {
        let path = temp("broken");
        std::fs::write(&path, b"{\"profiles\": [oops").unwrap();
        let p = Profiles::open(&path);
        let view = p.view();
        assert!(view.profiles.is_empty());
        assert!(
            view.problem
                .as_deref()
                .unwrap()
                .contains("not a Testing Profiles file")
        );
        let refused = p
            .change(|d| {
                d.profiles.push(quick());
                Ok(())
            })
            .unwrap_err();
        assert!(refused.message.contains("refused"), "{}", refused.message);
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"profiles\": [oops");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_failed_change_changes_nothing() {
        let p = Profiles::in_memory();
        let err = p
            .change(|d| {
                d.profiles.push(quick());
                Err::<(), _>(Error::usage("no"))
            })
            .unwrap_err();
        assert_eq!(err.message, "no");
        assert!(p.view().profiles.is_empty());
    }
}
