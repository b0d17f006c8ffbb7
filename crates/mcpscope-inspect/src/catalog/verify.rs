//! Import server.json's value verification: what the text alone cannot say about the package or
//! remote the user chose — is the package on its registry (npm, PyPI: the registry's metadata,
//! the latest version or "not found"), is the command that runs it (`npx`, `uvx`, `docker`, …) on
//! this machine's PATH, does the remote answer at all.
//!
//! Each check runs only when the user asks (the import screen's Verify), asks one registry for
//! one name, and is bounded: [`LOOKUP_TIMEOUT`] per request, [`BODY_CAP`] bytes of answer, at
//! most [`REDIRECTS`] redirects followed. A registry that cannot be reached is a warning ("could
//! not check"), never "not found". The registries' addresses can be changed with
//! `MCPSCOPE_NPM_REGISTRY` and `MCPSCOPE_PYPI_URL` (a mirror, or a test's own server).

use super::registry::{Finding, RegistryChoice, launcher, located, parse_doc, s};
use crate::error::{Error, Result};
use mcpscope_transport::HttpClients;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One registry request (connect, answer and body) at most this long.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);
/// A registry answer larger than this is not read (PyPI's metadata of a big project).
pub const BODY_CAP: usize = 8 << 20;
/// Redirects followed per request (PyPI sends a non-normalised name to its normal form).
pub const REDIRECTS: usize = 3;

/// Where packages are looked up.
#[derive(Debug, Clone)]
pub struct Registries {
    /// The npm registry (`{npm}/{name}/{version|latest}`).
    pub npm: String,
    /// PyPI (`{pypi}/pypi/{name}[/{version}]/json`).
    pub pypi: String,
}

impl Registries {
    /// The public registries, or those `MCPSCOPE_NPM_REGISTRY` / `MCPSCOPE_PYPI_URL` name.
    pub fn from_env() -> Registries {
        let var = |k: &str, default: &str| {
            std::env::var(k)
                .ok()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| default.to_string())
                .trim_end_matches('/')
                .to_string()
        };
        Registries {
            npm: var("MCPSCOPE_NPM_REGISTRY", "https://registry.npmjs.org"),
            pypi: var("MCPSCOPE_PYPI_URL", "https://pypi.org"),
        }
    }
}

/// Check the chosen package (its registry, its command) or remote (it answers); each finding
/// with the line of `text` it is about.
pub async fn verify_registry(
    text: &str,
    choice: RegistryChoice,
    registries: &Registries,
) -> Result<Vec<Finding>> {
    let doc = Value::Object(parse_doc(text)?);
    let mut out = match choice {
        RegistryChoice::Package(i) => {
            let p = doc
                .pointer(&format!("/packages/{i}"))
                .ok_or_else(|| Error::usage(format!("server.json has no packages[{i}]")))?;
            let mut out = vec![package_found(i, p, registries).await];
            out.extend(command_found(i, p));
            out
        }
        RegistryChoice::Remote(i) => {
            let r = doc
                .pointer(&format!("/remotes/{i}"))
                .ok_or_else(|| Error::usage(format!("server.json has no remotes[{i}]")))?;
            vec![remote_answers(i, r).await]
        }
    };
    located(text, &mut out);
    Ok(out)
}

fn finding(level: &'static str, path: String, message: String) -> Finding {
    Finding {
        level,
        path,
        message,
        line: None,
    }
}

/// Is `packages[i]` on its registry (npm and PyPI are asked; others are not).
async fn package_found(i: usize, p: &Value, registries: &Registries) -> Finding {
    let at = format!("/packages/{i}/identifier");
    let Some(id) = s(p, "identifier") else {
        return finding(
            "error",
            at,
            "no identifier: there is no package to look up".into(),
        );
    };
    let version = s(p, "version").filter(|v| v != "latest");
    let kind = s(p, "registryType").or_else(|| s(p, "registry_type"));
    let lookup = match kind.as_deref() {
        Some("npm") => Lookup::npm(&registries.npm, &id),
        Some("pypi") => Lookup::pypi(&registries.pypi, &id),
        other => {
            return finding(
                "info",
                at,
                format!(
                    "Package {id} ({}) not looked up: mcpscope checks npm and PyPI packages",
                    other.unwrap_or("no registryType")
                ),
            );
        }
    };
    lookup.check(at, &id, version.as_deref()).await
}

/// How one registry is asked about one package.
struct Lookup {
    /// npm or PyPI.
    registry: &'static str,
    base: String,
    /// The package name as one URL path segment.
    name: String,
}

impl Lookup {
    fn npm(base: &str, id: &str) -> Lookup {
        Lookup {
            registry: "npm",
            base: base.to_string(),
            name: encode(id),
        }
    }

    fn pypi(base: &str, id: &str) -> Lookup {
        Lookup {
            registry: "PyPI",
            base: base.to_string(),
            name: encode(id),
        }
    }

    /// The URL of a version's metadata (`None`: the latest): npm `{base}/{name}/{version}`,
    /// PyPI `{base}/pypi/{name}[/{version}]/json`.
    fn url(&self, version: Option<&str>) -> String {
        let (base, name) = (&self.base, &self.name);
        match (self.registry, version) {
            ("npm", v) => format!("{base}/{name}/{}", v.map_or("latest".into(), encode)),
            (_, Some(v)) => format!("{base}/pypi/{name}/{}/json", encode(v)),
            (_, None) => format!("{base}/pypi/{name}/json"),
        }
    }

    /// Where the version is in that metadata.
    fn version_at(&self) -> &'static str {
        if self.registry == "npm" {
            "/version"
        } else {
            "/info/version"
        }
    }

    /// The finding: found (at the pinned version, or the latest), not found, or not checked.
    async fn check(&self, at: String, id: &str, version: Option<&str>) -> Finding {
        let reg = self.registry;
        let latest = match self.get(None).await {
            Ok(Some(latest)) => latest,
            Ok(None) => {
                return finding(
                    "error",
                    at,
                    format!(
                        "Package not found: {id} is not on {reg} ({} answered 404); check the identifier, or publish it first",
                        self.url(None)
                    ),
                );
            }
            Err(e) => return finding("warning", at, format!("Could not check {id} on {reg}: {e}")),
        };
        let Some(v) = version.filter(|v| *v != latest) else {
            return finding(
                "ok",
                at,
                format!("Package found: {id} ({reg}), latest version {latest}"),
            );
        };
        match self.get(Some(v)).await {
            Ok(Some(_)) => finding(
                "ok",
                at,
                format!("Package found: {id}@{v} ({reg}); the latest version is {latest}"),
            ),
            Ok(None) => finding(
                "error",
                at.replace("/identifier", "/version"),
                format!(
                    "{id} has no version {v} on {reg} (the latest is {latest}); fix \"version\" or publish it"
                ),
            ),
            Err(e) => finding(
                "warning",
                at,
                format!("{id} is on {reg} (latest {latest}); could not check version {v}: {e}"),
            ),
        }
    }

    /// The version the metadata of `version` (or the latest) names; `None` when the registry
    /// answers 404.
    async fn get(&self, version: Option<&str>) -> std::result::Result<Option<String>, String> {
        let url = self.url(version);
        let Some(body) = get(&url).await? else {
            return Ok(None);
        };
        let doc: Value = serde_json::from_slice(&body)
            .map_err(|e| format!("{url} did not answer JSON ({e})"))?;
        let at = self.version_at();
        doc.pointer(at)
            .and_then(Value::as_str)
            .map(|v| Some(v.to_string()))
            .ok_or_else(|| format!("{url} answered without {at}"))
    }
}

/// A URL path segment: unreserved characters and `@` kept, the rest percent-encoded (a scoped
/// npm name's `/` included, as the registry wants it).
fn encode(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// GET `url` (redirects followed up to [`REDIRECTS`]): the body of a 200, `None` for a 404, the
/// reason otherwise. The whole of it within [`LOOKUP_TIMEOUT`], the body within [`BODY_CAP`].
async fn get(url: &str) -> std::result::Result<Option<Vec<u8>>, String> {
    tokio::time::timeout(LOOKUP_TIMEOUT, get_unbounded_in_time(url))
        .await
        .unwrap_or_else(|_| Err(format!("{url} did not answer within {LOOKUP_TIMEOUT:?}")))
}

async fn get_unbounded_in_time(url: &str) -> std::result::Result<Option<Vec<u8>>, String> {
    let clients = HttpClients::new(Some(LOOKUP_TIMEOUT));
    let mut url = url::Url::parse(url).map_err(|e| format!("{url} is not a URL ({e})"))?;
    for _ in 0..=REDIRECTS {
        let client = clients.for_url(url.as_str()).map_err(|e| e.to_string())?;
        let mut resp = client
            .get(url.clone())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| {
                format!(
                    "{url} did not answer ({})",
                    mcpscope_transport::error_chain(&e)
                )
            })?;
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            let to = resp
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .and_then(|l| url.join(l).ok())
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .ok_or_else(|| format!("{url} redirected ({status}) without a usable Location"))?;
            url = to;
            continue;
        }
        if status == 404 {
            return Ok(None);
        }
        if status != 200 {
            return Err(format!("{url} answered HTTP {status}"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| format!("reading {url}: {e}"))?
        {
            if body.len() + chunk.len() > BODY_CAP {
                return Err(format!(
                    "{url} answered more than {} MiB; not read",
                    BODY_CAP >> 20
                ));
            }
            body.extend_from_slice(&chunk);
        }
        return Ok(Some(body));
    }
    Err(format!("{url}: more than {REDIRECTS} redirects"))
}

/// Is the command that runs `packages[i]` on this machine's PATH (the PATH the servers mcpscope
/// starts inherit).
fn command_found(i: usize, p: &Value) -> Option<Finding> {
    let cmd = launcher(p)?;
    let at = if s(p, "runtimeHint").is_some() {
        format!("/packages/{i}/runtimeHint")
    } else {
        format!("/packages/{i}/registryType")
    };
    Some(match on_path(&cmd) {
        Some(found) => finding(
            "ok",
            at,
            format!("Command {cmd} found: {}", found.display()),
        ),
        None => finding(
            "warning",
            at,
            format!("Command {cmd} is not on the PATH: {}", install_hint(&cmd)),
        ),
    })
}

fn install_hint(cmd: &str) -> &'static str {
    match cmd {
        "npx" => "install Node.js (it brings npx), then restart mcpscope",
        "uvx" => "install uv (https://docs.astral.sh/uv/), then restart mcpscope",
        "docker" => "install Docker and start its daemon",
        "dnx" => "install the .NET 10 SDK (it brings dnx)",
        _ => "install it, or fix runtimeHint, then restart mcpscope",
    }
}

/// Where `cmd` is: itself when it is a path, else the first executable of that name on PATH.
fn on_path(cmd: &str) -> Option<PathBuf> {
    if cmd.contains('/') {
        return executable(Path::new(cmd)).then(|| PathBuf::from(cmd));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(cmd))
        .find(|p| executable(p))
}

fn executable(p: &Path) -> bool {
    let Ok(m) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        m.is_file() && m.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        m.is_file()
    }
}

/// Does `remotes[i]` answer at all: any HTTP status counts (an MCP endpoint may well answer a
/// plain GET with 401, 405 or 406); no answer is a warning.
async fn remote_answers(i: usize, r: &Value) -> Finding {
    let at = format!("/remotes/{i}/url");
    let Some(url) = s(r, "url") else {
        return finding("error", at, "no url: there is nothing to reach".into());
    };
    if url.contains('{') {
        return finding(
            "info",
            at,
            format!("{url} not checked: fill its template variables in first"),
        );
    }
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return finding("info", at, format!("{url} not checked: not an http(s) URL"));
    }
    let answer = tokio::time::timeout(LOOKUP_TIMEOUT, async {
        let client = HttpClients::new(Some(LOOKUP_TIMEOUT))
            .for_url(&url)
            .map_err(|e| e.to_string())?;
        client
            .get(url.as_str())
            .send()
            .await
            .map(|r| r.status().as_u16())
            .map_err(|e| mcpscope_transport::error_chain(&e))
    })
    .await
    .unwrap_or_else(|_| Err(format!("no answer within {LOOKUP_TIMEOUT:?}")));
    match answer {
        Ok(status) => finding(
            "ok",
            at,
            format!("Remote answers: {url} answered HTTP {status} to a GET"),
        ),
        Err(e) => finding("warning", at, format!("Remote {url} did not answer: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scoped_npm_name_is_one_path_segment() {
        assert_eq!(encode("@scope/pkg"), "@scope%2Fpkg");
        assert_eq!(encode("a b/../c"), "a%20b%2F..%2Fc");
    }

    #[test]
    fn a_command_is_found_on_the_path_or_as_a_path() {
        assert!(on_path("sh").is_some());
        assert!(on_path("/bin/sh").is_some());
        assert!(on_path("mcpscope-no-such-command-xyz").is_none());
    }
}
