//! The HTTP clients of the transports (and of the OAuth flow, which takes them from here), built
//! on first use per scheme so that an `http://` target never pays for TLS.
//!
//! Building a TLS-capable reqwest client reads the system's CA certificates (~140 of them, most
//! of a one-shot CLI's start-up before this module existed). An `http://` URL needs none, so its
//! client is built with an empty root store; the TLS client is built the first time an
//! `https://` URL is used — by a target, a redirect, or an OAuth endpoint — and kept for the
//! life of the process, so the roots are read once however many connections (web UI slots,
//! reconnects, the HTTP+SSE fallback) use them. Connections with the same connect timeout share
//! it and so its connection pool, as tabs of a browser do. Redirects are never followed by reqwest:
//! the transports follow them by hand so each hop is recorded.
//!
//! Corporate networks: every client takes `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`
//! (either case) from the environment, as curl does (reqwest's rule); an `https://` server is
//! reached through the proxy with `CONNECT`. The TLS client trusts the system's roots (or those
//! of `SSL_CERT_FILE` / `SSL_CERT_DIR`, which replace them) plus every certificate of the PEM file
//! named by [`EXTRA_CA_CERTS_ENV`], for a server whose certificate a private CA signed (the
//! official Inspector takes `NODE_EXTRA_CA_CERTS` for this). [`network_settings`] says what is
//! in effect. One place for all three views: the CLI, the web UI and the TUI build clients here.
//!
//! `localhost` is the loopback interface (RFC 6761 §6.3; curl and browsers do the same), so every
//! client resolves it here instead of asking the system resolver, which reqwest runs on a thread
//! of its own: starting that thread and reading nsswitch.conf, resolv.conf and /etc/hosts cost a
//! one-shot `http://localhost:…` 0.2–0.6 ms before its first byte (`bench/first_byte.rs`
//! `{localhost_url}`), and a name that never leaves the machine cannot be answered by anyone else.
//!
//! ```
//! use mcpscope_transport::HttpClients;
//! let clients = HttpClients::new(None);
//! // No certificate is read for a plain-HTTP URL.
//! let client = clients.for_url("http://127.0.0.1:3000/mcp").unwrap();
//! # let _ = client;
//! ```

use crate::TransportError;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// Where `localhost` is (the URL's port replaces the 0). IPv4 first, as /etc/hosts usually lists
/// it; a server listening on `::1` only is reached on the second address at once, since a refused
/// connection falls through to the next address without waiting.
const LOCALHOST: [SocketAddr; 2] = [
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
    SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 0),
];

/// The clients of one connection (or OAuth provider): plain HTTP built on first use, TLS shared
/// by the process (see the module docs).
#[derive(Debug)]
pub struct HttpClients {
    connect_timeout: Option<Duration>,
    plain: OnceLock<reqwest::Client>,
}

impl HttpClients {
    /// Clients with this TCP connect timeout (`None`: the OS's).
    pub fn new(connect_timeout: Option<Duration>) -> HttpClients {
        HttpClients {
            connect_timeout,
            plain: OnceLock::new(),
        }
    }

    /// The client for `url`: the TLS client for `https://` (built on its first use in the
    /// process), otherwise the plain one. Cheap to call per request (a client is a handle).
    pub fn for_url(&self, url: &str) -> Result<reqwest::Client, TransportError> {
        let https = url
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("https:"));
        if https {
            return tls_client(self.connect_timeout);
        }
        if let Some(c) = self.plain.get() {
            return Ok(c.clone());
        }
        // No roots: a plain connection never verifies a certificate.
        let built = builder(self.connect_timeout)
            .tls_certs_only(Vec::<reqwest::Certificate>::new())
            .build()
            .map_err(build_error)?;
        Ok(self.plain.get_or_init(|| built).clone())
    }
}

/// A builder with what every client here shares: no automatic redirects, `localhost` on the
/// loopback interface, the connect timeout.
fn builder(connect_timeout: Option<Duration>) -> reqwest::ClientBuilder {
    let b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve_to_addrs("localhost", &LOCALHOST);
    match connect_timeout {
        Some(t) => b.connect_timeout(t),
        None => b,
    }
}

/// The environment variable naming a PEM file of CA certificates trusted besides the system's.
pub const EXTRA_CA_CERTS_ENV: &str = "MCPSCOPE_EXTRA_CA_CERTS";

/// The proxy and certificate variables of the environment, as the clients use them (a proxy
/// URL's password is not shown): what `mcpscope --cli --method initialize --format json` reports
/// as `network`.
pub fn network_settings() -> serde_json::Value {
    let mut proxy = serde_json::Map::new();
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"] {
        let value = std::env::var(name)
            .or_else(|_| std::env::var(name.to_ascii_lowercase()))
            .ok()
            .filter(|v| !v.is_empty());
        if let Some(v) = value {
            proxy.insert(name.into(), without_password(&v).into());
        }
    }
    let mut tls = serde_json::Map::new();
    for name in ["SSL_CERT_FILE", "SSL_CERT_DIR", EXTRA_CA_CERTS_ENV] {
        if let Some(v) = std::env::var_os(name) {
            tls.insert(name.into(), v.to_string_lossy().into_owned().into());
        }
    }
    if std::env::var_os(EXTRA_CA_CERTS_ENV).is_some() {
        let extra = match extra_roots() {
            Ok(certs) => serde_json::json!(certs.len()),
            Err(e) => serde_json::json!(e.to_string()),
        };
        tls.insert("extraCertificates".into(), extra);
    }
    serde_json::json!({"proxy": proxy, "tls": tls})
}

/// `http://user:secret@proxy:3128` → `http://user:…@proxy:3128`.
fn without_password(v: &str) -> String {
    match url::Url::parse(v) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("…"));
            u.to_string()
        }
        _ => v.to_string(),
    }
}

/// The certificates of [`EXTRA_CA_CERTS_ENV`]'s file (none when it is not set); a file that
/// cannot be read or holds no certificate is an error that names it.
fn extra_roots() -> Result<Vec<reqwest::Certificate>, TransportError> {
    let Some(path) = std::env::var_os(EXTRA_CA_CERTS_ENV) else {
        return Ok(Vec::new());
    };
    let shown = std::path::Path::new(&path).display().to_string();
    let bad = |why: String| {
        TransportError::Other(format!(
            "{EXTRA_CA_CERTS_ENV}={shown}: {why}; it must name a PEM file of CA certificates (-----BEGIN CERTIFICATE-----)"
        ))
    };
    let pem = std::fs::read(&path).map_err(|e| bad(format!("cannot read it ({e})")))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| bad(format!("not PEM certificates ({})", crate::error_chain(&e))))?;
    if certs.is_empty() {
        return Err(bad("it holds no certificate".into()));
    }
    Ok(certs)
}

/// The process's TLS clients, one per connect timeout in use.
static TLS: Mutex<Vec<(Option<Duration>, reqwest::Client)>> = Mutex::new(Vec::new());

/// The process's TLS client for `connect_timeout`, built (and the system roots read) on first
/// use. The lock is held while building, so concurrent first uses read the roots once.
fn tls_client(connect_timeout: Option<Duration>) -> Result<reqwest::Client, TransportError> {
    let mut built = TLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, c)) = built.iter().find(|(t, _)| *t == connect_timeout) {
        return Ok(c.clone());
    }
    let client = builder(connect_timeout)
        .tls_certs_merge(extra_roots()?)
        .build()
        .map_err(build_error)?;
    built.push((connect_timeout, client.clone()));
    Ok(client)
}

fn build_error(e: reqwest::Error) -> TransportError {
    TransportError::Other(format!(
        "cannot build the HTTP client: {}",
        crate::error_chain(&e)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TLS clients built so far for `connect_timeout`.
    fn tls_built(connect_timeout: Option<Duration>) -> usize {
        TLS.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(t, _)| *t == connect_timeout)
            .count()
    }

    #[test]
    fn plain_http_builds_no_tls_client_and_https_builds_one_for_the_process() {
        // A timeout no other test uses, so parallel tests do not disturb the count.
        let t = Some(Duration::from_millis(4321));
        let a = HttpClients::new(t);
        a.for_url("http://127.0.0.1:1/mcp").unwrap();
        assert_eq!(
            tls_built(t),
            0,
            "an http:// URL must not build the TLS client"
        );
        a.for_url("https://example.invalid/mcp").unwrap();
        HttpClients::new(t)
            .for_url("HTTPS://example.invalid/other")
            .unwrap();
        assert_eq!(tls_built(t), 1, "the roots are read once per process");
    }

    /// Accept one connection on `listener` and answer its request with `204 No Content`.
    fn answer_once(listener: std::net::TcpListener) -> std::thread::JoinHandle<()> {
        use std::io::{Read, Write};
        std::thread::spawn(move || {
            let (mut sock, _) = listener.accept().expect("accept");
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf);
            let _ = sock.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
        })
    }

    async fn status_of(url: &str) -> u16 {
        let client = HttpClients::new(Some(Duration::from_secs(5)))
            .for_url(url)
            .unwrap();
        client
            .get(url)
            .send()
            .await
            .expect("send")
            .status()
            .as_u16()
    }

    #[tokio::test]
    async fn localhost_reaches_a_server_on_either_loopback_address() {
        let v4 = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = v4.local_addr().unwrap().port();
        let server = answer_once(v4);
        assert_eq!(
            status_of(&format!("http://localhost:{port}/mcp")).await,
            204
        );
        server.join().unwrap();
        // A server on ::1 only (Node's default for "localhost"): the IPv4 attempt is refused and
        // the IPv6 one made at once. Skipped where the machine has no IPv6 loopback.
        let Ok(v6) = std::net::TcpListener::bind("[::1]:0") else {
            return;
        };
        let port = v6.local_addr().unwrap().port();
        // The same port on 127.0.0.1 must be free, or the IPv4 attempt would reach someone else.
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_err() {
            return;
        }
        let server = answer_once(v6);
        let started = std::time::Instant::now();
        assert_eq!(
            status_of(&format!("http://localhost:{port}/mcp")).await,
            204
        );
        assert!(
            started.elapsed() < Duration::from_millis(250),
            "the refused IPv4 attempt must not wait out the happy-eyeballs delay"
        );
        server.join().unwrap();
    }
}
