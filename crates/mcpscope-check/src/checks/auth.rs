//! Authorization (issue 26): what a protected HTTP server shows a client that has no token yet,
//! judged without a login, with requests made by hand ([`raw_http`]) — so it runs whether or not
//! the run has credentials, and on an era whose handshake the server refused for want of them.
//!
//! A request without credentials (the era's first message) must get `401` with a Bearer
//! challenge (`auth-www-authenticate`, and its `scope`: `auth-www-authenticate-scope`); the
//! protected resource metadata is read where a client looks — the challenge's
//! `resource_metadata`, else the well-known URIs (`auth-protected-resource-metadata`); each
//! authorization server's metadata in the revision's discovery order
//! (`auth-server-metadata`), which must offer PKCE S256 (`auth-pkce-s256`) and a way for a client
//! with no prior relationship to register (`auth-registration`) over HTTPS
//! (`auth-https-endpoints`, not judged on the loopback interface); a random token and a JWT for
//! another audience must both be refused with `401` (`auth-token-audience`). With a token the
//! server accepted, a JWT's `aud` must name this server (`auth-resource-indicator`).
//!
//! The URL rules and the challenge parser are `mcpscope_auth`'s (one owner): the check reads
//! what the client reads, and says where a client would stop.

use super::http_modern;
use crate::catalog::{Applies, Area, CHECKS, Level};
use crate::raw_http::{self, Answer, Ask, Wire};
use crate::recorder::Recorder;
use crate::run::{Options, era_name};
use crate::verdict::{Evidence, Outcome, Verdict, cut};
use base64::Engine as _;
use mcpscope_auth::challenge::{self, BearerChallenge};
use mcpscope_auth::discovery;
use mcpscope_proto::era::{Era, LEGACY_VERSION};
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Authorization servers of one resource looked at (a document may list many).
const MAX_ISSUERS: usize = 4;
/// The audience of the foreign JWT: a name that can be no server's (RFC 6761 `.invalid`).
const FOREIGN_AUDIENCE: &str = "https://audience.invalid/mcp";

/// An era as the authorization checks need it: no session (the server may have refused one),
/// only the target, the era's recorder and frame numbers, and where verdicts go.
pub(crate) struct Bare {
    /// The era.
    pub(crate) era: Era,
    /// Its recorder.
    pub(crate) rec: Arc<Recorder>,
    /// The run's options.
    pub(crate) opts: Arc<Options>,
    /// The run's verdicts.
    pub(crate) out: Arc<Mutex<Vec<Verdict>>>,
    /// The era's frame numbers.
    pub(crate) frames: Arc<AtomicU64>,
}

impl Wire for Bare {
    fn opts(&self) -> &Options {
        &self.opts
    }

    fn rec(&self) -> &Recorder {
        &self.rec
    }

    fn next_frame(&self) -> u64 {
        self.frames.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// Longest verdict message: they quote the server's documents and headers, which may be large.
const MAX_MESSAGE: usize = 1000;

impl Bare {
    fn add(&self, mut v: Verdict) {
        v.message = cut(&v.message, MAX_MESSAGE);
        self.out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(v);
    }

    fn version(&self) -> &'static str {
        era_name(self.era)
    }

    fn verdict(&self, id: &'static str, outcome: Outcome, message: String, answers: &[&Answer]) {
        let evidence = answers.iter().flat_map(|a| a.evidence.clone()).collect();
        let reproduce = answers.last().map(|a| a.reproduce.clone());
        self.add(
            Verdict::new(id, self.version(), outcome, message)
                .with_evidence(evidence)
                .with_reproduce(reproduce),
        );
    }

    fn pass(&self, id: &'static str, message: String) {
        self.add(Verdict::new(id, self.version(), Outcome::Pass, message));
    }

    fn skip(&self, id: &'static str, why: &str) {
        self.add(Verdict::new(
            id,
            self.version(),
            Outcome::Skipped,
            why.to_string(),
        ));
    }

    /// `id`'s rule broken: fail (MUST) or warn (SHOULD), shown by `answers`.
    fn broken(&self, id: &'static str, message: String, answers: &[&Answer]) {
        let outcome = match crate::catalog::def(id).level {
            Level::Must => Outcome::Fail,
            Level::Should => Outcome::Warn,
        };
        self.verdict(id, outcome, message, answers);
    }

    /// `id`'s rule broken, read from an authorization server's metadata document.
    fn broken_in(&self, id: &'static str, message: String, doc: &AsDoc) {
        let outcome = match crate::catalog::def(id).level {
            Level::Must => Outcome::Fail,
            Level::Should => Outcome::Warn,
        };
        self.add(
            Verdict::new(id, self.version(), outcome, message)
                .with_evidence(doc.evidence.clone())
                .with_reproduce(Some(doc.reproduce.clone())),
        );
    }

    /// Worth a look, though no rule of this revision is broken.
    fn warn(&self, id: &'static str, message: String, answers: &[&Answer]) {
        self.verdict(id, Outcome::Warn, message, answers);
    }

    /// Every authorization check still without a verdict in this era is skipped, saying why.
    fn skip_rest(&self, why: &str) {
        let era = self.version();
        let done: Vec<&'static str> = self
            .out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|v| v.era == era)
            .map(|v| v.id)
            .collect();
        for d in CHECKS.iter().filter(|d| d.area == Area::Auth) {
            let applies = match d.applies {
                Applies::Both => true,
                Applies::Legacy => self.era == Era::Legacy,
                Applies::Modern => self.era == Era::Modern,
            };
            if applies && !done.contains(&d.id) {
                self.skip(d.id, why);
            }
        }
    }
}

/// How the era went: the server refused its handshake for want of credentials, or a session
/// is open (with whatever credentials the run has, or none).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// The handshake got `auth_required`.
    Refused,
    /// A session is open: the server accepted the run's credentials, or needed none.
    Connected,
}

/// Run the authorization checks of one era.
pub(crate) async fn run(b: &Bare, start: Start) {
    let Some((url, _)) = raw_http::endpoint(b) else {
        b.skip_rest(match b.opts.target {
            mcpscope_transport::Target::Stdio { .. } => {
                "not an HTTP server: a stdio server takes its credentials from its environment"
            }
            _ => "not a Streamable HTTP server (the deprecated HTTP+SSE transport)",
        });
        return;
    };
    let url = url.to_string();
    let first = raw_http::send(b, first_request(b.era).without_credentials()).await;
    let challenge = first.header("www-authenticate").and_then(challenge::bearer);
    let protected = start == Start::Refused || first.status == Some(401) || challenge.is_some();
    if !protected {
        b.skip_rest(&format!(
            "the server answered a request without credentials ({}): it is not protected",
            first.describe()
        ));
        end_session(b, &first, None).await;
        return;
    }
    let named = challenge.as_ref().and_then(|c| c.resource_metadata.clone());
    let prm = protected_resource(b, &url, named.as_deref(), challenge.is_some()).await;
    www_authenticate(b, &first, challenge.as_ref(), &prm);
    scope(b, &first, challenge.as_ref());
    let listed = prm
        .found
        .as_ref()
        .map(|f| issuers(&f.doc))
        .unwrap_or_default();
    let servers = if listed.is_empty() {
        for id in [
            "auth-server-metadata",
            "auth-pkce-s256",
            "auth-https-endpoints",
            "auth-registration",
        ] {
            b.skip(
                id,
                "no protected resource metadata names an authorization server (auth-protected-resource-metadata)",
            );
        }
        Vec::new()
    } else {
        let servers = authorization_servers(b, &listed).await;
        pkce(b, &servers);
        https_endpoints(b, &servers);
        registration(b, &servers);
        servers
    };
    let issuer = servers
        .iter()
        .find_map(|s| s.doc.as_ref())
        .map(|d| d.issuer.clone());
    token_audience(b, issuer.as_deref()).await;
    resource_indicator(b, &url, start).await;
}

/// The era's first message, as a client sends it before it has a token.
fn first_request(era: Era) -> Ask {
    match era {
        Era::Legacy => Ask::post(
            json!({
                "jsonrpc": "2.0", "id": "mcpscope-check-auth", "method": "initialize",
                "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {},
                           "clientInfo": {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}}
            }),
            &[],
        ),
        Era::Modern => {
            let (body, headers) = http_modern::discover("mcpscope-check-auth");
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            Ask::post(body, &headers)
        }
    }
}

/// An answer that opened a session (a server that let the request through) gets it ended.
async fn end_session(b: &Bare, a: &Answer, token: Option<&str>) {
    if !a.status.is_some_and(|s| (200..300).contains(&s)) {
        return;
    }
    let Some(session) = a.header("mcp-session-id").map(str::to_string) else {
        return;
    };
    let mut headers = vec![("Mcp-Session-Id", session.as_str())];
    let bearer = token.map(|t| format!("Bearer {t}"));
    if let Some(v) = &bearer {
        headers.push(("Authorization", v));
    }
    let ask = Ask::delete(&headers);
    raw_http::send(
        b,
        if token.is_some() {
            ask
        } else {
            ask.without_credentials()
        },
    )
    .await;
}

/// `401` with a Bearer challenge; a challenge without `resource_metadata` warns when the
/// well-known URI serves the metadata (2025-11-25 allows either), and fails when nothing does.
fn www_authenticate(b: &Bare, first: &Answer, challenge: Option<&BearerChallenge>, prm: &Prm) {
    const ID: &str = "auth-www-authenticate";
    if challenge.is_none() && prm.found.is_none() {
        // Authorization is OPTIONAL, and an HTTP server SHOULD (not MUST) follow this one: a
        // server protected another way (an API key) breaks a recommendation, not every rule.
        b.warn(
            ID,
            format!(
                "the server does not use MCP authorization: its {} carries no Bearer challenge and no protected resource metadata is published, so no MCP client can discover how to authorize (HTTP servers SHOULD follow the authorization specification; a client needs its credentials configured by hand)",
                first.status.map_or("answer".to_string(), |s| format!("HTTP {s}"))
            ),
            &[first],
        );
        return;
    }
    if first.status != Some(401) {
        b.broken(
            ID,
            format!(
                "a request without credentials got {}, not 401 Unauthorized",
                first.describe()
            ),
            &[first],
        );
        return;
    }
    let Some(header) = first.header("www-authenticate") else {
        b.broken(
            ID,
            "the 401 carries no WWW-Authenticate header: a client learns nothing of how to authorize".into(),
            &[first],
        );
        return;
    };
    let Some(c) = challenge else {
        b.broken(
            ID,
            format!(
                "the 401's WWW-Authenticate has no Bearer challenge: {:?}",
                cut(header, 200)
            ),
            &[first],
        );
        return;
    };
    match (&c.resource_metadata, &prm.found) {
        (Some(rm), _) => b.pass(
            ID,
            format!("401 with a Bearer challenge naming resource_metadata={rm:?}"),
        ),
        (None, Some(doc)) => b.warn(
            ID,
            format!(
                "the Bearer challenge names no resource_metadata: clients of this revision find the metadata at the well-known URI {}, but a 2025-06-18 client requires the header",
                doc.url
            ),
            &[first],
        ),
        (None, None) => b.broken(
            ID,
            "the Bearer challenge names no resource_metadata and no well-known URI serves protected resource metadata: a client cannot find the authorization server".into(),
            &[first],
        ),
    }
}

/// The challenge's `scope` (SHOULD).
fn scope(b: &Bare, first: &Answer, challenge: Option<&BearerChallenge>) {
    const ID: &str = "auth-www-authenticate-scope";
    match challenge {
        None => b.skip(ID, "no Bearer challenge to read (auth-www-authenticate)"),
        Some(c) if !c.scopes().is_empty() => b.pass(
            ID,
            format!("the challenge names scope=\"{}\"", c.scopes().join(" ")),
        ),
        Some(_) => b.broken(
            ID,
            "the Bearer challenge names no scope: clients fall back to scopes_supported of the protected resource metadata, or ask for none".into(),
            &[first],
        ),
    }
}

/// A protected resource metadata document as found.
struct Found {
    /// Where.
    url: String,
    /// The document.
    doc: Map<String, Value>,
}

/// What protected resource metadata discovery came to.
struct Prm {
    /// The first usable document, where a client would look.
    found: Option<Found>,
}

/// Read the protected resource metadata where a client looks, and judge it.
/// `bearer`: the 401 carried a Bearer challenge. Without one and without any metadata, the server
/// does not use MCP authorization at all (an API key, say): `auth-www-authenticate` says so, and
/// this check is skipped rather than failed for a SHOULD.
async fn protected_resource(b: &Bare, server: &str, named: Option<&str>, bearer: bool) -> Prm {
    const ID: &str = "auth-protected-resource-metadata";
    let mut answers = Vec::new();
    let mut found = None;
    for url in discovery::protected_resource_urls(server, named) {
        let a = raw_http::send(b, Ask::get(&url)).await;
        let doc = json_object(&a);
        answers.push((url.clone(), a));
        if let Ok(doc) = doc {
            found = Some(Found { url, doc });
            break;
        }
    }
    let tried = |answers: &[(String, Answer)]| {
        answers
            .iter()
            .map(|(u, a)| format!("{u}: {}", json_object(a).err().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let all: Vec<&Answer> = answers.iter().map(|(_, a)| a).collect();
    if found.is_none() && !bearer {
        b.skip(
            ID,
            "the server does not use MCP authorization (no Bearer challenge, no protected resource metadata): see auth-www-authenticate",
        );
        return Prm { found };
    }
    let Some(f) = &found else {
        b.broken(
            ID,
            format!(
                "no protected resource metadata where a client looks ({})",
                tried(&answers)
            ),
            &all,
        );
        return Prm { found };
    };
    let last: &Answer = &answers[answers.len() - 1].1;
    if let Some(named) = named
        && f.url != named
    {
        b.broken(
            ID,
            format!(
                "the challenge's resource_metadata {named} is not usable ({}); clients must use it when present, so they stop there (a document is at {})",
                tried(&answers[..1]),
                f.url
            ),
            &all,
        );
        return Prm { found };
    }
    match prm_problem(server, f) {
        Some((Outcome::Fail, why)) => b.broken(ID, why, &[last]),
        Some((_, why)) => b.warn(ID, why, &[last]),
        None => b.pass(
            ID,
            format!(
                "at {}: resource {}, authorization servers {}",
                f.url,
                f.doc["resource"],
                Value::from(issuers(&f.doc))
            ),
        ),
    }
    Prm { found }
}

/// What is wrong with a protected resource metadata document, if anything: a fail (a client
/// refuses it) or a warning (RFC 9728 wants it identical; lenient clients take it).
fn prm_problem(server: &str, f: &Found) -> Option<(Outcome, String)> {
    let servers = f.doc.get("authorization_servers");
    let listed = servers
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string));
    if !listed {
        return Some((
            Outcome::Fail,
            format!(
                "the document at {} has no authorization_servers with at least one server (it has {}): there is nowhere to authorize",
                f.url,
                servers.map_or("none".to_string(), |v| cut(&v.to_string(), 120))
            ),
        ));
    }
    let Some(resource) = f.doc.get("resource").and_then(Value::as_str) else {
        return Some((
            Outcome::Fail,
            format!(
                "the document at {} has no resource (RFC 9728 §2: REQUIRED), so a client cannot tell it is this server's",
                f.url
            ),
        ));
    };
    if !discovery::resource_matches(server, resource) {
        return Some((
            Outcome::Fail,
            format!(
                "the document at {} names the resource {resource:?}, which is not this server ({server}): clients refuse it (RFC 9728 §3.3)",
                f.url
            ),
        ));
    }
    let root = url::Url::parse(server)
        .map(|u| format!("{}/", u.origin().ascii_serialization()))
        .unwrap_or_default();
    let at_root = f.url.ends_with("/.well-known/oauth-protected-resource");
    if same_url(resource, server) || (at_root && same_url(resource, &root)) {
        return None;
    }
    Some((
        Outcome::Warn,
        format!(
            "the document at {} names the resource {resource:?}, not identical to the server's URL {server} (RFC 9728 §3.3 wants it identical): clients that compare strictly refuse it",
            f.url
        ),
    ))
}

/// Equal as URLs (scheme and host case, an empty path and `/` alike), nothing else forgiven.
fn same_url(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The document's authorization servers (strings only).
fn issuers(doc: &Map<String, Value>) -> Vec<String> {
    doc.get("authorization_servers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A 2xx answer's body as a JSON object, else why not.
fn json_object(a: &Answer) -> Result<Map<String, Value>, String> {
    match a.status {
        None => Err(a.describe()),
        Some(s) if !(200..300).contains(&s) => Err(format!("HTTP {s}")),
        Some(_) => match serde_json::from_slice::<Value>(&a.body) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("HTTP 200 but not a JSON object".into()),
            Err(e) => Err(format!("HTTP 200 but not JSON ({e})")),
        },
    }
}

/// An authorization server's metadata, validated.
struct AsDoc {
    /// The issuer (exactly the one the URL was built from).
    issuer: String,
    /// Where it was found.
    url: String,
    /// The document.
    doc: Map<String, Value>,
    /// The exchange that fetched it, for the verdicts read from it.
    evidence: Vec<Evidence>,
    /// The `curl` that fetches it again.
    reproduce: String,
}

/// One listed authorization server: its metadata, if a client finds it.
struct Server {
    doc: Option<AsDoc>,
}

/// Each listed authorization server's metadata, in the revision's order; `auth-server-metadata`.
async fn authorization_servers(b: &Bare, listed: &[String]) -> Vec<Server> {
    const ID: &str = "auth-server-metadata";
    let mut servers = Vec::new();
    let mut problems = Vec::new();
    let mut answers = Vec::new();
    for issuer in listed.iter().take(MAX_ISSUERS) {
        let (doc, why, seen) = server_metadata(b, issuer).await;
        answers.extend(seen);
        if let Some(why) = why {
            problems.push(why);
        }
        servers.push(Server { doc });
    }
    let shown: Vec<&Answer> = answers.iter().rev().take(3).rev().collect();
    if problems.is_empty() {
        let found: Vec<String> = servers
            .iter()
            .filter_map(|s| s.doc.as_ref())
            .map(|d| format!("{} at {}", d.issuer, d.url))
            .collect();
        b.pass(ID, format!("issuer {}", found.join("; ")));
    } else {
        b.broken(ID, problems.join("; "), &shown);
    }
    servers
}

/// Discover `issuer`'s metadata: (the document, what is wrong, the answers seen).
async fn server_metadata(b: &Bare, issuer: &str) -> (Option<AsDoc>, Option<String>, Vec<Answer>) {
    let urls = match discovery::authorization_server_urls(issuer) {
        Ok(u) => u,
        Err(e) => return (None, Some(e.to_string()), Vec::new()),
    };
    let mut tried = Vec::new();
    let mut answers = Vec::new();
    for url in urls {
        let a = raw_http::send(b, Ask::get(&url)).await;
        let doc = json_object(&a);
        answers.push(a);
        let doc = match doc {
            Ok(d) => d,
            Err(why) => {
                tried.push(format!("{url}: {why}"));
                continue;
            }
        };
        let said = doc.get("issuer").and_then(Value::as_str).unwrap_or("");
        if said != issuer {
            // The revision's rule: a document whose issuer is not the one the URL was built
            // from is discarded, and discovery goes on.
            tried.push(format!(
                "{url}: issuer {said:?}, not {issuer:?} (discarded)"
            ));
            continue;
        }
        let missing: Vec<&str> = ["authorization_endpoint", "token_endpoint"]
            .into_iter()
            .filter(|k| !doc.get(*k).is_some_and(Value::is_string))
            .collect();
        let why = (!missing.is_empty()).then(|| {
            format!(
                "the metadata of {issuer} at {url} has no {}: a client cannot run the code flow",
                missing.join(" nor ")
            )
        });
        let fetched = answers.last();
        let found = AsDoc {
            issuer: issuer.to_string(),
            url,
            doc,
            evidence: fetched.map(|a| a.evidence.clone()).unwrap_or_default(),
            reproduce: fetched.map(|a| a.reproduce.clone()).unwrap_or_default(),
        };
        return (Some(found), why, answers);
    }
    let why = format!(
        "no metadata for the authorization server {issuer} where a client looks ({})",
        tried.join("; ")
    );
    (None, Some(why), answers)
}

/// The metadata documents found, or — none found — `id` skipped, naming the check that says why.
fn metadata_or_skip<'a>(
    b: &Bare,
    id: &'static str,
    servers: &'a [Server],
) -> Option<Vec<&'a AsDoc>> {
    let docs: Vec<&AsDoc> = servers.iter().filter_map(|s| s.doc.as_ref()).collect();
    if docs.is_empty() {
        b.skip(
            id,
            "no authorization server metadata to read (auth-server-metadata)",
        );
        return None;
    }
    Some(docs)
}

/// `code_challenge_methods_supported` lists `S256` on every authorization server found.
fn pkce(b: &Bare, servers: &[Server]) {
    const ID: &str = "auth-pkce-s256";
    let Some(docs) = metadata_or_skip(b, ID, servers) else {
        return;
    };
    let mut bad = Vec::new();
    for d in &docs {
        match d.doc.get("code_challenge_methods_supported") {
            None => bad.push((*d, format!(
                "{} lists no code_challenge_methods_supported: clients must take it as no PKCE and refuse to proceed",
                d.issuer
            ))),
            Some(v) if !v.as_array().is_some_and(|a| a.iter().any(|m| m == "S256")) => {
                bad.push((
                    *d,
                    format!(
                        "{} offers code_challenge_methods_supported {} without S256",
                        d.issuer,
                        cut(&v.to_string(), 120)
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    if bad.is_empty() {
        let names: Vec<&str> = docs.iter().map(|d| d.issuer.as_str()).collect();
        b.pass(ID, format!("S256 offered by {}", names.join(", ")));
    } else {
        let (first, _) = bad[0];
        let said: Vec<&str> = bad.iter().map(|(_, why)| why.as_str()).collect();
        b.broken_in(
            ID,
            format!("{} (metadata: {})", said.join("; "), first.url),
            first,
        );
    }
}

/// Every authorization server endpoint is `https`; plain `http` only on this machine's loopback
/// interface (a development setup) is not judged.
fn https_endpoints(b: &Bare, servers: &[Server]) {
    const ID: &str = "auth-https-endpoints";
    let Some(docs) = metadata_or_skip(b, ID, servers) else {
        return;
    };
    const ENDPOINTS: [&str; 5] = [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
        "revocation_endpoint",
    ];
    let (mut plain, mut local) = (Vec::new(), Vec::new());
    for d in &docs {
        for k in ENDPOINTS {
            let Some(u) = d.doc.get(k).and_then(Value::as_str) else {
                continue;
            };
            if !u.to_ascii_lowercase().starts_with("https:") {
                if super::http::is_loopback(u) {
                    local.push(format!("{k} {u}"));
                } else {
                    plain.push((*d, format!("{k} {u}")));
                }
            }
        }
    }
    if let Some((first, _)) = plain.first() {
        let said: Vec<&str> = plain.iter().map(|(_, e)| e.as_str()).collect();
        b.broken_in(
            ID,
            format!(
                "not HTTPS: {} (metadata: {}): codes and tokens would cross the network in the clear",
                said.join(", "),
                first.url
            ),
            first,
        );
    } else if !local.is_empty() {
        b.skip(
            ID,
            "plain http on this machine's loopback interface: a development setup, not judged (a deployment must use https)",
        );
    } else {
        b.pass(ID, "every authorization server endpoint is https".into());
    }
}

/// A client with no prior relationship can get a client id: CIMD or DCR; else pre-registration.
fn registration(b: &Bare, servers: &[Server]) {
    const ID: &str = "auth-registration";
    let Some(docs) = metadata_or_skip(b, ID, servers) else {
        return;
    };
    let mut offered = Vec::new();
    let mut neither = Vec::new();
    for d in &docs {
        let cimd = d.doc.get("client_id_metadata_document_supported") == Some(&Value::Bool(true));
        let dcr = d
            .doc
            .get("registration_endpoint")
            .is_some_and(Value::is_string);
        match (cimd, dcr) {
            (true, true) => offered.push(format!("{}: Client ID Metadata Documents and dynamic registration", d.issuer)),
            (true, false) => offered.push(format!("{}: Client ID Metadata Documents", d.issuer)),
            (false, true) => offered.push(format!(
                "{}: dynamic registration only (no client_id_metadata_document_supported, which authorization servers SHOULD support{})",
                d.issuer,
                if b.era == Era::Modern { "; dynamic registration is deprecated in 2026-07-28" } else { "" }
            )),
            (false, false) => neither.push(*d),
        }
    }
    if let Some(first) = neither.first() {
        let names: Vec<&str> = neither.iter().map(|d| d.issuer.as_str()).collect();
        b.broken_in(
            ID,
            format!(
                "{} offers neither client_id_metadata_document_supported nor a registration_endpoint: a client must be pre-registered there (a client id given by hand)",
                names.join(", ")
            ),
            first,
        );
    } else {
        b.pass(ID, offered.join("; "));
    }
}

/// A random token and a JWT for another audience are both refused with `401`.
async fn token_audience(b: &Bare, issuer: Option<&str>) {
    const ID: &str = "auth-token-audience";
    let opaque = format!("mcpscope-check-not-a-token-{}", nonce());
    let jwt = foreign_jwt(issuer.unwrap_or("https://issuer.invalid"));
    let mut answers = Vec::new();
    for token in [&opaque, &jwt] {
        let mut ask = first_request(b.era);
        ask.headers
            .push(("Authorization".into(), format!("Bearer {token}")));
        let a = raw_http::send(b, ask).await;
        end_session(b, &a, Some(token)).await;
        answers.push(a);
    }
    let [a_opaque, a_jwt] = [&answers[0], &answers[1]];
    let bad: Vec<String> = [
        ("a random opaque token", a_opaque),
        ("a JWT for another audience", a_jwt),
    ]
    .iter()
    .filter(|(_, a)| a.status != Some(401))
    .map(|(what, a)| {
        let accepted = a.status.is_some_and(|s| (200..300).contains(&s));
        format!(
            "{what} got {}{}",
            a.describe(),
            if accepted { ": accepted" } else { ", not 401" }
        )
    })
    .collect();
    if bad.is_empty() {
        b.pass(
            ID,
            format!("a random opaque token and a JWT for the audience {FOREIGN_AUDIENCE} were both refused with 401"),
        );
        return;
    }
    let shown: Vec<&Answer> = [a_opaque, a_jwt]
        .into_iter()
        .filter(|a| a.status != Some(401))
        .collect();
    b.broken(
        ID,
        format!(
            "{} (tokens not issued for this server must get 401)",
            bad.join("; ")
        ),
        &shown,
    );
}

/// A token the server accepted names it as its audience (a JWT's `aud`, RFC 9068): the
/// authorization server honoured the `resource` indicator and the server checks it.
async fn resource_indicator(b: &Bare, server: &str, start: Start) {
    const ID: &str = "auth-resource-indicator";
    let token = raw_http::credentials(b).await;
    let Some(token) = token else {
        b.skip(
            ID,
            "needs a token the server accepts: give --header \"Authorization: Bearer …\", or log in (--login)",
        );
        return;
    };
    if start == Start::Refused {
        b.skip(ID, "the server refused the run's token: nothing to judge");
        return;
    }
    let token = token
        .strip_prefix("Bearer ")
        .or_else(|| token.strip_prefix("bearer "))
        .unwrap_or(&token);
    let Some(claims) = jwt_claims(token) else {
        b.skip(
            ID,
            "the run's token is opaque: its audience cannot be read here (auth-token-audience still ran)",
        );
        return;
    };
    let aud: Vec<String> = match claims.get("aud") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if aud.is_empty() {
        b.warn(
            ID,
            "the server accepted a JWT access token that names no audience (aud): nothing binds it to this server".into(),
            &[],
        );
    } else if aud.iter().any(|a| discovery::resource_matches(server, a)) {
        b.pass(
            ID,
            format!("the accepted token's aud {aud:?} names this server"),
        );
    } else {
        b.broken(
            ID,
            format!("the server accepted a token whose aud {aud:?} does not name it ({server})"),
            &[],
        );
    }
}

/// The claims of a JWT (its middle part), if `token` is one.
fn jwt_claims(token: &str) -> Option<Map<String, Value>> {
    let mut parts = token.split('.');
    let (_, claims, _) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// An RFC 9068-shaped access token from `issuer` for [`FOREIGN_AUDIENCE`], signed with a key
/// nobody has: a server that reads a JWT's claims must see it is not for it.
fn foreign_jwt(issuer: &str) -> String {
    let b64 = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let header = json!({"alg": "HS256", "typ": "at+jwt"});
    let claims = json!({
        "iss": issuer, "aud": FOREIGN_AUDIENCE, "sub": "mcpscope-check",
        "client_id": "mcpscope-check", "iat": now, "exp": now + 3600, "jti": nonce(),
    });
    format!(
        "{}.{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes()),
        b64(format!("{}{}", nonce(), nonce()).as_bytes())
    )
}

/// 16 hex digits no server can have seen before (not a secret).
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(url: &str, doc: Value) -> Found {
        Found {
            url: url.into(),
            doc: doc.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn a_resource_is_this_server_identical_or_at_the_root_its_origin() {
        let s = "http://h:1/mcp";
        let prm = "http://h:1/.well-known/oauth-protected-resource/mcp";
        let ok = found(
            prm,
            json!({"resource": "http://h:1/mcp", "authorization_servers": ["http://as"]}),
        );
        assert!(prm_problem(s, &ok).is_none());
        let root = found(
            "http://h:1/.well-known/oauth-protected-resource",
            json!({"resource": "http://h:1", "authorization_servers": ["http://as"]}),
        );
        assert!(prm_problem(s, &root).is_none());
        let slash = found(
            prm,
            json!({"resource": "http://h:1/mcp/", "authorization_servers": ["http://as"]}),
        );
        assert_eq!(prm_problem(s, &slash).map(|p| p.0), Some(Outcome::Warn));
        let other = found(
            prm,
            json!({"resource": "http://evil:1/mcp", "authorization_servers": ["http://as"]}),
        );
        assert_eq!(prm_problem(s, &other).map(|p| p.0), Some(Outcome::Fail));
        let none = found(
            prm,
            json!({"resource": "http://h:1/mcp", "authorization_servers": []}),
        );
        assert_eq!(prm_problem(s, &none).map(|p| p.0), Some(Outcome::Fail));
        let missing = found(prm, json!({"authorization_servers": ["http://as"]}));
        assert_eq!(prm_problem(s, &missing).map(|p| p.0), Some(Outcome::Fail));
    }

    #[test]
    fn the_foreign_jwt_reads_back_and_an_opaque_token_is_not_one() {
        let claims = jwt_claims(&foreign_jwt("http://as")).expect("a JWT");
        assert_eq!(claims["aud"], FOREIGN_AUDIENCE);
        assert_eq!(claims["iss"], "http://as");
        assert!(jwt_claims("access-1").is_none());
        assert!(jwt_claims("a.b.c.d").is_none());
        assert_ne!(nonce(), nonce());
    }
}
