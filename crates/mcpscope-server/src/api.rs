//! The `/api` routes (`docs/web-api.md`): thin handlers that extract, ask the inspector core
//! (`mcpscope-inspect`), and shape the answer. No handler touches a session, a frame or SQLite.

use crate::error::{ApiError, ApiResult, Json};
use crate::extract::{OptionalJson, Path, Query};
use crate::state::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use mcpscope_inspect::time::parse_time_us;
use mcpscope_inspect::{Call, CallOutcome, CatalogEntry, FramePage, Inspector, RegistryChoice};
use mcpscope_store::HistoryQuery;
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
        .route("/events", get(crate::sse::events))
        .fallback(api_not_found)
}

async fn api_not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no API route {}; see docs/web-api.md", uri.path()))
}

fn app(s: &AppState) -> &Arc<Inspector> {
    &s.inspector
}

// ----- catalog -----

async fn about(State(s): State<AppState>) -> Json<Value> {
    let catalog = app(&s).catalog_path().await;
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "catalog": catalog.map(|p| p.display().to_string()),
        "history": app(&s).store().path().display().to_string(),
        "auth": s.security.token.is_some(),
    }))
}

async fn list_servers(State(s): State<AppState>) -> Json<Value> {
    Json(json!({"servers": app(&s).servers().await}))
}

#[derive(Deserialize)]
struct AddServer {
    name: String,
    entry: CatalogEntry,
}

async fn add_server(State(s): State<AppState>, Json(b): Json<AddServer>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).add_server(&b.name, b.entry).await?))
}

#[derive(Deserialize)]
struct UpdateServer {
    name: Option<String>,
    entry: CatalogEntry,
}

async fn update_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<UpdateServer>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).update_server(&name, b.name, b.entry).await?))
}

async fn delete_server(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    app(&s).remove_server(&name).await?;
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Text {
    text: String,
}

async fn import_mcp_json(State(s): State<AppState>, Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).import_mcp_json(&b.text).await?))
}

async fn preview_registry(Json(b): Json<Text>) -> ApiResult<Json<Value>> {
    let p = mcpscope_inspect::import::preview_registry(&b.text)?;
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
    let choice = match (b.choice.package, b.choice.remote) {
        (Some(i), None) => RegistryChoice::Package(i),
        (None, Some(i)) => RegistryChoice::Remote(i),
        _ => {
            return Err(ApiError::usage(
                "choose exactly one: {\"package\": index} or {\"remote\": index}",
            ));
        }
    };
    Ok(Json(
        app(&s)
            .add_from_registry(&b.text, choice, &b.name, &b.env)
            .await?,
    ))
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
    Ok(Json(app(&s).connect(&name, b.protocol_era).await?))
}

async fn disconnect(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    app(&s).disconnect(&name).await?;
    Ok(Json(json!({})))
}

async fn info(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).server_info(&name)?))
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
    Ok(Json(
        app(&s).set_protocol_era(&name, &b.protocol_era).await?,
    ))
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
    Ok(Json(app(&s).set_log_level(&name, &b.level).await?))
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

fn outcome_response(out: CallOutcome, extra: Option<Value>) -> Response {
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
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn request(
    State(s): State<AppState>,
    Path(name): Path<String>,
    Json(b): Json<Map<String, Value>>,
) -> ApiResult<Response> {
    let c = call_of(&b)?;
    let out = app(&s).call(&name, c).await?;
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
    let out = app(&s).call(&name, c).await?;
    let extra = out.excluded_tools.as_ref().map(|ex| {
        json!({"excludedTools": ex.iter().map(|(n, r)| json!({"name": n, "reason": r})).collect::<Vec<_>>()})
    });
    Ok(outcome_response(out, extra))
}

async fn cancel(State(s): State<AppState>, Path(request_id): Path<String>) -> Json<Value> {
    Json(json!({"cancelled": app(&s).cancel(&request_id)}))
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
    let schema = app(&s).tool_schema(&name, &tool)?;
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
    let page = FramePage {
        after: q.after,
        before: q.before,
        limit: q.limit,
        sources: q
            .source
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
    };
    let rendered = app(&s).frames(&name, page).await?;
    // Each frame is JSON text already (rendered once, when it was recorded).
    let body = format!("{{\"frames\":[{}]}}", rendered.join(","));
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn frame_body(
    State(s): State<AppState>,
    Path((name, seq)): Path<(String, u64)>,
) -> ApiResult<Response> {
    let body = app(&s).frame_body(&name, seq).await?;
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
    let page = app(&s).history(q).await?;
    Ok(Json(json!({
        "entries": page.entries,
        "nextBefore": page.next_before,
    })))
}

async fn export_history(
    State(s): State<AppState>,
    Query(p): Query<HistoryParams>,
) -> ApiResult<Response> {
    let q = history_query(&p, 100_000, 100_000)?;
    let doc = app(&s).export_history(q).await?;
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    Ok(download(body, "application/json", "mcpscope-history.json"))
}

async fn history_entry(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).history_entry(id).await?))
}

async fn history_result(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Response> {
    let text = app(&s).history_result(id).await?;
    Ok(download(
        text.into_bytes(),
        "application/json",
        &format!("result-{id}.json"),
    ))
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
    Ok(Json(app(&s).pin(id, b.label).await?))
}

async fn unpin(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).unpin(id).await?))
}

#[derive(Deserialize)]
struct ClearParams {
    server: Option<String>,
}

async fn clear_history(
    State(s): State<AppState>,
    Query(p): Query<ClearParams>,
) -> ApiResult<Json<Value>> {
    let n = app(&s).clear_history(p.server).await?;
    Ok(Json(json!({"deleted": n})))
}

async fn saved(State(s): State<AppState>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({"saved": app(&s).saved().await?})))
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
    Ok(Json(
        app(&s).save(b.name, b.server, b.method, b.params).await?,
    ))
}

async fn delete_saved(State(s): State<AppState>, Path(id): Path<i64>) -> ApiResult<Json<Value>> {
    app(&s).delete_saved(id).await?;
    Ok(Json(json!({})))
}

// ----- authorization (OAuth) -----

async fn auth_view(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).auth_view(&name).await?))
}

async fn auth_token(State(s): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).auth_token(&name).await?))
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
    Ok(Json(app(&s).reauthorize(&name, scopes).await?))
}

async fn cancel_login(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).cancel_login(&name).await?))
}

async fn forget_auth(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    Ok(Json(app(&s).forget_auth(&name).await?))
}
