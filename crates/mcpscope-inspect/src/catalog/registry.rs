//! The MCP Registry's `server.json` as a catalog dialect: checked, described, and turned into a
//! [`CatalogEntry`] once the user has chosen.
//!
//! A registry `server.json` (the MCP Registry's format: `name`, `version`, `packages` with
//! `registryType`/`identifier`/`transport`/`environmentVariables`, `remotes`) is checked and
//! described first; the user then picks a package or remote and fills the variables, and the
//! entry is built from that choice: `npx -y id@version` for npm, `uvx id==version` for PyPI,
//! `docker run -i --rm` for OCI images, `dnx id@version --yes` for NuGet.

use super::entry::CatalogEntry;
use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// One finding about a `server.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Finding {
    /// `error` (cannot be used as is), `warning` (usable, but not as the registry wants) or `info`.
    pub level: &'static str,
    /// JSON pointer into the document.
    pub path: String,
    /// What is wrong and what to do.
    pub message: String,
    /// The line of the text it is about (1-based; for a missing field, its object's line).
    pub line: Option<usize>,
}

/// An environment variable (or header) a package or remote wants.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Must be given.
    pub is_required: bool,
    /// Must not be shown or logged.
    pub is_secret: bool,
    /// Default value.
    pub default: Option<String>,
    /// Allowed values, when the registry lists them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// What the registry import screen shows before the user chooses.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPreview {
    /// Findings, errors first.
    pub validation: Vec<Finding>,
    /// The packages, each `{index, registryType, identifier, version, transport, runtimeHint,
    /// environmentVariables, launchable, problem}`.
    pub packages: Vec<Value>,
    /// The remotes, each `{index, type, url, headers}` (headers as variables).
    pub remotes: Vec<Value>,
    /// The registry name (`io.github.owner/server`).
    pub name: Option<String>,
    /// A catalog name to offer: the part after the last `/`.
    pub suggested_name: Option<String>,
    /// `title`, if any.
    pub title: Option<String>,
    /// `description`, if any.
    pub description: Option<String>,
    /// `version`, if any.
    pub version: Option<String>,
}

const REGISTRY_TYPES: &[&str] = &["npm", "pypi", "oci", "nuget", "mcpb"];

pub(super) fn parse_doc(text: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::usage(
            "a server.json is a JSON object with \"name\", \"version\" and \"packages\" or \"remotes\"",
        )),
        Err(e) => Err(Error::usage(format!(
            "the pasted server.json is not valid JSON ({e}); paste the whole file"
        ))),
    }
}

pub(super) fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn variables(list: Option<&Value>) -> Vec<Variable> {
    list.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| {
                    Some(Variable {
                        name: s(v, "name")?,
                        description: s(v, "description"),
                        is_required: v
                            .get("isRequired")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                        is_secret: v.get("isSecret").and_then(Value::as_bool).unwrap_or(false),
                        default: s(v, "default").or_else(|| s(v, "value")),
                        choices: v
                            .get("choices")
                            .and_then(Value::as_array)
                            .map(|c| {
                                c.iter()
                                    .filter_map(|x| x.as_str().map(str::to_string))
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Findings as they are found; [`Findings::sorted`] puts errors first, keeping the order within a
/// level.
#[derive(Default)]
struct Findings(Vec<Finding>);

impl Findings {
    /// Note one finding at a JSON pointer.
    fn push(&mut self, level: &'static str, path: &str, message: String) {
        self.0.push(Finding {
            level,
            path: path.to_string(),
            message,
            line: None,
        });
    }

    /// Errors, then warnings, then the rest (a stable sort: same-level findings stay in order).
    fn sorted(mut self) -> Vec<Finding> {
        self.0.sort_by_key(|f| match f.level {
            "error" => 0,
            "warning" => 1,
            _ => 2,
        });
        self.0
    }
}

/// Check a `server.json` and describe what can be imported from it.
pub fn preview_registry(text: &str) -> Result<RegistryPreview> {
    let doc = parse_doc(text)?;
    let mut findings = Findings::default();
    check_document(&doc, &mut findings);
    let packages = list(&doc, "packages");
    let remotes = list(&doc, "remotes");
    if packages.is_empty() && remotes.is_empty() {
        findings.push(
            "error",
            "",
            "neither \"packages\" nor \"remotes\": there is nothing to run or connect to".into(),
        );
    }
    let package_views = (packages.iter().enumerate())
        .map(|(i, p)| preview_package(i, p, &mut findings))
        .collect();
    let remote_views = (remotes.iter().enumerate())
        .map(|(i, r)| preview_remote(i, r, &mut findings))
        .collect();
    let root = Value::Object(doc);
    let name = s(&root, "name");
    let mut validation = findings.sorted();
    located(text, &mut validation);
    Ok(RegistryPreview {
        validation,
        packages: package_views,
        remotes: remote_views,
        suggested_name: name
            .as_deref()
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string()),
        name,
        title: s(&root, "title"),
        description: s(&root, "description"),
        version: s(&root, "version"),
    })
}

/// Give each finding the line of the text its path is on.
pub(super) fn located(text: &str, findings: &mut [Finding]) {
    let lines = super::lines::pointer_lines(text);
    for f in findings {
        f.line = super::lines::line_of(&lines, &f.path);
    }
}

/// The array at `key` (`packages`, `remotes`), empty when absent or not an array.
fn list(doc: &Map<String, Value>, key: &str) -> Vec<Value> {
    doc.get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The document's own fields: `$schema`, `name`, `version`, `description`.
fn check_document(doc: &Map<String, Value>, findings: &mut Findings) {
    if doc.get("$schema").is_none() {
        findings.push(
            "warning",
            "/$schema",
            "no $schema: the registry needs it to know which version of the format this is".into(),
        );
    }
    match doc.get("name").and_then(Value::as_str) {
        None => findings.push(
            "error",
            "/name",
            "\"name\" is required (reverse-DNS namespace and a name, e.g. io.github.owner/server)"
                .into(),
        ),
        Some(n) if !is_registry_name(n) => findings.push(
            "error",
            "/name",
            format!(
                "name {n:?} must be \"namespace/name\" with a reverse-DNS namespace (e.g. io.github.owner/server)"
            ),
        ),
        Some(_) => {}
    }
    match doc.get("version").and_then(Value::as_str) {
        None => findings.push("error", "/version", "\"version\" is required".into()),
        Some("latest") => findings.push(
            "error",
            "/version",
            "version \"latest\" is not allowed; publish a specific version".into(),
        ),
        Some(_) => {}
    }
    if doc
        .get("description")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        findings.push(
            "warning",
            "/description",
            "no description: the registry shows it to people choosing a server".into(),
        );
    }
}

/// `namespace/name`: a reverse-DNS namespace (`io.github.owner`), one slash, a plain name.
fn is_registry_name(n: &str) -> bool {
    n.split_once('/').is_some_and(|(ns, rest)| {
        !ns.is_empty()
            && !rest.is_empty()
            && !rest.contains('/')
            && ns
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    })
}

/// Check `packages[i]` and describe it for the import screen.
fn preview_package(i: usize, p: &Value, findings: &mut Findings) -> Value {
    let at = format!("/packages/{i}");
    let registry_type = s(p, "registryType").or_else(|| s(p, "registry_type"));
    match registry_type.as_deref() {
        None => findings.push(
            "error",
            &format!("{at}/registryType"),
            "\"registryType\" is required (npm, pypi, oci, nuget or mcpb)".into(),
        ),
        Some(t) if !REGISTRY_TYPES.contains(&t) => findings.push(
            "warning",
            &format!("{at}/registryType"),
            format!(
                "unknown registryType {t:?} (known: {})",
                REGISTRY_TYPES.join(", ")
            ),
        ),
        _ => {}
    }
    if s(p, "identifier").is_none() {
        findings.push(
            "error",
            &format!("{at}/identifier"),
            "\"identifier\" is required (the package name or image)".into(),
        );
    }
    match s(p, "version").as_deref() {
        Some("latest") => findings.push(
            "warning",
            &format!("{at}/version"),
            "version \"latest\": pin a specific version so every user runs the same code".into(),
        ),
        // An image or a bundle without a version is normal; a package without one is not.
        None if !matches!(registry_type.as_deref(), Some("oci" | "mcpb")) => findings.push(
            "warning",
            &format!("{at}/version"),
            "no version: the newest is run, whatever it is".into(),
        ),
        _ => {}
    }
    let transport = p
        .get("transport")
        .cloned()
        .unwrap_or_else(|| json!({"type": "stdio"}));
    let ttype = s(&transport, "type").unwrap_or_else(|| "stdio".into());
    if !matches!(ttype.as_str(), "stdio" | "streamable-http" | "sse") {
        findings.push(
            "error",
            &format!("{at}/transport/type"),
            format!("transport type {ttype:?} is not one of stdio, streamable-http, sse"),
        );
    }
    let vars = variables(p.get("environmentVariables"));
    for (j, var) in vars.iter().enumerate() {
        if var.is_secret && var.default.is_some() {
            findings.push(
                "warning",
                &format!("{at}/environmentVariables/{j}/default"),
                format!(
                    "{} is secret but has a default: a secret should not ship in server.json",
                    var.name
                ),
            );
        }
    }
    let problem = launch_problem(registry_type.as_deref(), &ttype);
    json!({
        "index": i,
        "registryType": registry_type,
        "identifier": s(p, "identifier"),
        "version": s(p, "version"),
        "transport": transport,
        "runtimeHint": s(p, "runtimeHint"),
        "environmentVariables": vars,
        "launchable": problem.is_none(),
        "problem": problem,
    })
}

/// Check `remotes[i]` and describe it for the import screen.
fn preview_remote(i: usize, r: &Value, findings: &mut Findings) -> Value {
    let at = format!("/remotes/{i}");
    let rtype = s(r, "type").or_else(|| s(r, "transport_type"));
    if !matches!(rtype.as_deref(), Some("streamable-http" | "sse")) {
        findings.push(
            "error",
            &format!("{at}/type"),
            format!(
                "remote type {:?} is not streamable-http or sse",
                rtype.clone().unwrap_or_default()
            ),
        );
    }
    match s(r, "url") {
        None => findings.push("error", &format!("{at}/url"), "\"url\" is required".into()),
        Some(u) => check_remote_url(&format!("{at}/url"), &u, findings),
    }
    json!({
        "index": i,
        "type": rtype,
        "url": s(r, "url"),
        "headers": variables(r.get("headers")),
    })
}

/// A remote's URL: https, or http on loopback; a template (`{tenant}`) is filled in later.
fn check_remote_url(at: &str, u: &str, findings: &mut Findings) {
    match url::Url::parse(u) {
        Ok(p) if p.scheme() == "https" => {}
        Ok(p)
            if p.scheme() == "http"
                && matches!(p.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")) => {}
        Ok(p) if p.scheme() == "http" => findings.push(
            "warning",
            at,
            format!("{u} is plain http: remotes should use https"),
        ),
        Ok(_) | Err(_) if u.contains('{') => findings.push(
            "info",
            at,
            format!("{u} has template variables; fill them in after import"),
        ),
        Ok(p) => findings.push(
            "error",
            at,
            format!("{u} has scheme {:?}; use https", p.scheme()),
        ),
        Err(e) => findings.push("error", at, format!("{u:?} is not a URL: {e}")),
    }
}

fn launch_problem(registry_type: Option<&str>, transport: &str) -> Option<String> {
    if transport != "stdio" {
        return Some(format!(
            "this package serves {transport}: start it yourself, then add its URL as an HTTP server"
        ));
    }
    match registry_type {
        Some("npm" | "pypi" | "oci" | "nuget") => None,
        Some("mcpb") => {
            Some("an MCP bundle (mcpb) must be installed by a desktop client first".into())
        }
        Some(other) => Some(format!(
            "mcpscope does not know how to run a {other:?} package"
        )),
        None => Some("no registryType".into()),
    }
}

/// What the user chose on the registry import screen.
#[derive(Debug, Clone, Copy)]
pub enum RegistryChoice {
    /// `packages[i]`.
    Package(usize),
    /// `remotes[i]`.
    Remote(usize),
}

/// Build the catalog entry for a choice, with the variables the user filled in. Required
/// variables without a value (and without a default) are refused, naming them.
pub(crate) fn registry_entry(
    text: &str,
    choice: RegistryChoice,
    values: &Map<String, Value>,
) -> Result<CatalogEntry> {
    let doc = parse_doc(text)?;
    let filled = Filled(values);
    match choice {
        RegistryChoice::Remote(i) => remote_entry(&doc, i, filled),
        RegistryChoice::Package(i) => package_entry(&doc, i, filled),
    }
}

/// The values the user filled in on the import screen, by variable name.
#[derive(Clone, Copy)]
struct Filled<'a>(&'a Map<String, Value>);

impl Filled<'_> {
    /// The variable's value: what the user typed (a non-string as its JSON text; empty counts as
    /// not given), else its default.
    fn value(self, var: &Variable) -> Option<String> {
        self.0
            .get(&var.name)
            .and_then(|v| {
                v.as_str()
                    .map(str::to_string)
                    .or_else(|| (!v.is_null()).then(|| v.to_string()))
            })
            .filter(|v| !v.is_empty())
            .or_else(|| var.default.clone())
    }

    /// Refuse when a required variable has no value, naming every one (`what`: headers or
    /// environment variables).
    fn require(self, vars: &[Variable], what: &str) -> Result<()> {
        let missing: Vec<&str> = vars
            .iter()
            .filter(|v| v.is_required && self.value(v).is_none())
            .map(|v| v.name.as_str())
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::usage(format!(
                "fill in the required {what}: {}",
                missing.join(", ")
            )))
        }
    }

    /// Every variable that has a value, sealed for the secret store when it is secret.
    fn sealed(self, vars: &[Variable]) -> Map<String, Value> {
        let mut out = Map::new();
        for var in vars {
            if let Some(v) = self.value(var) {
                out.insert(var.name.clone(), sealed_if(var.is_secret, v));
            }
        }
        out
    }
}

/// `remotes[i]` as an HTTP (or legacy SSE) entry with its headers.
fn remote_entry(doc: &Map<String, Value>, i: usize, filled: Filled) -> Result<CatalogEntry> {
    let r = doc
        .get("remotes")
        .and_then(|r| r.get(i))
        .ok_or_else(|| Error::usage(format!("server.json has no remotes[{i}]")))?;
    let vars = variables(r.get("headers"));
    filled.require(&vars, "headers")?;
    let kind = match s(r, "type").as_deref() {
        Some("sse") => "sse",
        _ => "http",
    };
    Ok(CatalogEntry {
        kind: Some(kind.into()),
        url: s(r, "url"),
        headers: filled.sealed(&vars),
        ..Default::default()
    })
}

/// `packages[i]` as a stdio entry: the runtime's command line for the package, its environment.
fn package_entry(doc: &Map<String, Value>, i: usize, filled: Filled) -> Result<CatalogEntry> {
    let p = doc
        .get("packages")
        .and_then(|p| p.get(i))
        .ok_or_else(|| Error::usage(format!("server.json has no packages[{i}]")))?;
    let registry_type = s(p, "registryType").or_else(|| s(p, "registry_type"));
    let transport = p
        .get("transport")
        .and_then(|t| s(t, "type"))
        .unwrap_or_else(|| "stdio".into());
    if let Some(problem) = launch_problem(registry_type.as_deref(), &transport) {
        return Err(Error::usage(format!(
            "packages[{i}] cannot be launched: {problem}"
        )));
    }
    let vars = variables(p.get("environmentVariables"));
    filled.require(&vars, "environment variables")?;
    let identifier = s(p, "identifier")
        .ok_or_else(|| Error::usage(format!("packages[{i}] has no identifier")))?;
    let version = s(p, "version").filter(|v| v != "latest");
    let env = filled.sealed(&vars);
    let args = runtime_args(
        registry_type.as_deref(),
        &identifier,
        version.as_deref(),
        &env,
    );
    let command = s(p, "runtimeHint").unwrap_or_else(|| runtime(registry_type.as_deref()).into());
    let mut args = with_runtime_arguments(
        arguments(p.get("runtimeArguments")),
        args,
        registry_type.as_deref() == Some("oci"),
    );
    args.extend(arguments(p.get("packageArguments")));
    Ok(CatalogEntry {
        kind: Some("stdio".into()),
        command: Some(command),
        args,
        env,
        ..Default::default()
    })
}

/// The runtime that runs a package of this registry type: `npx`, `uvx`, `dnx`, else `docker`.
fn runtime(registry_type: Option<&str>) -> &'static str {
    match registry_type {
        Some("npm") => "npx",
        Some("pypi") => "uvx",
        Some("nuget") => "dnx",
        _ => "docker",
    }
}

/// The command that would run `packages[i]`: its `runtimeHint`, else its registry type's
/// runtime; `None` when the package cannot be launched from here (an mcpb bundle, an HTTP one).
pub(super) fn launcher(p: &Value) -> Option<String> {
    let registry_type = s(p, "registryType").or_else(|| s(p, "registry_type"));
    let transport = p
        .get("transport")
        .and_then(|t| s(t, "type"))
        .unwrap_or_else(|| "stdio".into());
    if launch_problem(registry_type.as_deref(), &transport).is_some() {
        return None;
    }
    Some(s(p, "runtimeHint").unwrap_or_else(|| runtime(registry_type.as_deref()).into()))
}

/// The runtime's arguments naming the package at its version: `npx -y id@v`, `uvx id==v`,
/// `dnx id@v --yes`, else `docker run -i --rm -e NAME… image:v`.
fn runtime_args(
    registry_type: Option<&str>,
    identifier: &str,
    version: Option<&str>,
    env: &Map<String, Value>,
) -> Vec<String> {
    let pinned = |sep: &str| match version {
        Some(v) => format!("{identifier}{sep}{v}"),
        None => identifier.to_string(),
    };
    match registry_type {
        Some("npm") => vec!["-y".into(), pinned("@")],
        Some("pypi") => vec![pinned("==")],
        Some("nuget") => vec![pinned("@"), "--yes".into()],
        _ => {
            // OCI: the container gets the variables by name from our environment.
            let mut a: Vec<String> = vec!["run".into(), "-i".into(), "--rm".into()];
            for k in env.keys() {
                a.push("-e".into());
                a.push(k.clone());
            }
            // An image reference that already carries a tag keeps it.
            let tagged = identifier.rsplit('/').next().unwrap_or("").contains(':');
            let image = match version {
                Some(v) if !tagged => format!("{identifier}:{v}"),
                _ => identifier.to_string(),
            };
            a.push(image);
            a
        }
    }
}

/// Runtime arguments go to the runtime, before the package; for docker after `run`
/// (`docker run <runtime args> image`).
fn with_runtime_arguments(
    runtime_args: Vec<String>,
    mut args: Vec<String>,
    oci: bool,
) -> Vec<String> {
    if runtime_args.is_empty() {
        return args;
    }
    let mut all = runtime_args;
    if oci {
        all.insert(0, args.remove(0));
    }
    all.extend(args);
    all
}

/// A value to store: marked for the secret store when the registry says it is secret
/// ([`super::secrets`] moves it there before the catalog is written).
fn sealed_if(secret: bool, v: impl Into<Value>) -> Value {
    if secret {
        json!({ super::secrets::SECRET: v.into() })
    } else {
        v.into()
    }
}

/// `runtimeArguments` / `packageArguments`: positional values, and `--name value` for named ones.
fn arguments(list: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    for a in list.and_then(Value::as_array).into_iter().flatten() {
        let value = s(a, "value").or_else(|| s(a, "default"));
        match s(a, "type").as_deref() {
            Some("named") => {
                if let Some(name) = s(a, "name") {
                    out.push(name);
                    if let Some(v) = value {
                        out.push(v);
                    }
                }
            }
            _ => {
                if let Some(v) = value.or_else(|| s(a, "valueHint")) {
                    out.push(v);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER_JSON: &str = r#"{
      "$schema": "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
      "name": "io.github.someone/weather",
      "description": "Weather",
      "version": "1.2.0",
      "packages": [
        {"registryType": "npm", "identifier": "@someone/weather", "version": "1.2.0",
         "transport": {"type": "stdio"},
         "environmentVariables": [
           {"name": "API_KEY", "isRequired": true, "isSecret": true},
           {"name": "UNITS", "default": "metric"}]},
        {"registryType": "pypi", "identifier": "weather-mcp", "version": "latest", "transport": {"type": "stdio"}},
        {"registryType": "oci", "identifier": "ghcr.io/someone/weather", "version": "1.2.0", "transport": {"type": "stdio"},
         "environmentVariables": [{"name": "API_KEY", "isRequired": true}]}
      ],
      "remotes": [{"type": "streamable-http", "url": "http://weather.example/mcp",
                   "headers": [{"name": "X-Key", "isRequired": true, "isSecret": true}]}]
    }"#;

    #[test]
    fn a_server_json_is_checked_and_described() {
        let p = preview_registry(SERVER_JSON).unwrap();
        assert_eq!(p.suggested_name.as_deref(), Some("weather"));
        assert_eq!(p.packages.len(), 3);
        assert_eq!(
            p.packages[0]["environmentVariables"][0]["isSecret"],
            json!(true)
        );
        let msgs: Vec<&str> = p.validation.iter().map(|f| f.path.as_str()).collect();
        assert!(msgs.contains(&"/packages/1/version"), "{msgs:?}");
        assert!(msgs.contains(&"/remotes/0/url"), "{msgs:?}");
        // Each finding names its line: a missing field, its object's.
        let at = |path: &str| {
            p.validation
                .iter()
                .find(|f| f.path == path)
                .and_then(|f| f.line)
        };
        assert_eq!(at("/packages/1/version"), Some(12));
        assert_eq!(at("/remotes/0/url"), Some(16));
        let bad = preview_registry(r#"{"name": "nonamespace", "version": "latest"}"#).unwrap();
        assert!(bad.validation.iter().filter(|f| f.level == "error").count() >= 3);
    }

    #[test]
    fn a_choice_becomes_a_launchable_entry() {
        let mut env = Map::new();
        assert!(
            registry_entry(SERVER_JSON, RegistryChoice::Package(0), &env)
                .unwrap_err()
                .message
                .contains("API_KEY")
        );
        env.insert("API_KEY".into(), json!("k"));
        let npm = registry_entry(SERVER_JSON, RegistryChoice::Package(0), &env).unwrap();
        assert_eq!(npm.command.as_deref(), Some("npx"));
        assert_eq!(npm.args, ["-y", "@someone/weather@1.2.0"]);
        assert_eq!(npm.env["UNITS"], json!("metric"));
        let pypi = registry_entry(SERVER_JSON, RegistryChoice::Package(1), &env).unwrap();
        assert_eq!(pypi.args, ["weather-mcp"]);
        let oci = registry_entry(SERVER_JSON, RegistryChoice::Package(2), &env).unwrap();
        assert_eq!(
            oci.args,
            [
                "run",
                "-i",
                "--rm",
                "-e",
                "API_KEY",
                "ghcr.io/someone/weather:1.2.0"
            ]
        );
        let mut h = Map::new();
        h.insert("X-Key".into(), json!("secret"));
        let remote = registry_entry(SERVER_JSON, RegistryChoice::Remote(0), &h).unwrap();
        assert_eq!(remote.transport(), "http");
        assert_eq!(remote.headers["X-Key"], json!({"secret": "secret"}));
    }

    #[test]
    fn runtime_arguments_go_before_the_package_and_package_arguments_after() {
        let doc = r#"{"name": "io.github.someone/args", "version": "1.0.0", "packages": [
          {"registryType": "npm", "identifier": "args-mcp", "version": "1.0.0",
           "runtimeArguments": [{"type": "named", "name": "--node-options", "value": "--max-old-space-size=64"}],
           "packageArguments": [{"type": "positional", "valueHint": "dir"},
                                {"type": "named", "name": "--verbose"}]},
          {"registryType": "oci", "identifier": "ghcr.io/someone/args:2", "version": "1.0.0",
           "runtimeArguments": [{"type": "named", "name": "--network", "value": "none"}]}
        ]}"#;
        let none = Map::new();
        let npm = registry_entry(doc, RegistryChoice::Package(0), &none).unwrap();
        assert_eq!(
            npm.args,
            [
                "--node-options",
                "--max-old-space-size=64",
                "-y",
                "args-mcp@1.0.0",
                "dir",
                "--verbose"
            ]
        );
        // docker keeps `run` first; an image that carries a tag is not re-tagged.
        let oci = registry_entry(doc, RegistryChoice::Package(1), &none).unwrap();
        assert_eq!(
            oci.args,
            [
                "run",
                "--network",
                "none",
                "-i",
                "--rm",
                "ghcr.io/someone/args:2"
            ]
        );
    }
}
