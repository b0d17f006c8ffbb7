//! The administrator's file (`--config FILE`, `docs/gateway.md` "The file"): the only place a
//! destination comes from. JSON, or YAML when the name ends `.yaml`/`.yml` (`serde_norway`).
//!
//! Every check is made while the file is read, so an error carries the line and column of the
//! value at fault (serde attaches the position to errors raised inside `Deserialize`), and a key
//! the model does not know is an error too: a typo such as `"user": […]` for `"users"` must not
//! silently open a gateway to everyone. [`Watched`] keeps the last good file and polls the path
//! for a change (its length and modification time, every [`POLL`]) — no inotify, which misses
//! a Kubernetes ConfigMap's symlink swap anyway.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

/// How often the file is looked at for a change.
pub const POLL: Duration = Duration::from_secs(1);

/// The largest file read: a gateway list, not a data set.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The request size cap when the file names none (002: "limits request size").
pub const DEFAULT_REQUEST_BYTES: u64 = 1024 * 1024;

/// The response size cap when the file names none.
pub const DEFAULT_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// The file, checked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The gateways by name (sorted: the page lists them in this order).
    pub gateways: BTreeMap<GatewayName, Gateway>,
    /// Methods added to 002's allowlist (only `ping` and `completion/complete`).
    #[serde(default)]
    pub methods: Vec<ExtraMethod>,
    /// Size caps.
    #[serde(default)]
    pub limits: Limits,
}

/// One gateway the administrator named.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gateway {
    /// Its MCP endpoint (`https://…/mcp`).
    pub url: GatewayUrl,
    /// What the page says about it.
    #[serde(default)]
    pub description: Option<String>,
    /// Tool/prompt-name prefix → the backend server's name.
    #[serde(default)]
    pub servers: BTreeMap<String, String>,
    /// Users who may see it.
    #[serde(default)]
    pub users: Option<Vec<String>>,
    /// Groups whose members may see it.
    #[serde(default)]
    pub groups: Option<Vec<String>>,
}

impl Gateway {
    /// Whether `user` (with `groups`) may see this gateway: everyone when the file names neither
    /// users nor groups; else a named user or a member of a named group.
    pub fn visible_to(&self, user: &str, groups: &[String]) -> bool {
        if self.users.is_none() && self.groups.is_none() {
            return true;
        }
        let named = self.users.iter().flatten().any(|u| u == user);
        let member = self
            .groups
            .iter()
            .flatten()
            .any(|g| groups.iter().any(|mine| mine == g));
        named || member
    }
}

/// Size caps (`limits`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Limits {
    /// The largest request body relayed.
    #[serde(default = "default_request_bytes", deserialize_with = "positive")]
    pub request_bytes: u64,
    /// The largest response body relayed (an SSE stream ends there).
    #[serde(default = "default_response_bytes", deserialize_with = "positive")]
    pub response_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            request_bytes: DEFAULT_REQUEST_BYTES,
            response_bytes: DEFAULT_RESPONSE_BYTES,
        }
    }
}

fn default_request_bytes() -> u64 {
    DEFAULT_REQUEST_BYTES
}

fn default_response_bytes() -> u64 {
    DEFAULT_RESPONSE_BYTES
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(de::Error::custom("a limit must be at least 1 byte"));
    }
    Ok(n)
}

/// A gateway's name: the path segment of `/api/gateways/{name}/mcp`, so letters, digits, `.`,
/// `_` and `-` only.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct GatewayName(pub String);

impl<'de> Deserialize<'de> for GatewayName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GatewayName, D::Error> {
        let s = String::deserialize(d)?;
        let ok = !s.is_empty()
            && s.len() <= 128
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !ok {
            return Err(de::Error::custom(format!(
                "gateway name {s:?}: use 1 to 128 letters, digits, '.', '_' or '-' (it is a URL path segment)"
            )));
        }
        Ok(GatewayName(s))
    }
}

/// A gateway's URL: `http` or `https`, a host, no user name or password (a credential in a URL
/// ends up in logs), no fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayUrl(pub url::Url);

impl<'de> Deserialize<'de> for GatewayUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GatewayUrl, D::Error> {
        let s = String::deserialize(d)?;
        let u = url::Url::parse(&s)
            .map_err(|e| de::Error::custom(format!("url {s:?} is not a URL: {e}")))?;
        let why = if !matches!(u.scheme(), "http" | "https") {
            Some("must be http:// or https://")
        } else if u.host_str().is_none_or(str::is_empty) {
            Some("has no host")
        } else if !u.username().is_empty() || u.password().is_some() {
            Some("must not carry a user name or password (give the page a bearer token instead)")
        } else if u.fragment().is_some() {
            Some("must not have a #fragment")
        } else {
            None
        };
        match why {
            Some(why) => Err(de::Error::custom(format!("url {s:?} {why}"))),
            None => Ok(GatewayUrl(u)),
        }
    }
}

/// A method the file may add to the allowlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ExtraMethod {
    /// `ping`.
    #[serde(rename = "ping")]
    Ping,
    /// `completion/complete`.
    #[serde(rename = "completion/complete")]
    CompletionComplete,
}

impl ExtraMethod {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            ExtraMethod::Ping => mcpscope_proto::method::Method::Ping.name(),
            ExtraMethod::CompletionComplete => {
                mcpscope_proto::method::Method::CompletionComplete.name()
            }
        }
    }
}

/// Why a file was refused: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the fault (0 when the file could not be read at all).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

impl std::error::Error for ConfigError {}

/// Parse a file's text (`path` says which syntax, and names it in errors).
pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let err = |line, column, message: String| ConfigError {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    if is_yaml(path) {
        return serde_norway::from_str::<Config>(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            // The message ends "at line L column C"; the position goes in front instead.
            let message = e.to_string();
            let message = match message.rfind(" at line ") {
                Some(i) => message[..i].to_string(),
                None => message,
            };
            err(line, column, message)
        });
    }
    serde_json::from_str::<Config>(text).map_err(|e| {
        // serde_json's message ends "at line L column C"; the position goes in front instead.
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        err(e.line(), e.column(), message)
    })
}

fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Read and parse the file.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let unreadable = |message: String| ConfigError {
        path: path.to_path_buf(),
        line: 0,
        column: 0,
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "it has {} bytes; a gateway file may have at most {MAX_FILE_BYTES}",
            meta.len()
        )));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    parse(path, &text)
}

/// What identifies a version of the file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        len: m.len(),
        modified: m.modified().ok(),
    })
}

/// The file as last loaded successfully, re-read when it changes.
#[derive(Debug)]
pub struct Watched {
    path: PathBuf,
    current: RwLock<Arc<Config>>,
    seen: RwLock<Option<Stamp>>,
}

impl Watched {
    /// Load the file (an error names its line and column).
    pub fn open(path: &Path) -> Result<Watched, ConfigError> {
        let seen = stamp(path);
        let config = load(path)?;
        Ok(Watched {
            path: path.to_path_buf(),
            current: RwLock::new(Arc::new(config)),
            seen: RwLock::new(seen),
        })
    }

    /// The last good file.
    pub fn current(&self) -> Arc<Config> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The path watched.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Look at the file once: re-read it if it changed. `Some(Ok)` when a new version was taken,
    /// `Some(Err)` when a changed file was refused (the last good one is kept), `None` when
    /// nothing changed.
    pub fn poll(&self) -> Option<Result<(), ConfigError>> {
        let now = stamp(&self.path);
        {
            let mut seen = self
                .seen
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if *seen == now {
                return None;
            }
            *seen = now;
        }
        Some(load(&self.path).map(|config| {
            *self
                .current
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(config);
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_json(text: &str) -> Result<Config, ConfigError> {
        parse(Path::new("gateways.json"), text)
    }

    #[test]
    fn the_minimal_shape_is_accepted_with_the_defaults() {
        let c = parse_json(r#"{"gateways": {"toystore": {"url": "https://mcp.example.com/mcp"}}}"#)
            .unwrap();
        let g = &c.gateways[&GatewayName("toystore".into())];
        assert_eq!(g.url.0.as_str(), "https://mcp.example.com/mcp");
        assert!(g.visible_to("anyone", &[]));
        assert_eq!(c.limits.request_bytes, DEFAULT_REQUEST_BYTES);
        assert!(c.methods.is_empty());
    }

    #[test]
    fn errors_name_the_line_and_column_of_the_fault() {
        let text = "{\n  \"gateways\": {\n    \"a\": {\"url\": \"ftp://x/mcp\"}\n  }\n}";
        let e = parse_json(text).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("http:// or https://"), "{e}");
        assert!(
            e.to_string().starts_with("gateways.json:3:"),
            "{}",
            e.to_string()
        );
        let typo = "{\"gateways\": {\"a\": {\"url\": \"https://x/mcp\",\n \"user\": [\"ada\"]}}}";
        let e = parse_json(typo).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("unknown field `user`"), "{e}");
        let method = "{\"gateways\": {},\n\"methods\": [\"resources/list\"]}";
        let e = parse_json(method).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let cred = r#"{"gateways": {"a": {"url": "https://u:p@x/mcp"}}}"#;
        assert!(parse_json(cred).unwrap_err().message.contains("password"));
        let name = r#"{"gateways": {"a/b": {"url": "https://x/mcp"}}}"#;
        assert!(
            parse_json(name)
                .unwrap_err()
                .message
                .contains("path segment")
        );
    }

    #[test]
    fn yaml_is_the_same_model_with_the_same_positions() {
        let yaml = Path::new("gateways.yaml");
        let c = parse(
            yaml,
            "gateways:\n  toystore:\n    url: https://mcp.example.com/mcp\n    groups: [platform]\n",
        )
        .unwrap();
        assert!(c.gateways[&GatewayName("toystore".into())].visible_to("x", &["platform".into()]));
        let e = parse(
            yaml,
            "gateways:\n  a:\n    url: https://x/mcp\n    user: [ada]\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("unknown field `user`"), "{e}");
        let e = parse(yaml, "gateways:\n  a:\n    url: ftp://x/mcp\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
    }

    #[test]
    fn users_and_groups_limit_who_sees_a_gateway() {
        let c = parse_json(
            r#"{"gateways": {"g": {"url": "https://x/mcp", "users": ["ada"], "groups": ["platform"]}}}"#,
        )
        .unwrap();
        let g = &c.gateways[&GatewayName("g".into())];
        assert!(g.visible_to("ada", &[]));
        assert!(g.visible_to("bob", &["platform".into()]));
        assert!(!g.visible_to("bob", &["sales".into()]));
    }
}
