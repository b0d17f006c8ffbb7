//! MCP Apps (`io.modelcontextprotocol/ui`, mcp-wire-reference §9) in the core, for every view:
//! which listed tools have an app ([`meta`]), the app's UI resource read through the normal
//! request path and checked ([`resource`], its policy in [`csp`]), the visibility rules every
//! `tools/call` obeys ([`refusal`], called by `conn::call`), and the app's `postMessage` traffic
//! as frames of source `app` ([`frames`], bounded by [`gate`]).
//!
//! Nothing here renders: a view that can (the web UI) frames the HTML in its sandbox with the CSP
//! and `allow` given here; the CLI's `--app-info` prints them.

pub mod csp;
pub mod frames;
pub mod gate;
pub mod meta;
pub mod resource;

pub use frames::{AppDirection, AppMessage, MAX_APP_MESSAGE};
pub use meta::{AppTool, ToolApp, Visibility};
pub use resource::{AppResource, MAX_APP_BYTES};

use crate::error::{Error, Result};
use crate::request::Call;
use crate::state::{Inspector, Slot};
use mcpscope_proto::error_code::ErrorCode;
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// The methods an app may send through its host (the §9 table's MCP requests, and the resource
/// lists an app reads its own data from).
pub const APP_METHODS: &[&str] = &[
    "tools/call",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "ping",
];

/// The app tools of a connection's last `tools/list` (`GET /api/servers/:name/apps`).
#[derive(Debug, Clone, Serialize)]
pub struct AppList {
    /// Tools with a `ui://` app, in the server's order.
    pub apps: Vec<AppTool>,
    /// Tools whose app declaration cannot be one, with the reason.
    pub ignored: Vec<Ignored>,
}

/// A tool whose declared app was not taken.
#[derive(Debug, Clone, Serialize)]
pub struct Ignored {
    /// The tool's name.
    pub tool: String,
    /// Why.
    pub reason: String,
}

/// An app's resource, read and checked, with the history entry of its `resources/read`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadApp {
    /// The `resources/read` entry.
    pub history_id: i64,
    /// The resource.
    #[serde(flatten)]
    pub resource: AppResource,
}

/// The connected slot of `name` whose tools were listed, or why not.
fn listed_slot(app: &Inspector, name: &str) -> Result<Arc<Slot>> {
    let slot = app.slots().get(name).cloned();
    let slot = slot.ok_or_else(|| not_connected(name))?;
    if slot.st().status != Some(crate::views::Status::Connected) {
        return Err(not_connected(name));
    }
    if !slot.tools().listed {
        return Err(Error::conflict(format!(
            "no tools/list has been answered on {name:?}'s connection yet; list the tools first"
        )));
    }
    Ok(slot)
}

fn not_connected(name: &str) -> Error {
    Error::not_found(format!(
        "server {name:?} is not connected; connect it first"
    ))
}

/// The app of `tool` in `slot`'s cache: the definition parsed again (kept as text).
fn app_of(slot: &Slot, server: &str, tool: &str) -> Result<AppTool> {
    let no_app = |why: String| Error::new(ErrorCode::NoApp, why).with("tool", tool);
    let text = {
        let cache = slot.tools();
        let known = cache.get(tool).ok_or_else(|| {
            no_app(format!(
                "tool {tool:?} is not in the last tools/list of {server:?}"
            ))
        })?;
        known.app.clone()
    };
    let def: Value = text
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    match meta::tool_app(&def) {
        ToolApp::App(a) => Ok(a),
        ToolApp::Ignored(why) => Err(no_app(format!("tool {tool:?} has no usable app: {why}"))),
        ToolApp::None => Err(no_app(format!(
            "tool {tool:?} has no app (no _meta.ui.resourceUri)"
        ))),
    }
}

impl Inspector {
    /// The app tools of `name`'s last `tools/list`: `not_found` when not connected, `conflict`
    /// when nothing was listed yet. Sends nothing.
    pub fn apps(&self, name: &str) -> Result<AppList> {
        let slot = listed_slot(self, name)?;
        let mut defs: Vec<(u32, Value)> = {
            let cache = slot.tools();
            cache
                .tools
                .values()
                .filter_map(|k| Some((k.index, serde_json::from_str(k.app.as_deref()?).ok()?)))
                .collect()
        };
        defs.sort_by_key(|(i, _)| *i);
        let mut list = AppList {
            apps: Vec::new(),
            ignored: Vec::new(),
        };
        for (_, def) in defs {
            match meta::tool_app(&def) {
                ToolApp::App(a) => list.apps.push(a),
                ToolApp::Ignored(reason) => list.ignored.push(Ignored {
                    tool: def["name"].as_str().unwrap_or_default().to_string(),
                    reason,
                }),
                ToolApp::None => {}
            }
        }
        Ok(list)
    }

    /// The app tool `tool` of `name`'s last `tools/list` (`no_app` when it has none).
    pub fn app_tool(&self, name: &str, tool: &str) -> Result<AppTool> {
        let slot = listed_slot(self, name)?;
        app_of(&slot, name, tool)
    }

    /// Read `tool`'s UI resource with `resources/read` (a history entry, its frames in Traffic)
    /// and check it. A refusal is `app_refused` with the reason and the entry, also said as a
    /// `warning` event and an app frame, so Traffic shows why.
    pub async fn read_app(self: &Arc<Self>, name: &str, tool: &str) -> Result<ReadApp> {
        let slot = listed_slot(self, name)?;
        let app = app_of(&slot, name, tool)?;
        let uri = app.resource_uri.clone();
        let call = Call {
            method: "resources/read".into(),
            params: Some(json!({"uri": uri})),
            ..Call::default()
        };
        let out = self.call(name, call).await?;
        let hist = out.history_id;
        let checked = match out.result {
            Ok(result) => resource::check(&uri, &result),
            Err(e) if e.code == ErrorCode::RpcError => {
                Err(format!("the server could not read {uri}: {}", e.message))
            }
            Err(e) => return Err(e),
        };
        match checked {
            Ok(resource) => Ok(ReadApp {
                history_id: hist,
                resource,
            }),
            Err(why) => {
                self.warn(name, format!("the app of {tool:?} was refused: {why}"));
                self.app_note(&slot, tool, "", format!("refused: {why}"), Some(hist))
                    .await;
                Err(Error::new(ErrorCode::AppRefused, why)
                    .with("historyId", hist)
                    .with("uri", uri))
            }
        }
    }

    /// A `warning` event of `server`.
    pub(crate) fn warn(&self, server: &str, message: String) {
        self.events
            .publish(crate::events::Event::Warning(crate::events::WarningEvent {
                server: server.to_string(),
                message,
                frame_seq: None,
            }));
    }
}

/// Why `c` may not be sent on `slot`'s connection, if it may not: the visibility rules
/// (mcp-wire-reference §9). From a view (no `app`), a `tools/call` of a tool whose visibility
/// lacks "model" is refused — an app-only tool is never callable from Tools; from an app, only
/// [`APP_METHODS`] pass, the app must be an app tool of this connection (so never another
/// server's), and a `tools/call` of a tool lacking "app" is refused. A tool the last `tools/list`
/// did not name is not judged: nothing is known of it.
pub(crate) fn refusal(slot: &Slot, c: &Call) -> Option<Error> {
    if let Some(origin) = &c.app {
        if !APP_METHODS.contains(&c.method.as_str()) {
            return Some(Error::new(
                ErrorCode::AppRefused,
                format!(
                    "an app may not send {:?}; it may send {}",
                    c.method,
                    APP_METHODS.join(", ")
                ),
            ));
        }
        let is_app = slot.tools().get(origin).is_some_and(|k| k.app.is_some());
        if !is_app {
            return Some(Error::new(
                ErrorCode::AppRefused,
                format!(
                    "{origin:?} is not an app tool of the last tools/list of {:?}",
                    slot.name
                ),
            ));
        }
    }
    if c.method != "tools/call" {
        return None;
    }
    let target = c.params.as_ref()?.get("name")?.as_str()?;
    let visibility = slot.tools().get(target)?.visibility;
    let refused = match &c.app {
        None if !visibility.model() => Some(format!(
            "tool {target:?} is not visible to the model (_meta.ui.visibility lacks \"model\"): only its app may call it"
        )),
        Some(origin) if !visibility.app() => Some(format!(
            "the app of {origin:?} may not call tool {target:?}: its _meta.ui.visibility lacks \"app\""
        )),
        _ => None,
    };
    refused.map(|why| Error::new(ErrorCode::ToolNotVisible, why).with("tool", target))
}
