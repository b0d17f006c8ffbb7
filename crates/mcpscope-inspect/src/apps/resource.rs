//! An app's UI resource, checked: the answer of `resources/read` of its `ui://` URI becomes the
//! HTML to frame, its effective CSP and iframe `allow`, and what was wrong with it — or the
//! reason it is refused (no contents, not HTML, no body, bad base64, over [`MAX_APP_BYTES`], a
//! CSP domain that could loosen the policy). `contents[]._meta.ui` is read leniently: a field of
//! the wrong type is a warning and ignored, never a failure.

use super::csp::{self, DeclaredCsp};
use base64::Engine as _;
use mcpscope_proto::era::APP_MIME;
use serde::Serialize;
use serde_json::{Map, Value};

/// UI resources bigger than this are refused (5 MiB: an app is a page, not a data set).
pub const MAX_APP_BYTES: usize = 5 << 20;

/// The declared permissions, each true only when declared (`PermissionsView` in web-api.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// `camera`.
    pub camera: bool,
    /// `microphone`.
    pub microphone: bool,
    /// `geolocation`.
    pub geolocation: bool,
    /// `clipboardWrite` (`clipboard-write`).
    pub clipboard_write: bool,
}

/// A UI resource ready to frame (`AppResource` in docs/web-api.md, less `historyId`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AppResource {
    /// The URI read.
    pub uri: String,
    /// The `mimeType` as the server sent it.
    pub mime_type: String,
    /// The document (the `text`, or the `blob` decoded).
    pub html: String,
    /// Its length in bytes.
    pub size: usize,
    /// The effective Content Security Policy.
    pub csp: String,
    /// The domains `_meta.ui.csp` declared (all accepted), or null when it declared none.
    pub declared_csp: Option<DeclaredCsp>,
    /// The declared permissions.
    pub permissions: Permissions,
    /// The iframe `allow` attribute for them.
    pub allow: String,
    /// `_meta.ui.domain`, shown only (mcpscope serves no per-app origin).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// `_meta.ui.prefersBorder`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
    /// What was wrong but did not stop it.
    pub warnings: Vec<String>,
}

/// The resource of `uri` from a `resources/read` result, or why it is refused.
pub fn check(uri: &str, result: &Value) -> Result<AppResource, String> {
    let mut warnings = Vec::new();
    let content = pick(uri, result, &mut warnings)?;
    let mime_type = mime(uri, content, &mut warnings)?;
    let html = body(uri, content, &mut warnings)?;
    let ui = content.pointer("/_meta/ui");
    let ui = match ui {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            warnings.push(format!(
                "contents[]._meta.ui is {}, not an object (ignored)",
                kind(other)
            ));
            None
        }
    };
    let declared_csp = match ui.and_then(|m| m.get("csp")) {
        None | Some(Value::Null) => None,
        Some(v) => declared(v, &mut warnings)?,
    };
    let permissions = permissions(ui.and_then(|m| m.get("permissions")), &mut warnings);
    let allow = csp::allow_of(&permissions.declared());
    Ok(AppResource {
        uri: uri.to_string(),
        mime_type,
        size: html.len(),
        html,
        csp: csp::effective_csp(&declared_csp.clone().unwrap_or_default()),
        declared_csp,
        permissions,
        allow,
        domain: typed(ui, "domain", Value::as_str, "a string", &mut warnings).map(str::to_string),
        prefers_border: typed(
            ui,
            "prefersBorder",
            Value::as_bool,
            "a boolean",
            &mut warnings,
        ),
        warnings,
    })
}

/// The JSON kind of `v`, for messages that must not echo a server's megabytes.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The content to frame: the one whose `uri` is the one asked for, else the first.
fn pick<'a>(uri: &str, result: &'a Value, warnings: &mut Vec<String>) -> Result<&'a Value, String> {
    let contents = result.get("contents").and_then(Value::as_array);
    let Some(contents) = contents.filter(|c| !c.is_empty()) else {
        return Err(format!(
            "the server's resources/read of {uri} returned no contents"
        ));
    };
    if contents.len() > 1 {
        warnings.push(format!(
            "resources/read returned {} contents; the one for {uri} (else the first) is used",
            contents.len()
        ));
    }
    let same = contents
        .iter()
        .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri));
    if same.is_none()
        && let Some(other) = contents[0].get("uri").and_then(Value::as_str)
    {
        warnings.push(format!(
            "the content's uri is {other:?}, not the {uri:?} asked for"
        ));
    }
    let c = same.unwrap_or(&contents[0]);
    if c.is_object() {
        Ok(c)
    } else {
        Err(format!(
            "contents[0] of {uri} is {}, not an object",
            kind(c)
        ))
    }
}

/// The content's MIME type: the app profile, another HTML type (a warning), or a refusal.
fn mime(uri: &str, content: &Value, warnings: &mut Vec<String>) -> Result<String, String> {
    let Some(m) = content.get("mimeType").and_then(Value::as_str) else {
        return Err(format!("{uri} has no mimeType; an MCP App is {APP_MIME}"));
    };
    let norm: String = m
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if norm == APP_MIME {
        return Ok(m.to_string());
    }
    if norm == "text/html" || norm.starts_with("text/html;") {
        warnings.push(format!(
            "mimeType is {m:?}, not {APP_MIME:?}; shown as an app anyway"
        ));
        return Ok(m.to_string());
    }
    Err(format!(
        "{uri} is {m:?}, not HTML: an MCP App is {APP_MIME}"
    ))
}

/// The document: `text`, or `blob` decoded — within [`MAX_APP_BYTES`], checked before decoding.
fn body(uri: &str, content: &Value, warnings: &mut Vec<String>) -> Result<String, String> {
    let too_big = |n: usize| {
        format!(
            "{uri} is {n} bytes ({:.1} MiB); app resources over {} MiB are refused",
            n as f64 / (1 << 20) as f64,
            MAX_APP_BYTES >> 20
        )
    };
    let html = match (content.get("text"), content.get("blob")) {
        (Some(Value::String(t)), _) => t.clone(),
        (_, Some(Value::String(b))) => {
            if b.len() / 4 * 3 > MAX_APP_BYTES + 3 {
                return Err(too_big(b.len() / 4 * 3));
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .map_err(|e| format!("the blob of {uri} is not valid base64 ({e})"))?;
            String::from_utf8(bytes).unwrap_or_else(|e| {
                warnings
                    .push("the blob is not valid UTF-8; invalid bytes are shown as U+FFFD".into());
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            })
        }
        _ => return Err(format!("{uri} has neither a text nor a base64 blob")),
    };
    if html.len() > MAX_APP_BYTES {
        return Err(too_big(html.len()));
    }
    if html.trim().is_empty() {
        warnings.push("the document is empty".into());
    }
    Ok(html)
}

/// `_meta.ui.csp`: each list of strings checked; a wrong type is a warning, a bad domain refuses.
fn declared(v: &Value, warnings: &mut Vec<String>) -> Result<Option<DeclaredCsp>, String> {
    let Some(m) = v.as_object() else {
        warnings.push(format!(
            "_meta.ui.csp is {}, not an object (ignored)",
            kind(v)
        ));
        return Ok(None);
    };
    let mut d = DeclaredCsp::default();
    for (key, list) in [
        ("connectDomains", &mut d.connect_domains),
        ("resourceDomains", &mut d.resource_domains),
        ("frameDomains", &mut d.frame_domains),
        ("baseUriDomains", &mut d.base_uri_domains),
    ] {
        *list = domains(m, key, warnings)?;
    }
    Ok(Some(d))
}

/// One list of `_meta.ui.csp`.
fn domains(
    m: &Map<String, Value>,
    key: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>, String> {
    let items = match m.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(other) => {
            warnings.push(format!(
                "_meta.ui.csp.{key} is {}, not an array (ignored)",
                kind(other)
            ));
            return Ok(Vec::new());
        }
    };
    if items.len() > csp::MAX_DOMAINS {
        return Err(format!(
            "_meta.ui.csp.{key} lists {} domains; at most {} are accepted",
            items.len(),
            csp::MAX_DOMAINS
        ));
    }
    let mut out = Vec::new();
    for item in items {
        match item.as_str() {
            Some(d) => {
                csp::check_domain(d).map_err(|e| format!("_meta.ui.csp.{key}: {e}"))?;
                out.push(d.to_string());
            }
            None => warnings.push(format!(
                "_meta.ui.csp.{key} has {}, not a string (ignored)",
                kind(item)
            )),
        }
    }
    Ok(out)
}

/// `_meta.ui.permissions`: a permission is declared by an object (`{}`) or `true`.
fn permissions(v: Option<&Value>, warnings: &mut Vec<String>) -> Permissions {
    let mut p = Permissions::default();
    let m = match v {
        None | Some(Value::Null) => return p,
        Some(Value::Object(m)) => m,
        Some(other) => {
            warnings.push(format!(
                "_meta.ui.permissions is {}, not an object (ignored)",
                kind(other)
            ));
            return p;
        }
    };
    for (key, value) in m {
        let on = match value {
            Value::Object(_) | Value::Bool(true) => true,
            Value::Bool(false) | Value::Null => false,
            other => {
                warnings.push(format!(
                    "_meta.ui.permissions.{key} is {}, not an object (ignored)",
                    kind(other)
                ));
                false
            }
        };
        match key.as_str() {
            "camera" => p.camera = on,
            "microphone" => p.microphone = on,
            "geolocation" => p.geolocation = on,
            "clipboardWrite" => p.clipboard_write = on,
            _ => warnings.push(format!(
                "_meta.ui.permissions.{key} is not a permission a host grants (ignored)"
            )),
        }
    }
    p
}

impl Permissions {
    /// The declared ones by their `_meta.ui.permissions` key.
    fn declared(&self) -> Vec<&'static str> {
        [
            (self.camera, "camera"),
            (self.microphone, "microphone"),
            (self.geolocation, "geolocation"),
            (self.clipboard_write, "clipboardWrite"),
        ]
        .into_iter()
        .filter_map(|(on, k)| on.then_some(k))
        .collect()
    }
}

/// `ui[key]` when it has the type `get` reads; a warning naming `what` when it has another.
fn typed<'a, T>(
    ui: Option<&'a Map<String, Value>>,
    key: &str,
    get: fn(&'a Value) -> Option<T>,
    what: &str,
    warnings: &mut Vec<String>,
) -> Option<T> {
    let v = ui?.get(key)?;
    let got = get(v);
    if got.is_none() && !v.is_null() {
        warnings.push(format!(
            "_meta.ui.{key} is {}, not {what} (ignored)",
            kind(v)
        ));
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const URI: &str = "ui://t/app.html";

    fn read(content: Value) -> Value {
        json!({"contents": [content]})
    }

    fn html(extra: Value) -> Value {
        let mut c = json!({"uri": URI, "mimeType": APP_MIME, "text": "<!doctype html><p>hi</p>"});
        if let (Some(c), Some(e)) = (c.as_object_mut(), extra.as_object()) {
            c.extend(e.clone());
        }
        c
    }

    #[test]
    fn a_plain_app_gets_the_default_policy_and_no_permissions() {
        let r = check(URI, &read(html(json!({})))).unwrap();
        assert_eq!(r.csp, csp::DEFAULT_CSP);
        assert_eq!(r.allow, "");
        assert_eq!(r.size, r.html.len());
        assert!(r.warnings.is_empty() && r.declared_csp.is_none(), "{r:?}");
    }

    #[test]
    fn meta_ui_is_read_and_wrong_types_are_warnings() {
        let meta = json!({"_meta": {"ui": {
            "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": "cdn", "frameDomains": [7]},
            "permissions": {"camera": {}, "clipboardWrite": true, "microphone": "yes", "teleport": {}},
            "domain": 5, "prefersBorder": true}}});
        let r = check(URI, &read(html(meta))).unwrap();
        assert!(
            r.csp.contains("connect-src 'self' https://api.example.com"),
            "{}",
            r.csp
        );
        assert_eq!(r.allow, "camera; clipboard-write");
        assert!(r.permissions.camera && !r.permissions.microphone);
        assert_eq!(r.prefers_border, Some(true));
        assert_eq!(r.domain, None);
        let w = r.warnings.join("\n");
        for needle in [
            "resourceDomains is a string",
            "frameDomains has a number",
            "microphone is a string",
            "teleport",
            "domain is a number",
        ] {
            assert!(w.contains(needle), "{needle}: {w}");
        }
    }

    #[test]
    fn refusals_say_why() {
        let refused = |v: Value| check(URI, &v).expect_err("refused");
        assert!(refused(json!({"contents": []})).contains("no contents"));
        assert!(refused(json!({})).contains("no contents"));
        assert!(
            refused(read(
                json!({"uri": URI, "mimeType": "image/png", "blob": "AA=="})
            ))
            .contains("not HTML")
        );
        assert!(refused(read(json!({"uri": URI, "text": "<p>"}))).contains("no mimeType"));
        assert!(
            refused(read(json!({"uri": URI, "mimeType": APP_MIME}))).contains("neither a text")
        );
        assert!(
            refused(read(
                json!({"uri": URI, "mimeType": APP_MIME, "blob": "!!"})
            ))
            .contains("base64")
        );
        let big = "x".repeat(MAX_APP_BYTES + 1);
        let e = refused(read(json!({"uri": URI, "mimeType": APP_MIME, "text": big})));
        assert!(
            e.contains("5242881 bytes") && e.contains("over 5 MiB"),
            "{e}"
        );
        let b64 = base64::engine::general_purpose::STANDARD.encode(vec![b'x'; MAX_APP_BYTES + 10]);
        assert!(
            refused(read(json!({"uri": URI, "mimeType": APP_MIME, "blob": b64})))
                .contains("over 5 MiB")
        );
        let bad = html(
            json!({"_meta": {"ui": {"csp": {"connectDomains": ["https://ok.example", "*"]}}}}),
        );
        let e = refused(read(bad));
        assert!(e.contains("connectDomains") && e.contains("\"*\""), "{e}");
    }

    #[test]
    fn other_html_and_blobs_are_accepted_with_warnings() {
        let r = check(
            URI,
            &read(json!({"uri": URI, "mimeType": "text/html", "blob": "PHA+aGk8L3A+"})),
        )
        .unwrap();
        assert_eq!(r.html, "<p>hi</p>");
        assert!(
            r.warnings[0].contains("not \"text/html;profile=mcp-app\""),
            "{r:?}"
        );
        let two = json!({"contents": [{"uri": "ui://other", "mimeType": APP_MIME, "text": "a"}, html(json!({}))]});
        let r = check(URI, &two).unwrap();
        assert!(
            r.html.contains("hi") && r.warnings[0].contains("2 contents"),
            "{r:?}"
        );
    }
}
