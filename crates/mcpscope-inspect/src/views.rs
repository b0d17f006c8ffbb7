//! JSON shapes the API sends that are built from engine or store types: `HistoryEntry`,
//! `SavedRequest`, `ServerInfo` (see `docs/web-api.md`).

use crate::time::rfc3339;
use mcpscope_client::{ServerInfo, full_capabilities};
use mcpscope_store::{Child, Entry, NewEntry, SavedRequest};
use serde_json::{Value, json};

fn parse(text: Option<&str>) -> Value {
    match text {
        None => Value::Null,
        Some(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string())),
    }
}

/// A `HistoryEntry`. A result longer than the cap the store applied is sent as a string holding
/// the head of its JSON text, with `truncated: true`.
pub(crate) fn history_entry(e: &Entry) -> Value {
    let shown = e.result.as_deref().map(str::len).unwrap_or(0) as u64;
    let truncated = e.result.is_some() && shown < e.result_len;
    let result = match (&e.result, truncated) {
        (None, _) => Value::Null,
        (Some(t), true) => Value::String(t.clone()),
        (Some(t), false) => parse(Some(t)),
    };
    json!({
        "id": e.id,
        "server": e.server,
        "method": e.method,
        "params": parse(e.params.as_deref()),
        "status": e.status,
        "result": result,
        "error": parse(e.error.as_deref()),
        "startedAt": rfc3339(e.started_at_us),
        "startedAtUs": e.started_at_us,
        "durationMs": e.duration_ms,
        "pinned": e.pinned,
        "label": e.label,
        "era": e.era,
        "parentId": e.parent_id,
        "requestId": e.request_id,
        "truncated": truncated,
        "resultSize": e.result_len,
    })
}

/// A `HistoryEntry` just created (status `pending`).
pub(crate) fn pending_entry(id: i64, e: &NewEntry) -> Value {
    json!({
        "id": id,
        "server": e.server,
        "method": e.method,
        "params": parse(e.params.as_deref()),
        "status": "pending",
        "result": null,
        "error": null,
        "startedAt": rfc3339(e.started_at_us),
        "startedAtUs": e.started_at_us,
        "durationMs": null,
        "pinned": false,
        "label": null,
        "era": e.era,
        "parentId": e.parent_id,
        "requestId": e.request_id,
        "truncated": false,
        "resultSize": 0,
    })
}

/// `HistoryEntry` with `children` and `frames`.
pub(crate) fn history_detail(e: &Entry, children: &[Child]) -> Value {
    let mut v = history_entry(e);
    v["children"] = Value::Array(
        children
            .iter()
            .map(|c| json!({"kind": c.kind, "offsetMs": c.offset_ms, "data": parse(Some(&c.data))}))
            .collect(),
    );
    v["frames"] = json!(e.frames);
    v
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

/// The engine's `ServerInfo` plus what we declared (`clientCapabilities`) and the connection
/// kind the Server Info screen names (`stateless`, `session`, `sessionless legacy`).
pub(crate) fn server_info(info: &ServerInfo) -> Value {
    let mut v = serde_json::to_value(info).unwrap_or(Value::Null);
    v["clientCapabilities"] = full_capabilities(info.era);
    v["connectionKind"] = json!(match (info.era, &info.session_id) {
        (mcpscope_proto::era::Era::Modern, _) => "stateless",
        (_, Some(_)) => "session",
        (_, None) => "sessionless legacy",
    });
    v
}
