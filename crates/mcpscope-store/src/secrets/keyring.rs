//! The OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux)
//! through `keyring` 4.
//!
//! Without a session bus `keyring` fails in about 2 ms with "no default store"; with a bus but no
//! Secret Service provider in about 16 ms (measured, docs/dependencies.md). The probe below reads
//! an entry that does not exist, so a keyring that can be initialised but not used is caught too.

use super::{SecretStore, StoreError, StoreInfo};

/// Secrets as keyring entries: service `mcpscope`, user = the key.
pub struct KeyringStore {
    service: String,
    info: StoreInfo,
}

/// The entry the probe reads; it is never written.
const PROBE_KEY: &str = "mcpscope-probe (never written)";

impl KeyringStore {
    /// Check that the OS keyring answers; `reason` is shown as why it was chosen. The error says
    /// why it cannot be used.
    pub fn probe(service: &str, reason: String) -> Result<KeyringStore, String> {
        if let Err(e) = keyring::Entry::store_status() {
            return Err(describe(e));
        }
        let entry = keyring::Entry::new(service, PROBE_KEY).map_err(|e| describe(&e))?;
        match entry.get_password() {
            Ok(_) | Err(keyring::Error::NoEntry) => {}
            Err(e) => return Err(describe(&e)),
        }
        Ok(KeyringStore {
            service: service.to_string(),
            info: StoreInfo {
                kind: "keyring",
                location: Some(backend().to_string()),
                protection: None,
                reason,
            },
        })
    }

    fn entry(&self, key: &str) -> Result<keyring::Entry, StoreError> {
        keyring::Entry::new(&self.service, key).map_err(|e| StoreError::Keyring(describe(&e)))
    }
}

fn backend() -> &'static str {
    if cfg!(target_os = "macos") {
        "macOS Keychain"
    } else if cfg!(windows) {
        "Windows Credential Manager"
    } else {
        "Secret Service (D-Bus)"
    }
}

/// The keyring's error as one line (its Display names the platform failure, e.g. the D-Bus
/// address it could not reach, which is what a user needs to fix it).
fn describe(e: &keyring::Error) -> String {
    match e {
        keyring::Error::NoDefaultStore => format!("{} is not available", backend()),
        other => other.to_string(),
    }
}

impl SecretStore for KeyringStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        match self.entry(key)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(StoreError::Keyring(describe(&e))),
        }
    }

    fn set(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.entry(key)?
            .set_password(value)
            .map_err(|e| StoreError::Keyring(describe(&e)))
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self.entry(key)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(StoreError::Keyring(describe(&e))),
        }
    }

    fn info(&self) -> &StoreInfo {
        &self.info
    }
}
