//! mcpscope-store: what mcpscope keeps between runs.
//!
//! - Secrets — OAuth tokens, client registrations and secrets — kept in the OS keyring when one
//!   answers, and otherwise in a file encrypted with XChaCha20-Poly1305 whose key is a random 0600
//!   key file or is derived with argon2id from `MCPSCOPE_SECRET_PASSPHRASE`. Nothing is ever
//!   written in plaintext.
//! - [`history`]: the request history, pins, saved requests and spilled traffic frames of the web
//!   UI, in SQLite (WAL, FTS5), surviving restarts.
//!
//! ```no_run
//! # fn f() -> Result<(), mcpscope_store::StoreError> {
//! use mcpscope_store::{SecretStoreConfig, open_secret_store};
//! let store = open_secret_store(&SecretStoreConfig::from_env()?)?;
//! store.set("greeting", "hello")?;
//! assert_eq!(store.get("greeting")?.as_deref(), Some("hello"));
//! println!("secrets live in: {}", store.info().summary());
//! # Ok(()) }
//! ```

pub mod history;
mod paths;
pub mod secrets;

pub use history::{
    Child, Entry, FrameQuery, HistoryError, HistoryQuery, HistoryStore, NewEntry, Retention,
    SavedRequest, StoredFrame,
};
pub use paths::data_dir;
pub use secrets::{
    EncryptedFileStore, FileKey, KeyringStore, LazySecretStore, MemoryStore, PassphrasePrompt,
    SecretStore, SecretStoreConfig, StoreChoice, StoreError, StoreInfo, open_secret_store,
};
