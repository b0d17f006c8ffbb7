//! Lifecycle: the handshake's answer (`server-initialize`, `server-discover`), version
//! negotiation asked with a version no one speaks (`version-negotiation`,
//! `unsupported-version-error`, each on a connection of its own), and `ping`.

use crate::probe;
use crate::run::Cx;
use crate::verdict::{Outcome, Verdict};
use mcpscope_proto::era::{
    Era, LEGACY_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    MODERN_VERSION, UNSUPPORTED_PROTOCOL_VERSION,
};
use serde_json::{Value, json};

/// A protocol version no server speaks.
const NO_SUCH_VERSION: &str = "1900-01-01";

/// Run the era's lifecycle checks.
pub(crate) async fn run(cx: &Cx) {
    match cx.era {
        Era::Legacy => {
            initialize_answer(cx);
            version_negotiation(cx).await;
            ping(cx).await;
        }
        Era::Modern => {
            discover_answer(cx);
            unsupported_version(cx).await;
        }
    }
}

/// `initialize`'s result names a version, the capabilities and the server.
fn initialize_answer(cx: &Cx) {
    let r = &cx.info.handshake_result;
    let mut missing = Vec::new();
    if !r.get("protocolVersion").is_some_and(Value::is_string) {
        missing.push("protocolVersion");
    }
    if !r.get("capabilities").is_some_and(Value::is_object) {
        missing.push("capabilities");
    }
    let info = r.get("serverInfo");
    if !info.is_some_and(|i| {
        i.get("name").is_some_and(Value::is_string)
            && i.get("version").is_some_and(Value::is_string)
    }) {
        missing.push("serverInfo {name, version}");
    }
    let v = if missing.is_empty() {
        Verdict::new(
            "server-initialize",
            cx.version(),
            Outcome::Pass,
            format!(
                "protocolVersion {}, serverInfo {}",
                r["protocolVersion"].as_str().unwrap_or_default(),
                r["serverInfo"]
            ),
        )
    } else {
        Verdict::broken(
            "server-initialize",
            cx.version(),
            format!("the initialize result lacks {}", missing.join(", ")),
        )
    };
    // The handshake is the era's first exchange: its request and answer.
    cx.add(v.with_evidence(cx.rec.since(0, 2)));
}

/// An `initialize` asking for a version no one speaks gets another version, or an error.
async fn version_negotiation(cx: &Cx) {
    let body = json!({
        "jsonrpc": "2.0", "id": "mcpscope-check-version", "method": "initialize",
        "params": {"protocolVersion": NO_SUCH_VERSION, "capabilities": {},
                   "clientInfo": {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}}
    });
    let p = probe::exchange(
        cx,
        &body,
        vec![("MCP-Protocol-Version".into(), LEGACY_VERSION.into())],
    )
    .await;
    let verdict = match (&p.message, &p.failure) {
        (Some(m), _) => match m.pointer("/result/protocolVersion").and_then(Value::as_str) {
            Some(v) if v == NO_SUCH_VERSION => Verdict::broken(
                "version-negotiation",
                cx.version(),
                format!("asked for {NO_SUCH_VERSION}, the server answered with that same version"),
            ),
            Some(v) => Verdict::new(
                "version-negotiation",
                cx.version(),
                Outcome::Pass,
                format!("asked for {NO_SUCH_VERSION}, the server offered {v}"),
            ),
            None if m.get("error").is_some() => Verdict::new(
                "version-negotiation",
                cx.version(),
                Outcome::Pass,
                format!(
                    "asked for {NO_SUCH_VERSION}, the server refused with an error ({})",
                    m["error"]["message"]
                ),
            ),
            None => Verdict::broken(
                "version-negotiation",
                cx.version(),
                "the initialize result names no protocolVersion".into(),
            ),
        },
        (None, Some(why)) => Verdict::broken(
            "version-negotiation",
            cx.version(),
            format!("asked for {NO_SUCH_VERSION}, no answer: {why}"),
        ),
        (None, None) => Verdict::broken("version-negotiation", cx.version(), "no answer".into()),
    };
    cx.add(verdict.with_evidence(p.evidence));
}

/// `ping` → `{}`.
async fn ping(cx: &Cx) {
    let asked = cx.ask("ping", json!({})).await;
    match &asked.answer {
        Ok(Value::Object(m)) if m.keys().all(|k| k == "_meta") => cx.pass("ping", "answered {}"),
        Ok(other) => cx.broken(
            "ping",
            format!("answered {other}, not an empty result"),
            Some(&asked),
        ),
        Err(f) => cx.broken("ping", format!("ping: {f}"), Some(&asked)),
    }
}

/// `server/discover`'s result names 2026-07-28 among its supported versions.
fn discover_answer(cx: &Cx) {
    let r = &cx.info.handshake_result;
    let versions: Vec<&str> = r
        .get("supportedVersions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let evidence = cx.rec.since(0, 2);
    let v = if versions.contains(&MODERN_VERSION)
        && r.get("capabilities").is_some_and(Value::is_object)
    {
        Verdict::new(
            "server-discover",
            cx.version(),
            Outcome::Pass,
            format!("supportedVersions {versions:?}"),
        )
    } else {
        Verdict::broken(
            "server-discover",
            cx.version(),
            format!(
                "the server/discover result must name {MODERN_VERSION} in supportedVersions and carry capabilities; it has supportedVersions {versions:?}"
            ),
        )
    };
    cx.add(v.with_evidence(evidence));
}

/// A request at a version no one speaks gets -32022 naming the supported versions.
async fn unsupported_version(cx: &Cx) {
    let body = json!({
        "jsonrpc": "2.0", "id": "mcpscope-check-version", "method": "server/discover",
        "params": {"_meta": {
            META_PROTOCOL_VERSION: NO_SUCH_VERSION,
            META_CLIENT_CAPABILITIES: {},
            META_CLIENT_INFO: {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}
        }}
    });
    let headers = vec![
        ("MCP-Protocol-Version".into(), NO_SUCH_VERSION.into()),
        ("Mcp-Method".into(), "server/discover".into()),
    ];
    let p = probe::exchange(cx, &body, headers).await;
    let error = p.message.as_ref().and_then(|m| m.get("error"));
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
    let supported = error
        .and_then(|e| e.pointer("/data/supported"))
        .and_then(Value::as_array);
    let msg = match (code, supported, &p.failure) {
        (Some(UNSUPPORTED_PROTOCOL_VERSION), Some(s), _) if !s.is_empty() => {
            let status = match p.status {
                Some(400) | None => None,
                Some(other) => Some(format!("-32022 came with HTTP {other}, not 400")),
            };
            match status {
                None => {
                    cx.add(
                        Verdict::new(
                            "unsupported-version-error",
                            cx.version(),
                            Outcome::Pass,
                            format!("-32022, supported {}", Value::Array(s.clone())),
                        )
                        .with_evidence(p.evidence),
                    );
                    return;
                }
                Some(m) => m,
            }
        }
        (Some(UNSUPPORTED_PROTOCOL_VERSION), _, _) => {
            "-32022 without data.supported (the versions the server speaks)".into()
        }
        (Some(c), _, _) => format!("answered error {c}, not -32022 UnsupportedProtocolVersion"),
        (None, _, Some(why)) => format!("no answer: {why}"),
        (None, _, None) => "answered with a result, not -32022 UnsupportedProtocolVersion".into(),
    };
    cx.add(
        Verdict::broken(
            "unsupported-version-error",
            cx.version(),
            format!("asked {NO_SUCH_VERSION}: {msg}"),
        )
        .with_evidence(p.evidence),
    );
}
