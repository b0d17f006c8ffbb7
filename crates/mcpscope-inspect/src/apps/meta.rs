//! What a listed tool declares of MCP Apps, read from its definition alone: its app
//! (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`) and who may call it
//! (`_meta.ui.visibility`). Every byte is the server's: wrong types are warnings, never panics,
//! and nothing here decides more than the definition says.

use serde::Serialize;
use serde_json::Value;

/// The deprecated flat key that named a tool's UI resource before `_meta.ui`.
pub const DEPRECATED_KEY: &str = "ui/resourceUri";

/// Who may call a tool (`_meta.ui.visibility`), as two bits: kept per listed tool, so it is one
/// byte rather than the strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility(u8);

impl Visibility {
    const MODEL: u8 = 1;
    const APP: u8 = 2;
    /// The default when a tool declares none: both the model and apps.
    pub const DEFAULT: Visibility = Visibility(Self::MODEL | Self::APP);

    /// The model (and so every view that calls tools, as the model's stand-in) may call it.
    pub fn model(self) -> bool {
        self.0 & Self::MODEL != 0
    }

    /// An app of the same server may call it.
    pub fn app(self) -> bool {
        self.0 & Self::APP != 0
    }
}

/// `_meta.ui` of a tool, when it is an object.
fn ui_of(tool: &Value) -> Option<&serde_json::Map<String, Value>> {
    tool.pointer("/_meta/ui").and_then(Value::as_object)
}

/// The visibility a tool declares, the known values as strings (for views), and what was wrong:
/// not an array (the default applies), values that are not strings or not known (named, ignored).
pub fn visibility(tool: &Value) -> (Visibility, Vec<String>, Vec<String>) {
    let both = || vec!["model".to_string(), "app".to_string()];
    let Some(declared) = ui_of(tool).and_then(|ui| ui.get("visibility")) else {
        return (Visibility::DEFAULT, both(), Vec::new());
    };
    let Some(items) = declared.as_array() else {
        let w = format!(
            "_meta.ui.visibility is {declared}, not an array; the default [\"model\",\"app\"] applies"
        );
        return (Visibility::DEFAULT, both(), vec![w]);
    };
    let mut bits = 0u8;
    let (mut names, mut warnings) = (Vec::new(), Vec::new());
    for item in items {
        match item.as_str() {
            Some("model") => bits |= Visibility::MODEL,
            Some("app") => bits |= Visibility::APP,
            Some(other) => warnings.push(format!(
                "_meta.ui.visibility has the unknown value {other:?} (ignored; known: \"model\", \"app\")"
            )),
            None => warnings.push(format!("_meta.ui.visibility has {item}, not a string (ignored)")),
        }
        if let Some(s @ ("model" | "app")) = item.as_str()
            && !names.iter().any(|n| n == s)
        {
            names.push(s.to_string());
        }
    }
    if bits == 0 {
        warnings.push(
            "_meta.ui.visibility names neither \"model\" nor \"app\": no view and no app may call this tool"
                .into(),
        );
    }
    (Visibility(bits), names, warnings)
}

/// True when the tool says anything about an app (either key): such tools are kept whole in the
/// tool cache, so the Apps tab can be answered without another `tools/list`.
pub fn declares_app(tool: &Value) -> bool {
    ui_of(tool).is_some_and(|ui| ui.contains_key("resourceUri"))
        || tool
            .get("_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(DEPRECATED_KEY))
}

/// A listed tool's app, as the Apps tab shows it (`AppTool` in docs/web-api.md).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AppTool {
    /// The tool's name.
    pub tool: String,
    /// `title`, else `annotations.title`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The `ui://` URI of its UI resource.
    pub resource_uri: String,
    /// The known values of `_meta.ui.visibility` (default both).
    pub visibility: Vec<String>,
    /// True when the URI came from the deprecated flat `_meta["ui/resourceUri"]`.
    pub deprecated_key: bool,
    /// The tool's `inputSchema` as listed (null when absent).
    pub input_schema: Value,
    /// What is wrong with the declaration but did not stop it.
    pub warnings: Vec<String>,
}

/// What a tool's definition says of its app.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolApp {
    /// No app declared.
    None,
    /// An app.
    App(AppTool),
    /// A declaration that cannot be an app (not a string, not `ui://`): the reason.
    Ignored(String),
}

/// The URI the tool names and whether it came from the deprecated key; warnings about the keys.
fn resource_uri(tool: &Value, warnings: &mut Vec<String>) -> Option<(Value, bool)> {
    let current = ui_of(tool).and_then(|ui| ui.get("resourceUri")).cloned();
    let flat = tool
        .pointer("/_meta")
        .and_then(|m| m.get(DEPRECATED_KEY))
        .cloned();
    match (current, flat) {
        (Some(c), Some(f)) => {
            if c != f {
                warnings.push(format!(
                    "both _meta.ui.resourceUri ({c}) and the deprecated _meta[\"ui/resourceUri\"] ({f}) are set and differ; _meta.ui.resourceUri is used"
                ));
            }
            Some((c, false))
        }
        (Some(c), None) => Some((c, false)),
        (None, Some(f)) => {
            warnings.push(
                "the app is named by the deprecated flat _meta[\"ui/resourceUri\"]; use _meta.ui.resourceUri".into(),
            );
            Some((f, true))
        }
        (None, None) => None,
    }
}

/// A tool's app, from its definition as listed.
pub fn tool_app(tool: &Value) -> ToolApp {
    let mut warnings = Vec::new();
    let Some((uri, deprecated_key)) = resource_uri(tool, &mut warnings) else {
        return ToolApp::None;
    };
    let Some(uri) = uri.as_str() else {
        return ToolApp::Ignored(format!("its resourceUri is {uri}, not a string"));
    };
    if !uri
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("ui://"))
    {
        return ToolApp::Ignored(format!(
            "its resourceUri {uri:?} is not a ui:// URI (an MCP App's UI resource must be)"
        ));
    }
    let (_, visibility, mut vis_warnings) = visibility(tool);
    warnings.append(&mut vis_warnings);
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    ToolApp::App(AppTool {
        tool: text(tool.get("name")).unwrap_or_default(),
        title: text(tool.get("title")).or_else(|| text(tool.pointer("/annotations/title"))),
        description: text(tool.get("description")),
        resource_uri: uri.to_string(),
        visibility,
        deprecated_key,
        input_schema: tool.get("inputSchema").cloned().unwrap_or(Value::Null),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn app(tool: Value) -> AppTool {
        match tool_app(&tool) {
            ToolApp::App(a) => a,
            other => panic!("not an app: {other:?}"),
        }
    }

    #[test]
    fn the_current_key_the_deprecated_one_and_both() {
        let a = app(json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://x/a.html"}}}));
        assert_eq!(a.resource_uri, "ui://x/a.html");
        assert!(!a.deprecated_key && a.warnings.is_empty(), "{a:?}");
        assert_eq!(a.visibility, ["model", "app"]);
        let d = app(json!({"name": "t", "_meta": {"ui/resourceUri": "ui://x/old.html"}}));
        assert!(d.deprecated_key);
        assert!(d.warnings[0].contains("deprecated"), "{d:?}");
        let both = app(
            json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a"}, "ui/resourceUri": "ui://b"}}),
        );
        assert_eq!(both.resource_uri, "ui://a");
        assert!(both.warnings[0].contains("differ"), "{both:?}");
    }

    #[test]
    fn hostile_declarations_are_ignored_with_the_reason() {
        let not_ui = tool_app(&json!({"_meta": {"ui": {"resourceUri": "https://evil.example/"}}}));
        assert!(
            matches!(&not_ui, ToolApp::Ignored(r) if r.contains("not a ui://")),
            "{not_ui:?}"
        );
        let number = tool_app(&json!({"_meta": {"ui": {"resourceUri": 5}}}));
        assert!(matches!(&number, ToolApp::Ignored(r) if r.contains("not a string")));
        assert_eq!(tool_app(&json!({"name": "plain"})), ToolApp::None);
        assert_eq!(tool_app(&json!({"_meta": "nonsense"})), ToolApp::None);
        assert!(!declares_app(&json!({"_meta": {"ui": []}})));
    }

    #[test]
    fn visibility_defaults_and_names_what_it_ignores() {
        let (v, names, w) = visibility(&json!({}));
        assert_eq!((v, names.len(), w.len()), (Visibility::DEFAULT, 2, 0));
        let (v, names, _) = visibility(&json!({"_meta": {"ui": {"visibility": ["app"]}}}));
        assert!(v.app() && !v.model());
        assert_eq!(names, ["app"]);
        let (v, _, w) =
            visibility(&json!({"_meta": {"ui": {"visibility": ["model", "robot", 3]}}}));
        assert!(v.model() && !v.app());
        assert!(w.iter().any(|x| x.contains("\"robot\"")), "{w:?}");
        assert!(w.iter().any(|x| x.contains("not a string")), "{w:?}");
        let (v, _, w) = visibility(&json!({"_meta": {"ui": {"visibility": "app"}}}));
        assert_eq!(v, Visibility::DEFAULT);
        assert!(w[0].contains("not an array"));
        let (v, _, w) = visibility(&json!({"_meta": {"ui": {"visibility": []}}}));
        assert!(!v.model() && !v.app());
        assert!(w[0].contains("neither"));
    }
}
