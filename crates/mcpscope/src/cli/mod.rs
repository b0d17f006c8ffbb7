//! The one-shot CLI: connect, run one method, print the result, disconnect — with exit codes and
//! a one-line JSON error on stderr that scripts and CI can rely on.
//!
//! The flow, one file per step: [`params`] builds the request from the flags, [`execute`] runs
//! it on the session, [`output`] prints what came back, [`failure`] turns anything that went wrong
//! into the stderr line and exit code of the error-code table (`mcpscope_proto::error_code`).
//! [`apps`] is `--app-info` (a tool's MCP App probed without calling it) and the visibility rule
//! of `--advertise-apps`; [`validate`] checks a `tools/call`'s arguments against the tool's
//! `inputSchema` before they are sent.

mod apps;
mod execute;
mod failure;
mod output;
mod params;
mod validate;

pub(crate) use failure::edit_distance;
pub use failure::{Failure, exit};

use crate::args::{Args, ElicitationArg, FormatArg};
use crate::observer::CliObserver;
use crate::resolve::{Resolved, UsageError, resolve};
use crate::responder::{CliResponder, root_of_flag};
use crate::say;
use execute::{Outcome, collects_notifications, execute, may_log};
use failure::{connect_failure, explain_unknown_method, explain_unserved, unknown_tool};
use mcpscope_client::{ClientError, Session};
use mcpscope_proto::era::Era;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::method::Method;
use output::{format_text, print_result, report_lint};
use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Run the CLI; returns the exit code.
pub async fn run(args: Args) -> i32 {
    let format = args.format;
    let quiet = args.quiet;
    let to_stdout = args.output.is_none();
    // The run's observer, once there is one: a failure's document carries its warnings.
    let watched = OnceLock::new();
    match run_inner(args, &watched).await {
        Ok(code) => code,
        Err(f) => {
            if format == FormatArg::Text && !quiet {
                say::line(&format!("error: {}", f.message));
            }
            let warnings = watched
                .get()
                .map(|o: &Arc<CliObserver>| o.warnings.lock().expect("warnings lock").clone())
                .unwrap_or_default();
            let line = f.json_line_with(&warnings);
            // `--format json` promises one document on stdout, a failed run's too.
            if format == FormatArg::Json && to_stdout {
                println!("{line}");
            }
            say::json_line(&line);
            f.exit()
        }
    }
}

async fn run_inner(args: Args, watched: &OnceLock<Arc<CliObserver>>) -> Result<i32, Failure> {
    if args.list_stored_auth {
        return output::list_stored_auth(&args).await;
    }
    let method = args.method.clone().ok_or_else(|| {
        UsageError("--cli needs --method (for example --method tools/list)".into())
    })?;
    if args.app_info && method != Method::ToolsCall && method != Method::ToolsList {
        return Err(UsageError(format!(
            "--app-info works with --method tools/call (one tool's app) or tools/list (every app tool), not {method}"
        ))
        .into());
    }
    let resolved = resolve(&args)?;
    let oauth = crate::oauth::setup(&args.auth, &resolved)?;
    let params = params::build_params(&args, &method)?;
    let trace = create_file(args.trace.as_deref(), "trace")?;
    let output = create_file(args.output.as_deref(), "output")?;
    let observer = observer(&args, &resolved, &method, trace);
    let _ = watched.set(observer.clone());
    let responder = responder(&args, &resolved, &observer)?;
    // `--log-level` with another method: a per-request `_meta` level (modern), or a
    // `logging/setLevel` first (legacy).
    let log_level = (method != Method::LoggingSetLevel)
        .then(|| args.log_level.clone())
        .flatten();
    let mut options = resolved.options;
    options.log_level = log_level.clone();
    options.transport.auth = oauth.auth_provider();
    options.transport.standalone_stream = needs_standalone_stream(&method);
    let connecting = Session::connect(resolved.target, options, responder, observer.clone());
    let session = connect(connecting, &observer, &resolved.label).await?;
    set_legacy_log_level(&session, log_level.as_deref(), &observer).await;

    let tool_name = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if args.app_info {
        let r = app_info(&session, &args, &method, &tool_name, &observer, output).await;
        session.close().await;
        observer.finish();
        return r;
    }
    if args.advertise_apps && method == Method::ToolsCall {
        apps::check_visible(&session, &tool_name).await?;
    }
    // `--tool-arg` values that break the tool's inputSchema are named here, not sent
    // (`--no-validate` sends them anyway). JSON the user wrote out (`--tool-args-json`,
    // `--params-json`) goes exactly as written: sending a server what it should refuse is how
    // its author tests it (the conformance suite's `null` header argument is one).
    if method == Method::ToolsCall
        && !args.no_validate
        && args.tool_args_json.is_none()
        && args.params_json.is_none()
        && let Err(f) = validate::check_arguments(&session, &params).await
    {
        session.close().await;
        observer.finish();
        return Err(f);
    }
    let outcome = run_method(&session, &args, &method, params, &observer).await?;
    let outcome = outcome
        .map_err(|f| explain_unserved(f, &session, &method))
        .map_err(|f| explain_unknown_method(f, &method));
    let unknown = match &outcome {
        Ok(o) if o.exit == exit::TOOL_ERROR => unknown_tool(&session, &tool_name).await,
        Err(f) if f.code == ErrorCode::RpcError && method == Method::ToolsCall => {
            unknown_tool(&session, &tool_name).await
        }
        _ => None,
    };
    let outcome = match (outcome, unknown) {
        // A JSON-RPC error for a tool that does not exist: say which tools do.
        (Err(f), Some(mut unknown)) => {
            unknown.extra = f.extra;
            Err(unknown)
        }
        (outcome, unknown) => outcome.map(|mut o| {
            o.unknown_tool = unknown;
            o
        }),
    };
    settle_late_logs(&session, &method).await;
    observer.closing();
    session.close().await;
    if let Some(e) = observer.finish() {
        say::line(&format!("warning: {e}"));
    }
    let mut outcome = outcome?;
    if method == Method::Initialize {
        outcome.extra.extend(oauth.initialize_extra());
        outcome
            .extra
            .insert("network".into(), mcpscope_transport::network_settings());
    }
    report(&args, &observer, outcome, &tool_name, output)
}

/// `--app-info`: every app tool (tools/list) or one tool's app and resource (tools/call); the
/// tool is never called.
async fn app_info(
    session: &Session,
    args: &Args,
    method: &str,
    tool_name: &str,
    observer: &CliObserver,
    output: Option<std::fs::File>,
) -> Result<i32, Failure> {
    if method == Method::ToolsList {
        return apps::list_apps(session, observer, output).await;
    }
    let outcome = apps::probe(session, args, tool_name, output).await?;
    report(args, observer, outcome, tool_name, None)
}

/// `--trace` / `--output`: the file created, or a usage failure naming it.
fn create_file(path: Option<&str>, what: &str) -> Result<Option<std::fs::File>, Failure> {
    let Some(path) = path else { return Ok(None) };
    std::fs::File::create(path).map(Some).map_err(|e| {
        Failure::new(
            ErrorCode::Usage,
            format!("cannot create {what} file {path}: {e}"),
        )
    })
}

/// What watches the session: the trace, lint, warnings, stderr and (for a subscription) the
/// notifications collected.
fn observer(
    args: &Args,
    resolved: &Resolved,
    method: &str,
    trace: Option<std::fs::File>,
) -> Arc<CliObserver> {
    Arc::new(CliObserver::new(
        trace,
        (!args.trace_secrets).then(|| resolved.secrets.clone()),
        args.lint,
        format_text(args) && !args.quiet,
        args.show_stderr,
        collects_notifications(method),
    ))
}

/// What answers the server's questions (elicitation, sampling, roots, `input_required`): the flags
/// (roots: `--root`, else the config entry's `roots`).
fn responder(
    args: &Args,
    resolved: &Resolved,
    observer: &Arc<CliObserver>,
) -> Result<Arc<CliResponder>, Failure> {
    let elicitation_content = match &args.elicitation_json {
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
    };
    Ok(Arc::new(CliResponder {
        accept_defaults: args.elicitation == ElicitationArg::AcceptDefaults,
        elicitation_content,
        sampling_text: args.sampling_text.clone(),
        roots: match (&resolved.roots, args.roots.is_empty()) {
            (Some(configured), true) => configured.clone(),
            _ => args.roots.iter().map(|u| root_of_flag(u)).collect(),
        },
        verbose: format_text(args) && !args.quiet,
        observer: Some(observer.clone()),
        advertise_apps: args.advertise_apps || args.app_info,
    }))
}

/// The handshake, interruptible by Ctrl-C; a failure says which server could not be reached.
async fn connect(
    connecting: impl Future<Output = Result<Session, ClientError>>,
    observer: &CliObserver,
    label: &str,
) -> Result<Session, Failure> {
    let session = tokio::select! {
        r = connecting => r,
        _ = tokio::signal::ctrl_c() => {
            observer.finish();
            return Err(Failure::new(ErrorCode::Interrupted, "interrupted while connecting (Ctrl-C)"));
        }
    };
    session.map_err(|e| {
        observer.finish();
        connect_failure(&e, label)
    })
}

/// The log level only exists per request in the modern era; a legacy server gets
/// `logging/setLevel` first, and its refusal is a warning, not a failure.
async fn set_legacy_log_level(session: &Session, level: Option<&str>, observer: &CliObserver) {
    let Some(level) = level.filter(|_| session.era() == Era::Legacy) else {
        return;
    };
    let set_level = Method::LoggingSetLevel.name();
    if let Err(e) = session
        .request(set_level, Some(json!({"level": level})))
        .await
    {
        observer.on_warning(format!(
            "{set_level} {level} failed: {e}; continuing without it"
        ));
    }
}

/// The method itself, interruptible by Ctrl-C. The outer `Err` is the interruption (requests in
/// flight cancelled on the wire, the session closed); the inner result is the method's.
async fn run_method(
    session: &Session,
    args: &Args,
    method: &str,
    params: serde_json::Map<String, Value>,
    observer: &CliObserver,
) -> Result<Result<Outcome, Failure>, Failure> {
    let work = execute(session, args, method, params, observer);
    tokio::select! {
        r = work => Ok(r),
        _ = tokio::signal::ctrl_c() => {
            let n = session.cancel_all_on_wire("cancelled by the user (Ctrl-C)").await;
            session.close().await;
            observer.finish();
            Err(Failure::new(ErrorCode::Interrupted, format!("interrupted (Ctrl-C); cancelled {n} request(s) in flight")))
        }
    }
}

/// Legacy HTTP servers may send a request's logs on the GET stream, after its response on the
/// POST stream: give them a moment so the user sees them (a quiet wire ends this at once).
/// Only where logs can come — a server with the logging capability, a method that does work —
/// so a one-shot list or ping does not pay 50 ms for nothing.
async fn settle_late_logs(session: &Session, method: &str) {
    if session.era() == Era::Legacy
        && session
            .server_info()
            .is_some_and(|i| i.transport == "http" && i.capabilities.get("logging").is_some())
        && may_log(method)
    {
        session
            .settle(Duration::from_millis(50), Duration::from_millis(500))
            .await;
    }
}

/// Print the outcome and the lines every non-zero exit promises; returns the exit code.
fn report(
    args: &Args,
    observer: &CliObserver,
    mut outcome: Outcome,
    tool_name: &str,
    output: Option<std::fs::File>,
) -> Result<i32, Failure> {
    let findings = observer.findings.lock().expect("findings lock").clone();
    let mut code = outcome.exit;
    if args.lint && !findings.is_empty() && code == exit::OK {
        code = exit::LINT;
    }
    // The result itself says `isError: true`; scripts still get the one stderr line every
    // non-zero exit promises (naming the tools there are when this one does not exist).
    let unknown = outcome.unknown_tool.take();
    let tool_failed = (code == exit::TOOL_ERROR).then(|| {
        unknown.unwrap_or_else(|| Failure::new(
            ErrorCode::ToolError,
            format!(
                "the tool {tool_name:?} reported an error (isError: true); its result was written as usual"
            ),
        ))
    });
    print_result(args, observer, outcome, &findings, output)?;
    if let Some(f) = tool_failed {
        if format_text(args) && !args.quiet {
            say::line(&format!("error: {}", f.message));
        }
        say::json_line(&f.json_line());
    }
    if args.lint && format_text(args) && !args.quiet {
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
        say::json_line(&f.json_line());
    }
    Ok(code)
}

/// A one-shot waits only for the answers to its own requests, which come on the response
/// streams of its POSTs, so the legacy standalone GET stream is opened only for a method that
/// may need what arrives there: resource updates after a subscribe, and the server requests a
/// legacy server may send there while it works on a call or a prompt (or any method we do not
/// know).
fn needs_standalone_stream(method: &str) -> bool {
    let Some(method) = Method::from_name(method) else {
        return true;
    };
    !(method.list_key().is_some()
        || matches!(
            method,
            Method::Initialize
                | Method::Ping
                | Method::ResourcesRead
                | Method::CompletionComplete
                | Method::LoggingSetLevel
        ))
}
