//! The 2026-07-28 specifics that are not HTTP's: the per-request `_meta` a request cannot go
//! without (`missing-request-meta-rejected`, each on a connection of its own, since our session
//! always sends it), the caching hints on every cacheable result (`cache-hint-coverage`,
//! `cache-hint-values-valid`, `cache-scope-stable-across-pages`: MCPJam's names; the official
//! suite's `caching` scenario), the methods the revision removed (`removed-methods-not-found`),
//! and — judged from every frame of the era once the checks are done — `resultType` on every
//! result (`result-type-present`) and no log without a log level (`logs-require-log-level`).
//!
//! `x-mcp-header` declarations are `tools-input-schemas-valid`'s (`mcpscope_proto::tool_lint`'s
//! `invalid-x-mcp-header`, an error on a 2026-07-28 connection), not a check of their own here.

use super::Lists;
use crate::probe;
use crate::run::{Asked, Cx, Failure};
use crate::verdict::{Evidence, Outcome, Verdict};
use mcpscope_proto::era::{
    HEADER_MISMATCH, INVALID_PARAMS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_PROTOCOL_VERSION, METHOD_NOT_FOUND, MODERN_VERSION,
};
use serde_json::{Map, Value, json};

/// Pages walked per list for the caching checks: two already show whether the scope changes,
/// and a large catalogue is not walked a second time to say so (MCPJam walks four).
const MAX_CACHE_PAGES: usize = 4;

/// The 2025-11-25 methods the 2026-07-28 revision removed (`initialize` aside: a dual-era server
/// answers it, as the versioning page says, by selecting legacy semantics).
const REMOVED: [&str; 4] = [
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Run the 2026-07-28 checks that ask the server something.
pub(crate) async fn run(cx: &Cx, lists: &Lists) {
    missing_meta(cx).await;
    caching(cx, lists).await;
    removed_methods(cx).await;
}

/// Judge the era's frames (after every other check): `result-type-present`,
/// `logs-require-log-level`.
pub(crate) fn judge(cx: &Cx) {
    result_type_present(cx);
    logs_require_log_level(cx);
}

// ---- the request envelope ------------------------------------------------------------------

/// Two `server/discover` requests on connections of their own, each missing one required
/// `_meta` field: -32602 (with HTTP 400). Without `protocolVersion` the request is not plainly a
/// modern one — a dual-era server may take it for a legacy request (stdio: an implementation-
/// defined error; HTTP: -32020, its header disagreeing with a body without a version) — so there
/// only a result fails.
async fn missing_meta(cx: &Cx) {
    let client_info = json!({"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")});
    let no_caps = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_INFO: client_info});
    let no_version = json!({META_CLIENT_CAPABILITIES: {}, META_CLIENT_INFO: client_info});
    let mut evidence = Vec::new();
    let mut passed = Vec::new();
    for (field, meta, strict) in [
        (META_CLIENT_CAPABILITIES, no_caps, true),
        (META_PROTOCOL_VERSION, no_version, false),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": format!("mcpscope-check-no-{}", short(field)),
                          "method": "server/discover", "params": {"_meta": meta}});
        let headers = vec![
            ("MCP-Protocol-Version".into(), MODERN_VERSION.into()),
            ("Mcp-Method".into(), "server/discover".into()),
        ];
        let p = probe::exchange(cx, &body, headers).await;
        evidence.extend(p.evidence.clone());
        let error = p.message.as_ref().and_then(|m| m.get("error"));
        let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
        let problem = match (code, &p.message, &p.failure) {
            (Some(INVALID_PARAMS), _, _) => match p.status {
                Some(s) if s != 400 => Some(format!("-32602 came with HTTP {s}, not 400")),
                _ => None,
            },
            (Some(HEADER_MISMATCH), _, _) if !strict && !cx.is_stdio() => None,
            (Some(c), _, _) if strict => Some(format!("refused with {c}, not -32602")),
            (Some(_), _, _) => None,
            (None, Some(_), _) => Some("answered with a result".into()),
            // Silence is one of the answers a legacy server may give to what it takes for a
            // request before `initialize` (the stdio page): only the plainly modern request must
            // be refused.
            (None, None, _) if !strict => None,
            (None, None, Some(why)) => Some(format!("no answer: {why}")),
            (None, None, None) => Some("no answer".into()),
        };
        match problem {
            None => passed.push(format!(
                "without {field}: {}",
                code.map_or_else(
                    || "no answer (as a legacy server may give)".to_string(),
                    |c| format!("refused with {c}")
                )
            )),
            Some(why) => {
                cx.add(
                    Verdict::broken(
                        "missing-request-meta-rejected",
                        cx.version(),
                        format!("server/discover without _meta {field}: {why}"),
                    )
                    .with_evidence(p.evidence),
                );
                return;
            }
        }
    }
    cx.add(
        Verdict::new(
            "missing-request-meta-rejected",
            cx.version(),
            Outcome::Pass,
            passed.join("; "),
        )
        .with_evidence(evidence.into_iter().take(4).collect()),
    );
}

/// `io.modelcontextprotocol/clientCapabilities` → `clientCapabilities`.
fn short(field: &str) -> &str {
    field.rsplit('/').next().unwrap_or(field)
}

// ---- caching ---------------------------------------------------------------------------------

/// One cacheable result seen: the method, its page, and the exchange.
struct Cached {
    method: &'static str,
    page: usize,
    result: Value,
    asked: Option<Asked>,
}

/// The cacheable results of the server's declared operations: `server/discover` (the
/// handshake's), each declared list's first pages, and a listed resource read.
async fn cacheable(cx: &Cx, lists: &Lists) -> (Vec<Cached>, Vec<(&'static str, Vec<Cached>)>) {
    let mut seen = vec![Cached {
        method: "server/discover",
        page: 1,
        result: cx.info.handshake_result.clone(),
        asked: None,
    }];
    let mut walks = Vec::new();
    for (cap, method) in [
        ("tools", "tools/list"),
        ("prompts", "prompts/list"),
        ("resources", "resources/list"),
        ("resources", "resources/templates/list"),
    ] {
        if !cx.has(cap) || lists.unserved.contains(&cap) {
            continue;
        }
        let pages = walk(cx, method).await;
        walks.push((method, pages));
    }
    if let Some(uri) = lists
        .resources
        .first()
        .and_then(|r| r.get("uri"))
        .and_then(Value::as_str)
    {
        let asked = cx.ask("resources/read", json!({"uri": uri})).await;
        if let Ok(r) = &asked.answer {
            seen.push(Cached {
                method: "resources/read",
                page: 1,
                result: r.clone(),
                asked: Some(asked),
            });
        }
    }
    (seen, walks)
}

/// Up to [`MAX_CACHE_PAGES`] pages of `method`, each a complete result.
async fn walk(cx: &Cx, method: &'static str) -> Vec<Cached> {
    let mut pages = Vec::new();
    let mut cursor: Option<Value> = None;
    while pages.len() < MAX_CACHE_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let asked = cx.ask(method, params).await;
        let Ok(result) = asked.answer.as_ref().map(Clone::clone) else {
            break;
        };
        cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
        pages.push(Cached {
            method,
            page: pages.len() + 1,
            result,
            asked: Some(asked),
        });
        if cursor.is_none() {
            break;
        }
    }
    pages
}

/// `cache-hint-coverage`, `cache-hint-values-valid`, `cache-scope-stable-across-pages`.
async fn caching(cx: &Cx, lists: &Lists) {
    let (mut all, walks) = cacheable(cx, lists).await;
    let mut stable = Vec::new();
    for (method, pages) in walks {
        stable.push((method, scope_change(&pages)));
        all.extend(pages);
    }
    // Hints are asked of complete results only: an input_required result carries none.
    let complete: Vec<&Cached> = all
        .iter()
        .filter(|c| c.result.get("resultType").and_then(Value::as_str) != Some("input_required"))
        .collect();
    coverage(cx, &complete);
    values(cx, &complete);
    scope_stable(cx, stable);
}

fn label(c: &Cached) -> String {
    if c.page > 1 {
        format!("{} page {}", c.method, c.page)
    } else {
        c.method.to_string()
    }
}

fn evidence_of(cx: &Cx, c: &Cached) -> (Vec<Evidence>, Option<String>) {
    match &c.asked {
        Some(a) => (a.evidence.clone(), Some(a.reproduce.clone())),
        // The handshake's result: the era's first exchange.
        None => (
            cx.rec.since(0, 2),
            Some(cx.reproduce("server/discover", &json!({}))),
        ),
    }
}

fn coverage(cx: &Cx, results: &[&Cached]) {
    let lacking = results.iter().find_map(|c| {
        let missing: Vec<&str> = ["ttlMs", "cacheScope"]
            .into_iter()
            .filter(|k| c.result.get(*k).is_none())
            .collect();
        (!missing.is_empty()).then(|| (c, missing.join(" and ")))
    });
    match lacking {
        Some((c, missing)) => {
            let (evidence, reproduce) = evidence_of(cx, c);
            cx.add(
                Verdict::broken(
                    "cache-hint-coverage",
                    cx.version(),
                    format!("the {} result has no {missing}", label(c)),
                )
                .with_evidence(evidence)
                .with_reproduce(reproduce),
            );
        }
        None => cx.pass(
            "cache-hint-coverage",
            format!("ttlMs and cacheScope on {}", names(results)),
        ),
    }
}

fn names(results: &[&Cached]) -> String {
    let mut names: Vec<String> = Vec::new();
    for c in results {
        if !names.iter().any(|n| n == c.method) {
            names.push(c.method.to_string());
        }
    }
    names.join(", ")
}

fn values(cx: &Cx, results: &[&Cached]) {
    let wrong = results.iter().find_map(|c| {
        let ttl = c.result.get("ttlMs");
        let scope = c.result.get("cacheScope");
        let ttl_ok = ttl.is_none_or(|t| t.as_u64().is_some() || t.as_i64().is_some_and(|v| v >= 0));
        let scope_ok = scope.is_none_or(|s| matches!(s.as_str(), Some("public" | "private")));
        match (ttl_ok, scope_ok) {
            (true, true) => None,
            (false, _) => Some((
                c,
                format!(
                    "ttlMs is {}, not an integer >= 0",
                    ttl.unwrap_or(&Value::Null)
                ),
            )),
            (_, false) => Some((
                c,
                format!(
                    "cacheScope is {}, not \"public\" or \"private\"",
                    scope.unwrap_or(&Value::Null)
                ),
            )),
        }
    });
    match wrong {
        Some((c, why)) => {
            let (evidence, reproduce) = evidence_of(cx, c);
            cx.add(
                Verdict::broken(
                    "cache-hint-values-valid",
                    cx.version(),
                    format!("{}: {why}", label(c)),
                )
                .with_evidence(evidence)
                .with_reproduce(reproduce),
            );
        }
        None => cx.pass(
            "cache-hint-values-valid",
            format!("{} cacheable results, every hint valid", results.len()),
        ),
    }
}

/// Where a list's `cacheScope` changed: the page, the first page's scope, the page's, and the
/// frames of the page.
type ScopeChange = (usize, String, String, Vec<Evidence>);

/// The page whose `cacheScope` differs from the first page's.
fn scope_change(pages: &[Cached]) -> Option<ScopeChange> {
    let first = pages
        .first()?
        .result
        .get("cacheScope")
        .cloned()
        .unwrap_or(Value::Null);
    pages.iter().skip(1).find_map(|p| {
        let scope = p.result.get("cacheScope").cloned().unwrap_or(Value::Null);
        let evidence = p
            .asked
            .as_ref()
            .map(|a| a.evidence.clone())
            .unwrap_or_default();
        (scope != first).then(|| (p.page, first.to_string(), scope.to_string(), evidence))
    })
}

fn scope_stable(cx: &Cx, walks: Vec<(&'static str, Option<ScopeChange>)>) {
    if walks.is_empty() {
        cx.skip(
            "cache-scope-stable-across-pages",
            "the server declares no list (tools, prompts or resources)",
        );
        return;
    }
    match walks.iter().find_map(|(m, c)| c.as_ref().map(|c| (m, c))) {
        Some((method, (page, first, other, evidence))) => cx.add(
            Verdict::broken(
                "cache-scope-stable-across-pages",
                cx.version(),
                format!("{method}: page 1 has cacheScope {first}, page {page} has {other}"),
            )
            .with_evidence(evidence.clone())
            .with_reproduce(Some(cx.reproduce(method, &json!({})))),
        ),
        None => cx.pass(
            "cache-scope-stable-across-pages",
            format!(
                "one cacheScope per list across its pages ({}; at most {MAX_CACHE_PAGES} pages each)",
                walks.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", ")
            ),
        ),
    }
}

// ---- removed methods -------------------------------------------------------------------------

/// Each method the revision removed, sent with the modern envelope (which selects 2026-07-28
/// semantics on a dual-era server): -32601, and on HTTP with status 404.
async fn removed_methods(cx: &Cx) {
    for method in REMOVED {
        let params = match method {
            "logging/setLevel" => json!({"level": "error"}),
            m if m.starts_with("resources/") => json!({"uri": "mcpscope-check://removed"}),
            _ => json!({}),
        };
        let asked = cx.ask(method, params).await;
        let got = match &asked.answer {
            Err(Failure::Rpc(e)) if e.code == METHOD_NOT_FOUND => match http_status(&asked) {
                Some(status) if status != 404 => format!("-32601 with HTTP {status}, not 404"),
                _ => continue,
            },
            Ok(_) => "a result".to_string(),
            Err(f) => f.to_string(),
        };
        cx.broken(
            "removed-methods-not-found",
            format!("{method} (removed in {MODERN_VERSION}) got {got}, not -32601"),
            Some(&asked),
        );
        return;
    }
    cx.pass(
        "removed-methods-not-found",
        format!("refused with -32601: {}", REMOVED.join(", ")),
    );
}

/// The HTTP status of the server's answer in an exchange's frames (`None` on stdio).
fn http_status(asked: &Asked) -> Option<u16> {
    asked
        .evidence
        .iter()
        .filter(|e| e.direction == "in")
        .find_map(|e| e.kind.strip_prefix("http-response ")?.parse().ok())
}

// ---- judged from the frames ------------------------------------------------------------------

fn result_type_present(cx: &Cx) {
    let (untyped, seen) = cx.rec.with(|s| (s.untyped.clone(), s.modern_results));
    match untyped.first() {
        None if seen == 0 => cx.skip("result-type-present", "no result was received"),
        None => cx.pass(
            "result-type-present",
            format!("resultType on all {seen} results"),
        ),
        Some((frame, method)) => cx.add(
            Verdict::broken(
                "result-type-present",
                cx.version(),
                format!(
                    "{} of {seen} results have no resultType; first, the answer to {method}",
                    untyped.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}

fn logs_require_log_level(cx: &Cx) {
    if cx.opts.client.log_level.is_some() {
        cx.skip(
            "logs-require-log-level",
            "--log-level asked for logs on every request",
        );
        return;
    }
    let logs = cx.rec.with(|s| s.logs.clone());
    match logs.first() {
        None => cx.pass(
            "logs-require-log-level",
            "no notifications/message: no request carried a log level",
        ),
        Some((frame, level)) => cx.add(
            Verdict::broken(
                "logs-require-log-level",
                cx.version(),
                format!(
                    "{} notifications/message (first at level {level}) although no request carried io.modelcontextprotocol/logLevel",
                    logs.len()
                ),
            )
            .with_evidence(cx.rec.frames(&[*frame])),
        ),
    }
}

/// The params of an `input_required` retry: the original params, the answers, the state.
pub(crate) fn retry_params(
    original: &Value,
    responses: Option<Map<String, Value>>,
    state: Option<&Value>,
) -> Value {
    let mut next = original.as_object().cloned().unwrap_or_default();
    if let Some(r) = responses {
        next.insert("inputResponses".into(), Value::Object(r));
    }
    if let Some(s) = state {
        next.insert("requestState".into(), s.clone());
    }
    Value::Object(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Asked;

    fn frame(direction: &'static str, kind: &str) -> Evidence {
        Evidence {
            frame: 1,
            direction,
            kind: kind.into(),
            excerpt: String::new(),
        }
    }

    #[test]
    fn the_status_is_the_servers_answers() {
        let asked = |evidence| Asked {
            answer: Ok(Value::Null),
            evidence,
            reproduce: String::new(),
        };
        let http = asked(vec![
            frame("out", "http-request POST"),
            frame("in", "http-response 200"),
        ]);
        assert_eq!(http_status(&http), Some(200));
        assert_eq!(http_status(&asked(vec![frame("in", "stdout-line")])), None);
    }

    #[test]
    fn a_scope_change_names_the_page() {
        let page = |n, scope: &str| Cached {
            method: "tools/list",
            page: n,
            result: json!({"cacheScope": scope}),
            asked: None,
        };
        assert!(scope_change(&[page(1, "public"), page(2, "public")]).is_none());
        let (at, first, other, _) =
            scope_change(&[page(1, "public"), page(2, "public"), page(3, "private")]).unwrap();
        assert_eq!(
            (at, first.as_str(), other.as_str()),
            (3, "\"public\"", "\"private\"")
        );
    }
}
