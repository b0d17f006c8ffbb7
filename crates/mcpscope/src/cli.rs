//! The one-shot CLI: connect, run one method, print the result, disconnect — with exit codes and
//! a one-line JSON error on stderr that scripts and CI can rely on.

use crate::args::{Args, ElicitationArg, FormatArg};
use crate::observer::CliObserver;
use crate::resolve::{UsageError, coerced_map, key_value, resolve};
use crate::responder::CliResponder;
use mcpscope_client::{ClientError, RequestOptions, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::error_code::ErrorCode;
use serde_json::{Map, Value, json};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// Exit codes, as in the official Inspector's CLI (the table lives in `mcpscope-proto`).
pub use mcpscope_proto::error_code::exit;

/// A failure with the fields of the stderr JSON line; its exit code follows from its code.
pub struct Failure {
    /// Machine-readable code (`usage`, `auth_required`, `unreachable`, `tool_error`, …).
    pub code: ErrorCode,
    /// Human message.
    pub message: String,
    /// Extra fields.
    pub extra: Map<String, Value>,
}

impl Failure {
    /// A failure with no extra fields.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            extra: Map::new(),
        }
    }

    /// The process exit code.
    pub fn exit(&self) -> i32 {
        self.code.exit_code()
    }

    /// The one JSON line for stderr.
    pub fn json_line(&self) -> String {
        let mut e = Map::new();
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        e.extend(self.extra.clone());
        json!({"error": e}).to_string()
    }
}

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Failure {
        Failure::new(ErrorCode::Usage, e.0)
    }
}

/// An engine error as the CLI reports it: the engine's one code, except that a JSON-RPC error
/// to `tools/call` is a tool error (exit 5: the official Inspector's "failed or does not exist").
fn failure(e: &ClientError, method: &str) -> Failure {
    let code = match e.code() {
        ErrorCode::RpcError if method == "tools/call" => ErrorCode::ToolError,
        code => code,
    };
    Failure {
        code,
        message: e.to_string(),
        extra: e.error_fields(),
    }
}

/// What to print at the end.
struct Outcome {
    result: Value,
    exit: i32,
    extra: Map<String, Value>,
}

/// Run the CLI; returns the exit code.
pub async fn run(args: Args) -> i32 {
    let format = args.format;
    let quiet = args.quiet;
    match run_inner(args).await {
        Ok(code) => code,
        Err(f) => {
            if format == FormatArg::Text && !quiet {
                eprintln!("error: {}", f.message);
            }
            eprintln!("{}", f.json_line());
            f.exit()
        }
    }
}

async fn run_inner(args: Args) -> Result<i32, Failure> {
    if args.list_stored_auth {
        return list_stored_auth(&args).await;
    }
    let Some(method) = args.method.clone() else {
        return Err(
            UsageError("--cli needs --method (for example --method tools/list)".into()).into(),
        );
    };
    let resolved = resolve(&args)?;
    let oauth = crate::oauth::setup(&args, &resolved)?;
    let params = build_params(&args, &method)?;
    let trace = match &args.trace {
        Some(path) => Some(std::fs::File::create(path).map_err(|e| {
            Failure::new(
                ErrorCode::Usage,
                format!("cannot create trace file {path}: {e}"),
            )
        })?),
        None => None,
    };
    let output = match &args.output {
        Some(path) => Some(std::fs::File::create(path).map_err(|e| {
            Failure::new(
                ErrorCode::Usage,
                format!("cannot create output file {path}: {e}"),
            )
        })?),
        None => None,
    };
    let collect = matches!(
        method.as_str(),
        "subscriptions/listen" | "resources/subscribe"
    );
    let observer = Arc::new(CliObserver::new(
        trace,
        (!args.trace_secrets).then(|| resolved.secrets.clone()),
        args.lint,
        format_text(&args) && !args.quiet,
        args.show_stderr,
        collect,
    ));
    let responder = Arc::new(CliResponder {
        accept_defaults: args.elicitation == ElicitationArg::AcceptDefaults,
        elicitation_content: match &args.elicitation_json {
            Some(j) => match serde_json::from_str::<Value>(j) {
                Ok(Value::Object(m)) => Some(m),
                _ => {
                    return Err(UsageError(format!(
                        "--elicitation-json must be a JSON object, got {j}"
                    ))
                    .into());
                }
            },
            None => None,
        },
        sampling_text: args.sampling_text.clone(),
        roots: args.roots.clone(),
        verbose: format_text(&args) && !args.quiet,
    });
    let mut options = resolved.options;
    let modern_log_level = args
        .log_level
        .clone()
        .filter(|_| method != "logging/setLevel");
    options.log_level = modern_log_level.clone();
    options.transport.auth = oauth.auth_provider();

    let connect = Session::connect(resolved.target, options, responder, observer.clone());
    let session = tokio::select! {
        r = connect => r,
        _ = tokio::signal::ctrl_c() => {
            observer.finish();
            return Err(Failure::new(ErrorCode::Interrupted, "interrupted while connecting (Ctrl-C)"));
        }
    };
    let session = match session {
        Ok(s) => s,
        Err(e) => {
            observer.finish();
            // The handshake failed, not the method asked for: a refused initialize or
            // server/discover is a failed connection (exit 4), never a tool error.
            let mut f = failure(&e, "initialize");
            if matches!(e, ClientError::Rpc { .. }) {
                f.code = ErrorCode::HandshakeRefused;
            }
            f.message = format!("cannot connect to {}: {}", resolved.label, f.message);
            return Err(f);
        }
    };
    // The log level only exists per request in the modern era.
    if session.era() == Era::Legacy
        && let Some(level) = &modern_log_level
        && let Err(e) = session
            .request("logging/setLevel", Some(json!({"level": level})))
            .await
    {
        observer.on_warning(format!(
            "logging/setLevel {level} failed: {e}; continuing without it"
        ));
    }

    let tool_name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let work = execute(&session, &args, &method, params, &observer);
    let outcome = tokio::select! {
        r = work => r,
        _ = tokio::signal::ctrl_c() => {
            let n = session.cancel_all_on_wire("cancelled by the user (Ctrl-C)").await;
            session.close().await;
            observer.finish();
            return Err(Failure::new(ErrorCode::Interrupted, format!("interrupted (Ctrl-C); cancelled {n} request(s) in flight")));
        }
    };
    let outcome = outcome.map_err(|f| explain_unserved(f, &session, &method));
    // Legacy HTTP servers may send a request's logs on the GET stream, after its response on the
    // POST stream: give them a moment so the user sees them (a quiet wire ends this at once).
    // Only where logs can come — a server with the logging capability, a method that does work —
    // so a one-shot list or ping does not pay 50 ms for nothing.
    if session.era() == mcpscope_proto::era::Era::Legacy
        && session
            .server_info()
            .is_some_and(|i| i.transport == "http" && i.capabilities.get("logging").is_some())
        && may_log(&method)
    {
        session
            .settle(Duration::from_millis(50), Duration::from_millis(500))
            .await;
    }
    session.close().await;
    if let Some(e) = observer.finish() {
        eprintln!("warning: {e}");
    }
    let mut outcome = outcome?;
    if method == "initialize" {
        outcome.extra.extend(oauth.initialize_extra());
    }
    let findings = observer.findings.lock().expect("findings lock").clone();
    let mut code = outcome.exit;
    if args.lint && !findings.is_empty() && code == exit::OK {
        code = exit::LINT;
    }
    // The result itself says `isError: true`; scripts still get the one stderr line every
    // non-zero exit promises.
    let tool_failed = (code == exit::TOOL_ERROR).then(|| {
        Failure::new(
            ErrorCode::ToolError,
            format!(
                "the tool {tool_name:?} reported an error (isError: true); its result was written as usual"
            ),
        )
    });
    print_result(&args, &observer, outcome, &findings, output)?;
    if let Some(f) = tool_failed {
        if format_text(&args) && !args.quiet {
            eprintln!("error: {}", f.message);
        }
        eprintln!("{}", f.json_line());
    }
    if args.lint && format_text(&args) {
        report_lint(&findings);
    }
    if code == exit::LINT {
        let f = Failure::new(
            ErrorCode::LintFailed,
            format!(
                "{} schema finding(s) in the traffic; see above",
                findings.len()
            ),
        );
        eprintln!("{}", f.json_line());
    }
    Ok(code)
}

/// A server that advertises a capability and then answers its methods with -32601 breaks its own
/// promise. Say so: "method not found" alone reads like a typo on the user's side.
fn explain_unserved(mut f: Failure, session: &Session, method: &str) -> Failure {
    if f.extra.get("rpcCode") != Some(&json!(mcpscope_proto::era::METHOD_NOT_FOUND)) {
        return f;
    }
    let Some((capability, pointer)) = capability_of(method, session.era()) else {
        return f;
    };
    let advertised = session.server_info().is_some_and(|i| {
        i.capabilities
            .pointer(pointer)
            .is_some_and(|v| !v.is_null() && *v != json!(false))
    });
    if advertised {
        f.message.push_str(&format!(
            "; the server advertised the {capability:?} capability, so not serving {method} is a server bug"
        ));
        f.extra
            .insert("advertisedCapability".into(), json!(capability));
    }
    f
}

/// The server capability that promises `method` in `era` (its name and where it sits in the
/// capabilities object), for the methods that have one.
fn capability_of(method: &str, era: Era) -> Option<(&'static str, &'static str)> {
    match method {
        // 2026-07-28 removed these: a modern server that does not know them is right, whatever
        // it advertises (its `logging` means the per-request `_meta` level).
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe"
            if era == Era::Modern =>
        {
            None
        }
        "logging/setLevel" => Some(("logging", "/logging")),
        "completion/complete" => Some(("completions", "/completions")),
        // Subscriptions have a capability of their own; `resources` alone does not promise them.
        "resources/subscribe" | "resources/unsubscribe" => {
            Some(("resources.subscribe", "/resources/subscribe"))
        }
        m if m.starts_with("tools/") => Some(("tools", "/tools")),
        m if m.starts_with("resources/") => Some(("resources", "/resources")),
        m if m.starts_with("prompts/") => Some(("prompts", "/prompts")),
        _ => None,
    }
}

fn format_text(args: &Args) -> bool {
    args.format == FormatArg::Text
}

impl CliObserver {
    fn on_warning(&self, text: String) {
        if self.print {
            eprintln!("warning: {text}");
        }
        self.warnings.lock().expect("warnings lock").push(text);
    }
}

fn report_lint(findings: &[crate::observer::FrameFinding]) {
    if findings.is_empty() {
        eprintln!("lint: every frame is valid against the official schema");
        return;
    }
    eprintln!("lint: {} finding(s):", findings.len());
    for f in findings {
        let dir = match f.direction {
            mcpscope_proto::Direction::Out => "sent",
            _ => "received",
        };
        let m = f
            .method
            .as_deref()
            .map(|m| format!(" {m}"))
            .unwrap_or_default();
        eprintln!(
            "  frame {} ({dir}{m}, {}): {} {}",
            f.seq,
            f.definition,
            if f.path.is_empty() { "/" } else { &f.path },
            f.message
        );
    }
}

/// `--list-stored-auth`: one JSON document, or a line per stored grant.
async fn list_stored_auth(args: &Args) -> Result<i32, Failure> {
    let doc = crate::oauth::stored_auth()
        .await
        .map_err(|e| Failure::new(ErrorCode::SecretStore, e))?;
    let mut out = std::io::stdout().lock();
    let r = if args.format == FormatArg::Json {
        writeln!(out, "{doc}")
    } else {
        let grants = doc["storedAuth"].as_array().cloned().unwrap_or_default();
        let mut text = String::new();
        if grants.is_empty() {
            text.push_str(
                "no stored OAuth credentials recorded (grants stored by an mcpscope older than \
                 --list-stored-auth appear after their next login or refresh)\n",
            );
        }
        for g in &grants {
            let t = &g["tokens"];
            let what = if t.is_null() {
                "no tokens (client registration only)".to_string()
            } else {
                let expires = match t["expiresAt"].as_u64() {
                    Some(at) => format!(
                        "{} {}",
                        if t["expired"] == json!(true) {
                            "expired"
                        } else {
                            "expires"
                        },
                        mcpscope_proto::rfc3339(at * 1_000_000)
                    ),
                    None => "no expiry stated".into(),
                };
                format!(
                    "scope {}; {expires}; {}",
                    t["scope"].as_str().unwrap_or("not stated"),
                    if t["refreshToken"] == json!(true) {
                        "refresh token"
                    } else {
                        "no refresh token"
                    }
                )
            };
            text.push_str(&format!(
                "{}  {}  (issuer {})  {what}\n",
                g["profile"].as_str().unwrap_or_default(),
                g["server"].as_str().unwrap_or_default(),
                g["issuer"].as_str().unwrap_or_default(),
            ));
        }
        out.write_all(text.as_bytes())
    };
    r.map_err(|e| {
        Failure::new(
            ErrorCode::OutputFailed,
            format!("cannot write the list: {e}"),
        )
    })?;
    Ok(exit::OK)
}

fn print_result(
    args: &Args,
    observer: &CliObserver,
    outcome: Outcome,
    findings: &[crate::observer::FrameFinding],
    output: Option<std::fs::File>,
) -> Result<(), Failure> {
    let mut out: Box<dyn Write> = match output {
        Some(f) => Box::new(std::io::BufWriter::with_capacity(1 << 16, f)),
        None => Box::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        )),
    };
    let r = match args.format {
        FormatArg::Json => {
            let mut doc = Map::new();
            doc.insert("result".into(), outcome.result);
            doc.extend(outcome.extra);
            let warnings = observer.warnings.lock().expect("warnings lock").clone();
            if !warnings.is_empty() {
                doc.insert("warnings".into(), json!(warnings));
            }
            if args.lint {
                doc.insert(
                    "lint".into(),
                    serde_json::to_value(findings).unwrap_or_default(),
                );
            }
            serde_json::to_writer(&mut out, &Value::Object(doc))
                .map_err(std::io::Error::from)
                .and_then(|_| out.write_all(b"\n"))
        }
        FormatArg::Text => {
            let r = serde_json::to_writer_pretty(&mut out, &outcome.result)
                .map_err(std::io::Error::from)
                .and_then(|_| out.write_all(b"\n"));
            if !outcome.extra.is_empty() && !args.quiet {
                for (k, v) in &outcome.extra {
                    eprintln!("{k}: {v}");
                }
            }
            r
        }
    };
    match r.and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(
            ErrorCode::OutputFailed,
            format!("cannot write the result: {e}"),
        )),
    }
}

/// The method's params from the flags (over `--params-json`).
fn build_params(args: &Args, method: &str) -> Result<Map<String, Value>, UsageError> {
    let mut p = match &args.params_json {
        Some(j) => match serde_json::from_str::<Value>(j) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(UsageError(format!(
                    "--params-json must be a JSON object, got {j}"
                )));
            }
        },
        None => Map::new(),
    };
    let need = |v: &Option<String>, flag: &str| -> Result<String, UsageError> {
        v.clone()
            .ok_or_else(|| UsageError(format!("{method} needs {flag}")))
    };
    match method {
        "tools/call" => {
            if !p.contains_key("name") || args.tool_name.is_some() {
                p.insert("name".into(), json!(need(&args.tool_name, "--tool-name")?));
            }
            let arguments = match &args.tool_args_json {
                Some(j) => match serde_json::from_str::<Value>(j) {
                    Ok(Value::Object(m)) => Some(m),
                    _ => {
                        return Err(UsageError(format!(
                            "--tool-args-json must be a JSON object, got {j}"
                        )));
                    }
                },
                None if !args.tool_args.is_empty() => {
                    Some(coerced_map(&args.tool_args, "--tool-arg")?)
                }
                None => None,
            };
            if let Some(a) = arguments {
                p.insert("arguments".into(), Value::Object(a));
            } else if !p.contains_key("arguments") {
                p.insert("arguments".into(), json!({}));
            }
            if args.task && !p.contains_key("task") {
                let mut t = Map::new();
                if let Some(ttl) = args.task_ttl {
                    t.insert("ttl".into(), json!(ttl));
                }
                p.insert("task".into(), Value::Object(t));
            }
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe"
            if !p.contains_key("uri") || args.uri.is_some() =>
        {
            p.insert("uri".into(), json!(need(&args.uri, "--uri")?));
        }
        "prompts/get" => {
            if !p.contains_key("name") || args.prompt_name.is_some() {
                p.insert(
                    "name".into(),
                    json!(need(&args.prompt_name, "--prompt-name")?),
                );
            }
            if !args.prompt_args.is_empty() {
                let mut a = Map::new();
                for kv in &args.prompt_args {
                    let (k, v) = key_value(kv, "--prompt-args")?;
                    a.insert(k, json!(v));
                }
                p.insert("arguments".into(), Value::Object(a));
            }
        }
        "completion/complete" => {
            let reference =
                match (&args.prompt_name, &args.uri) {
                    (Some(n), _) => json!({"type": "ref/prompt", "name": n}),
                    (None, Some(u)) => json!({"type": "ref/resource", "uri": u}),
                    (None, None) if p.contains_key("ref") => p["ref"].clone(),
                    _ => return Err(UsageError(
                        "completion/complete needs --prompt-name or --uri (a resource template)"
                            .into(),
                    )),
                };
            p.insert("ref".into(), reference);
            if let Some(ca) = &args.complete_arg {
                let (name, value) = key_value(ca, "--complete-arg")?;
                p.insert("argument".into(), json!({"name": name, "value": value}));
            } else if !p.contains_key("argument") {
                return Err(UsageError(
                    "completion/complete needs --complete-arg NAME=PARTIAL-VALUE".into(),
                ));
            }
            if !args.context_args.is_empty() {
                let mut a = Map::new();
                for kv in &args.context_args {
                    let (k, v) = key_value(kv, "--context-arg")?;
                    a.insert(k, json!(v));
                }
                p.insert("context".into(), json!({"arguments": a}));
            }
        }
        "logging/setLevel" if !p.contains_key("level") || args.log_level.is_some() => {
            p.insert("level".into(), json!(need(&args.log_level, "--log-level")?));
        }
        "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/update"
            if !p.contains_key("taskId") || args.task_id.is_some() =>
        {
            p.insert("taskId".into(), json!(need(&args.task_id, "--task-id")?));
        }
        "subscriptions/listen" => {
            let mut n = match p.remove("notifications") {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            for kind in &args.listen {
                let key = match kind.trim() {
                    "tools" => "toolsListChanged",
                    "prompts" => "promptsListChanged",
                    "resources" => "resourcesListChanged",
                    other => {
                        return Err(UsageError(format!(
                            "--listen takes tools, prompts, resources; got {other:?}"
                        )));
                    }
                };
                n.insert(key.into(), json!(true));
            }
            if let Some(u) = &args.uri {
                n.insert("resourceSubscriptions".into(), json!([u]));
            }
            p.insert("notifications".into(), Value::Object(n));
        }
        _ => {}
    }
    if let Some(c) = &args.cursor {
        p.insert("cursor".into(), json!(c));
    }
    Ok(p)
}

fn is_list(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "resources/list" => Some("resources"),
        "resources/templates/list" => Some("resourceTemplates"),
        "prompts/list" => Some("prompts"),
        "tasks/list" => Some("tasks"),
        _ => None,
    }
}

async fn execute(
    session: &Session,
    args: &Args,
    method: &str,
    params: Map<String, Value>,
    observer: &CliObserver,
) -> Result<Outcome, Failure> {
    let ok = |result: Value| Outcome {
        result,
        exit: exit::OK,
        extra: Map::new(),
    };
    let fail = |e: ClientError| failure(&e, method);
    let params_opt = (!params.is_empty()).then(|| Value::Object(params.clone()));
    match method {
        "initialize" => {
            let info = session
                .server_info()
                .map(|i| serde_json::to_value(i).unwrap_or_default())
                .unwrap_or_default();
            Ok(ok(info))
        }
        "server/discover" if session.era() == Era::Modern => Ok(ok(session
            .server_info()
            .map(|i| i.handshake_result)
            .unwrap_or_default())),
        m if is_list(m).is_some() && args.cursor.is_none() && !args.first_page => {
            let key = is_list(m).expect("list");
            let mut result = session.list_all(m, key, params_opt).await.map_err(fail)?;
            let mut extra = Map::new();
            if m == "tools/list" {
                exclude_invalid_tools(session, &mut result, &mut extra, observer);
            }
            Ok(Outcome {
                result,
                exit: exit::OK,
                extra,
            })
        }
        "tools/call" => call_tool(session, args, params, observer).await,
        "subscriptions/listen" | "resources/subscribe" => {
            listen(session, args, method, params_opt, observer).await
        }
        _ => {
            let mut result = session.request(method, params_opt).await.map_err(fail)?;
            let mut extra = Map::new();
            if method == "tools/list" {
                exclude_invalid_tools(session, &mut result, &mut extra, observer);
            }
            Ok(Outcome {
                result,
                exit: exit::OK,
                extra,
            })
        }
    }
}

/// Modern HTTP clients must leave out tools whose `x-mcp-header` annotations are invalid; we do,
/// and say which and why (the raw list is still in the trace).
fn exclude_invalid_tools(
    session: &Session,
    result: &mut Value,
    extra: &mut Map<String, Value>,
    observer: &CliObserver,
) {
    if !session.mirrors_param_headers() {
        return;
    }
    let excluded = session.excluded_tools();
    if excluded.is_empty() {
        return;
    }
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            !excluded.iter().any(|(n, _)| n == name)
        });
    }
    for (name, reason) in &excluded {
        observer.on_warning(format!("tool {name:?} excluded: {reason}"));
    }
    extra.insert(
        "excludedTools".into(),
        json!(
            excluded
                .iter()
                .map(|(n, r)| json!({"name": n, "reason": r}))
                .collect::<Vec<_>>()
        ),
    );
}

async fn call_tool(
    session: &Session,
    args: &Args,
    params: Map<String, Value>,
    _observer: &CliObserver,
) -> Result<Outcome, Failure> {
    let fail = |e: ClientError| failure(&e, "tools/call");
    let opts = RequestOptions {
        meta: coerced_map(&args.tool_metadata, "--tool-metadata")?,
        progress: true,
        ..Default::default()
    };
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut result = session
        .request_with("tools/call", Some(Value::Object(params)), &opts)
        .await
        .map_err(fail)?;
    let mut extra = Map::new();
    // A task: wait for it and show the final result.
    let task_id =
        if session.era() == Era::Modern && mcpscope_proto::era::result_type(&result) == "task" {
            result
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_string)
        } else if session.era() == Era::Legacy {
            result
                .get("task")
                .and_then(|t| t.get("taskId"))
                .and_then(Value::as_str)
                .map(str::to_string)
        } else {
            None
        };
    if let Some(id) = task_id {
        extra.insert("task".into(), result.clone());
        let done = session.await_task(&id).await.map_err(fail)?;
        result = if session.era() == Era::Modern {
            match done.get("status").and_then(Value::as_str) {
                Some("completed") => done.get("result").cloned().unwrap_or(done.clone()),
                Some("failed") => {
                    let err = done.get("error").cloned().unwrap_or_default();
                    return Err(Failure::new(
                        ErrorCode::ToolError,
                        format!("task {id} of tool {name} failed: {err}"),
                    ));
                }
                _ => {
                    return Err(Failure::new(
                        ErrorCode::ToolError,
                        format!(
                            "task {id} of tool {name} ended with status {}",
                            done.get("status").unwrap_or(&Value::Null)
                        ),
                    ));
                }
            }
        } else {
            done
        };
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(Outcome {
        result,
        exit: if is_error { exit::TOOL_ERROR } else { exit::OK },
        extra,
    })
}

/// Whether a server may log about `method` while doing it: not the lists, the handshake, `ping`
/// or a log level change, which answer from what the server already has.
fn may_log(method: &str) -> bool {
    !(method.ends_with("/list") || matches!(method, "ping" | "initialize" | "logging/setLevel"))
}

/// `subscriptions/listen` (modern) or `resources/subscribe` (legacy): collect notifications for
/// `--duration` ms, then end the subscription the era's way.
async fn listen(
    session: &Session,
    args: &Args,
    method: &str,
    params: Option<Value>,
    observer: &CliObserver,
) -> Result<Outcome, Failure> {
    let fail = |e: ClientError| failure(&e, method);
    let duration = Duration::from_millis(args.duration);
    let mut extra = Map::new();
    let result = if method == "resources/subscribe" {
        let r = session
            .request(method, params.clone())
            .await
            .map_err(fail)?;
        tokio::time::sleep(duration).await;
        if let Err(e) = session.request("resources/unsubscribe", params).await {
            observer.on_warning(format!("resources/unsubscribe failed: {e}"));
        }
        r
    } else {
        let opts = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let listen = session.request_with(method, params, &opts);
        tokio::select! {
            // On stdio a server ends a subscription with notifications/cancelled: a normal end.
            r = listen => match r {
                Err(ClientError::ServerCancelled { reason, .. }) => {
                    json!({"ended": format!("the server ended the subscription: {reason}")})
                }
                r => r.map_err(fail)?,
            },
            _ = tokio::time::sleep(duration) => {
                session.cancel_all_on_wire(&format!("listened for {} ms (--duration)", args.duration)).await;
                json!({"ended": format!("stopped after {} ms (--duration)", args.duration)})
            }
        }
    };
    extra.insert(
        "notifications".into(),
        json!(
            observer
                .notifications
                .lock()
                .expect("notifications lock")
                .clone()
        ),
    );
    Ok(Outcome {
        result,
        exit: exit::OK,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::coerce;
    use clap::Parser;

    fn params(argv: &[&str]) -> Result<Map<String, Value>, UsageError> {
        let args = Args::parse_from(std::iter::once("mcpscope").chain(argv.iter().copied()));
        build_params(&args, args.method.as_deref().unwrap())
    }

    #[test]
    fn only_methods_that_do_work_wait_for_late_logs() {
        for m in [
            "tools/list",
            "resources/templates/list",
            "ping",
            "initialize",
        ] {
            assert!(!may_log(m), "{m}");
        }
        for m in ["tools/call", "resources/read", "prompts/get", "x/custom"] {
            assert!(may_log(m), "{m}");
        }
    }

    #[test]
    fn tool_call_params() {
        let p = params(&[
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=1",
            "--tool-arg",
            "b=x",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"name": "add", "arguments": {"a": 1, "b": "x"}})
        );
        assert!(
            params(&["--method", "tools/call"])
                .err()
                .unwrap()
                .0
                .contains("--tool-name")
        );
    }

    #[test]
    fn prompt_and_completion_params() {
        let p = params(&[
            "--method",
            "prompts/get",
            "--prompt-name",
            "review",
            "--prompt-args",
            "pr=42",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"name": "review", "arguments": {"pr": "42"}})
        );
        let p = params(&[
            "--method",
            "completion/complete",
            "--prompt-name",
            "review",
            "--complete-arg",
            "style=co",
        ])
        .unwrap();
        assert_eq!(p["ref"], json!({"type": "ref/prompt", "name": "review"}));
        assert_eq!(p["argument"], json!({"name": "style", "value": "co"}));
    }

    #[test]
    fn error_line_is_one_json_object() {
        let f = Failure::new(ErrorCode::Unreachable, "boom");
        let v: Value = serde_json::from_str(&f.json_line()).unwrap();
        assert_eq!(v["error"]["code"], "unreachable");
    }

    #[test]
    fn coerce_keeps_strings() {
        assert_eq!(coerce("a b"), json!("a b"));
    }
}
