//! The environment of the gateway mode, read once at start-up with 002's names and meanings
//! (`docs/gateway.md` "Command line"). Every mistake is a start-up error that names the
//! variable (or the file) and says what is expected: a relay that starts with a half-read
//! allowlist would send requests where the administrator did not mean them to go.
//!
//! Read through a lookup function rather than `std::env` directly, so tests give each gateway its
//! own environment in one process.

use crate::sessions::{KEY_FILE_VAR, KEY_VAR, SessionKey, parse_keys};
use std::io::Read as _;
use std::path::PathBuf;
use std::time::Duration;

/// The default upstream request timeout (002: `2m`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// What the environment says.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `MCP_PROXY_ALLOWED_ORIGINS`: `None` = any destination the file names; else only these
    /// (normalised `scheme://host:port`).
    pub allowed_origins: Option<Vec<String>>,
    /// `MCP_PROXY_CA_FILE`: a PEM bundle trusted besides the system's roots.
    pub ca_file: Option<PathBuf>,
    /// `MCP_PROXY_REQUEST_TIMEOUT`; `None` = no limit (a Go duration of `0`).
    pub request_timeout: Option<Duration>,
    /// `MCP_PROXY_DIAL_ADDRESS`: `host:port` dialled for every gateway.
    pub dial_address: Option<String>,
    /// `MCP_PROXY_ALLOW_INSECURE_AUTH=true`: a bearer token may go over `http://`.
    pub allow_insecure_auth: bool,
    /// `MCP_INSPECTOR_API_TOKEN`: the web UI's token, fixed by the administrator.
    pub api_token: Option<String>,
    /// `ALLOWED_ORIGINS`: the origins the page is opened from (the web UI's variable).
    pub page_origins: Option<Vec<String>>,
    /// `MCPSCOPE_GATEWAY_SESSION_KEY` (or the file `MCPSCOPE_GATEWAY_SESSION_KEY_FILE` names):
    /// the keys session ids are sealed with, the first sealing (`sessions.rs`); empty = a key
    /// made by the process.
    pub session_keys: Vec<SessionKey>,
}

impl Settings {
    /// Read the settings through `get` (`std::env::var` in the binary).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let text = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let allowed_origins = match text("MCP_PROXY_ALLOWED_ORIGINS") {
            None => None,
            Some(v) => Some(
                v.split(',')
                    .map(str::trim)
                    .filter(|o| !o.is_empty())
                    .map(|o| {
                        exact_origin(o).map_err(|why| {
                            format!(
                                "MCP_PROXY_ALLOWED_ORIGINS: {o:?} {why}; give exact origins such as https://mcp.example.com,https://internal.example.com:8443"
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let request_timeout = match text("MCP_PROXY_REQUEST_TIMEOUT") {
            None => Some(DEFAULT_TIMEOUT),
            Some(v) => {
                let d = go_duration(v.trim()).map_err(|why| {
                    format!(
                        "MCP_PROXY_REQUEST_TIMEOUT={v:?}: {why}; give a Go duration such as 2m, 90s, 1m30s or 500ms"
                    )
                })?;
                (!d.is_zero()).then_some(d)
            }
        };
        let dial_address = match text("MCP_PROXY_DIAL_ADDRESS") {
            None => None,
            Some(v) => Some(dial_address(v.trim()).map_err(|why| {
                format!("MCP_PROXY_DIAL_ADDRESS={v:?}: {why}; give host:port, such as mcp-gateway.gateway-system.svc.cluster.local:80")
            })?),
        };
        let allow_insecure_auth = match text("MCP_PROXY_ALLOW_INSECURE_AUTH") {
            None => false,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => {
                    return Err(format!(
                        "MCP_PROXY_ALLOW_INSECURE_AUTH={v:?}: give true or false"
                    ));
                }
            },
        };
        let page_origins = text("ALLOWED_ORIGINS").map(|v| {
            v.split(',')
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect()
        });
        Ok(Settings {
            allowed_origins,
            ca_file: text("MCP_PROXY_CA_FILE").map(PathBuf::from),
            request_timeout,
            dial_address,
            allow_insecure_auth,
            api_token: text("MCP_INSPECTOR_API_TOKEN"),
            page_origins,
            session_keys: session_keys(text(KEY_VAR), text(KEY_FILE_VAR))?,
        })
    }

    /// Whether `url`'s origin may be reached (always, without an allowlist).
    pub fn origin_allowed(&self, url: &url::Url) -> bool {
        match &self.allowed_origins {
            None => true,
            Some(list) => {
                let o = normal_origin(url);
                list.contains(&o)
            }
        }
    }
}

/// The session keys from the variable or the file it names (a mounted Secret): one of the two,
/// or neither (a key made by the process).
fn session_keys(value: Option<String>, file: Option<String>) -> Result<Vec<SessionKey>, String> {
    match (value, file) {
        (None, None) => Ok(Vec::new()),
        (Some(_), Some(_)) => Err(format!(
            "{KEY_VAR} and {KEY_FILE_VAR} are both set: give the key one way"
        )),
        (Some(v), None) => parse_keys(&v, KEY_VAR),
        (None, Some(path)) => {
            let path = path.trim();
            let from = format!("{KEY_FILE_VAR}={path}");
            // A key file is a few lines; more is not a key file (and is not read whole).
            let mut text = String::new();
            std::fs::File::open(path)
                .and_then(|f| f.take(64 * 1024).read_to_string(&mut text))
                .map_err(|e| format!("{from}: cannot read it: {e}"))?;
            parse_keys(&text, &from)
        }
    }
}

/// `scheme://host:port` with the default port made explicit and the host lowercase (the URL
/// parser lowercases it, and writes IPv6 hosts in brackets).
pub fn normal_origin(u: &url::Url) -> String {
    let host = match u.host() {
        Some(url::Host::Ipv6(a)) => format!("[{a}]"),
        Some(h) => h.to_string().to_ascii_lowercase(),
        None => String::new(),
    };
    match u.port_or_known_default() {
        Some(p) => format!("{}://{host}:{p}", u.scheme()),
        None => format!("{}://{host}", u.scheme()),
    }
}

/// One exact origin of `MCP_PROXY_ALLOWED_ORIGINS`, normalised; the reason when it is not one.
fn exact_origin(o: &str) -> Result<String, &'static str> {
    if o.contains('*') {
        return Err("is a wildcard; only exact origins are matched");
    }
    let u = url::Url::parse(o).map_err(|_| "is not an origin (scheme://host[:port])")?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err("is not an http:// or https:// origin");
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("has no host");
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("carries credentials");
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err("has a query or fragment");
    }
    // `Url` writes "/" for an empty path; anything more (such as /mcp) is a path.
    if u.path() != "/" || o.trim_end_matches('/').matches('/').count() > 2 {
        return Err("has a path (leave out /mcp: an origin is scheme://host[:port])");
    }
    Ok(normal_origin(&u))
}

/// `host:port` with a non-empty host and a port number.
fn dial_address(v: &str) -> Result<String, &'static str> {
    let (host, port) = v.rsplit_once(':').ok_or("has no :port")?;
    if host.is_empty() || host.contains('/') || host.contains('@') {
        return Err("has no host");
    }
    port.parse::<u16>().map_err(|_| "has no port number")?;
    Ok(v.to_string())
}

/// A Go duration (`time.ParseDuration`): a sequence of decimal numbers, each with a unit (`ns`,
/// `us`/`µs`, `ms`, `s`, `m`, `h`), such as `2m`, `1m30s`, `1.5h`, `500ms`; `0` alone is zero.
pub fn go_duration(s: &str) -> Result<Duration, &'static str> {
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    if s.starts_with('-') {
        return Err("a timeout cannot be negative");
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() {
        return Err("is empty");
    }
    let mut rest = s;
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or("a number has no unit (ns, us, ms, s, m, h)")?;
        if number_len == 0 {
            return Err("expected a number");
        }
        let value: f64 = rest[..number_len]
            .parse()
            .map_err(|_| "a number is malformed")?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err("unknown unit (ns, us, ms, s, m, h)"),
        };
        total += value * seconds;
        rest = &rest[unit_len..];
    }
    if !total.is_finite() || total > 1e12 {
        return Err("is too long");
    }
    Ok(Duration::from_secs_f64(total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(|k| env.get(k).cloned())
    }

    #[test]
    fn go_durations_parse_as_go_does() {
        assert_eq!(go_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(go_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(go_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(go_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(go_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(go_duration("0"), Ok(Duration::ZERO));
        for bad in ["2", "2x", "m", "", "-1s", "1m 30s", "1.2.3s"] {
            assert!(go_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            settings(&[]).unwrap().request_timeout,
            Some(DEFAULT_TIMEOUT)
        );
        let e = settings(&[("MCP_PROXY_REQUEST_TIMEOUT", "2 minutes")]).unwrap_err();
        assert!(e.contains("MCP_PROXY_REQUEST_TIMEOUT"), "{e}");
    }

    #[test]
    fn allowed_origins_are_exact_and_normalised() {
        let s = settings(&[(
            "MCP_PROXY_ALLOWED_ORIGINS",
            "https://MCP.Example.com, http://internal.example.com:8080/",
        )])
        .unwrap();
        assert_eq!(
            s.allowed_origins.as_deref().unwrap(),
            [
                "https://mcp.example.com:443",
                "http://internal.example.com:8080"
            ]
        );
        let ok = |u: &str| s.origin_allowed(&url::Url::parse(u).unwrap());
        assert!(ok("https://mcp.example.com/mcp"));
        assert!(ok("https://mcp.example.com:443/other"));
        assert!(!ok("http://mcp.example.com/mcp"));
        assert!(!ok("https://mcp.example.com:8443/mcp"));
        for bad in [
            "https://mcp.example.com/mcp",
            "https://*.example.com",
            "https://u:p@mcp.example.com",
            "https://mcp.example.com?x=1",
            "mcp.example.com",
        ] {
            let e = settings(&[("MCP_PROXY_ALLOWED_ORIGINS", bad)]).unwrap_err();
            assert!(e.contains("MCP_PROXY_ALLOWED_ORIGINS"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_session_key_comes_from_the_variable_or_its_file() {
        assert!(settings(&[]).unwrap().session_keys.is_empty());
        let hex = "0123456789abcdef".repeat(4);
        let s = settings(&[(KEY_VAR, &hex)]).unwrap();
        assert_eq!(s.session_keys.len(), 1);
        let e = settings(&[(KEY_VAR, "too-short")]).unwrap_err();
        assert!(
            e.contains(KEY_VAR) && e.contains("openssl rand -hex 32"),
            "{e}"
        );
        assert!(!e.contains("too-short"), "the key is not quoted: {e}");
        let dir = std::env::temp_dir().join(format!("mcpscope-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key");
        std::fs::write(&file, format!("{hex}\n{}\n", "f".repeat(64))).unwrap();
        let path = file.display().to_string();
        let s = settings(&[(KEY_FILE_VAR, &path)]).unwrap();
        assert_eq!(s.session_keys.len(), 2, "a new key and the one it replaces");
        let e = settings(&[(KEY_VAR, &hex), (KEY_FILE_VAR, &path)]).unwrap_err();
        assert!(e.contains("both"), "{e}");
        let missing = dir.join("missing").display().to_string();
        let e = settings(&[(KEY_FILE_VAR, &missing)]).unwrap_err();
        assert!(e.contains(KEY_FILE_VAR) && e.contains(&missing), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
