//! The client capabilities a server is told of, per server: mcpscope declares everything it can
//! answer (`mcpscope_client::full_capabilities`), and the Experimental panel changes that for
//! the next connection — `capabilities.experimental` entries, `capabilities.extensions` entries,
//! and the capabilities of the spec switched on or off one by one (a server author checks how
//! the server behaves towards a client without sampling, or with `sampling.tools`).
//!
//! The settings live in the catalog entry (`clientCapabilities`, beside `protocolEra`); a
//! read-only catalog keeps them in the slot for this run, as it does the era. A connection
//! takes them when it starts: [`Advertising`] wraps the view's responder, so both the legacy
//! `initialize` and every modern request's `_meta` carry the same object.

use futures::future::BoxFuture;
use mcpscope_client::{Responder, ServerRequest, full_capabilities};
use mcpscope_proto::RpcError;
use mcpscope_proto::era::{APP_MIME, APPS_EXTENSION, Era};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// What a server's next connection advertises beyond, or instead of, mcpscope's defaults
/// (`clientCapabilities` in `mcp.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdvertisedCapabilities {
    /// Capabilities of the spec switched on (`true`) or off (`false`), by path: `sampling`,
    /// `sampling.tools`, `elicitation.url`, `roots.listChanged`, … (the paths of
    /// [`STANDARD`]). Absent paths keep mcpscope's default.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub standard: Map<String, Value>,
    /// `capabilities.experimental`: name → its settings object.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub experimental: Map<String, Value>,
    /// `capabilities.extensions` added to mcpscope's: identifier (`vendor/name`) → settings.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
}

/// A capability of the spec a client may advertise, as the panel offers it.
pub struct StandardCapability {
    /// Its path: the key under `capabilities`, then the key under that.
    pub path: &'static str,
    /// The eras whose schema has it.
    pub eras: &'static [Era],
    /// What declaring it tells the server.
    pub description: &'static str,
}

const BOTH: &[Era] = &[Era::Legacy, Era::Modern];
const LEGACY: &[Era] = &[Era::Legacy];
const MODERN: &[Era] = &[Era::Modern];

/// The client capabilities of both revisions' `ClientCapabilities` (spec/*/schema.json), two
/// levels deep.
pub const STANDARD: &[StandardCapability] = &[
    cap("roots", BOTH, "the client can list roots (roots/list)"),
    cap(
        "roots.listChanged",
        LEGACY,
        "the client sends notifications/roots/list_changed",
    ),
    cap("sampling", BOTH, "the client can sample an LLM"),
    cap(
        "sampling.context",
        BOTH,
        "sampling honours includeContext other than \"none\"",
    ),
    cap(
        "sampling.tools",
        BOTH,
        "sampling accepts tools and toolChoice",
    ),
    cap(
        "elicitation",
        BOTH,
        "the client can elicit input from the user",
    ),
    cap("elicitation.form", BOTH, "form-mode elicitation"),
    cap("elicitation.url", BOTH, "URL-mode elicitation"),
    cap(
        "tasks",
        LEGACY,
        "the client supports task-augmented requests",
    ),
    cap("tasks.list", LEGACY, "the client supports tasks/list"),
    cap("tasks.cancel", LEGACY, "the client supports tasks/cancel"),
    cap(
        "extensions.io.modelcontextprotocol/tasks",
        MODERN,
        "the tasks extension",
    ),
    // On by default in both eras (the web UI renders apps); off to see how a server behaves
    // towards a client that cannot render one.
    cap(
        "extensions.io.modelcontextprotocol/ui",
        BOTH,
        "MCP Apps: the client renders ui:// resources (text/html;profile=mcp-app)",
    ),
];

const fn cap(
    path: &'static str,
    eras: &'static [Era],
    description: &'static str,
) -> StandardCapability {
    StandardCapability {
        path,
        eras,
        description,
    }
}

/// `path` split into its capability and the key under it (`extensions.io.x/y` →
/// `extensions`, `io.x/y`: extension identifiers contain dots themselves).
fn split(path: &str) -> (&str, Option<&str>) {
    match path.split_once('.') {
        Some((top, sub)) => (top, Some(sub)),
        None => (path, None),
    }
}

impl AdvertisedCapabilities {
    /// True when nothing differs from mcpscope's defaults.
    pub fn is_default(&self) -> bool {
        self == &AdvertisedCapabilities::default()
    }

    /// Why these settings cannot be advertised, if they cannot: an unknown path, a switch that
    /// is not a boolean, a settings value that is not an object (the schema's `JSONObject`), an
    /// extension identifier without its vendor prefix.
    pub fn problem(&self) -> Option<String> {
        for (path, on) in &self.standard {
            if !STANDARD.iter().any(|c| c.path == path) {
                let known: Vec<&str> = STANDARD.iter().map(|c| c.path).collect();
                return Some(format!(
                    "standard: unknown capability {path:?}; known: {}",
                    known.join(", ")
                ));
            }
            if !on.is_boolean() {
                return Some(format!("standard.{path} must be true or false, not {on}"));
            }
        }
        for (section, map) in [
            ("experimental", &self.experimental),
            ("extensions", &self.extensions),
        ] {
            for (name, v) in map {
                if name.trim().is_empty() {
                    return Some(format!("{section}: a name must not be empty"));
                }
                if !v.is_object() {
                    return Some(format!(
                        "{section}.{name} must be an object ({{}} for no settings), not {v}"
                    ));
                }
            }
        }
        self.extensions
            .keys()
            .find(|id| !id.contains('/'))
            .map(|id| {
                format!("extensions: {id:?} needs a vendor prefix (e.g. \"com.example/{id}\")")
            })
    }

    /// What a connection in `era` declares: mcpscope's defaults with these settings applied.
    pub fn advertise(&self, era: Era) -> Value {
        let mut caps = full_capabilities(era);
        let Some(obj) = caps.as_object_mut() else {
            return caps;
        };
        // Sub-capabilities first, then whole ones: `sampling` off wins over `sampling.tools` on.
        let ours = STANDARD.iter().filter(|c| c.eras.contains(&era));
        let (subs, tops): (Vec<_>, Vec<_>) = ours.partition(|c| c.path.contains('.'));
        for c in subs.into_iter().chain(tops) {
            if let Some(on) = self.standard.get(c.path).and_then(Value::as_bool) {
                switch(obj, c.path, on);
            }
        }
        merge(obj, "experimental", &self.experimental);
        merge(obj, "extensions", &self.extensions);
        caps
    }
}

/// Switch the capability at `path` on (present, `{}` — or `true` for the one boolean,
/// `roots.listChanged`, and the required `mimeTypes` for MCP Apps) or off (absent).
fn switch(caps: &mut Map<String, Value>, path: &str, on: bool) {
    let (top, sub) = split(path);
    match (sub, on) {
        (None, true) => {
            caps.entry(top).or_insert_with(|| json!({}));
        }
        (None, false) => {
            caps.remove(top);
        }
        (Some(sub), true) => {
            let parent = caps.entry(top).or_insert_with(|| json!({}));
            if let Some(p) = parent.as_object_mut() {
                let value = match sub {
                    "listChanged" => json!(true),
                    APPS_EXTENSION => json!({"mimeTypes": [APP_MIME]}),
                    _ => json!({}),
                };
                p.entry(sub).or_insert(value);
            }
        }
        (Some(sub), false) => {
            let emptied = match caps.get_mut(top).and_then(Value::as_object_mut) {
                Some(p) => p.remove(sub).is_some() && p.is_empty(),
                None => false,
            };
            // An `extensions` left empty is dropped (a legacy client declares none otherwise);
            // an emptied capability such as `elicitation` stays: it still means something.
            if emptied && top == "extensions" {
                caps.remove(top);
            }
        }
    }
}

/// Add `entries` under `caps[key]` (created when absent).
fn merge(caps: &mut Map<String, Value>, key: &str, entries: &Map<String, Value>) {
    if entries.is_empty() {
        return;
    }
    let slot = caps.entry(key).or_insert_with(|| json!({}));
    if let Some(m) = slot.as_object_mut() {
        for (k, v) in entries {
            m.insert(k.clone(), v.clone());
        }
    }
}

/// The view's responder, declaring the capabilities these settings make: answers go to the view
/// as before, only what the client says it can do changes.
pub(crate) struct Advertising {
    pub inner: Arc<dyn Responder>,
    pub settings: AdvertisedCapabilities,
}

impl Responder for Advertising {
    fn capabilities(&self, era: Era) -> Value {
        self.settings.advertise(era)
    }

    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>> {
        self.inner.respond(request)
    }
}

/// The panel's list of switches: each capability of the spec with its eras, whether mcpscope
/// declares it by default, and the settings' choice for it (null: the default).
pub fn standard_view(settings: &AdvertisedCapabilities) -> Value {
    let declared = |era: Era, path: &str| {
        let caps = full_capabilities(era);
        let (top, sub) = split(path);
        match sub {
            None => caps.get(top).is_some(),
            Some(s) => caps.get(top).and_then(|t| t.get(s)).is_some(),
        }
    };
    let rows: Vec<Value> = STANDARD
        .iter()
        .map(|c| {
            let defaults: Map<String, Value> = c
                .eras
                .iter()
                .map(|e| (e.to_string(), json!(declared(*e, c.path))))
                .collect();
            json!({
                "path": c.path,
                "eras": c.eras.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
                "description": c.description,
                "default": defaults,
                "chosen": settings.standard.get(c.path).cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_mcpscopes_own() {
        let s = AdvertisedCapabilities::default();
        assert_eq!(s.advertise(Era::Legacy), full_capabilities(Era::Legacy));
        assert_eq!(s.advertise(Era::Modern), full_capabilities(Era::Modern));
        assert!(s.problem().is_none());
    }

    #[test]
    fn switches_experimental_and_extensions_apply_per_era() {
        let s: AdvertisedCapabilities = serde_json::from_value(json!({
            "standard": {"sampling": false, "elicitation.url": false, "sampling.tools": true,
                         "tasks.list": true, "roots.listChanged": false},
            "experimental": {"custom_analytics": {"level": 2}},
            "extensions": {"com.example/trace": {}}
        }))
        .unwrap();
        assert!(s.problem().is_none(), "{:?}", s.problem());
        let legacy = s.advertise(Era::Legacy);
        // Off wins over a sub-path switched on: `sampling` is gone with its `tools`.
        assert!(legacy.get("sampling").is_none(), "{legacy}");
        assert_eq!(legacy["elicitation"], json!({"form": {}}));
        assert_eq!(legacy["roots"], json!({}));
        assert_eq!(legacy["tasks"], json!({"list": {}}));
        assert_eq!(
            legacy["experimental"],
            json!({"custom_analytics": {"level": 2}})
        );
        let apps = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
        assert_eq!(
            legacy["extensions"],
            json!({"io.modelcontextprotocol/ui": apps, "com.example/trace": {}})
        );
        let modern = s.advertise(Era::Modern);
        // `tasks.*` is legacy only: modern has the tasks extension instead.
        assert!(modern.get("tasks").is_none(), "{modern}");
        assert_eq!(
            modern["extensions"],
            json!({"io.modelcontextprotocol/tasks": {}, "io.modelcontextprotocol/ui": apps,
                   "com.example/trace": {}})
        );
    }

    #[test]
    fn a_sub_capability_switched_on_creates_its_parent() {
        let s: AdvertisedCapabilities =
            serde_json::from_value(json!({"standard": {"sampling": false}})).unwrap();
        assert!(s.advertise(Era::Modern).get("sampling").is_none());
        let s: AdvertisedCapabilities =
            serde_json::from_value(json!({"standard": {"sampling.context": true}})).unwrap();
        assert_eq!(s.advertise(Era::Modern)["sampling"], json!({"context": {}}));
    }

    #[test]
    fn apps_are_declared_in_both_eras_and_switched_off_per_server() {
        let apps = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
        let on = AdvertisedCapabilities::default();
        for era in [Era::Legacy, Era::Modern] {
            assert_eq!(
                on.advertise(era)["extensions"][APPS_EXTENSION],
                apps,
                "{era}"
            );
        }
        let off: AdvertisedCapabilities = serde_json::from_value(
            json!({"standard": {"extensions.io.modelcontextprotocol/ui": false}}),
        )
        .unwrap();
        assert!(off.problem().is_none(), "{:?}", off.problem());
        // Legacy had only the apps extension: no `extensions` object is left.
        assert!(off.advertise(Era::Legacy).get("extensions").is_none());
        let modern = off.advertise(Era::Modern);
        assert_eq!(
            modern["extensions"],
            json!({"io.modelcontextprotocol/tasks": {}})
        );
        // Switched on again over a default without it, it carries its required mimeTypes.
        let mut caps = without(Era::Modern);
        switch(
            caps.as_object_mut().unwrap(),
            "extensions.io.modelcontextprotocol/ui",
            true,
        );
        assert_eq!(caps["extensions"][APPS_EXTENSION], apps);
    }

    fn without(era: Era) -> Value {
        mcpscope_client::without_apps(full_capabilities(era))
    }

    #[test]
    fn problems_are_named() {
        let bad = |v: Value| {
            serde_json::from_value::<AdvertisedCapabilities>(v)
                .unwrap()
                .problem()
                .expect("a problem")
        };
        assert!(bad(json!({"standard": {"telepathy": true}})).contains("unknown capability"));
        assert!(bad(json!({"standard": {"sampling": "yes"}})).contains("true or false"));
        assert!(bad(json!({"experimental": {"x": true}})).contains("must be an object"));
        assert!(bad(json!({"extensions": {"trace": {}}})).contains("vendor prefix"));
    }
}
