//! Protocol eras and the rules that differ between them.
//!
//! Legacy (2025-11-25 and earlier) opens with `initialize`; modern (2026-07-28) carries the
//! protocol version, client capabilities and client identity in every request's `_meta`, mirrors
//! method and name into `Mcp-*` HTTP headers, and replaces server→client requests with
//! `input_required` results. This module holds the constants and pure decisions; the session
//! engine applies them.

use crate::jsonrpc::RpcError;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt;
use std::str::FromStr;

/// The legacy revision we speak and lint against.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// The modern revision we speak and lint against.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Legacy revisions we accept from a server's `initialize` answer, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Modern revisions we can speak, newest first.
pub const MODERN_VERSIONS: &[&str] = &[MODERN_VERSION];

/// `_meta` key: protocol version of a modern request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: client capabilities of a modern request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: client identity of a modern request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: per-request log level (modern).
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key: server identity on modern results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key: subscription id on notifications of a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key: task relation (legacy tasks).
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// Extension id of the modern tasks extension.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// Extension id of MCP Apps (interactive UIs as `ui://` resources), in both eras.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's UI resource (the one `mimeTypes` entry a host declares).
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// Error code: header/body mismatch (modern).
pub const HEADER_MISMATCH: i64 = -32020;
/// Error code: a client capability the request needs is missing (modern).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// Error code: unsupported protocol version (modern).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// Error code: method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Error code: invalid params.
pub const INVALID_PARAMS: i64 = -32602;

/// The era a connection speaks once established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` handshake, sessions, server→client requests.
    Legacy,
    /// Stateless requests with per-request `_meta`.
    Modern,
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        })
    }
}

/// What the user asked for (`--protocol-era`, config key `protocolEra`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum EraPreference {
    /// Plain `initialize` (the default, as in the official Inspector).
    #[default]
    Legacy,
    /// Pin 2026-07-28, never fall back.
    Modern,
    /// Probe with `server/discover`, fall back to legacy on any non-modern outcome.
    Auto,
}

impl FromStr for EraPreference {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "legacy" | "2025-11-25" => Ok(EraPreference::Legacy),
            "modern" | "2026-07-28" => Ok(EraPreference::Modern),
            "auto" => Ok(EraPreference::Auto),
            other => Err(format!(
                "unknown protocol era {other:?}: expected legacy, modern or auto"
            )),
        }
    }
}

/// Stamp the modern `_meta` envelope into `params` (creating both when absent). Keys the caller
/// already put in `_meta` are kept; ours are written last so they are always correct.
pub fn stamp_modern_meta(
    params: Option<Value>,
    version: &str,
    client_capabilities: &Value,
    client_info: &Value,
    log_level: Option<&str>,
) -> Value {
    let mut params = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    let meta = meta.as_object_mut().expect("just made an object");
    meta.insert(META_PROTOCOL_VERSION.into(), json!(version));
    meta.insert(META_CLIENT_CAPABILITIES.into(), client_capabilities.clone());
    meta.insert(META_CLIENT_INFO.into(), client_info.clone());
    if let Some(level) = log_level {
        meta.insert(META_LOG_LEVEL.into(), json!(level));
    }
    Value::Object(params)
}

/// `resultType` of a modern result; absent means `complete` (legacy servers omit it).
pub fn result_type(result: &Value) -> &str {
    result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or("complete")
}

/// Verdict of an Auto-mode `server/discover` probe (wire reference §2.6).
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeVerdict {
    /// The server speaks modern at this version.
    Modern {
        /// The version to use for subsequent requests.
        version: String,
    },
    /// Re-probe once at this version (the server named a modern version it supports).
    RetryAt {
        /// The version to retry with.
        version: String,
    },
    /// Fall back to `initialize`; the reason is shown in the trace and in Server Info.
    Legacy {
        /// Why.
        reason: String,
    },
    /// Not era evidence: the connection itself failed (auth, 5xx, network).
    NotEvidence {
        /// Why.
        reason: String,
    },
}

/// Classify a JSON-RPC outcome of the probe. `Ok(result)` is a `DiscoverResult`, `Err` a JSON-RPC
/// error. HTTP-level outcomes (401/403/5xx/network) are classified by the engine before this.
pub fn classify_probe(outcome: Result<&Value, &RpcError>, probed_version: &str) -> ProbeVerdict {
    match outcome {
        Ok(result) => {
            let supported: Vec<&str> = result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if supported.contains(&probed_version) {
                return ProbeVerdict::Modern {
                    version: probed_version.to_string(),
                };
            }
            if let Some(v) = MODERN_VERSIONS.iter().find(|v| supported.contains(v)) {
                return ProbeVerdict::Modern {
                    version: v.to_string(),
                };
            }
            ProbeVerdict::Legacy {
                reason: format!(
                    "server/discover answered, but supportedVersions {supported:?} has no modern version we speak"
                ),
            }
        }
        Err(e) => match e.code {
            UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = supported_versions(e);
                match MODERN_VERSIONS
                    .iter()
                    .find(|v| supported.iter().any(|s| s == *v) && **v != probed_version)
                {
                    Some(v) => ProbeVerdict::RetryAt {
                        version: v.to_string(),
                    },
                    None => ProbeVerdict::Legacy {
                        reason: format!(
                            "server/discover rejected {probed_version} (-32022) and names no other modern version we speak (supported: {supported:?})"
                        ),
                    },
                }
            }
            // Spec-literal: a recognised modern error means a modern server; fix the request,
            // never downgrade (wire reference §2.6; the TS SDK differs and we document that).
            HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY => ProbeVerdict::Modern {
                version: probed_version.to_string(),
            },
            code => ProbeVerdict::Legacy {
                reason: format!(
                    "server/discover answered with error {code} ({}): a legacy server",
                    e.message
                ),
            },
        },
    }
}

/// `data.supported` of a `-32022` (or legacy `initialize`) error.
pub fn supported_versions(e: &RpcError) -> Vec<String> {
    e.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_meta_and_keeps_user_keys() {
        let p = stamp_modern_meta(
            Some(json!({"name": "x", "_meta": {"progressToken": 7}})),
            MODERN_VERSION,
            &json!({"elicitation": {}}),
            &json!({"name": "mcpscope", "version": "0.1.0"}),
            Some("debug"),
        );
        let meta = &p["_meta"];
        assert_eq!(meta["progressToken"], 7);
        assert_eq!(meta[META_PROTOCOL_VERSION], MODERN_VERSION);
        assert_eq!(meta[META_CLIENT_CAPABILITIES]["elicitation"], json!({}));
        assert_eq!(meta[META_LOG_LEVEL], "debug");
        assert_eq!(p["name"], "x");
    }

    #[test]
    fn probe_verdicts_follow_the_wire_reference() {
        let ok = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
        assert!(matches!(
            classify_probe(Ok(&ok), MODERN_VERSION),
            ProbeVerdict::Modern { .. }
        ));
        let old = json!({"supportedVersions": ["2025-11-25"]});
        assert!(matches!(
            classify_probe(Ok(&old), MODERN_VERSION),
            ProbeVerdict::Legacy { .. }
        ));
        let e = |code: i64, data: Value| RpcError {
            code,
            message: "m".into(),
            data: Some(data),
        };
        assert!(matches!(
            classify_probe(Err(&e(-32601, json!(null))), MODERN_VERSION),
            ProbeVerdict::Legacy { .. }
        ));
        assert!(matches!(
            classify_probe(
                Err(&e(-32022, json!({"supported": ["2025-11-25"]}))),
                MODERN_VERSION
            ),
            ProbeVerdict::Legacy { .. }
        ));
        assert!(matches!(
            classify_probe(Err(&e(-32020, json!(null))), MODERN_VERSION),
            ProbeVerdict::Modern { .. }
        ));
    }
}
