//! The encrypted secrets file, for machines without an OS keyring.
//!
//! One JSON document: a header (format, version, how the key is made) and the secrets map
//! encrypted with XChaCha20-Poly1305 under a fresh random 24-byte nonce on every write, the header
//! bound in as associated data. The key is either a random 32-byte key file next to it, created
//! 0600 (protection equal to the file permissions — said plainly in [`StoreInfo`]), or
//! argon2id(passphrase, per-file salt). Writes take an exclusive lock, re-read, and replace the
//! file atomically, so two processes do not lose each other's entries. A file that does not
//! parse is reported and never written over; a wrong key or passphrase is refused.
//!
//! Every file here is written whole or not at all (a temporary file beside it, synced, then
//! renamed), the key file too: a full disk during the first save must not leave a 0-byte key
//! that breaks the store (one left by an older mcpscope, with no secrets file to go with it, is
//! replaced). A temporary file can only be written under the lock, so one found while holding it
//! is left by a killed process and is removed. The lock file is 0600 like the rest.

use super::{SecretStore, StoreError, StoreInfo};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use chacha20poly1305::XChaCha20Poly1305;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use zeroize::Zeroizing;

const FORMAT: &str = "mcpscope-secrets";
const VERSION: u32 = 1;
const CIPHER: &str = "XChaCha20-Poly1305";
/// argon2id cost: the OWASP minimum (19 MiB, 2 passes, 1 lane): ~50 ms per unlock here.
const ARGON2_M_KIB: u32 = 19 * 1024;
const ARGON2_T: u32 = 2;
const ARGON2_P: u32 = 1;

/// How the file's key is made.
#[derive(Clone)]
pub enum FileKey {
    /// A random 32-byte key in this file (created 0600 on the first write).
    KeyFile(PathBuf),
    /// argon2id of this passphrase with the file's salt.
    Passphrase(Zeroizing<String>),
}

/// The key file that goes with a secrets file: `secrets.enc` → `secrets.key`.
/// True when the file at `path` exists and is protected by a passphrase (its header says
/// argon2id): opening it needs one.
pub(crate) fn protected_by_passphrase(path: &Path) -> bool {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Envelope>(&b).ok())
        .is_some_and(|e| e.header.kdf == "argon2id")
}

pub(crate) fn key_file_for(path: &Path) -> PathBuf {
    path.with_extension("key")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    format: String,
    version: u32,
    cipher: String,
    /// `key-file` or `argon2id`.
    kdf: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    argon2: Option<Argon2Params>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Argon2Params {
    m_kib: u32,
    t: u32,
    p: u32,
    salt: String,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    #[serde(flatten)]
    header: Header,
    nonce: String,
    ciphertext: String,
}

type Secrets = BTreeMap<String, String>;

/// Secrets in one encrypted file.
pub struct EncryptedFileStore {
    path: PathBuf,
    key: FileKey,
    info: StoreInfo,
    /// The derived key with the salt it was derived for (argon2 is slow: derive once).
    derived: Mutex<Option<(String, Zeroizing<[u8; 32]>)>>,
}

impl EncryptedFileStore {
    /// Open the file at `path` (it need not exist yet). An existing file is decrypted at once,
    /// so a wrong key, a wrong passphrase or a corrupted file is reported here rather than at
    /// the first secret; `reason` is shown as why this store was chosen.
    pub fn open(
        path: PathBuf,
        key: FileKey,
        reason: String,
    ) -> Result<EncryptedFileStore, StoreError> {
        let protection = match &key {
            FileKey::KeyFile(k) => format!(
                "key file {} (0600): as safe as that file's permissions",
                k.display()
            ),
            FileKey::Passphrase(_) => {
                "passphrase (argon2id; from MCPSCOPE_SECRET_PASSPHRASE or the terminal prompt)"
                    .to_string()
            }
        };
        let store = EncryptedFileStore {
            info: StoreInfo {
                kind: "file",
                location: Some(path.display().to_string()),
                protection: Some(protection),
                reason,
            },
            path,
            key,
            derived: Mutex::new(None),
        };
        store.load()?;
        Ok(store)
    }

    fn io(&self, path: &Path, e: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
    }

    fn corrupted(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Corrupted {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// The secrets, or an empty map when the file does not exist.
    fn load(&self) -> Result<Secrets, StoreError> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Secrets::new()),
            Err(e) => return Err(self.io(&self.path, e)),
        };
        let env: Envelope = serde_json::from_slice(&bytes)
            .map_err(|e| self.corrupted(format!("not a secrets document: {e}")))?;
        if env.header.format != FORMAT {
            return Err(self.corrupted(format!(
                "format {:?}, expected {FORMAT:?}",
                env.header.format
            )));
        }
        if env.header.version != VERSION || env.header.cipher != CIPHER {
            return Err(self.corrupted(format!(
                "version {} with {}; this mcpscope reads version {VERSION} with {CIPHER}",
                env.header.version, env.header.cipher
            )));
        }
        let nonce = B64
            .decode(&env.nonce)
            .ok()
            .and_then(|n| <[u8; 24]>::try_from(n).ok())
            .ok_or_else(|| self.corrupted("the nonce is not 24 bytes of base64"))?;
        let ciphertext = B64
            .decode(&env.ciphertext)
            .map_err(|e| self.corrupted(format!("the ciphertext is not base64: {e}")))?;
        let key = self.key_for(&env.header)?;
        let cipher = XChaCha20Poly1305::new(&(*key).into());
        let aad = serde_json::to_vec(&env.header).expect("serializable header");
        let plain = cipher
            .decrypt(
                &nonce.into(),
                Payload {
                    msg: &ciphertext,
                    aad: &aad,
                },
            )
            .map(Zeroizing::new)
            .map_err(|_| self.wrong_key())?;
        serde_json::from_slice(&plain).map_err(|e| {
            self.corrupted(format!(
                "decrypted, but the content is not a secrets map: {e}"
            ))
        })
    }

    fn wrong_key(&self) -> StoreError {
        let reason = match &self.key {
            FileKey::KeyFile(k) => format!(
                "cannot be decrypted with the key file {}: the file was written with another key, or changed since",
                k.display()
            ),
            FileKey::Passphrase(_) => {
                "cannot be decrypted: wrong passphrase (MCPSCOPE_SECRET_PASSPHRASE), or the file was changed since".to_string()
            }
        };
        StoreError::WrongKey {
            path: self.path.clone(),
            reason,
        }
    }

    /// The key for a file with `header`: the key file's bytes, or argon2id of the passphrase.
    fn key_for(&self, header: &Header) -> Result<Zeroizing<[u8; 32]>, StoreError> {
        match (&self.key, header.kdf.as_str()) {
            (FileKey::KeyFile(k), "key-file") => read_key_file(k),
            (FileKey::Passphrase(p), "argon2id") => {
                let params = header
                    .argon2
                    .as_ref()
                    .ok_or_else(|| self.corrupted("argon2id without its parameters"))?;
                self.derive(p, params)
            }
            (FileKey::KeyFile(_), "argon2id") => Err(StoreError::WrongKey {
                path: self.path.clone(),
                reason: "is protected by a passphrase: set MCPSCOPE_SECRET_PASSPHRASE to open it"
                    .into(),
            }),
            (FileKey::Passphrase(_), "key-file") => Err(StoreError::WrongKey {
                path: self.path.clone(),
                reason: format!(
                    "is keyed by the key file {}, not a passphrase: unset MCPSCOPE_SECRET_PASSPHRASE, or move the file away to start a passphrase-protected one",
                    key_file_for(&self.path).display()
                ),
            }),
            (_, other) => Err(self.corrupted(format!("unknown key derivation {other:?}"))),
        }
    }

    fn derive(
        &self,
        passphrase: &str,
        params: &Argon2Params,
    ) -> Result<Zeroizing<[u8; 32]>, StoreError> {
        let mut cache = self.derived.lock().expect("derived key lock");
        if let Some((salt, key)) = &*cache
            && *salt == params.salt
        {
            return Ok(key.clone());
        }
        let salt = B64
            .decode(&params.salt)
            .map_err(|e| self.corrupted(format!("the argon2 salt is not base64: {e}")))?;
        let argon = argon2::Argon2::new(
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            argon2::Params::new(params.m_kib, params.t, params.p, Some(32))
                .map_err(|e| self.corrupted(format!("bad argon2 parameters: {e}")))?,
        );
        let mut key = Zeroizing::new([0u8; 32]);
        argon
            .hash_password_into(passphrase.as_bytes(), &salt, key.as_mut())
            .map_err(|e| self.corrupted(format!("argon2 failed: {e}")))?;
        *cache = Some((params.salt.clone(), key.clone()));
        Ok(key)
    }

    /// The header for the next write: the existing file's (same salt), or a fresh one.
    fn header_for_write(&self) -> Result<Header, StoreError> {
        if let Ok(bytes) = fs::read(&self.path)
            && let Ok(env) = serde_json::from_slice::<Envelope>(&bytes)
        {
            return Ok(env.header);
        }
        Ok(match &self.key {
            FileKey::KeyFile(_) => Header {
                format: FORMAT.into(),
                version: VERSION,
                cipher: CIPHER.into(),
                kdf: "key-file".into(),
                argon2: None,
            },
            FileKey::Passphrase(_) => {
                let mut salt = [0u8; 16];
                rand::fill(&mut salt);
                Header {
                    format: FORMAT.into(),
                    version: VERSION,
                    cipher: CIPHER.into(),
                    kdf: "argon2id".into(),
                    argon2: Some(Argon2Params {
                        m_kib: ARGON2_M_KIB,
                        t: ARGON2_T,
                        p: ARGON2_P,
                        salt: B64.encode(salt),
                    }),
                }
            }
        })
    }

    /// Read, change and write back under an exclusive lock. A file that cannot be read is left
    /// alone: the error goes back to the caller.
    fn update(&self, change: impl FnOnce(&mut Secrets)) -> Result<(), StoreError> {
        let dir = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        create_private_dir(dir).map_err(|e| self.io(dir, e))?;
        let lock_path = self.path.with_extension("lock");
        let mut opts = OpenOptions::new();
        opts.create(true).truncate(false).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let lock = opts.open(&lock_path).map_err(|e| self.io(&lock_path, e))?;
        lock.lock().map_err(|e| self.io(&lock_path, e))?;
        remove_stale_temporaries(dir, &self.path);
        let mut secrets = self.load()?;
        change(&mut secrets);
        if let FileKey::KeyFile(k) = &self.key
            && (!k.exists() || (is_empty_file(k) && !self.path.exists()))
        {
            create_key_file(k).map_err(|e| self.io(k, e))?;
        }
        let header = self.header_for_write()?;
        let key = self.key_for(&header)?;
        let cipher = XChaCha20Poly1305::new(&(*key).into());
        let mut nonce = [0u8; 24];
        rand::fill(&mut nonce);
        let plain = Zeroizing::new(serde_json::to_vec(&secrets).expect("serializable map"));
        let aad = serde_json::to_vec(&header).expect("serializable header");
        let ciphertext = cipher
            .encrypt(
                &nonce.into(),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .map_err(|_| self.corrupted("encryption failed"))?;
        let env = Envelope {
            header,
            nonce: B64.encode(nonce),
            ciphertext: B64.encode(ciphertext),
        };
        let mut doc = serde_json::to_vec_pretty(&env).expect("serializable envelope");
        doc.push(b'\n');
        replace_private(&self.path, &doc).map_err(|e| self.io(&self.path, e))?;
        drop(lock);
        Ok(())
    }
}

impl SecretStore for EncryptedFileStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.load()?.remove(key))
    }

    fn set(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.update(|m| {
            m.insert(key.to_string(), value.to_string());
        })
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        if self.load()?.contains_key(key) {
            self.update(|m| {
                m.remove(key);
            })?;
        }
        Ok(())
    }

    fn info(&self) -> &StoreInfo {
        &self.info
    }
}

fn read_key_file(path: &Path) -> Result<Zeroizing<[u8; 32]>, StoreError> {
    let err = |reason: String| StoreError::WrongKey {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = match fs::read(path) {
        Ok(b) => Zeroizing::new(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(err(
                "the key file is missing, so the secrets file next to it cannot be read; restore the key file, or move the secrets file away to start over".into(),
            ));
        }
        Err(e) => return Err(err(e.to_string())),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(err(format!(
                    "the key file can be read by other users (mode {mode:o}): run chmod 600 {}",
                    path.display()
                )));
            }
        }
    }
    <[u8; 32]>::try_from(&bytes[..])
        .map(Zeroizing::new)
        .map_err(|_| err(format!("the key file holds {} bytes, not 32", bytes.len())))
}

fn create_key_file(path: &Path) -> std::io::Result<()> {
    let mut key = Zeroizing::new([0u8; 32]);
    rand::fill(key.as_mut());
    replace_private(path, key.as_ref())
}

fn is_empty_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0)
}

/// The temporary file [`replace_private`] writes `path` through.
fn temporary_for(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Replace `path` with `bytes` whole or not at all: written to a temporary file beside it
/// (0600, synced), then renamed over it. On failure the temporary file is removed.
fn replace_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_for(path);
    write_private(&tmp, bytes)
        .and_then(|()| fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
}

/// Remove the temporary files of `secrets` (and its key file) a killed writer left in `dir`:
/// `secrets.enc.tmp`, `secrets.key.tmp`, and `secrets.tmp-PID` of older versions. Called
/// under the lock, when no writer can be mid-write.
fn remove_stale_temporaries(dir: &Path, secrets: &Path) {
    let stem = secrets
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.strip_prefix(&stem).is_some_and(|rest| {
            rest.starts_with(".tmp-") || (rest.starts_with('.') && rest.ends_with(".tmp"))
        });
        if ours {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Write `bytes` to a new file readable by its owner only (0600 on Unix), synced to disk.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f: File = opts.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}
