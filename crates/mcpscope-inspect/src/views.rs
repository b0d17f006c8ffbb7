//! Shapes the views receive that are built from engine or store types: `HistoryEntry`,
//! `ServerView` (typed: they travel in events, and the SPA's types are generated from them),
//! `SavedRequest`, `ServerInfo` (see `docs/web-api.md`).

use crate::capabilities::AdvertisedCapabilities;
use crate::catalog::CatalogEntry;
use crate::time::rfc3339;
use mcpscope_client::ServerInfo;
use mcpscope_store::{Child, Entry, NewEntry, SavedRequest};
use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

/// The status dot of a server card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Disconnected,
    Connecting,
    Connected,
    Failed,
}

fn parse(text: Option<&str>) -> Value {
    match text {
        None => Value::Null,
        Some(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string())),
    }
}

/// `HistoryEntry` (docs/web-api.md): one request's row, and in detail its `children` (what the
/// request caused: progress, logs, server requests, interactions) and `frames`.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// Its id.
    pub id: i64,
    /// The server.
    pub server: String,
    /// The request's method.
    pub method: String,
    /// The request's params.
    pub params: Value,
    /// `pending`, `ok`, `error` or `cancelled`.
    #[ts(type = "HistoryStatus")]
    pub status: String,
    /// The result (a string holding its head when `truncated`).
    pub result: Value,
    /// The error (`ApiErrorBody`), or null.
    #[ts(type = "ApiErrorBody | Json")]
    pub error: Value,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// When it started (µs since the Unix epoch).
    pub started_at_us: u64,
    /// How long it took; null while pending.
    pub duration_ms: Option<f64>,
    /// Kept past retention.
    pub pinned: bool,
    /// The pin's label.
    pub label: Option<String>,
    /// The era of the connection it went over.
    #[ts(type = "Era | null")]
    pub era: Option<String>,
    /// The entry this one is part of (a page of a paginated list, an interaction's cause).
    pub parent_id: Option<i64>,
    /// The id the page chose, for Cancel.
    pub request_id: Option<String>,
    /// The result was cut to the view cap.
    pub truncated: bool,
    /// The whole result's length in bytes.
    pub result_size: u64,
    /// In detail only: what the request caused, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub children: Option<Vec<HistoryChild>>,
    /// In detail only: the traffic `seq`s of its frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub frames: Option<Vec<u64>>,
}

/// Something a request caused: `progress`, `log`, `serverRequest`, `notification`,
/// `interaction`, `omitted`.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryChild {
    /// What it is.
    pub kind: String,
    /// When, in ms after the request started.
    pub offset_ms: f64,
    /// Its body.
    pub data: Value,
}

impl HistoryEntry {
    /// As a JSON value (what the REST answers carry).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A `HistoryEntry`. A result longer than the cap the store applied is sent as a string holding
/// the head of its JSON text, with `truncated: true`.
pub(crate) fn history_entry(e: &Entry) -> HistoryEntry {
    let shown = e.result.as_deref().map(str::len).unwrap_or(0) as u64;
    let truncated = e.result.is_some() && shown < e.result_len;
    let result = match (&e.result, truncated) {
        (None, _) => Value::Null,
        (Some(t), true) => Value::String(t.clone()),
        (Some(t), false) => parse(Some(t)),
    };
    HistoryEntry {
        id: e.id,
        server: e.server.clone(),
        method: e.method.clone(),
        params: parse(e.params.as_deref()),
        status: e.status.clone(),
        result,
        error: parse(e.error.as_deref()),
        started_at: rfc3339(e.started_at_us),
        started_at_us: e.started_at_us,
        duration_ms: e.duration_ms,
        pinned: e.pinned,
        label: e.label.clone(),
        era: e.era.clone(),
        parent_id: e.parent_id,
        request_id: e.request_id.clone(),
        truncated,
        result_size: e.result_len,
        children: None,
        frames: None,
    }
}

/// A `HistoryEntry` just created (status `pending`).
pub(crate) fn pending_entry(id: i64, e: &NewEntry) -> HistoryEntry {
    HistoryEntry {
        id,
        server: e.server.clone(),
        method: e.method.clone(),
        params: parse(e.params.as_deref()),
        status: "pending".into(),
        result: Value::Null,
        error: Value::Null,
        started_at: rfc3339(e.started_at_us),
        started_at_us: e.started_at_us,
        duration_ms: None,
        pinned: false,
        label: None,
        era: e.era.clone(),
        parent_id: e.parent_id,
        request_id: e.request_id.clone(),
        truncated: false,
        result_size: 0,
        children: None,
        frames: None,
    }
}

/// `HistoryEntry` with `children` and `frames`.
pub(crate) fn history_detail(e: &Entry, children: &[Child]) -> HistoryEntry {
    let mut v = history_entry(e);
    v.children = Some(
        children
            .iter()
            .map(|c| HistoryChild {
                kind: c.kind.clone(),
                offset_ms: c.offset_ms,
                data: parse(Some(&c.data)),
            })
            .collect(),
    );
    v.frames = Some(e.frames.clone());
    v
}

/// `ServerView` (docs/web-api.md): a server card.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    /// Its name in the catalog.
    pub name: String,
    /// Its `mcp.json` entry.
    #[ts(type = "CatalogEntry")]
    pub entry: CatalogEntry,
    /// `stdio`, `http` or `sse`.
    #[ts(type = "Transport")]
    pub transport: &'static str,
    /// The command line or URL, as text.
    pub target: String,
    /// The status dot.
    #[ts(type = "ServerStatus")]
    pub(crate) status: Status,
    /// Why the last connection failed (`ApiErrorBody`).
    #[ts(type = "ApiErrorBody | null")]
    pub error: Option<Value>,
    /// The last ping's round trip, while connected.
    pub latency_ms: Option<u64>,
    /// The era, while connected.
    #[ts(type = "Era | null")]
    pub era: Option<String>,
    /// The negotiated protocol version, while connected.
    pub protocol_version: Option<String>,
    /// The number of its latest connection attempt (0: never). A new connection starts with an
    /// empty tool cache, so a view lists afresh whenever this moves (a reconnect included).
    pub connection: u64,
}

/// A `SavedRequest`.
pub(crate) fn saved(s: &SavedRequest) -> Value {
    json!({
        "id": s.id,
        "name": s.name,
        "server": s.server,
        "method": s.method,
        "params": parse(s.params.as_deref()),
        "createdAt": rfc3339(s.created_at_us),
        "createdAtUs": s.created_at_us,
    })
}

/// The engine's `ServerInfo` plus what we declared (`clientCapabilities`: mcpscope's own with
/// the connection's `advertised` settings applied) and the connection kind the Server Info
/// screen names (`stateless`, `session`, `sessionless legacy`).
pub(crate) fn server_info(info: &ServerInfo, advertised: &AdvertisedCapabilities) -> Value {
    let mut v = serde_json::to_value(info).unwrap_or(Value::Null);
    v["clientCapabilities"] = advertised.advertise(info.era);
    v["connectionKind"] = json!(match (info.era, &info.session_id) {
        (mcpscope_proto::era::Era::Modern, _) => "stateless",
        (_, Some(_)) => "session",
        (_, None) => "sessionless legacy",
    });
    v
}
