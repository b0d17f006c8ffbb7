//! The demo server's handler: one rmcp [`ServerHandler`] that answers both protocol eras.
//!
//! State lives at two levels. [`Shared`] is per process (the extra tool switch, the task stores,
//! the change bus that feeds `subscriptions/listen` streams, the legacy sessions to notify).
//! [`Session`] is per handler: rmcp builds one for the stdio process, one per legacy HTTP session
//! and one per stateless (modern) HTTP request, so anything kept there dies with them.

#![expect(
    deprecated,
    reason = "logging is deprecated by SEP-2577 (2026-07-28) but the demo must still serve it"
)]

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, atomic::Ordering},
    time::Duration,
};

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, CreateTaskResult,
        CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
        GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams, InitializeResult,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        LoggingLevel, LoggingMessageNotificationParam, MetaObject, PaginatedRequestParams,
        ProgressNotificationParam, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, Reference, Resource, ResourceContents,
        ResourceUpdatedNotificationParam, Role, ServerCapabilities, ServerConfig,
        SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, TASKS_EXTENSION_ID,
        Tool, UnsubscribeRequestParams, UpdateTaskParams,
    },
    service::{RequestContext, SubscriptionContext},
    task_manager::TaskOptions,
};
use serde_json::{Value, json};
use tokio::{sync::broadcast, task::JoinHandle};

use crate::{
    catalog, interaction, legacy_tasks, media,
    research::research,
    rounds,
    shared::{Shared, is_modern, lock, text_result, tool_error},
};

/// What the server tells clients about itself, in `initialize` and `server/discover`.
const INSTRUCTIONS: &str = "mcpscope demo server: every MCP feature in one place, for both \
protocol eras (2025-11-25 with initialize, 2026-07-28 with server/discover). Try echo, add and \
get-weather first; slow shows progress and cancellation; elicit-form, elicit-url, sample and \
list-roots ask the client for input (onboard in three rounds, elicit-url-required with \
-32042 on 2025-11-25); research runs as a task when asked; toggle-extra-tool \
changes the tool list; subscribe to demo://counter for an update every second.";

/// The private name the stdio pumps give a 2026-07-28 `ping` (see `stdio::rename_modern_ping`).
pub(crate) const REMOVED_PING: &str = "mcpscope-demo/removed/ping";
/// The name in `serverInfo`.
const SERVER_NAME: &str = "mcpscope-demo";
/// How many resources one `resources/list` page holds.
const RESOURCES_PAGE: usize = 2;
/// The largest `big` result we agree to build, so a typo cannot exhaust memory.
const BIG_LIMIT: u64 = 512 * 1024 * 1024;
/// Every logging level, least severe first (the order `logging/setLevel` thresholds use).
const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

/// Per-session state (legacy) or per-request state (modern).
#[derive(Default)]
struct Session {
    /// The `logging/setLevel` threshold; `None` until the client sets one.
    log_level: Mutex<Option<LoggingLevel>>,
    /// Legacy `resources/subscribe` tickers by URI.
    subscriptions: Mutex<HashMap<String, JoinHandle<()>>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        for (_, ticker) in lock(&self.subscriptions).drain() {
            ticker.abort();
        }
    }
}

/// The demo server. Cheap to clone; rmcp makes one per session or stateless request.
#[derive(Clone)]
pub(crate) struct DemoServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
}

impl DemoServer {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            session: Arc::new(Session::default()),
        }
    }
}

/// Puts `io.modelcontextprotocol/serverInfo` in a modern result's `_meta`, as 2026-07-28 asks
/// of every result (rmcp does it only for `server/discover` and listen results).
fn stamp_server_info(meta: &mut Option<MetaObject>, context: &RequestContext<RoleServer>) {
    if is_modern(context) {
        meta.get_or_insert_with(MetaObject::new).insert(
            "io.modelcontextprotocol/serverInfo".to_owned(),
            json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}),
        );
    }
}

fn stamp_tool_response(response: &mut CallToolResponse, context: &RequestContext<RoleServer>) {
    match response {
        CallToolResponse::Complete(result) => stamp_server_info(&mut result.meta, context),
        CallToolResponse::InputRequired(result) => stamp_server_info(&mut result.meta, context),
        CallToolResponse::Task(result) => stamp_server_info(&mut result.meta, context),
        _ => {}
    }
}

fn string_arg<'a>(args: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// Formats a sum the way a person writes it: `3`, not `3.0`.
fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Made-up but stable weather, so tests can compare runs.
fn weather_for(city: &str) -> (f64, &'static str) {
    const CONDITIONS: [&str; 4] = ["Sunny", "Partly cloudy", "Rain", "Snow"];
    let sum: u32 = city.bytes().map(u32::from).sum();
    let temperature = f64::from(sum % 35) - 5.0 + 0.5;
    (temperature, CONDITIONS[(sum % 4) as usize])
}

/// `big`: one text block of exactly `bytes` ASCII characters, up to [`BIG_LIMIT`].
fn big(args: &serde_json::Map<String, Value>) -> CallToolResponse {
    match args.get("bytes").and_then(Value::as_u64) {
        Some(bytes) if bytes <= BIG_LIMIT => {
            // `repeat` doubles its buffer with memcpy, so even 100 MB is a handful of
            // copies; truncating a pattern keeps every byte ASCII.
            let len = bytes as usize;
            let mut text = "0123456789abcdef".repeat(len / 16 + 1);
            text.truncate(len);
            CallToolResult::success(vec![ContentBlock::text(text)]).into()
        }
        Some(bytes) => tool_error(format!(
            "big refuses {bytes} bytes; the limit is {BIG_LIMIT}"
        )),
        None => tool_error("big needs a non-negative integer argument \"bytes\""),
    }
}

impl DemoServer {
    /// Answer `tools/call`: one arm per demo tool, in `tools/list` order.
    ///
    /// Long because it is one match over every tool, so the whole set and what each answers
    /// reads at a glance; an arm with more than a few lines of its own is a function below.
    async fn call_tool_inner(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let modern = is_modern(&context);
        match request.name.as_ref() {
            "echo" => match string_arg(&args, "message") {
                Some(message) => Ok(text_result(format!("Echo: {message}"))),
                None => Ok(tool_error("echo needs a string argument \"message\"")),
            },
            "add" => match (
                args.get("a").and_then(Value::as_f64),
                args.get("b").and_then(Value::as_f64),
            ) {
                (Some(a), Some(b)) => Ok(text_result(format_number(a + b))),
                _ => Ok(tool_error("add needs number arguments \"a\" and \"b\"")),
            },
            "get-weather" => {
                let Some(city) = string_arg(&args, "city") else {
                    return Ok(tool_error("get-weather needs a string argument \"city\""));
                };
                let (temperature, conditions) = weather_for(city);
                let structured = json!({"temperature": temperature, "conditions": conditions});
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(structured.to_string())]);
                result.structured_content = Some(structured);
                Ok(result.into())
            }
            "get-image" => Ok(CallToolResult::success(vec![ContentBlock::image(
                media::logo_png_base64(),
                "image/png",
            )])
            .into()),
            "get-audio" => Ok(CallToolResult::success(vec![ContentBlock::audio(
                media::tone_wav_base64(),
                "audio/wav",
            )])
            .into()),
            "get-resource-links" => Ok(CallToolResult::success(
                catalog::resources()
                    .into_iter()
                    .filter(|resource| resource.uri.starts_with("demo://"))
                    .map(ContentBlock::resource_link)
                    .collect(),
            )
            .into()),
            "get-embedded-resource" => Ok(CallToolResult::success(vec![ContentBlock::resource(
                ResourceContents::text(catalog::README, "demo://readme")
                    .with_mime_type("text/markdown"),
            )])
            .into()),
            "annotated-read" => Ok(text_result(
                "The demo value is 42. Nothing was changed: this tool is annotated readOnlyHint.",
            )),
            "delete-everything" => Ok(text_result(
                "Nothing was deleted: delete-everything is a harmless demo of destructiveHint.",
            )),
            "route-query" => Ok(route_query(&args, &context)),
            "slow" => self.slow(&args, &context).await,
            "log-every-level" => Ok(self.log_every_level(modern, &context).await),
            "toggle-extra-tool" => {
                let was_on = self.shared.extra_tool.fetch_xor(true, Ordering::SeqCst);
                self.shared.announce_tools_changed().await;
                Ok(text_result(if was_on {
                    "extra-tool removed; notifications/tools/list_changed sent."
                } else {
                    "extra-tool added; notifications/tools/list_changed sent."
                }))
            }
            "elicit-form" | "elicit-url" | "sample" | "list-roots" => {
                interaction::call(&self.shared, &request, &context).await
            }
            "end-subscriptions" => Ok(crate::listen_end::end_subscriptions(&self.shared, &args)),
            "onboard" => rounds::onboard(&self.shared, &request, &context).await,
            "elicit-url-required" => rounds::url_required(&self.shared, &request, &context).await,
            "research" => self.research(&args, modern, &context).await,
            "big" => Ok(big(&args)),
            "fail" => Ok(tool_error(
                "This tool always fails: it returns isError: true so you can see how a tool \
                 error looks (it is a result, not a JSON-RPC error).",
            )),
            "show-app" => Ok(text_result(format!(
                "The demo app is at {}; a host that speaks MCP Apps renders it.",
                catalog::APP_URI
            ))),
            catalog::APP_ONLY_TOOL => {
                let n = self.shared.app_refreshes.fetch_add(1, Ordering::SeqCst) + 1;
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(format!("refreshed {n}"))]);
                result.structured_content = Some(json!({"count": n}));
                Ok(result.into())
            }
            catalog::MODEL_ONLY_TOOL => Ok(text_result(
                "model-only answered: a host lets the model call it, never the app.",
            )),
            catalog::EXTRA_TOOL if self.shared.extra_tool.load(Ordering::SeqCst) => {
                Ok(text_result("extra-tool says hello."))
            }
            other => Err(McpError::invalid_params(
                format!("unknown tool: {other}"),
                Some(json!({"name": other})),
            )),
        }
    }

    /// `research`: as a task when a modern client supports tasks, else synchronously
    /// (cancelled with the request).
    async fn research(
        &self,
        args: &serde_json::Map<String, Value>,
        modern: bool,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(topic) = string_arg(args, "topic").map(str::to_owned) else {
            return Ok(tool_error("research needs a string argument \"topic\""));
        };
        let wants_task = modern
            && context
                .client_capabilities()
                .is_some_and(|caps| caps.supports_tasks());
        if wants_task {
            let options = TaskOptions::new()
                .with_poll_interval_ms(500)
                .with_status_message(format!("researching {topic}"));
            let task = self.shared.tasks.spawn(options, move |task| {
                Box::pin(async move {
                    let cancelled = task.clone();
                    research(&topic, async move { cancelled.cancelled().await }).await
                })
            });
            Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
        } else {
            let ct = context.ct.clone();
            match research(&topic, ct.cancelled_owned()).await {
                Ok(result) => Ok(result.into()),
                Err(_) => Err(McpError::internal_error("research was cancelled", None)),
            }
        }
    }

    async fn slow(
        &self,
        args: &serde_json::Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let duration = args
            .get("durationMs")
            .and_then(Value::as_u64)
            .unwrap_or(2000);
        let steps = args
            .get("steps")
            .and_then(Value::as_u64)
            .unwrap_or(5)
            .clamp(1, 10_000);
        let token = context.meta.get_progress_token();
        let per_step = Duration::from_millis(duration / steps);
        for step in 1..=steps {
            tokio::select! {
                () = context.ct.cancelled() => {
                    // rmcp drops the response of a cancelled request; returning stops the work.
                    return Err(McpError::internal_error("slow was cancelled", None));
                }
                () = tokio::time::sleep(per_step) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {step} of {steps}"));
                let _client_gone_ends_soon_anyway = context.peer.notify_progress(progress).await;
            }
        }
        Ok(text_result(format!("done after {steps} steps")))
    }

    async fn log_every_level(
        &self,
        modern: bool,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        // Modern clients opt in per request; legacy ones set a session threshold, and until they
        // do we send everything so the tool shows something.
        let threshold = if modern {
            context.meta.log_level()
        } else {
            Some(lock(&self.session.log_level).unwrap_or(LoggingLevel::Debug))
        };
        let Some(threshold) = threshold else {
            return text_result(
                "sent 0 log messages: the request _meta has no io.modelcontextprotocol/logLevel",
            );
        };
        let rank = |level: LoggingLevel| LEVELS.iter().position(|l| *l == level).unwrap_or(0);
        let mut sent = Vec::new();
        for level in LEVELS
            .into_iter()
            .filter(|level| rank(*level) >= rank(threshold))
        {
            let name = serde_json::to_value(level)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let message = LoggingMessageNotificationParam::new(
                level,
                json!(format!("log-every-level: this is the {name} message")),
            )
            .with_logger("demo");
            if context.peer.notify_logging_message(message).await.is_ok() {
                sent.push(name);
            }
        }
        text_result(format!(
            "sent {} log messages: {}",
            sent.len(),
            sent.join(", ")
        ))
    }
}

/// Echoes `route-query`'s arguments and the `Mcp-Param-*` headers rmcp validated against them.
fn route_query(
    args: &serde_json::Map<String, Value>,
    context: &RequestContext<RoleServer>,
) -> CallToolResponse {
    let headers = context
        .extensions
        .get::<http::request::Parts>()
        .map(|parts| {
            parts
                .headers
                .iter()
                .filter(|(name, _)| name.as_str().starts_with("mcp-param-"))
                .map(|(name, value)| {
                    let raw = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (
                        name.as_str().to_owned(),
                        Value::String(decode_header_value(&raw)),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
        });
    let report = json!({
        "received": Value::Object(args.clone()),
        "transport": if headers.is_some() { "http" } else { "stdio" },
        "mcpParamHeaders": headers.map(Value::Object).unwrap_or(Value::Null),
    });
    text_result(report.to_string())
}

/// Decodes the `=?base64?…?=` form SEP-2243 uses for values that are not plain ASCII.
fn decode_header_value(raw: &str) -> String {
    use base64::Engine as _;
    raw.strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| {
            base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()
        })
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| raw.to_owned())
}

fn completion_values(request: &CompleteRequestParams) -> &'static [&'static str] {
    let argument = request.argument.name.as_str();
    match &request.r#ref {
        Reference::Prompt(prompt) => match (prompt.name.as_str(), argument) {
            ("review", "style") => catalog::STYLES,
            ("greet", "name") => catalog::NAMES,
            _ => &[],
        },
        Reference::Resource(resource) => match (resource.uri.as_str(), argument) {
            ("demo://greeting/{name}", "name") => catalog::NAMES,
            ("demo://files/{path}", "path") => catalog::FILES,
            _ => &[],
        },
        _ => &[],
    }
}

/// One page of `resources/list` and the cursor of the next, if any. The pages are small so that
/// clients (and our tests) see pagination at work; cursors are opaque to clients, `page-N` here.
fn resource_page(
    mut all: Vec<Resource>,
    cursor: Option<&str>,
) -> Result<(Vec<Resource>, Option<String>), McpError> {
    let page = match cursor {
        None => 1,
        Some(cursor) => cursor
            .strip_prefix("page-")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| (2..=all.len().div_ceil(RESOURCES_PAGE)).contains(n))
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!("invalid cursor {cursor:?} for resources/list"),
                    Some(json!({"cursor": cursor})),
                )
            })?,
    };
    let start = (page - 1) * RESOURCES_PAGE;
    let rest = all.split_off(start.min(all.len()));
    let more = rest.len() > RESOURCES_PAGE;
    let items = rest.into_iter().take(RESOURCES_PAGE).collect();
    Ok((items, more.then(|| format!("page-{}", page + 1))))
}

/// A one-page list hands out no cursor, so any cursor it is given is one it never issued: refused
/// with -32602, as the pagination page asks (`mcpscope check`'s `pagination-invalid-cursor`).
fn no_cursor(request: Option<&PaginatedRequestParams>, method: &str) -> Result<(), McpError> {
    match request.and_then(|r| r.cursor.as_deref()) {
        None => Ok(()),
        Some(cursor) => Err(McpError::invalid_params(
            format!("invalid cursor {cursor:?} for {method}: this list has one page"),
            Some(json!({"cursor": cursor})),
        )),
    }
}

fn prompt_arg(request: &GetPromptRequestParams, name: &str) -> Option<String> {
    request
        .arguments
        .as_ref()
        .and_then(|args| args.get(name))
        .and_then(|value| match value {
            Value::String(text) => Some(text.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
        .filter(|text| !text.is_empty())
}

fn missing_argument(prompt: &str, argument: &str) -> McpError {
    McpError::invalid_params(
        format!("prompt {prompt} needs the argument {argument}"),
        None,
    )
}

impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {},
            "completions": {},
            "logging": {},
            "extensions": {TASKS_EXTENSION_ID: {}},
        }))
        .expect("capabilities are valid");
        let mut info = ServerConfig::new(capabilities).with_instructions(INSTRUCTIONS);
        info.server_info = Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"));
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        // The tasks extension belongs to 2026-07-28; legacy sessions get the 2025-11-25 core
        // tasks capability instead, added on the wire by `legacy_tasks` (rmcp cannot type it).
        if let Some(extensions) = result.capabilities.extensions.as_mut() {
            extensions.remove(TASKS_EXTENSION_ID);
            if extensions.is_empty() {
                result.capabilities.extensions = None;
            }
        }
        let mut peers = lock(&self.shared.legacy_peers);
        peers.retain(|peer| !peer.is_transport_closed());
        peers.push(context.peer.clone());
        drop(peers);
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let stamp_context = context.clone();
        let mut response = self.call_tool_inner(request, context).await?;
        stamp_tool_response(&mut response, &stamp_context);
        Ok(response)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        no_cursor(request.as_ref(), "tools/list")?;
        let mut result = ListToolsResult::with_all_items(self.shared.tools());
        stamp_server_info(&mut result.meta, &context);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.shared
            .tools()
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|request| request.cursor);
        let (page, next) = resource_page(catalog::resources(), cursor.as_deref())?;
        let mut result = ListResourcesResult::with_all_items(page);
        result.next_cursor = next;
        stamp_server_info(&mut result.meta, &context);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut result = ListResourceTemplatesResult::with_all_items(catalog::resource_templates());
        stamp_server_info(&mut result.meta, &context);
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.as_str();
        let contents = match uri {
            "demo://readme" => {
                ResourceContents::text(catalog::README, uri).with_mime_type("text/markdown")
            }
            "demo://logo.png" => {
                ResourceContents::blob(media::logo_png_base64(), uri).with_mime_type("image/png")
            }
            catalog::COUNTER_URI => ResourceContents::text(self.shared.counter().to_string(), uri)
                .with_mime_type("text/plain"),
            catalog::APP_URI => {
                ResourceContents::text(catalog::APP_HTML, uri).with_mime_type(catalog::APP_MIME)
            }
            _ => {
                if let Some(name) = uri.strip_prefix("demo://greeting/") {
                    ResourceContents::text(format!("Hello, {name}!"), uri)
                        .with_mime_type("text/plain")
                } else if let Some(path) = uri
                    .strip_prefix("demo://files/private/")
                    // The template's {path} may come percent-encoded (RFC 6570 simple expansion).
                    .or_else(|| uri.strip_prefix("demo://files/private%2F"))
                {
                    return rounds::private_file(&self.shared, &request, path, &context).await;
                } else if let Some(path) = uri.strip_prefix("demo://files/") {
                    ResourceContents::text(format!("This is the made-up file {path}.\n"), uri)
                        .with_mime_type("text/plain")
                } else {
                    // rmcp turns -32002 into -32602 for 2026-07-28 requests, as that revision wants.
                    return Err(McpError::resource_not_found(
                        format!("no resource at {uri}"),
                        Some(json!({"uri": uri})),
                    ));
                }
            }
        };
        let mut result = ReadResourceResult::new(vec![contents]);
        stamp_server_info(&mut result.meta, &context);
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        no_cursor(request.as_ref(), "prompts/list")?;
        let mut result = ListPromptsResult::with_all_items(catalog::prompts());
        stamp_server_info(&mut result.meta, &context);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let mut result = match request.name.as_str() {
            "ask-topic" => return rounds::ask_topic(&self.shared, &request, &context).await,
            "review" => {
                let pr =
                    prompt_arg(&request, "pr").ok_or_else(|| missing_argument("review", "pr"))?;
                let style = prompt_arg(&request, "style").unwrap_or_else(|| "concise".to_owned());
                GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Please review pull request {pr}. Keep the review {style}."),
                )])
                .with_description(format!("A {style} review of {pr}"))
            }
            "greet" => {
                let name = prompt_arg(&request, "name")
                    .ok_or_else(|| missing_argument("greet", "name"))?;
                GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Say hello to {name} in one friendly sentence."),
                )])
                .with_description(format!("Greets {name}"))
            }
            "showcase" => GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, "Describe this logo and summarise the readme."),
                PromptMessage::new(
                    Role::User,
                    ContentBlock::image(media::logo_png_base64(), "image/png"),
                ),
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(
                        ResourceContents::text(catalog::README, "demo://readme")
                            .with_mime_type("text/markdown"),
                    ),
                ),
            ])
            .with_description("Text, an image and an embedded resource"),
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown prompt: {other}"),
                    Some(json!({"name": other})),
                ));
            }
        };
        stamp_server_info(&mut result.meta, &context);
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let prefix = request.argument.value.to_lowercase();
        let values: Vec<String> = completion_values(&request)
            .iter()
            .filter(|value| value.to_lowercase().starts_with(&prefix))
            .map(|value| (*value).to_owned())
            .collect();
        let completion = CompletionInfo::with_all_values(values)
            .map_err(|e| McpError::internal_error(e, None))?;
        let mut result = CompleteResult::new(completion);
        stamp_server_info(&mut result.meta, &context);
        Ok(result)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if is_modern(&context) {
            // 2026-07-28 removed the method: the level travels in each request's _meta.
            return Err(McpError::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        *lock(&self.session.log_level) = Some(request.level);
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let uri = request.uri;
        if !catalog::resources()
            .iter()
            .any(|resource| resource.uri == uri)
        {
            return Err(McpError::resource_not_found(
                format!("no resource at {uri} to subscribe to"),
                Some(json!({"uri": uri})),
            ));
        }
        // Only the counter ever changes; the others are accepted and simply stay quiet.
        if uri == catalog::COUNTER_URI {
            let peer = context.peer.clone();
            let ticker = tokio::spawn(async move {
                let mut interval = tokio::time::interval(Duration::from_secs(1));
                interval.tick().await;
                loop {
                    interval.tick().await;
                    let update = ResourceUpdatedNotificationParam::new(catalog::COUNTER_URI);
                    if peer.notify_resource_updated(update).await.is_err() {
                        break;
                    }
                }
            });
            if let Some(previous) = lock(&self.session.subscriptions).insert(uri, ticker) {
                previous.abort();
            }
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if let Some(ticker) = lock(&self.session.subscriptions).remove(&request.uri) {
            ticker.abort();
        }
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = requested.clone();
        // Our prompts never change, so we do not promise prompt notifications.
        accepted.prompts_list_changed = None;
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| catalog::resources().iter().any(|r| &r.uri == *uri))
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let accepted = context.accepted().clone();
        let sink = context.sink().clone();
        let tools = accepted.tools_list_changed == Some(true);
        let counter = accepted
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|uri| uri == catalog::COUNTER_URI));
        let mut changes = self.shared.tool_changes.subscribe();
        let mut ends = self.shared.listen_ends.graceful.subscribe();
        let mut interval = tokio::time::interval(Duration::from_secs(1));
        interval.tick().await;
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                // `end-subscriptions`: returning is the graceful end (rmcp sends the result).
                _ = ends.recv() => return Ok(()),
                change = changes.recv() => {
                    if matches!(change, Err(broadcast::error::RecvError::Closed)) {
                        return Ok(());
                    }
                    if tools && sink.notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                _ = interval.tick(), if counter => {
                    if sink.notify_resource_updated(catalog::COUNTER_URI).await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(
            self.shared.tasks.get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.shared
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.shared.tasks.cancel_task(&request.task_id)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        if request.method == REMOVED_PING {
            return Err(McpError::method_not_found::<rmcp::model::PingRequestMethod>());
        }
        legacy_tasks::handle(&self.shared.legacy_tasks, request, context).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_print_like_people_write_them() {
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(3.5), "3.5");
        assert_eq!(format_number(-2.0), "-2");
    }

    #[test]
    fn base64_header_values_are_decoded() {
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="),
            "Hello, 世界"
        );
        assert_eq!(decode_header_value("us-west1"), "us-west1");
    }

    #[test]
    fn resources_come_in_pages_of_two() {
        let all = catalog::resources();
        let (first, next) = resource_page(all.clone(), None).unwrap();
        assert_eq!((first.len(), next.as_deref()), (2, Some("page-2")));
        let (second, next) = resource_page(all.clone(), Some("page-2")).unwrap();
        assert_eq!((second.len(), next), (2, None));
        assert_eq!(second[0].uri, all[2].uri);
        for bad in ["page-1", "page-3", "", "x"] {
            assert!(resource_page(all.clone(), Some(bad)).is_err(), "{bad:?}");
        }
    }
}
