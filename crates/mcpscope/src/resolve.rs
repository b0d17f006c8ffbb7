//! Second stage of the command line: turn parsed flags (and a config file) into a transport
//! target, client options and the method to run. Every mistake becomes a usage error that says
//! what was wrong and what to write instead.

use crate::args::{Args, ConnectArgs, TransportArg};
use mcpscope_client::ClientOptions;
use mcpscope_inspect::roots::Root;
use mcpscope_proto::era::EraPreference;
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_transport::Target;
use serde_json::{Map, Value};
use std::time::Duration;

/// A usage error: exit code 1.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage<T>(msg: impl Into<String>) -> Result<T, UsageError> {
    Err(UsageError(msg.into()))
}

/// What the CLI will connect to and how.
pub struct Resolved {
    /// The transport target.
    pub target: Target,
    /// Session options.
    pub options: ClientOptions,
    /// A label for messages (server name, command or URL).
    pub label: String,
    /// Values `--trace` redacts: every secret of the config entry (`{"secretRef": …}` read from
    /// the secret store, `{"secret": …}`) and every header whose name says it is secret
    /// (`--header "Authorization: …"`, `--header "X-Api-Key: …"`, the file's:
    /// `redact::is_secret_header`), by the name they were given as.
    pub secrets: Secrets,
    /// The config entry's `roots` (the official Inspector's key), when it has them.
    pub roots: Option<Vec<Root>>,
}

/// One server entry from a config file, its secret values resolved.
#[derive(Debug, Default)]
struct ServerEntry {
    /// `type` (or `transport`), normalised: `stdio`, `http` or `sse`.
    kind: Option<String>,
    command: Option<String>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: Option<String>,
    url: Option<String>,
    headers: Vec<(String, String)>,
    /// Every value given as a secret, by its name, and the credential headers.
    secrets: Secrets,
    protocol_era: Option<String>,
    connection_timeout: Option<u64>,
    request_timeout: Option<u64>,
    roots: Option<Vec<Root>>,
}

/// Parse `KEY=VALUE`.
pub fn key_value(s: &str, flag: &str) -> Result<(String, String), UsageError> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => usage(format!("{flag} expects KEY=VALUE, got {s:?}")),
    }
}

/// A value read as JSON when it parses, else as a string (`a=1` → 1, `a=x` → "x", `a="1"` → "1").
pub fn coerce(v: &str) -> Value {
    serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()))
}

/// `KEY=VALUE` flags into a JSON object with coerced values.
pub fn coerced_map(items: &[String], flag: &str) -> Result<Map<String, Value>, UsageError> {
    let mut m = Map::new();
    for item in items {
        let (k, v) = key_value(item, flag)?;
        m.insert(k, coerce(&v));
    }
    Ok(m)
}

fn parse_header(s: &str) -> Result<(String, String), UsageError> {
    match s.split_once(':') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => usage(format!("--header expects \"Name: Value\", got {s:?}")),
    }
}

fn ms(v: u64) -> Option<Duration> {
    (v > 0).then(|| Duration::from_millis(v))
}

/// The server `name` (or the only one) of the config file at `path`, read by the catalog's one
/// parser (`mcpscope_inspect::catalog`: every `mcp.json` dialect, comments, `{"secretRef"}` from
/// the secret store — opened only when the entry has one — and `{"secret"}` as given), the way
/// the web UI reads the same file.
fn load_entry(path: &str, name: Option<&str>) -> Result<(String, ServerEntry), UsageError> {
    use mcpscope_inspect::catalog::{McpJson, secrets};
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read config {path}: {e}")))?;
    let file = McpJson::parse(&text).map_err(|e| UsageError(format!("config {path}: {e}")))?;
    let names = file.names();
    let (name, entry) = match name {
        Some(n) => match file.get(n) {
            Some(e) => (n.to_string(), e),
            None => {
                return usage(format!(
                    "config {path} has no server {n:?}; it has: {names:?}"
                ));
            }
        },
        None if file.servers.len() == 1 => {
            let (n, e) = &file.servers[0];
            (n.clone(), e)
        }
        None => {
            return usage(format!(
                "config {path} has {} servers; choose one with --server (one of {names:?})",
                file.servers.len()
            ));
        }
    };
    let entry = entry
        .as_ref()
        .map_err(|e| UsageError(format!("server {name:?} in {path} is malformed: {e}")))?;
    let open = || {
        crate::secret_store::secret_config()
            .and_then(|c| mcpscope_store::open_secret_store(&c))
            .map(std::sync::Arc::from)
            .map_err(|e| e.to_string())
    };
    if let Some(p) = entry
        .roots
        .as_deref()
        .and_then(mcpscope_inspect::roots::problem)
    {
        return usage(format!("server {name:?} in {path}: {p}"));
    }
    let (entry, secrets) = secrets::resolve(entry, &open).map_err(|e| UsageError(e.message))?;
    Ok((
        name,
        ServerEntry {
            secrets,
            env: entry.env_text(),
            headers: entry.headers_text(),
            kind: entry.kind,
            command: entry.command,
            args: entry.args,
            cwd: entry.cwd,
            url: entry.url,
            protocol_era: entry.protocol_era,
            connection_timeout: entry.connection_timeout,
            request_timeout: entry.request_timeout,
            roots: entry.roots,
        },
    ))
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

/// What is wrong with a target that was meant as a URL but is not one mcpscope can reach, so it
/// is not run as a command ("not on PATH?" would blame the wrong thing): a scheme other than
/// http(s) (`htp://…`), or none at all (`localhost:7100/mcp`).
fn url_mistake(s: &str) -> Option<String> {
    if is_url(s) {
        return None;
    }
    if let Some((scheme, _)) = s.split_once("://") {
        return Some(format!(
            "{s:?} is not a URL mcpscope can reach: its scheme is {scheme:?}, and a server URL starts with http:// or https://"
        ));
    }
    let (host, rest) = s.split_once(':')?;
    let port_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let port_ok = (1..=5).contains(&port_len)
        && (rest.len() == port_len || rest[port_len..].starts_with('/'));
    (host_ok && port_ok).then(|| {
        format!(
            "{s:?} looks like a URL without its scheme: did you mean http://{s} (or https://{s})?"
        )
    })
}

/// The path that runs this very binary again (for `--demo`, and the web UI's seeded catalog).
pub fn own_executable() -> Result<String, UsageError> {
    let exe = std::env::current_exe()
        .map_err(|e| UsageError(format!("cannot find our own executable: {e}")))?;
    // Replaced on disk while we run (an upgrade, a rebuild), the binary's path reads
    // "… (deleted)" and no longer runs; /proc/self/exe still names the running image.
    if exe.to_string_lossy().ends_with(" (deleted)")
        && std::path::Path::new("/proc/self/exe").exists()
    {
        return Ok("/proc/self/exe".into());
    }
    Ok(exe.to_string_lossy().into_owned())
}

/// Decide transport, target and options for `--cli` (its `--catalog` stands for `--config`).
pub fn resolve(args: &Args) -> Result<Resolved, UsageError> {
    resolve_connect(&args.connect, args.catalog.as_deref())
}

/// Decide transport, target and options from the connection flags any mode shares; `catalog`
/// is read as the config file when `--config` is not given.
pub fn resolve_connect(args: &ConnectArgs, catalog: Option<&str>) -> Result<Resolved, UsageError> {
    let mut w = Wanted::from_flags(args)?;
    let config = args.config.as_deref().or(catalog);
    if args.demo {
        w.demo(config.is_some())?;
    } else if let Some(path) = config {
        w.config_entry(path, args.server.as_deref())?;
    } else {
        w.command_or_url(args.server.is_some())?;
    }
    for (name, value) in w
        .headers
        .iter()
        .filter(|(n, _)| redact::is_secret_header(n))
    {
        w.secrets.add(name, value);
    }
    let mut options = ClientOptions::default();
    let target = w.target(&mut options)?;
    options.era = match w.era_text {
        Some(t) => t.parse::<EraPreference>().map_err(UsageError)?,
        None => EraPreference::Legacy,
    };
    options.connect_timeout = ms(w.connect_ms.unwrap_or(15_000));
    options.request_timeout = ms(w.request_ms.unwrap_or(60_000));
    options.probe_timeout = Duration::from_millis(args.probe_timeout.max(1));
    options.max_input_rounds = args.max_input_rounds;
    options.metadata = coerced_map(&args.metadata, "--metadata")?;
    options.transport.max_message_bytes = args.max_message_bytes;
    options.transport.connect_timeout = options.connect_timeout;
    Ok(Resolved {
        target,
        options,
        label: w.label,
        secrets: w.secrets,
        roots: w.roots,
    })
}

/// What the flags (and the config entry they select) ask for, before it becomes a [`Target`].
struct Wanted {
    /// The server command and its arguments (`target` then `server_args`).
    positional: Vec<String>,
    url: Option<String>,
    kind: Option<TransportArg>,
    headers: Vec<(String, String)>,
    env: Vec<(String, String)>,
    cwd: Option<String>,
    era_text: Option<String>,
    connect_ms: Option<u64>,
    request_ms: Option<u64>,
    secrets: Secrets,
    label: String,
    roots: Option<Vec<Root>>,
}

impl Wanted {
    /// The flags as given: `--header` and `-e` parsed (their mistakes are reported first).
    fn from_flags(args: &ConnectArgs) -> Result<Wanted, UsageError> {
        let headers = args
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()?;
        let env = args
            .env
            .iter()
            .map(|e| key_value(e, "-e"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Wanted {
            positional: (args.target.iter().chain(args.server_args.iter()))
                .cloned()
                .collect(),
            url: args.server_url.clone(),
            kind: args.transport,
            headers,
            env,
            cwd: args.cwd.clone(),
            era_text: args.protocol_era.clone(),
            connect_ms: args.connect_timeout,
            request_ms: args.request_timeout,
            secrets: Secrets::default(),
            label: String::new(),
            roots: None,
        })
    }

    /// `--demo`: this binary's `demo-server` over stdio, and nothing else named.
    fn demo(&mut self, has_config: bool) -> Result<(), UsageError> {
        if has_config || !self.positional.is_empty() || self.url.is_some() {
            return usage(
                "--demo runs the built-in demo server; do not also give a target, --server-url or --config",
            );
        }
        self.positional = vec![own_executable()?, "demo-server".into()];
        self.kind = Some(TransportArg::Stdio);
        self.label = "the built-in demo server".to_string();
        Ok(())
    }

    /// `--config FILE [--server NAME]`: the entry's command or URL, transport, secrets, and the
    /// file's env, headers, cwd, era and timeouts under the command line's (which win).
    fn config_entry(&mut self, path: &str, server: Option<&str>) -> Result<(), UsageError> {
        if !self.positional.is_empty() || self.url.is_some() {
            return usage(
                "--config/--catalog selects the server; do not also give a target or --server-url",
            );
        }
        let (name, e) = load_entry(path, server)?;
        self.label = format!("server {name:?} from {path}");
        match (&e.command, &e.url) {
            (Some(c), _) => {
                self.positional = std::iter::once(c.clone())
                    .chain(e.args.iter().cloned())
                    .collect();
            }
            (None, Some(u)) => self.url = Some(u.clone()),
            (None, None) => {
                return usage(format!(
                    "server {name:?} in {path} has neither \"command\" nor \"url\""
                ));
            }
        }
        if self.kind.is_none() {
            self.kind = match e.kind.as_deref() {
                Some("stdio") => Some(TransportArg::Stdio),
                Some("http" | "streamable-http" | "streamableHttp") => Some(TransportArg::Http),
                Some("sse") => Some(TransportArg::Sse),
                _ => None,
            };
        }
        self.secrets = e.secrets;
        // Command-line values win over the file's.
        let mut file_env = e.env;
        file_env.append(&mut self.env);
        self.env = file_env;
        let mut file_headers = e.headers;
        file_headers.append(&mut self.headers);
        self.headers = file_headers;
        self.cwd = self.cwd.take().or(e.cwd);
        self.era_text = self.era_text.take().or(e.protocol_era);
        self.connect_ms = self.connect_ms.or(e.connection_timeout);
        self.request_ms = self.request_ms.or(e.request_timeout);
        self.roots = e.roots;
        Ok(())
    }

    /// A command or URL on the command line (a lone positional `http(s)://…` is the URL).
    fn command_or_url(&mut self, has_server: bool) -> Result<(), UsageError> {
        if has_server {
            return usage("--server needs --config or --catalog");
        }
        if self.url.is_none() && self.positional.len() == 1 && is_url(&self.positional[0]) {
            self.url = self.positional.pop();
        }
        if let Some(why) = self.positional.first().and_then(|t| url_mistake(t)) {
            return usage(why);
        }
        self.label = match (&self.url, self.positional.first()) {
            (Some(u), _) => u.clone(),
            (None, Some(_)) => self.positional.join(" "),
            (None, None) => {
                return usage(
                    "no server given: pass a command (node server.js …), a URL, --config FILE --server NAME, or --demo",
                );
            }
        };
        Ok(())
    }

    /// The transport target: HTTP or legacy SSE for a URL, else the stdio command.
    fn target(&mut self, options: &mut ClientOptions) -> Result<Target, UsageError> {
        match (self.url.take(), self.kind) {
            (Some(u), Some(TransportArg::Stdio)) => usage(format!(
                "--transport stdio needs a command, not the URL {u}"
            )),
            (Some(u), k) => self.url_target(u, k, options),
            (None, Some(TransportArg::Http | TransportArg::Sse)) => {
                usage("--transport http/sse needs a URL (positional or --server-url)")
            }
            (None, _) => self.stdio_target(),
        }
    }

    /// A URL's target; without `--transport`, its path decides: `…/sse` is legacy HTTP+SSE,
    /// `…/mcp` Streamable HTTP, anything else Streamable HTTP with the SSE fallback.
    fn url_target(
        &mut self,
        u: String,
        kind: Option<TransportArg>,
        options: &mut ClientOptions,
    ) -> Result<Target, UsageError> {
        if !is_url(&u) {
            return usage(format!("{u:?} is not an http(s) URL"));
        }
        let path = url::Url::parse(&u)
            .map(|p| p.path().trim_end_matches('/').to_string())
            .unwrap_or_default();
        let kind = kind.unwrap_or_else(|| {
            if path.ends_with("/sse") {
                TransportArg::Sse
            } else {
                if !path.ends_with("/mcp") {
                    // Unknown path: try Streamable HTTP first, then the deprecated HTTP+SSE.
                    options.sse_fallback = true;
                }
                TransportArg::Http
            }
        });
        if !self.env.is_empty() || self.cwd.is_some() {
            return usage("-e and --cwd apply to stdio servers only");
        }
        let headers = std::mem::take(&mut self.headers);
        Ok(match kind {
            TransportArg::Sse => Target::Sse { url: u, headers },
            _ => Target::Http { url: u, headers },
        })
    }

    /// The stdio command with its arguments, environment and working directory.
    fn stdio_target(&mut self) -> Result<Target, UsageError> {
        if self.positional.is_empty() {
            return usage("no server command given");
        }
        if !self.headers.is_empty() {
            return usage("--header applies to HTTP servers only");
        }
        let command = self.positional.remove(0);
        Ok(Target::Stdio {
            command,
            args: std::mem::take(&mut self.positional),
            env: std::mem::take(&mut self.env),
            cwd: self.cwd.take().map(Into::into),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mistyped_url_is_named_as_one() {
        use super::url_mistake;
        assert!(
            url_mistake("htp://localhost:7100/mcp")
                .unwrap()
                .contains("scheme is \"htp\"")
        );
        assert!(
            url_mistake("localhost:7100/mcp")
                .unwrap()
                .contains("did you mean http://localhost:7100/mcp")
        );
        assert!(url_mistake("127.0.0.1:3000").is_some());
        for command in [
            "node",
            "python3",
            "./server.js",
            "C:/x",
            "uvx",
            "http://h/mcp",
            "a:b",
        ] {
            assert_eq!(url_mistake(command), None, "{command}");
        }
    }

    use super::*;
    use clap::Parser;

    fn parse(argv: &[&str]) -> Result<Resolved, UsageError> {
        resolve(&Args::parse_from(
            std::iter::once("mcpscope").chain(argv.iter().copied()),
        ))
    }

    #[test]
    fn command_flags_and_server_args() {
        let r = parse(&[
            "--cli",
            "node",
            "srv.js",
            "--method",
            "tools/list",
            "-e",
            "A=1",
            "--",
            "--port",
            "3",
        ])
        .unwrap();
        assert_eq!(
            r.target,
            Target::Stdio {
                command: "node".into(),
                args: vec!["srv.js".into(), "--port".into(), "3".into()],
                env: vec![("A".into(), "1".into())],
                cwd: None
            }
        );
        let r = parse(&[
            "--cli",
            "--method",
            "tools/list",
            "--",
            "python",
            "srv.py",
            "--verbose",
        ])
        .unwrap();
        assert!(
            matches!(r.target, Target::Stdio { ref command, ref args, .. } if command == "python" && args == &["srv.py", "--verbose"])
        );
    }

    #[test]
    fn url_transport_detection() {
        assert!(matches!(
            parse(&["--cli", "http://h/mcp"]).unwrap().target,
            Target::Http { .. }
        ));
        assert!(matches!(
            parse(&["--cli", "http://h/sse"]).unwrap().target,
            Target::Sse { .. }
        ));
        let r = parse(&["--cli", "http://h/api"]).unwrap();
        assert!(matches!(r.target, Target::Http { .. }) && r.options.sse_fallback);
        assert!(matches!(
            parse(&["--cli", "http://h/api", "--transport", "sse"])
                .unwrap()
                .target,
            Target::Sse { .. }
        ));
    }

    #[test]
    fn usage_errors_say_what_to_do() {
        assert!(
            parse(&["--cli"])
                .err()
                .unwrap()
                .0
                .contains("no server given")
        );
        assert!(
            parse(&["--cli", "x", "--protocol-era", "new"])
                .err()
                .unwrap()
                .0
                .contains("legacy, modern or auto")
        );
        assert!(
            parse(&["--cli", "x", "--header", "bad"])
                .err()
                .unwrap()
                .0
                .contains("Name: Value")
        );
    }

    #[test]
    fn coercion() {
        assert_eq!(coerce("1"), serde_json::json!(1));
        assert_eq!(coerce("true"), serde_json::json!(true));
        assert_eq!(coerce("hello"), serde_json::json!("hello"));
        assert_eq!(coerce("\"1\""), serde_json::json!("1"));
        assert_eq!(coerce("{\"x\":[1]}"), serde_json::json!({"x": [1]}));
    }
}
