//! MCP Apps in the one-shot CLI (the official Inspector's `--app-info`): a tool's app probed
//! without calling the tool, and the visibility rule of an apps-aware client.
//!
//! - `--method tools/call --tool-name X --app-info`: list the tools, find X, read its `ui://`
//!   resource and check it with the core's apps module (mime, size, effective CSP, permissions,
//!   warnings); print that summary (`--format json`: one document), the HTML only into
//!   `--output`. Exit 2 (`no_app`) when X has no app, 5 when X is not listed.
//! - `--method tools/list --app-info`: one NDJSON line per app tool (metadata only, no reads).
//! - `--advertise-apps` with a plain `tools/call`: the CLI is then an MCP Apps host, so it lists
//!   the tools first and refuses a tool whose visibility lacks "model" (`tool_not_visible`).

use super::execute::Outcome;
use super::failure::{Failure, exit, failure};
use crate::args::Args;
use crate::observer::CliObserver;
use mcpscope_client::Session;
use mcpscope_inspect::apps::meta::{self, ToolApp};
use mcpscope_inspect::apps::resource;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};
use std::io::Write;

/// Every tool of the server (every page).
pub(super) async fn list_tools(session: &Session) -> Result<Vec<Value>, Failure> {
    let list = Method::ToolsList.name();
    let listing = session
        .list_all(list, "tools", None)
        .await
        .map_err(|e| failure(&e))?;
    Ok(match listing.result.get("tools") {
        Some(Value::Array(tools)) => tools.clone(),
        _ => Vec::new(),
    })
}

/// `--advertise-apps` before a `tools/call`: refuse a tool the model may not call.
pub(super) async fn check_visible(session: &Session, name: &str) -> Result<(), Failure> {
    let tools = list_tools(session).await?;
    let Some(tool) = tools.iter().find(|t| t["name"] == name) else {
        return Ok(());
    };
    let (visibility, _, _) = meta::visibility(tool);
    if visibility.model() {
        return Ok(());
    }
    Err(Failure::new(
        ErrorCode::ToolNotVisible,
        format!(
            "tool {name:?} is not visible to the model (_meta.ui.visibility lacks \"model\"): only its app may call it"
        ),
    ))
}

/// `--app-info` for `tools/list`: the app tools as NDJSON on stdout (or `--output`).
pub(super) async fn list_apps(
    session: &Session,
    observer: &CliObserver,
    output: Option<std::fs::File>,
) -> Result<i32, Failure> {
    let mut lines = String::new();
    for tool in list_tools(session).await? {
        match meta::tool_app(&tool) {
            ToolApp::App(a) => {
                lines.push_str(&serde_json::to_string(&a).unwrap_or_default());
                lines.push('\n');
            }
            ToolApp::Ignored(why) => observer.on_warning(format!(
                "tool {} declares an app that cannot be one: {why}",
                tool["name"]
            )),
            ToolApp::None => {}
        }
    }
    write_out(output, lines.as_bytes(), "the app list")?;
    Ok(exit::OK)
}

/// `--app-info` for `tools/call`: the tool's app and its checked resource, without calling it.
/// The summary is the outcome to print; the HTML goes to `--output` only.
pub(super) async fn probe(
    session: &Session,
    args: &Args,
    name: &str,
    output: Option<std::fs::File>,
) -> Result<Outcome, Failure> {
    let tools = list_tools(session).await?;
    let tool = tools.iter().find(|t| t["name"] == name).ok_or_else(|| {
        Failure::new(
            ErrorCode::ToolError,
            format!("tool {name:?} is not in the server's tools/list"),
        )
    })?;
    let app = match meta::tool_app(tool) {
        ToolApp::App(a) => a,
        ToolApp::Ignored(why) => {
            return Err(Failure::new(
                ErrorCode::NoApp,
                format!("tool {name:?} has no usable app: {why}"),
            ));
        }
        ToolApp::None => {
            return Err(Failure::new(
                ErrorCode::NoApp,
                format!("tool {name:?} has no app (no _meta.ui.resourceUri)"),
            ));
        }
    };
    let read = Method::ResourcesRead.name();
    let result = session
        .request(read, Some(json!({"uri": app.resource_uri})))
        .await
        .map_err(|e| failure(&e))?;
    let checked = resource::check(&app.resource_uri, &result)
        .map_err(|why| Failure::new(ErrorCode::AppRefused, why))?;
    let mut summary = serde_json::to_value(&checked).unwrap_or_default();
    if let Some(m) = summary.as_object_mut() {
        m.shift_remove("html");
    }
    if let Some(path) = &args.output {
        write_out(output, checked.html.as_bytes(), "the app's HTML")?;
        summary["htmlWrittenTo"] = json!(path);
    }
    let result = json!({"tool": app, "resource": summary});
    Ok(Outcome {
        result,
        exit: exit::OK,
        extra: Map::new(),
        unknown_tool: None,
    })
}

/// `bytes` to the `--output` file, else stdout.
fn write_out(output: Option<std::fs::File>, bytes: &[u8], what: &str) -> Result<(), Failure> {
    let r = match output {
        Some(mut f) => f.write_all(bytes).and_then(|_| f.flush()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes).and_then(|_| out.flush())
        }
    };
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(
            ErrorCode::OutputFailed,
            format!("cannot write {what}: {e}"),
        )),
    }
}
