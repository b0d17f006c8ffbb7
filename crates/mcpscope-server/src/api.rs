//! The `/api` routes (`docs/web-api.md`): thin handlers that extract, call the catalog, the
//! connections or the store, and shape the answer.

use crate::catalog::CatalogEntry;
use crate::conn::{self, Call, RESULT_CAP};
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::{OptionalJson, Path, Query};
use crate::frames::VIEW_BODY_CAP;
use crate::import::{self, RegistryChoice};
use crate::state::{AppState, Inner, Status};
use crate::time::parse_time_us;
use crate::views;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use mcpscope_store::{FrameQuery, HistoryQuery};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The `/api` router (without the security layer, which `crate::router` adds around all).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/about", get(about))
        .route("/servers", get(list_servers).post(add_server))
        .route("/servers/import", post(import_mcp_json))
        .route("/servers/import/registry", post(preview_registry))
        .route("/servers/import/registry/add", post(add_from_registry))
        .route("/servers/{name}", put(update_server).delete(delete_server))
        .route("/servers/{name}/connect", post(connect))
        .route("/servers/{name}/disconnect", post(disconnect))
        .route("/servers/{name}/info", get(info))
        .route("/servers/{name}/protocol-era", put(protocol_era))
        .route("/servers/{name}/log-level", put(log_level))
        .route("/servers/{name}/request", post(request))
        .route("/servers/{name}/list", post(list))
        .route("/servers/{name}/tools/{tool}/validate", post(validate_tool))
        .route(
            "/servers/{name}/auth",
            get(auth_view).post(reauthorize).delete(forget_auth),
        )
        .route("/servers/{name}/auth/token", get(auth_token))
        .route("/servers/{name}/auth/cancel", post(cancel_login))
        .route("/servers/{name}/frames", get(frames))
        .route("/servers/{name}/frames/{seq}/body", get(frame_body))
        .route("/requests/{request_id}/cancel", post(cancel))
        .route("/form", post(form))
        .route("/validate", post(validate))
        .route("/history", get(history).delete(clear_history))
        .route("/history/export", get(export_history))
        .route("/history/{id}", get(history_entry))
        .route("/history/{id}/result", get(history_result))
        .route("/history/{id}/pin", post(pin).delete(unpin))
        .route("/saved", get(saved).post(save))
        .route("/saved/{id}", axum::routing::delete(delete_saved))
        .route("/events", get(crate::events::events))
        .fallback(api_not_found)
}

async fn api_not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no API route {}; see docs/web-api.md", uri.path()))
}

async fn blocking<T: Send + 'static>(
    app: &Inner,
    f: impl FnOnce(&mcpscope_store::HistoryStore) -> Result<T, mcpscope_store::HistoryError>
    + Send
    + 'static,
) -> ApiResult<T> {
    let store = app.store.clone();
    Ok(tokio::task::spawn_blocking(move || f(&store)).await??)
}

fn app(s: &AppState) -> &Arc<Inner> {
    &s.inner
}

// ----- catalog -----

async fn about(State(s): State<AppState>) -> Json<Value> {
    let catalog = app(&s).catalog.lock().await;
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "catalog": catalog.path().map(|p| p.display().to_string()),
        "history": app(&s).store.path().display().to_string(),
        "auth": app(&s).security.token.is_some(),
    }))
}

async fn list_servers(State(s): State<AppState>) -> Json<Value> {
    Json(json!({"servers": app(&s).views().await}))
}

#[derive(Deserialize)]
struct AddServer {
    name: String,
    entry: CatalogEntry,
}

async fn add_server(State(s): State<AppState>, Json(b): Json<AddServer>) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let entry = b.entry.normalized();
    if let Some(p) = entry.problem() {
        return Err(ApiError::usage(format!("server {:?}: {p}", b.name)));
    }
    let entry = add_sealed(a, &b.name, entry).await?;
    Ok(Json(a.view(&b.name, &entry)))
}

#[derive(Deserialize)]
struct UpdateServer {
    name: Option<String>,
    entry: CatalogEntry,
}

/// Add `entry` with its secret values moved to the secret store (taken back if the add fails).
async fn add_sealed(a: &Inner, name: &str, entry: CatalogEntry) -> ApiResult<CatalogEntry> {
    let entry = crate::secrets::seal(a, entry).await?;
    let added = a.catalog.lock().await.add(name, entry.clone());
    if let Err(e) = added {
        crate::secrets::forget_unused(a, &entry, None).await;
        return Err(e);
    }
    a.publish_catalog().await;
    Ok(entry)
}

async fn update_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<UpdateServer>,
) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let entry = b.entry.normalized();
    if let Some(p) = entry.problem() {
        return Err(ApiError::usage(format!("server {name:?}: {p}")));
    }
    let new_name = b.name.unwrap_or_else(|| name.clone());
    let old = a.catalog.lock().await.get(&name).cloned();
    let Some(old_entry) = old.clone() else {
        return Err(ApiError::not_found(format!(
            "no server named {name:?} in the catalog"
        )));
    };
    let entry = crate::secrets::seal(a, entry).await?;
    // A connection made from the old entry would not match the card any more.
    let slot = a.slots().get(&name).cloned();
    if (new_name != name || old.as_ref() != Some(&entry))
        && let Some(slot) = slot
    {
        conn::disconnect(a, &slot).await;
        if new_name != name {
            a.slots().remove(&name);
        }
    }
    a.catalog
        .lock()
        .await
        .update(&name, &new_name, entry.clone())?;
    crate::secrets::forget_unused(a, &old_entry, Some(&entry)).await;
    a.publish_catalog().await;
    Ok(Json(a.view(&new_name, &entry)))
}

async fn delete_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let Some(old) = a.catalog.lock().await.get(&name).cloned() else {
        return Err(ApiError::not_found(format!(
            "no server named {name:?} in the catalog"
        )));
    };
    let slot = a.slots().get(&name).cloned();
    if let Some(slot) = slot {
        conn::disconnect(a, &slot).await;
    }
    a.catalog.lock().await.remove(&name)?;
    crate::secrets::forget_unused(a, &old, None).await;
    a.slots().remove(&name);
    a.publish_catalog().await;
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

async fn import_mcp_json(State(s): State<AppState>, Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let parsed = import::parse_mcp_json(&b.text)?;
    let mut added = Vec::new();
    let mut skipped: Vec<Value> = parsed
        .skipped
        .iter()
        .map(|(n, r)| json!({"name": n, "reason": r}))
        .collect();
    {
        let mut catalog = a.catalog.lock().await;
        for (name, entry) in parsed.entries {
            if catalog.get(&name).is_some() {
                skipped.push(json!({"name": name, "reason": "a server with this name is already in the catalog; rename or remove it first"}));
                continue;
            }
            match catalog.add(&name, entry) {
                Ok(()) => added.push(name),
                Err(e) if e.code == "conflict" && catalog.get(&name).is_none() => return Err(e),
                Err(e) => skipped.push(json!({"name": name, "reason": e.message})),
            }
        }
    }
    a.publish_catalog().await;
    Ok(Json(json!({"added": added, "skipped": skipped})))
}

async fn preview_registry(Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    let p = import::preview_registry(&b.text)?;
    Ok(Json(serde_json::to_value(p).unwrap_or(Value::Null)))
}

#[derive(Deserialize)]
struct Choice {
    package: Option<usize>,
    remote: Option<usize>,
}

#[derive(Deserialize)]
struct RegistryAdd {
    text: String,
    choice: Choice,
    name: String,
    #[serde(default)]
    env: Map<String, Value>,
}

async fn add_from_registry(
    State(s): State<AppState>,
    Json(b): Json<RegistryAdd>,
) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let choice = match (b.choice.package, b.choice.remote) {
        (Some(i), None) => RegistryChoice::Package(i),
        (None, Some(i)) => RegistryChoice::Remote(i),
        _ => {
            return Err(ApiError::usage(
                "choose exactly one: {\"package\": index} or {\"remote\": index}",
            ));
        }
    };
    let entry = import::registry_entry(&b.text, choice, &b.env)?;
    let entry = add_sealed(a, &b.name, entry).await?;
    Ok(Json(a.view(&b.name, &entry)))
}

// ----- connections -----

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ConnectBody {
    protocol_era: Option<String>,
}

async fn connect(
    State(s): State<AppState>,
    Path(name): Path<String>,
    OptionalJson(b): OptionalJson<ConnectBody>,
) -> ApiResult<Json<Value>> {
    Ok(Json(conn::connect(app(&s), &name, b.protocol_era).await?))
}

async fn disconnect(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    let a = app(&s);
    if a.catalog.lock().await.get(&name).is_none() {
        return Err(ApiError::not_found(format!(
            "no server named {name:?} in the catalog"
        )));
    }
    let slot = a.slots().get(&name).cloned();
    if let Some(slot) = slot {
        conn::disconnect(a, &slot).await;
        a.publish_status(&name).await;
    }
    Ok(Json(json!({})))
}

async fn info(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    let slot = app(&s).slots().get(&name).cloned();
    let info = slot.and_then(|sl| {
        let st = sl.st();
        (st.status == Some(Status::Connected))
            .then(|| st.info.clone())
            .flatten()
    });
    match info {
        Some(i) => Ok(Json(views::server_info(&i))),
        None => Err(ApiError::not_found(format!(
            "server {name:?} is not connected; connect it first"
        ))),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EraBody {
    protocol_era: String,
}

async fn protocol_era(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<EraBody>,
) -> ApiResult<Json<Value>> {
    let a = app(&s);
    b.protocol_era
        .parse::<mcpscope_proto::era::EraPreference>()
        .map_err(ApiError::usage)?;
    let entry =
        a.catalog.lock().await.get(&name).cloned().ok_or_else(|| {
            ApiError::not_found(format!("no server named {name:?} in the catalog"))
        })?;
    let mut changed = entry.clone();
    changed.protocol_era = Some(b.protocol_era.clone());
    let saved = a.catalog.lock().await.update(&name, &name, changed);
    let slot = a.slot(&name).await?;
    conn::disconnect(a, &slot).await;
    {
        let mut st = slot.st();
        // A read-only catalog (--config) cannot keep the choice: remember it for this run.
        st.era_override = match &saved {
            Ok(()) => None,
            Err(_) => Some(b.protocol_era.clone()),
        };
        st.latency_ms = None;
    }
    slot.tools().clear();
    a.events.publish("reset", &json!({"server": name}));
    if saved.is_ok() {
        a.publish_catalog().await;
    }
    Ok(Json(conn::connect(a, &name, None).await?))
}

#[derive(Deserialize)]
struct LevelBody {
    level: String,
}

async fn log_level(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<LevelBody>,
) -> ApiResult<Json<Value>> {
    let a = app(&s);
    let slot = a.slot(&name).await?;
    let (era, connected) = {
        let mut st = slot.st();
        st.log_level = Some(b.level.clone());
        (
            st.info.as_ref().map(|i| i.era),
            st.status == Some(Status::Connected),
        )
    };
    if connected && era == Some(mcpscope_proto::era::Era::Legacy) {
        let out = conn::call(
            a,
            &name,
            Call {
                method: "logging/setLevel".into(),
                params: Some(json!({"level": b.level})),
                request_id: None,
                progress: false,
                meta: Map::new(),
                timeout: None,
                pages: None,
            },
        )
        .await?;
        let result = out.result?;
        return Ok(Json(
            json!({"level": b.level, "applied": "logging/setLevel",
                              "historyId": out.history_id, "result": result}),
        ));
    }
    Ok(Json(json!({"level": b.level, "applied": "meta"})))
}

/// Read `timeoutMs`: absent → the server's default; `null` or 0 → none; a number → that.
fn timeout_of(b: &Map<String, Value>) -> ApiResult<Option<Option<Duration>>> {
    match b.get("timeoutMs") {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(v) => match v.as_u64() {
            Some(0) => Ok(Some(None)),
            Some(ms) => Ok(Some(Some(Duration::from_millis(ms)))),
            None => Err(ApiError::usage(
                "timeoutMs must be a non-negative number of milliseconds or null",
            )),
        },
    }
}

fn string_field(b: &Map<String, Value>, k: &str) -> ApiResult<Option<String>> {
    match b.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::usage(format!("{k} must be a string"))),
    }
}

fn call_of(b: &Map<String, Value>) -> ApiResult<Call> {
    let method = string_field(b, "method")?
        .filter(|m| !m.is_empty())
        .ok_or_else(|| ApiError::usage("method is required (e.g. \"tools/call\")"))?;
    let params = match b.get("params") {
        None | Some(Value::Null) => None,
        Some(p @ Value::Object(_)) => Some(p.clone()),
        Some(_) => return Err(ApiError::usage("params must be a JSON object")),
    };
    let meta = match b.get("meta") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(ApiError::usage("meta must be a JSON object")),
    };
    Ok(Call {
        method,
        params,
        request_id: string_field(b, "requestId")?,
        progress: b.get("progress").and_then(Value::as_bool).unwrap_or(false),
        meta,
        timeout: timeout_of(b)?,
        pages: None,
    })
}

fn outcome_response(out: conn::CallOutcome, extra: Option<Value>) -> Response {
    match out.result {
        Ok(result) => {
            let mut v = json!({"historyId": out.history_id, "result": result});
            if let Some(Value::Object(m)) = extra {
                for (k, x) in m {
                    v[k] = x;
                }
            }
            axum::Json(v).into_response()
        }
        Err(e) => e.into_response(),
    }
}

async fn request(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let c = call_of(&b)?;
    let out = conn::call(app(&s), &name, c).await?;
    Ok(outcome_response(out, None))
}

async fn list(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let mut c = call_of(&b)?;
    let key = string_field(&b, "key")?.unwrap_or_else(|| {
        // tools/list → tools, resources/templates/list → resourceTemplates, …
        match c.method.as_str() {
            "resources/templates/list" => "resourceTemplates".into(),
            m => m.split('/').next().unwrap_or(m).to_string(),
        }
    });
    match b.get("cursor") {
        Some(Value::String(cursor)) => {
            let mut p = match c.params.take() {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            p.insert("cursor".into(), json!(cursor));
            c.params = Some(Value::Object(p));
        }
        Some(Value::Null) | None => {
            if b.get("allPages").and_then(Value::as_bool).unwrap_or(true) {
                c.pages = Some(key);
            }
        }
        Some(_) => return Err(ApiError::usage("cursor must be a string")),
    }
    let out = conn::call(app(&s), &name, c).await?;
    let extra = out.excluded_tools.as_ref().map(|ex| {
        json!({"excludedTools": ex.iter().map(|(n, r)| json!({"name": n, "reason": r})).collect::<Vec<_>>()})
    });
    Ok(outcome_response(out, extra))
}

async fn cancel(State(s): State<AppState>, Path(request_id): Path<String>) -> Json<Value> {
    Json(json!({"cancelled": conn::cancel(app(&s), &request_id)}))
}

#[derive(Deserialize)]
struct ArgumentsBody {
    #[serde(default)]
    arguments: Value,
}

async fn validate_tool(
    State(s): State<AppState>,
    Path((name, tool)): Path<(String, String)>,
    Json(b): Json<ArgumentsBody>,
) -> ApiResult<Json<Value>> {
    let slot = app(&s).slots().get(&name).cloned();
    let schema = slot
        .and_then(|sl| {
            sl.tools()
                .get(&tool)
                .filter(|schema| !schema.is_null())
                .cloned()
        })
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "tool {tool:?} is not in the last tools/list of {name:?}; list the tools first"
            ))
        })?;
    let args = if b.arguments.is_null() {
        json!({})
    } else {
        b.arguments
    };
    let errors = mcpscope_proto::form::validate(&schema, &args)
        .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "usage", e))?;
    Ok(Json(json!({"errors": errors})))
}

#[derive(Deserialize)]
struct SchemaBody {
    schema: Value,
    #[serde(default)]
    value: Value,
}

async fn form(Json(b): Json<SchemaBody>) -> Json<Value> {
    Json(serde_json::to_value(mcpscope_proto::form::form_model(&b.schema)).unwrap_or(Value::Null))
}

async fn validate(Json(b): Json<SchemaBody>) -> ApiResult<Json<Value>> {
    let errors = mcpscope_proto::form::validate(&b.schema, &b.value)
        .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "usage", e))?;
    Ok(Json(json!({"errors": errors})))
}

// ----- traffic -----

#[derive(Deserialize)]
struct FramesQuery {
    after: Option<u64>,
    before: Option<u64>,
    limit: Option<usize>,
    source: Option<String>,
}

async fn frames(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Query(q): Query<FramesQuery>,
) -> ApiResult<Response> {
    let a = app(&s);
    let slot = a.slot(&name).await?;
    let limit = q.limit.unwrap_or(500).clamp(1, 10_000);
    let sources: Vec<String> = q
        .source
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    let first = slot.frames().first_seq();
    let mut rendered: Vec<String> = Vec::new();
    match q.after {
        // Oldest first above `after`: SQLite for what the window no longer holds, then memory.
        Some(after) => {
            if after.saturating_add(1) < first {
                let fq = FrameQuery {
                    after: Some(after),
                    before: Some(first),
                    limit,
                    sources: sources.clone(),
                };
                let server = name.clone();
                let older = blocking(a, move |st| st.frames(&server, &fq)).await?;
                rendered.extend(
                    older
                        .iter()
                        .map(|f| crate::frames::render(&f.view, &f.body, VIEW_BODY_CAP)),
                );
            }
            if rendered.len() < limit {
                let from = after.max(first.saturating_sub(1));
                let w = slot.frames().after(from, limit - rendered.len(), &sources);
                rendered.extend(w.iter().map(|f| f.render(VIEW_BODY_CAP)));
            }
        }
        // The newest `limit` below `before` (or overall): memory, then SQLite for the rest.
        None => {
            let before = q.before.unwrap_or(u64::MAX);
            let from_window = slot.frames().before(before, limit, &sources);
            let below = before.min(first);
            if from_window.len() < limit && below > 1 {
                let fq = FrameQuery {
                    after: None,
                    before: Some(below),
                    limit: limit - from_window.len(),
                    sources: sources.clone(),
                };
                let server = name.clone();
                let older = blocking(a, move |st| st.frames(&server, &fq)).await?;
                rendered.extend(
                    older
                        .iter()
                        .map(|f| crate::frames::render(&f.view, &f.body, VIEW_BODY_CAP)),
                );
            }
            rendered.extend(from_window.iter().map(|f| f.render(VIEW_BODY_CAP)));
        }
    }
    let body = format!("{{\"frames\":[{}]}}", rendered.join(","));
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn frame_body(
    State(s): State<AppState>,
    Path((name, seq)): Path<(String, u64)>,
) -> ApiResult<Response> {
    let a = app(&s);
    let slot = a.slot(&name).await?;
    let in_window = slot.frames().get(seq).map(|f| f.body.to_vec());
    let body = match in_window {
        Some(b) => b,
        None => {
            let server = name.clone();
            blocking(a, move |st| st.frame(&server, seq))
                .await?
                .map(|f| f.body)
                .ok_or_else(|| {
                    ApiError::not_found(format!(
                        "server {name:?} has no frame {seq} (pruned, or never recorded)"
                    ))
                })?
        }
    };
    let json_like = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{' || *b == b'[');
    Ok(download(
        body,
        if json_like {
            "application/json"
        } else {
            "application/octet-stream"
        },
        &format!("frame-{seq}.{}", if json_like { "json" } else { "bin" }),
    ))
}

fn download(body: Vec<u8>, content_type: &'static str, filename: &str) -> Response {
    let mut resp = Response::new(Body::from(body));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

// ----- history -----

#[derive(Deserialize, Default)]
struct HistoryParams {
    q: Option<String>,
    server: Option<String>,
    method: Option<String>,
    status: Option<String>,
    from: Option<String>,
    to: Option<String>,
    pinned: Option<String>,
    limit: Option<usize>,
    before: Option<i64>,
}

fn history_query(
    p: &HistoryParams,
    default_limit: usize,
    max_limit: usize,
) -> ApiResult<HistoryQuery> {
    let time = |v: &Option<String>, name: &str| -> ApiResult<Option<u64>> {
        match v.as_deref().filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(t) => parse_time_us(t).map(Some).ok_or_else(|| {
                ApiError::usage(format!(
                    "{name} must be an RFC 3339 time or microseconds, got {t:?}"
                ))
            }),
        }
    };
    if let Some(st) = p.status.as_deref()
        && !matches!(st, "ok" | "error" | "cancelled" | "pending")
    {
        return Err(ApiError::usage(format!(
            "status must be ok, error, cancelled or pending, got {st:?}"
        )));
    }
    Ok(HistoryQuery {
        text: p.q.clone().filter(|s| !s.trim().is_empty()),
        server: p.server.clone().filter(|s| !s.is_empty()),
        method: p.method.clone().filter(|s| !s.is_empty()),
        status: p.status.clone(),
        from_us: time(&p.from, "from")?,
        to_us: time(&p.to, "to")?,
        pinned: match p.pinned.as_deref() {
            Some("true" | "1") => Some(true),
            Some("false" | "0") => Some(false),
            _ => None,
        },
        before: p.before,
        limit: p.limit.unwrap_or(default_limit).clamp(1, max_limit),
    })
}

async fn history(
    State(s): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> ApiResult<Json<Value>> {
    let q = history_query(&p, 100, 1000)?;
    let limit = q.limit;
    let entries = blocking(app(&s), move |st| st.query(&q, RESULT_CAP)).await?;
    let next = (entries.len() == limit)
        .then(|| entries.last().map(|e| e.id))
        .flatten();
    Ok(Json(json!({
        "entries": entries.iter().map(views::history_entry).collect::<Vec<_>>(),
        "nextBefore": next,
    })))
}

async fn export_history(
    State(s): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> ApiResult<Response> {
    let q = history_query(&p, 100_000, 100_000)?;
    let entries = blocking(app(&s), move |st| st.query(&q, usize::MAX)).await?;
    let doc = json!({
        "exportedAt": crate::time::rfc3339(mcpscope_proto::now_us()),
        "entries": entries.iter().map(views::history_entry).collect::<Vec<_>>(),
    });
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    Ok(download(body, "application/json", "mcpscope-history.json"))
}

async fn history_entry(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    let found = blocking(app(&s), move |st| {
        Ok(match st.get(id, RESULT_CAP)? {
            Some(e) => {
                let children = st.children(id)?;
                Some(views::history_detail(&e, &children))
            }
            None => None,
        })
    })
    .await?;
    found
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no history entry {id}")))
}

async fn history_result(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Response> {
    let r = blocking(app(&s), move |st| st.result(id)).await?;
    match r {
        Some(text) => Ok(download(
            text.into_bytes(),
            "application/json",
            &format!("result-{id}.json"),
        )),
        None => Err(ApiError::not_found(format!(
            "history entry {id} has no result"
        ))),
    }
}

#[derive(Deserialize, Default)]
struct PinBody {
    label: Option<String>,
}

async fn pin(
    State(s): State<AppState>,
    Path(id): Path<i64>,
    OptionalJson(b): OptionalJson<PinBody>,
) -> ApiResult<Json<Value>> {
    let label = b.label.filter(|l| !l.trim().is_empty());
    let e = blocking(app(&s), move |st| st.pin(id, label.as_deref()))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no history entry {id}")))?;
    let v = views::history_entry(&e);
    app(&s).events.publish("history", &v);
    Ok(Json(v))
}

async fn unpin(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    let e = blocking(app(&s), move |st| st.unpin(id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no history entry {id}")))?;
    let v = views::history_entry(&e);
    app(&s).events.publish("history", &v);
    Ok(Json(v))
}

#[derive(Deserialize)]
struct ClearParams {
    server: Option<String>,
}

async fn clear_history(
    State(s): State<AppState>,
    Query(p): Query<ClearParams>,
) -> ApiResult<Json<Value>> {
    let server = p.server.filter(|s| !s.is_empty());
    let n = blocking(app(&s), move |st| st.clear(server.as_deref())).await?;
    Ok(Json(json!({"deleted": n})))
}

async fn saved(State(s): State<AppState>) -> ApiResult<Json<Value>> {
    let list = blocking(app(&s), |st| st.saved()).await?;
    Ok(Json(
        json!({"saved": list.iter().map(views::saved).collect::<Vec<_>>()}),
    ))
}

#[derive(Deserialize)]
struct SaveBody {
    name: String,
    server: String,
    method: String,
    #[serde(default)]
    params: Value,
}

async fn save(State(s): State<AppState>, Json(b): Json<SaveBody>) -> ApiResult<Json<Value>> {
    if b.name.trim().is_empty() || b.method.trim().is_empty() {
        return Err(ApiError::usage("a saved request needs a name and a method"));
    }
    let params = (!b.params.is_null()).then(|| b.params.to_string());
    let r = blocking(app(&s), move |st| {
        st.save(
            &b.name,
            &b.server,
            &b.method,
            params.as_deref(),
            mcpscope_proto::now_us(),
        )
    })
    .await?;
    Ok(Json(views::saved(&r)))
}

async fn delete_saved(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    if blocking(app(&s), move |st| st.delete_saved(id)).await? {
        Ok(Json(json!({})))
    } else {
        Err(ApiError::not_found(format!("no saved request {id}")))
    }
}

// ----- authorization (OAuth) -----

async fn auth_view(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(crate::auth::get_view(app(&s), &name).await?))
}

async fn auth_token(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(crate::auth::token(app(&s), &name).await?))
}

#[derive(Deserialize, Default)]
struct ReauthorizeBody {
    #[serde(default)]
    scopes: Vec<String>,
}

async fn reauthorize(
    State(s): State<AppState>,
    Path(name): Path<String>,
    OptionalJson(b): OptionalJson<ReauthorizeBody>,
) -> ApiResult<Json<Value>> {
    let scopes = b
        .scopes
        .iter()
        .flat_map(|s| s.split_whitespace())
        .map(str::to_string)
        .collect();
    Ok(Json(
        crate::auth::reauthorize(app(&s), &name, scopes).await?,
    ))
}

async fn cancel_login(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(crate::auth::cancel(app(&s), &name).await?))
}

async fn forget_auth(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(crate::auth::forget(app(&s), &name).await?))
}
