//! One server of the catalog ([`CatalogEntry`]) as `mcp.json` spells it, whichever tool wrote it,
//! and what it means: its transport, the target and options a connection is made with, and why
//! it cannot be used when it cannot.
//!
//! Lenient in: the spellings of other tools are normalised ([`CatalogEntry::normalized`]:
//! `type`/`transport`, `streamable-http`, `streamableHttp`, Windsurf's `serverUrl`), a number or
//! boolean in `args` is taken as its text, and fields we do not know are kept as they were.

use crate::error::{Error, Result};
use mcpscope_client::ClientOptions;
use mcpscope_proto::era::EraPreference;
use mcpscope_transport::Target;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;
use ts_rs::TS;

/// One server of the catalog, as `mcp.json` spells it. Its TypeScript type is generated for the
/// SPA (`events::typescript`), which sends and shows entries as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// `stdio`, `http` or `sse` (absent: stdio with a command, else guessed from the URL).
    /// Other tools' spellings are normalised to these three ([`CatalogEntry::normalized`]).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Transport")]
    pub kind: Option<String>,
    /// Program to run (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
    /// Its arguments (a number or boolean is taken as its text).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "args_text")]
    #[ts(as = "Vec<String>")]
    pub args: Vec<String>,
    /// Extra environment (stdio): strings, or `{"secretRef"}` / `{"secret"}` (catalog::secrets).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[ts(type = "Record<string, EntryValue>")]
    pub env: Map<String, Value>,
    /// Working directory (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cwd: Option<String>,
    /// Endpoint (http, sse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    /// Extra request headers (http, sse), valued as `env` is.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[ts(type = "Record<string, EntryValue>")]
    pub headers: Map<String, Value>,
    /// `legacy`, `modern` or `auto` (absent: auto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "EraPreference")]
    pub protocol_era: Option<String>,
    /// Connect timeout in ms (0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub connection_timeout: Option<u64>,
    /// Request timeout in ms (0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub request_timeout: Option<u64>,
    /// OAuth settings (http, sse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub oauth: Option<OAuthEntry>,
    /// The client capabilities the next connection advertises, when they differ from
    /// mcpscope's (the Experimental panel). Set through `PUT /api/servers/:name/capabilities`,
    /// not the server form (which leaves it as it is): hence no TypeScript field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub client_capabilities: Option<crate::capabilities::AdvertisedCapabilities>,
    /// The roots `roots/list` is answered with (the official Inspector's key, so its files
    /// work). Edited with `PUT /api/servers/:name/roots`; an entry sent without it (the server
    /// form) keeps the roots it had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub roots: Option<Vec<crate::roots::Root>>,
    /// Fields we do not know, kept as they were (the SPA neither reads nor sets them).
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Map<String, Value>,
}

/// How mcpscope identifies itself to a server's authorization server. Client secrets are not
/// kept here: the catalog is a plain file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OAuthEntry {
    /// A pre-registered (public) client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_id: Option<String>,
    /// A Client ID Metadata Document URL (https, with a path): the client id itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for (space-separated) instead of the challenge's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub scope: Option<String>,
    /// Credentials profile: two profiles keep separate tokens for one server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub profile: Option<String>,
}

/// `args` as serde reads and writes them: written as the list of strings it is, read leniently.
/// (A `with` module rather than `deserialize_with`, because ts-rs understands `with`.)
mod args_text {
    use super::*;
    use serde::Serializer;

    pub(super) fn serialize<S: Serializer>(
        args: &[String],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        args.serialize(s)
    }

    /// Strings as they are, other scalars as their JSON text (`3000`, `true`), `null` as none.
    /// Hand-written configs say `"args": ["--port", 3000]`.
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> std::result::Result<Vec<String>, D::Error> {
        let v = Option::<Vec<Value>>::deserialize(d)?.unwrap_or_default();
        v.into_iter()
            .map(|a| match a {
                Value::String(s) => Ok(s),
                Value::Array(_) | Value::Object(_) => Err(serde::de::Error::custom(format!(
                    "an argument must be a string, not {a}"
                ))),
                other => Ok(other.to_string()),
            })
            .collect()
    }
}

impl CatalogEntry {
    /// Read an entry written in any tool's dialect, normalised; the reason when it is not one.
    pub fn from_value(v: Value) -> std::result::Result<CatalogEntry, String> {
        serde_json::from_value::<CatalogEntry>(v)
            .map(CatalogEntry::normalized)
            .map_err(|e| e.to_string())
    }

    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        match self.kind.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("sse") => "sse",
            Some("http" | "streamable-http" | "streamablehttp") => "http",
            Some("stdio") => "stdio",
            _ => match (&self.command, &self.url) {
                (Some(_), _) => "stdio",
                (None, Some(u)) if u.trim_end_matches('/').ends_with("/sse") => "sse",
                (None, Some(_)) => "http",
                (None, None) => "stdio",
            },
        }
    }

    /// What the server card shows: the command line, or the URL.
    pub fn target_text(&self) -> String {
        match self.transport() {
            "stdio" => {
                let mut parts = vec![self.command.clone().unwrap_or_default()];
                parts.extend(self.args.iter().map(|a| {
                    if a.is_empty() || a.contains(char::is_whitespace) {
                        format!("{a:?}")
                    } else {
                        a.clone()
                    }
                }));
                parts.join(" ")
            }
            _ => self.url.clone().unwrap_or_default(),
        }
    }

    /// Why the entry cannot be used, if it cannot.
    pub fn problem(&self) -> Option<String> {
        match self.transport() {
            "stdio" if self.command.as_deref().is_none_or(str::is_empty) => {
                Some("a stdio server needs a \"command\"".into())
            }
            "http" | "sse" => match &self.url {
                None => Some(format!("a {} server needs a \"url\"", self.transport())),
                Some(u) => url_problem(u),
            },
            _ => None,
        }
        .or_else(|| self.roots.as_deref().and_then(crate::roots::problem))
        .or_else(|| {
            self.protocol_era.as_deref().and_then(|e| {
                e.parse::<EraPreference>()
                    .err()
                    .map(|m| format!("protocolEra: {m}"))
            })
        })
    }

    /// Why the entry's URL cannot be used, if it is an HTTP entry and it cannot: the part of
    /// [`CatalogEntry::problem`] a form shows on its URL field.
    pub fn url_problem(&self) -> Option<String> {
        match (self.transport(), &self.url) {
            ("http" | "sse", Some(u)) => url_problem(u),
            _ => None,
        }
    }

    /// The transport target and session options this entry describes. `era` overrides the
    /// entry's `protocolEra` for one connection.
    pub fn connection(&self, era: Option<&str>) -> Result<(Target, ClientOptions)> {
        if let Some(p) = self.problem() {
            return Err(Error::usage(format!("{p}; edit the server and fix it")));
        }
        let target = match self.transport() {
            "stdio" => Target::Stdio {
                command: self.command.clone().unwrap_or_default(),
                args: self.args.clone(),
                env: self.env_text(),
                cwd: self.cwd.as_ref().map(PathBuf::from),
            },
            "sse" => Target::Sse {
                url: self.url.clone().unwrap_or_default(),
                headers: self.headers_text(),
            },
            _ => Target::Http {
                url: self.url.clone().unwrap_or_default(),
                headers: self.headers_text(),
            },
        };
        let mut opts = ClientOptions::default();
        let era_text = era.or(self.protocol_era.as_deref()).unwrap_or("auto");
        opts.era = era_text
            .parse()
            .map_err(|m: String| Error::usage(format!("protocolEra: {m}")))?;
        if let Some(ms) = self.connection_timeout {
            opts.connect_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(ms) = self.request_timeout {
            opts.request_timeout = (ms > 0).then(|| Duration::from_millis(ms));
        }
        // As in the CLI: an HTTP URL whose transport was not named falls back to HTTP+SSE when
        // Streamable HTTP is refused.
        opts.sse_fallback = matches!(target, Target::Http { .. }) && self.kind.is_none();
        Ok((target, opts))
    }

    /// The `env` values as the process gets them: strings as they are, other JSON as its text.
    /// (Resolve secret values first: [`super::secrets::resolve`].)
    pub fn env_text(&self) -> Vec<(String, String)> {
        text_pairs(&self.env)
    }

    /// The `headers` values as they are sent, like [`CatalogEntry::env_text`].
    pub fn headers_text(&self) -> Vec<(String, String)> {
        text_pairs(&self.headers)
    }

    /// Normalise an entry written in another tool's dialect: `transport`/`type` spellings
    /// (`streamable-http`, `streamableHttp`), `serverUrl` (Windsurf).
    pub fn normalized(mut self) -> CatalogEntry {
        if self.kind.is_none()
            && let Some(Value::String(t)) = self.extra.remove("transport")
        {
            self.kind = Some(t);
        }
        if let Some(k) = &self.kind {
            let k = k.to_ascii_lowercase();
            self.kind = Some(
                match k.as_str() {
                    "streamable-http" | "streamablehttp" | "http" => "http",
                    "sse" => "sse",
                    "stdio" => "stdio",
                    _ => return self,
                }
                .to_string(),
            );
        }
        if self.url.is_none()
            && let Some(Value::String(u)) = self.extra.remove("serverUrl")
        {
            self.url = Some(u);
        }
        self
    }
}

fn text_pairs(m: &Map<String, Value>) -> Vec<(String, String)> {
    m.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string()),
            )
        })
        .collect()
}

/// Why `u` cannot be a server's URL: it must be an absolute `http` or `https` URL. Each message
/// says what to write instead, since the URL parser's own ("relative URL without a base") does not.
fn url_problem(u: &str) -> Option<String> {
    const EXAMPLE: &str = "e.g. http://127.0.0.1:3000/mcp";
    match url::Url::parse(u) {
        Ok(p) if matches!(p.scheme(), "http" | "https") => None,
        // `localhost:7100/mcp` parses as scheme "localhost": a host and port with no scheme.
        Ok(p) if !u.contains("://") && p.cannot_be_a_base() => Some(format!(
            "url {u:?} has no scheme: write it in full, e.g. http://{u}"
        )),
        Ok(p) => Some(format!(
            "url {u:?} has scheme {:?}; use http or https ({EXAMPLE})",
            p.scheme()
        )),
        Err(url::ParseError::RelativeUrlWithoutBase) => Some(format!(
            "url {u:?} is not a full URL: write the scheme, host and path ({EXAMPLE})"
        )),
        Err(e) => Some(format!("url {u:?} is not a URL ({e}); {EXAMPLE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn transports_are_named_and_guessed() {
        let e = |v: Value| {
            serde_json::from_value::<CatalogEntry>(v)
                .unwrap()
                .normalized()
        };
        assert_eq!(e(json!({"command": "node"})).transport(), "stdio");
        assert_eq!(e(json!({"url": "http://h/mcp"})).transport(), "http");
        assert_eq!(e(json!({"url": "http://h/sse"})).transport(), "sse");
        assert_eq!(
            e(json!({"type": "streamable-http", "url": "http://h/x"}))
                .kind
                .as_deref(),
            Some("http")
        );
        assert_eq!(
            e(json!({"transport": "sse", "url": "http://h/x"})).transport(),
            "sse"
        );
        assert_eq!(
            e(json!({"serverUrl": "http://h/mcp"})).url.as_deref(),
            Some("http://h/mcp")
        );
        assert!(e(json!({"type": "http"})).problem().is_some());
        assert!(e(json!({"url": "ftp://h"})).problem().is_some());
        // A URL a newcomer types gets a message saying what to write, not the parser's words.
        let bad = |u: &str| e(json!({"url": u})).url_problem().expect("a problem");
        assert!(bad("abc").contains("not a full URL"), "{}", bad("abc"));
        assert!(!bad("abc").contains("relative URL without a base"));
        assert!(
            bad("localhost:7100/mcp").contains("http://localhost:7100/mcp"),
            "{}",
            bad("localhost:7100/mcp")
        );
        assert!(
            bad("htp://h/mcp").contains("\"htp\""),
            "{}",
            bad("htp://h/mcp")
        );
        assert_eq!(e(json!({"url": "https://h/mcp"})).url_problem(), None);
        assert_eq!(e(json!({"command": "x"})).url_problem(), None);
        assert!(
            e(json!({"command": "x", "protocolEra": "future"}))
                .problem()
                .is_some()
        );
        assert_eq!(
            e(json!({"command": "mcpscope", "args": ["demo-server", "a b"]})).target_text(),
            "mcpscope demo-server \"a b\""
        );
    }

    #[test]
    fn args_are_read_leniently_and_written_as_strings() {
        let e: CatalogEntry =
            serde_json::from_value(json!({"command": "x", "args": ["--port", 3000, true]}))
                .unwrap();
        assert_eq!(e.args, ["--port", "3000", "true"]);
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"command": "x", "args": ["--port", "3000", "true"]})
        );
        let nested = serde_json::from_value::<CatalogEntry>(json!({"args": [["a"]]}));
        assert!(nested.unwrap_err().to_string().contains("must be a string"));
        let none: CatalogEntry = serde_json::from_value(json!({"args": null})).unwrap();
        assert!(none.args.is_empty());
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({}));
    }
}
