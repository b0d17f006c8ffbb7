//! The secret store: one interface over the OS keyring, an encrypted file and memory, and the
//! choice between them.
//!
//! `auto` (the default) probes the OS keyring once and uses it when it answers; otherwise (Linux
//! without a Secret Service, SSH sessions, containers) it falls back to the encrypted file and
//! says why in [`StoreInfo::reason`]. `MCPSCOPE_SECRET_STORE=keyring|file|memory` forces one.

mod file;
mod keyring;

pub use file::{EncryptedFileStore, FileKey};
pub use keyring::KeyringStore;

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use zeroize::Zeroizing;

/// Failures of a secret store. Each says what happened and what to do.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The configuration is unusable (unknown store name, no directory for the file).
    #[error("{0}")]
    Config(String),
    /// The OS keyring refused or failed.
    #[error("the OS keyring failed: {0}")]
    Keyring(String),
    /// Reading or writing a file failed.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        reason: String,
    },
    /// The encrypted file cannot be opened with the key we have: a wrong passphrase, another key
    /// file, or a file that was changed.
    #[error("{path}: {reason}")]
    WrongKey {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// The encrypted file is not in our format. It is left untouched.
    #[error(
        "{path} is corrupted ({reason}); it was left as it is, and nothing will be written to it: move it away to start with an empty store"
    )]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// What did not parse.
        reason: String,
    },
}

/// Which store is active, where, and why it was chosen: shown by `--method initialize --format
/// json` and (later) in Server Info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct StoreInfo {
    /// `keyring`, `file` or `memory`.
    #[cfg_attr(feature = "ts", ts(type = "'keyring' | 'file' | 'memory'"))]
    pub kind: &'static str,
    /// The keyring backend or the file path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How the file is keyed (`key file …` or `passphrase (argon2id)`), for the file store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protection: Option<String>,
    /// Why this store was chosen.
    pub reason: String,
}

impl StoreInfo {
    /// One line for humans: `file /home/me/.local/share/mcpscope/secrets.enc (key file …): no OS keyring: …`.
    pub fn summary(&self) -> String {
        let mut s = self.kind.to_string();
        if let Some(l) = &self.location {
            s.push(' ');
            s.push_str(l);
        }
        if let Some(p) = &self.protection {
            s.push_str(&format!(" ({p})"));
        }
        s.push_str(": ");
        s.push_str(&self.reason);
        s
    }
}

/// A place for secrets, by key. Keys are short printable strings; values are text.
/// Calls block (keyring IPC, file I/O): async code runs them on a blocking thread.
pub trait SecretStore: Send + Sync {
    /// The value under `key`, if any.
    fn get(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Store `value` under `key`, replacing what was there.
    fn set(&self, key: &str, value: &str) -> Result<(), StoreError>;
    /// Remove `key` (no error when it is absent).
    fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Which store this is and why it was chosen.
    fn info(&self) -> &StoreInfo;
}

/// `MCPSCOPE_SECRET_STORE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreChoice {
    /// The OS keyring when it answers, else the encrypted file.
    Auto,
    /// The OS keyring, or an error.
    Keyring,
    /// The encrypted file.
    File,
    /// Memory only: nothing survives the process (tests, throwaway runs).
    Memory,
}

impl std::str::FromStr for StoreChoice {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, StoreError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(StoreChoice::Auto),
            "keyring" => Ok(StoreChoice::Keyring),
            "file" => Ok(StoreChoice::File),
            "memory" => Ok(StoreChoice::Memory),
            other => Err(StoreError::Config(format!(
                "MCPSCOPE_SECRET_STORE={other:?} is not a store: use auto, keyring, file or memory"
            ))),
        }
    }
}

/// How to open the secret store.
#[derive(Clone)]
pub struct SecretStoreConfig {
    /// Which store.
    pub choice: StoreChoice,
    /// Why `choice` (e.g. "MCPSCOPE_SECRET_STORE=file"); `None` for the default.
    pub choice_source: Option<String>,
    /// The encrypted file (`MCPSCOPE_SECRET_FILE`, else `<data dir>/secrets.enc`).
    pub file: Option<PathBuf>,
    /// The passphrase for the file (`MCPSCOPE_SECRET_PASSPHRASE`); without it the file is keyed
    /// by a random key file next to it.
    pub passphrase: Option<Zeroizing<String>>,
    /// The keyring service name (entries are `service` + key).
    pub keyring_service: String,
    /// Asks a person for the passphrase when an existing file is protected by one and
    /// `passphrase` is not set (the CLI and the web UI install a terminal prompt when there is a
    /// terminal; without one the error says to set `MCPSCOPE_SECRET_PASSPHRASE`).
    pub prompt: Option<PassphrasePrompt>,
}

/// Asks for the passphrase of the secrets file at the given path; `None`: no answer.
pub type PassphrasePrompt =
    std::sync::Arc<dyn Fn(&std::path::Path) -> Option<String> + Send + Sync>;

impl std::fmt::Debug for SecretStoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStoreConfig")
            .field("choice", &self.choice)
            .field("file", &self.file)
            .field("passphrase", &self.passphrase.as_ref().map(|_| "<set>"))
            .field("keyring_service", &self.keyring_service)
            .field("prompt", &self.prompt.as_ref().map(|_| "<terminal>"))
            .finish()
    }
}

/// The keyring service name mcpscope's entries live under.
pub const KEYRING_SERVICE: &str = "mcpscope";

impl SecretStoreConfig {
    /// From `MCPSCOPE_SECRET_STORE`, `MCPSCOPE_SECRET_FILE`, `MCPSCOPE_SECRET_PASSPHRASE` and the
    /// data directory (`MCPSCOPE_DATA_DIR`, see [`crate::data_dir`]).
    pub fn from_env() -> Result<SecretStoreConfig, StoreError> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let (choice, choice_source) = match var("MCPSCOPE_SECRET_STORE") {
            Some(v) => (v.parse()?, Some(format!("MCPSCOPE_SECRET_STORE={v}"))),
            None => (StoreChoice::Auto, None),
        };
        let file = var("MCPSCOPE_SECRET_FILE")
            .map(PathBuf::from)
            .or_else(|| crate::data_dir().map(|d| d.join("secrets.enc")));
        Ok(SecretStoreConfig {
            choice,
            choice_source,
            file,
            passphrase: var("MCPSCOPE_SECRET_PASSPHRASE").map(Zeroizing::new),
            keyring_service: KEYRING_SERVICE.to_string(),
            prompt: None,
        })
    }

    /// An encrypted file at `path` (keyed by `passphrase`, else by a key file next to it).
    pub fn file(path: impl Into<PathBuf>, passphrase: Option<&str>) -> SecretStoreConfig {
        SecretStoreConfig {
            choice: StoreChoice::File,
            choice_source: Some("chosen by the caller".into()),
            file: Some(path.into()),
            passphrase: passphrase.map(|p| Zeroizing::new(p.to_string())),
            keyring_service: KEYRING_SERVICE.to_string(),
            prompt: None,
        }
    }
}

/// Open the store `config` asks for. `auto` falls back from the keyring to the file and records
/// why in [`StoreInfo::reason`].
pub fn open_secret_store(config: &SecretStoreConfig) -> Result<Box<dyn SecretStore>, StoreError> {
    let why = |default: &str| {
        config
            .choice_source
            .clone()
            .unwrap_or_else(|| default.to_string())
    };
    let open_file = |reason: String| -> Result<Box<dyn SecretStore>, StoreError> {
        let path = config.file.clone().ok_or_else(|| {
            StoreError::Config(
                "no place for the secrets file: set MCPSCOPE_SECRET_FILE or MCPSCOPE_DATA_DIR (no home directory is known)"
                    .into(),
            )
        })?;
        let asked = match (&config.passphrase, &config.prompt) {
            (None, Some(ask)) if file::protected_by_passphrase(&path) => {
                ask(&path).map(Zeroizing::new)
            }
            _ => None,
        };
        let key = match config.passphrase.clone().or(asked) {
            Some(p) => FileKey::Passphrase(p),
            None => FileKey::KeyFile(file::key_file_for(&path)),
        };
        Ok(Box::new(EncryptedFileStore::open(path, key, reason)?))
    };
    match config.choice {
        StoreChoice::Memory => Ok(Box::new(MemoryStore::new(why("memory store requested")))),
        StoreChoice::File => open_file(why("file store requested")),
        StoreChoice::Keyring => Ok(Box::new(
            KeyringStore::probe(&config.keyring_service, why("keyring requested"))
                .map_err(StoreError::Keyring)?,
        )),
        StoreChoice::Auto => {
            match KeyringStore::probe(&config.keyring_service, "the OS keyring answered".into()) {
                Ok(k) => Ok(Box::new(k)),
                Err(e) => open_file(format!("no OS keyring ({e})")),
            }
        }
    }
}

/// Secrets in memory only (tests, `MCPSCOPE_SECRET_STORE=memory`).
pub struct MemoryStore {
    map: Mutex<BTreeMap<String, Zeroizing<String>>>,
    info: StoreInfo,
}

impl MemoryStore {
    /// An empty store; `reason` is shown as why it was chosen.
    pub fn new(reason: impl Into<String>) -> MemoryStore {
        MemoryStore {
            map: Mutex::new(BTreeMap::new()),
            info: StoreInfo {
                kind: "memory",
                location: None,
                protection: None,
                reason: reason.into(),
            },
        }
    }
}

impl SecretStore for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .map
            .lock()
            .expect("memory store lock")
            .get(key)
            .map(|v| v.to_string()))
    }

    fn set(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.map
            .lock()
            .expect("memory store lock")
            .insert(key.to_string(), Zeroizing::new(value.to_string()));
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.map.lock().expect("memory store lock").remove(key);
        Ok(())
    }

    fn info(&self) -> &StoreInfo {
        &self.info
    }
}

/// A secret store opened on first use and shared: a server that never asks for authorization
/// never touches the keyring or the file, and a broken store (wrong passphrase) is reported when
/// it is needed, not before.
pub struct LazySecretStore {
    config: SecretStoreConfig,
    cell: std::sync::OnceLock<Result<std::sync::Arc<dyn SecretStore>, StoreError>>,
}

impl LazySecretStore {
    /// A store that will be opened with `config`.
    pub fn new(config: SecretStoreConfig) -> LazySecretStore {
        LazySecretStore {
            config,
            cell: std::sync::OnceLock::new(),
        }
    }

    /// A store that is already open.
    pub fn opened(store: std::sync::Arc<dyn SecretStore>) -> LazySecretStore {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(Ok(store));
        LazySecretStore {
            config: SecretStoreConfig {
                choice: StoreChoice::Memory,
                choice_source: None,
                file: None,
                passphrase: None,
                keyring_service: KEYRING_SERVICE.to_string(),
                prompt: None,
            },
            cell,
        }
    }

    /// The store if it was opened already (never blocks, never prompts).
    pub fn peek(&self) -> Option<Result<std::sync::Arc<dyn SecretStore>, StoreError>> {
        self.cell.get().cloned()
    }

    /// The store, opening it the first time (blocking: keyring probe, file read).
    pub fn get(&self) -> Result<std::sync::Arc<dyn SecretStore>, StoreError> {
        self.cell
            .get_or_init(|| open_secret_store(&self.config).map(std::sync::Arc::from))
            .clone()
    }
}
