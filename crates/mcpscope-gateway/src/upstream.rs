//! The one HTTP client the relay sends with, built once at start-up from [`Settings`].
//!
//! - **No redirects** (`Policy::none`): a 3xx comes back to the relay, which refuses it.
//! - **Roots**: the system's, plus every certificate of `MCP_PROXY_CA_FILE`; a file that cannot
//!   be read, holds no certificate or one rustls cannot use fails start-up naming the file.
//! - **`MCP_PROXY_DIAL_ADDRESS`**: every name resolves to the dial address's addresses and port,
//!   so the URL (and so `Host` and TLS's server name) stays the gateway's own. The resolver's port
//!   is used only when the URL names none (hyper prefers a URL's port), so for a URL with a port
//!   the relay sends to the URL without it and sets `Host` itself ([`Upstream::target`]).
//! - The timeout is applied per request (`MCP_PROXY_REQUEST_TIMEOUT`), to the whole exchange
//!   including a streamed body, as Go's `http.Client.Timeout` is.

use crate::settings::Settings;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::SocketAddr;
use std::sync::Arc;

/// The client and what decides where it connects.
#[derive(Debug, Clone)]
pub(crate) struct Upstream {
    /// The client.
    pub client: reqwest::Client,
    dial: bool,
}

/// Resolves every name to the dial address.
#[derive(Debug)]
struct DialAddress(String);

impl Resolve for DialAddress {
    fn resolve(&self, _name: Name) -> Resolving {
        let target = self.0.clone();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host(target.as_str())
                .await
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })?
                .collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

impl Upstream {
    /// Build the client; the error names what is wrong (the CA file, most likely).
    pub(crate) fn build(settings: &Settings) -> Result<Upstream, String> {
        let mut b = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // The relay names every header it sends; reqwest adds none of a browser's.
            .connect_timeout(std::time::Duration::from_secs(10));
        if let Some(path) = &settings.ca_file {
            b = b.tls_certs_merge(ca_certificates(path)?);
        }
        if let Some(dial) = &settings.dial_address {
            b = b.dns_resolver(Arc::new(DialAddress(dial.clone())));
        }
        let client = b.build().map_err(|e| {
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                why = format!("{why}: {s}");
                source = s.source();
            }
            match &settings.ca_file {
                Some(p) => format!(
                    "MCP_PROXY_CA_FILE={}: its certificates cannot be used ({why})",
                    p.display()
                ),
                None => format!("cannot build the HTTP client: {why}"),
            }
        })?;
        Ok(Upstream {
            client,
            dial: settings.dial_address.is_some(),
        })
    }

    /// Where to send a request for `url`, and the `Host` to set: the URL itself, or — with a dial
    /// address and a URL that names a port — the URL without its port (so the resolver's port is
    /// dialled) and the original `host:port` as `Host`.
    pub(crate) fn target(&self, url: &url::Url) -> (url::Url, Option<String>) {
        if !self.dial || url.port().is_none() {
            return (url.clone(), None);
        }
        let host = format!(
            "{}:{}",
            url.host_str().unwrap_or_default(),
            url.port().unwrap_or_default()
        );
        let mut bare = url.clone();
        let _ = bare.set_port(None);
        (bare, Some(host))
    }
}

/// The certificates of the PEM bundle at `path`, or why they cannot be had.
pub(crate) fn ca_certificates(path: &std::path::Path) -> Result<Vec<reqwest::Certificate>, String> {
    let bad = |why: String| {
        format!(
            "MCP_PROXY_CA_FILE={}: {why}; it must name a readable PEM bundle of CA certificates (-----BEGIN CERTIFICATE-----)",
            path.display()
        )
    };
    let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it ({e})")))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| bad(format!("it is not PEM certificates ({e})")))?;
    if certs.is_empty() {
        return Err(bad("it holds no certificate".into()));
    }
    Ok(certs)
}
