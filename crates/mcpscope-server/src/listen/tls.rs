//! HTTPS for the listener: a private key and a certificate chain from two PEM files, named as
//! the official Inspector names them (`INSPECTOR_TLS_KEY_PATH`, `INSPECTOR_TLS_CERT_PATH`).
//!
//! Both or neither: one alone is a start-up error, and so is a file that cannot be read or holds
//! no usable key or certificate, or a key that is not the certificate's (each error names the
//! file). While serving, the files are looked at every [`TLS_RELOAD_EVERY`]: when either changed
//! (size, modification time or inode — a Kubernetes secret volume swaps a symlink), the pair is
//! loaded again and new connections get it; connections already open keep theirs. A pair that
//! does not load — a half-written file, a key from another certificate — is reported once on
//! stderr and the previous pair stays in use.
//!
//! The crypto provider is aws-lc-rs, the one reqwest's `rustls` feature already links.

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio_rustls::TlsAcceptor;

/// The variable naming the PEM file of the private key (the official Inspector's name).
pub const TLS_KEY_ENV: &str = "INSPECTOR_TLS_KEY_PATH";
/// The variable naming the PEM file of the certificate chain, leaf first.
pub const TLS_CERT_ENV: &str = "INSPECTOR_TLS_CERT_PATH";
/// How often the files are looked at for a change.
pub const TLS_RELOAD_EVERY: Duration = Duration::from_secs(2);

/// Bigger than any key or chain; a larger file is refused rather than read.
const PEM_MAX: u64 = 1024 * 1024;

/// A key and certificate pair from files, reloaded when they change. Clones share the pair.
#[derive(Clone)]
pub struct TlsConfig {
    inner: Arc<Inner>,
}

struct Inner {
    key_path: PathBuf,
    cert_path: PathBuf,
    current: Mutex<Loaded>,
}

/// The pair in use and the state of the files it was last compared with.
struct Loaded {
    config: Arc<ServerConfig>,
    seen: Stamps,
}

/// What tells a changed file: its size, modification time and inode (`None`: unreadable).
type Stamp = Option<(u64, Option<SystemTime>, u64)>;
type Stamps = (Stamp, Stamp);

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig")
            .field("key_path", &self.inner.key_path)
            .field("cert_path", &self.inner.cert_path)
            .finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// `INSPECTOR_TLS_KEY_PATH` and `INSPECTOR_TLS_CERT_PATH`: `None` when neither is set (or
    /// both are empty), the loaded pair when both are, an error naming what is missing or wrong
    /// otherwise.
    pub fn from_env() -> io::Result<Option<TlsConfig>> {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        match (var(TLS_KEY_ENV), var(TLS_CERT_ENV)) {
            (None, None) => Ok(None),
            (Some(key), Some(cert)) => TlsConfig::from_files(key, cert).map(Some),
            (Some(_), None) => Err(one_of_two(TLS_KEY_ENV, TLS_CERT_ENV)),
            (None, Some(_)) => Err(one_of_two(TLS_CERT_ENV, TLS_KEY_ENV)),
        }
    }

    /// The pair in these two PEM files, loaded now; the error names the file at fault.
    pub fn from_files(
        key_path: impl Into<PathBuf>,
        cert_path: impl Into<PathBuf>,
    ) -> io::Result<TlsConfig> {
        let (key_path, cert_path) = (key_path.into(), cert_path.into());
        let seen = stamps(&key_path, &cert_path);
        let config = load(&key_path, &cert_path)?;
        Ok(TlsConfig {
            inner: Arc::new(Inner {
                key_path,
                cert_path,
                current: Mutex::new(Loaded { config, seen }),
            }),
        })
    }

    /// The acceptor of a new connection: the pair in use now.
    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.lock().config.clone())
    }

    /// Look at the files every [`TLS_RELOAD_EVERY`] and reload the pair when they change; runs
    /// until dropped.
    pub(crate) async fn watch_files(self) {
        let mut tick = tokio::time::interval(TLS_RELOAD_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tick.tick().await;
            let this = self.clone();
            // File reads block; a slow disk must not hold a worker of the listener.
            let _ = tokio::task::spawn_blocking(move || this.reload_if_changed()).await;
        }
    }

    /// Reload once if either file changed since the last look; a failure is reported once per
    /// change and keeps the pair in use.
    fn reload_if_changed(&self) {
        let (key, cert) = (&self.inner.key_path, &self.inner.cert_path);
        let now = stamps(key, cert);
        if self.lock().seen == now {
            return;
        }
        let loaded = load(key, cert);
        let mut current = self.lock();
        current.seen = now;
        match loaded {
            Ok(config) => {
                current.config = config;
                eprintln!(
                    "mcpscope: TLS: loaded the new certificate {} and key {}",
                    cert.display(),
                    key.display()
                );
            }
            Err(e) => eprintln!(
                "mcpscope: TLS: the changed certificate or key does not load ({e}); still serving the previous pair"
            ),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Loaded> {
        self.inner
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn one_of_two(set: &str, missing: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{set} is set but {missing} is not: HTTPS needs both the private key and the certificate (set both, or neither for plain HTTP)"
        ),
    )
}

fn stamps(key: &Path, cert: &Path) -> Stamps {
    (stamp(key), stamp(cert))
}

fn stamp(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok(), m.ino()))
}

/// The server configuration of one key and chain: HTTP/1.1 by ALPN (the listener speaks only
/// that), TLS 1.2 and 1.3.
fn load(key_path: &Path, cert_path: &Path) -> io::Result<Arc<ServerConfig>> {
    let chain = CertificateDer::pem_slice_iter(&read_pem(cert_path)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(cert_path, &format!("not a PEM certificate chain ({e})")))?;
    if chain.is_empty() {
        return Err(invalid(cert_path, "holds no CERTIFICATE block"));
    }
    let key = PrivateKeyDer::from_pem_slice(&read_pem(key_path)?).map_err(|e| {
        invalid(
            key_path,
            &format!("holds no usable PEM private key (PKCS#8, PKCS#1 or SEC1) ({e})"),
        )
    })?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| io::Error::other(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the key {} and the certificate {} are not a usable pair: {e}",
                    key_path.display(),
                    cert_path.display()
                ),
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// A PEM file's bytes, bounded by [`PEM_MAX`]; the error names the file.
fn read_pem(path: &Path) -> io::Result<Vec<u8>> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let len = std::fs::metadata(path).map_err(named)?.len();
    if len > PEM_MAX {
        return Err(invalid(
            path,
            &format!("is {len} bytes, more than a key or certificate chain ({PEM_MAX} at most)"),
        ));
    }
    std::fs::read(path).map_err(named)
}

fn invalid(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} {what}", path.display()),
    )
}
