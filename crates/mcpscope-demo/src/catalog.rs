//! What the demo server offers: tool definitions, resources, templates, prompts and the
//! elicitation form, written as the JSON a client sees.
//!
//! Definitions are spelled in `json!` and parsed into rmcp's types once, so this file reads like
//! the wire and the names here are the contract our tests and the docs rely on.

use std::sync::LazyLock;

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use serde_json::{Value, json};

/// The URI of the MCP Apps page `show-app` points at.
pub(crate) const APP_URI: &str = "ui://demo/app.html";
/// The MIME type MCP Apps requires for a UI resource.
pub(crate) const APP_MIME: &str = "text/html;profile=mcp-app";
/// Where `elicit-url` sends the user.
pub(crate) const CONSENT_URL: &str = "https://example.com/demo-consent";
/// The subscribable resource whose value changes every second.
pub(crate) const COUNTER_URI: &str = "demo://counter";
/// Names offered by the `demo://greeting/{name}` completion (and `greet`'s).
pub(crate) const NAMES: &[&str] = &[
    "Ada", "Alan", "Alice", "Barbara", "Bob", "Carol", "Dennis", "Grace", "Ken", "Linus",
];
/// Paths offered by the `demo://files/{path}` completion.
pub(crate) const FILES: &[&str] = &[
    "README.md",
    "docs/guide.md",
    "docs/protocol.md",
    "src/lib.rs",
    "src/main.rs",
];
/// Styles offered by the `review` prompt's `style` completion.
pub(crate) const STYLES: &[&str] = &["concise", "thorough", "friendly"];

/// The `demo://readme` text.
pub(crate) const README: &str = "# mcpscope demo server\n\n\
This server exists so you can try every MCP feature without writing one.\n\n\
- Tools cover every content type, progress, cancellation, logging, elicitation, sampling, \
roots, tasks, custom `Mcp-Param-*` headers and huge results.\n\
- `demo://counter` changes every second; subscribe to it.\n\
- Prompts and resource templates offer completions.\n\
- `resources/list` comes in pages of two, to show pagination.\n";

/// The MCP Apps page behind `ui://demo/app.html`: a real app that speaks the bridge by hand
/// (`app.html`; its element ids are the browser journeys' contract).
pub(crate) const APP_HTML: &str = include_str!("app.html");

/// The app-only tool the demo app calls back (`_meta.ui.visibility: ["app"]`).
pub(crate) const APP_ONLY_TOOL: &str = "app-refresh";
/// The model-only tool: the demo app may not call it (`_meta.ui.visibility: ["model"]`).
pub(crate) const MODEL_ONLY_TOOL: &str = "model-only";

/// The name of the tool `toggle-extra-tool` adds and removes.
pub(crate) const EXTRA_TOOL: &str = "extra-tool";

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Every tool, in the deterministic order `tools/list` returns them.
///
/// Long because it is a table: one JSON literal per tool, as the wire shows it, so a reader
/// compares a tool's schema with what the inspector displays without assembling it in their
/// head.
fn tool_values(extra: bool) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns \"Echo: <message>\".",
            "inputSchema": {
                "type": "object",
                "properties": {"message": {"type": "string", "description": "Text to echo back"}},
                "required": ["message"]
            }
        }),
        json!({
            "name": "add",
            "title": "Add two numbers",
            "description": "Returns the sum of a and b as text.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "First addend"},
                    "b": {"type": "number", "description": "Second addend"}
                },
                "required": ["a", "b"]
            }
        }),
        json!({
            "name": "get-weather",
            "title": "Get weather",
            "description": "Made-up weather for a city, as structuredContent matching outputSchema plus the same JSON as text.",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "temperature": {"type": "number", "description": "Degrees Celsius"},
                    "conditions": {"type": "string", "description": "Sky conditions"}
                },
                "required": ["temperature", "conditions"]
            }
        }),
        json!({
            "name": "get-image",
            "description": "Returns one image block: a 16x16 PNG.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "get-audio",
            "description": "Returns one audio block: a 0.1 s WAV tone.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "get-resource-links",
            "description": "Returns resource_link blocks pointing at the demo resources.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "get-embedded-resource",
            "description": "Returns a resource block embedding demo://readme.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "annotated-read",
            "description": "A read-only, closed-world tool (see its annotations).",
            "inputSchema": empty_schema(),
            "annotations": {"title": "Read a demo value", "readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "delete-everything",
            "description": "Annotated as destructive; actually does nothing and says so.",
            "inputSchema": empty_schema(),
            "annotations": {"title": "Delete everything", "readOnlyHint": false, "destructiveHint": true}
        }),
        json!({
            "name": "route-query",
            "title": "Route a query",
            "description": "Echoes its arguments and, over HTTP, the Mcp-Param-* headers it received (region, priority and dryRun are mirrored into headers via x-mcp-header).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string", "description": "Target region", "x-mcp-header": "Region"},
                    "priority": {"type": "integer", "description": "Priority", "x-mcp-header": "Priority"},
                    "dryRun": {"type": "boolean", "description": "Plan only", "x-mcp-header": "Dry-Run"},
                    "query": {"type": "string", "description": "The query"}
                },
                "required": ["region", "priority", "dryRun", "query"]
            }
        }),
        json!({
            "name": "slow",
            "description": "Takes durationMs, sending notifications/progress \"step i of n\" at each of `steps` steps when the request has a progressToken. Stops promptly when cancelled.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "durationMs": {"type": "integer", "minimum": 0, "default": 2000},
                    "steps": {"type": "integer", "minimum": 1, "default": 5}
                }
            }
        }),
        json!({
            "name": "log-every-level",
            "description": "Sends notifications/message at every level, logger \"demo\". Legacy: filtered by logging/setLevel (all levels until it is set). Modern: only with _meta io.modelcontextprotocol/logLevel, at or above it.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "toggle-extra-tool",
            "description": "Adds or removes the tool \"extra-tool\" and announces notifications/tools/list_changed.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "elicit-form",
            "description": "Asks the user to fill a form using every field type elicitation allows, then describes the answer.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "elicit-url",
            "description": "Asks the user to open https://example.com/demo-consent (URL-mode elicitation).",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "sample",
            "description": "Asks the client's model (sampling/createMessage) and returns its text.",
            "inputSchema": {
                "type": "object",
                "properties": {"prompt": {"type": "string", "description": "What to ask the model"}},
                "required": ["prompt"]
            }
        }),
        json!({
            "name": "list-roots",
            "description": "Asks the client for its roots (roots/list) and returns them as text.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "onboard",
            "title": "Onboard in three rounds",
            "description": "Asks in three input_required rounds (2026-07-28): a name; then team, email and newsletter together (three keys in one round); then a confirmation. 2025-11-25 asks the same five elicitation/create questions one by one.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "elicit-url-required",
            "description": "2025-11-25: fails with -32042 (URL elicitation required) naming a consent URL; the consent completes by itself 1.5 s later (notifications/elicitation/complete) and the next call succeeds. 2026-07-28 has no -32042: asks for the URL in an input_required round.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "end-subscriptions",
            "description": "Ends every open subscriptions/listen stream (2026-07-28): how \"graceful\" answers each with its complete result; how \"drop\" closes each HTTP stream without a result (a remote close; stdio has no per-stream transport to drop).",
            "inputSchema": {
                "type": "object",
                "properties": {"how": {"type": "string", "enum": ["graceful", "drop"], "default": "graceful"}}
            }
        }),
        json!({
            "name": "research",
            "title": "Research a topic",
            "description": "Takes about 2 s. Runs as a task when the client asks for one (legacy: params.task; modern: the io.modelcontextprotocol/tasks extension), synchronously otherwise.",
            "inputSchema": {
                "type": "object",
                "properties": {"topic": {"type": "string", "description": "What to research"}},
                "required": ["topic"]
            }
        }),
        json!({
            "name": "big",
            "description": "Returns one text block of exactly `bytes` ASCII characters.",
            "inputSchema": {
                "type": "object",
                "properties": {"bytes": {"type": "integer", "minimum": 0, "description": "Length of the text"}},
                "required": ["bytes"]
            }
        }),
        json!({
            "name": "fail",
            "description": "Always returns a result with isError: true.",
            "inputSchema": empty_schema()
        }),
        json!({
            "name": "show-app",
            "title": "Show the demo app",
            "description": "An MCP Apps tool: its UI is ui://demo/app.html.",
            "inputSchema": empty_schema(),
            "_meta": {"ui": {"resourceUri": APP_URI}}
        }),
        json!({
            "name": APP_ONLY_TOOL,
            "title": "Refresh the demo app",
            "description": "App-only (_meta.ui.visibility [\"app\"]): the demo app calls it; a host never offers it to the model.",
            "inputSchema": empty_schema(),
            "_meta": {"ui": {"resourceUri": APP_URI, "visibility": ["app"]}}
        }),
        json!({
            "name": MODEL_ONLY_TOOL,
            "title": "Model-only demo app tool",
            "description": "Model-only (_meta.ui.visibility [\"model\"]): the demo app may not call it.",
            "inputSchema": empty_schema(),
            "_meta": {"ui": {"resourceUri": APP_URI, "visibility": ["model"]}}
        }),
    ];
    if extra {
        tools.push(json!({
            "name": EXTRA_TOOL,
            "description": "Exists only while toggle-extra-tool has switched it on.",
            "inputSchema": empty_schema()
        }));
    }
    tools
}

/// Every tool as rmcp's type. Parsed once: rmcp asks for a tool's schema on every HTTP call.
pub(crate) fn tools(extra: bool) -> Vec<Tool> {
    static TOOLS: LazyLock<[Vec<Tool>; 2]> = LazyLock::new(|| {
        [false, true].map(|extra| {
            tool_values(extra)
                .into_iter()
                .map(|value| serde_json::from_value(value).expect("tool definitions are valid"))
                .collect()
        })
    });
    TOOLS[usize::from(extra)].clone()
}

/// The static resources, in `resources/list` order.
pub(crate) fn resources() -> Vec<Resource> {
    [
        json!({"uri": "demo://readme", "name": "readme", "title": "README",
               "description": "What this server offers", "mimeType": "text/markdown"}),
        json!({"uri": "demo://logo.png", "name": "logo.png", "title": "Logo",
               "description": "A 16x16 PNG (blob contents)", "mimeType": "image/png"}),
        json!({"uri": COUNTER_URI, "name": "counter", "title": "Counter",
               "description": "Seconds since the server started; subscribe to get an update every second",
               "mimeType": "text/plain"}),
        json!({"uri": APP_URI, "name": "app.html", "title": "Demo app",
               "description": "The MCP Apps UI of the show-app tool", "mimeType": APP_MIME}),
    ]
    .into_iter()
    .map(|value| serde_json::from_value(value).expect("resource definitions are valid"))
    .collect()
}

/// The resource templates, in `resources/templates/list` order.
pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    [
        json!({"uriTemplate": "demo://greeting/{name}", "name": "greeting",
               "description": "A greeting for {name} (completion offers names)", "mimeType": "text/plain"}),
        json!({"uriTemplate": "demo://files/{path}", "name": "files",
               "description": "A made-up file at {path} (completion offers paths); under private/ the server asks to allow the read first", "mimeType": "text/plain"}),
    ]
    .into_iter()
    .map(|value| serde_json::from_value(value).expect("template definitions are valid"))
    .collect()
}

/// The prompts, in `prompts/list` order.
pub(crate) fn prompts() -> Vec<Prompt> {
    [
        json!({"name": "review", "title": "Review a pull request",
        "description": "Asks for a code review of a pull request",
        "arguments": [
            {"name": "pr", "description": "Pull request number or URL", "required": true},
            {"name": "style", "description": "concise, thorough or friendly", "required": false}
        ]}),
        json!({"name": "greet", "title": "Greet someone",
               "description": "A one-line greeting",
               "arguments": [{"name": "name", "description": "Who to greet", "required": true}]}),
        json!({"name": "showcase", "title": "Multimodal showcase",
               "description": "Messages with text, an image and an embedded resource"}),
        json!({"name": "ask-topic", "title": "Ask for a topic",
               "description": "Asks which topic first (input_required on 2026-07-28, elicitation/create on 2025-11-25), then returns a prompt about it"}),
    ]
    .into_iter()
    .map(|value| serde_json::from_value(value).expect("prompt definitions are valid"))
    .collect()
}

/// The `elicit-form` schema: one property of every kind the elicitation schema allows.
pub(crate) fn elicitation_form_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Full name", "description": "As it should appear on the badge",
                     "minLength": 2, "maxLength": 50, "default": "Ada Lovelace"},
            "email": {"type": "string", "title": "Email", "format": "email"},
            "homepage": {"type": "string", "title": "Homepage", "format": "uri"},
            "birthday": {"type": "string", "title": "Birthday", "format": "date"},
            "meetingAt": {"type": "string", "title": "Meeting time", "format": "date-time"},
            "rating": {"type": "number", "title": "Rating", "description": "0 to 5",
                       "minimum": 0.0, "maximum": 5.0, "default": 4.5},
            "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 10, "default": 2},
            "subscribe": {"type": "boolean", "title": "Subscribe to news", "default": true},
            "size": {"type": "string", "title": "T-shirt size", "enum": ["S", "M", "L", "XL"], "default": "M"},
            "plan": {"type": "string", "title": "Plan",
                     "oneOf": [{"const": "free", "title": "Free"},
                               {"const": "pro", "title": "Pro"},
                               {"const": "team", "title": "Team"}],
                     "default": "pro"},
            "toppings": {"type": "array", "title": "Toppings", "minItems": 1, "maxItems": 3,
                         "items": {"type": "string", "enum": ["cheese", "olives", "mushrooms", "peppers"]},
                         "default": ["cheese"]},
            "languages": {"type": "array", "title": "Languages",
                          "items": {"anyOf": [{"const": "rust", "title": "Rust"},
                                              {"const": "ts", "title": "TypeScript"},
                                              {"const": "py", "title": "Python"}]},
                          "default": ["rust"]},
            "colour": {"type": "string", "title": "Favourite colour",
                       "enum": ["#ff0000", "#00ff00", "#0000ff"], "enumNames": ["Red", "Green", "Blue"]}
        },
        "required": ["name", "email"]
    })
}

#[cfg(test)]
mod tests {
    use rmcp::model::ElicitationSchema;

    use super::*;

    #[test]
    fn every_definition_parses() {
        assert_eq!(tools(false).len() + 1, tools(true).len());
        assert_eq!(resources().len(), 4);
        assert_eq!(resource_templates().len(), 2);
        assert_eq!(prompts().len(), 4);
    }

    /// rmcp types the elicitation schema; a field it did not model would silently vanish, so
    /// check that what goes on the wire is exactly what we wrote.
    #[test]
    fn elicitation_schema_survives_rmcp_types_unchanged() {
        let schema: ElicitationSchema =
            serde_json::from_value(elicitation_form_schema()).expect("schema parses");
        assert_eq!(
            serde_json::to_value(&schema).unwrap(),
            elicitation_form_schema()
        );
    }

    #[test]
    fn tool_json_survives_rmcp_types_unchanged() {
        for (tool, value) in tools(true).iter().zip(tool_values(true)) {
            assert_eq!(serde_json::to_value(tool).unwrap(), value);
        }
    }
}
