//! Modern-era HTTP header mirroring (SEP-2243): `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`.
//!
//! Values go on the wire as-is when they are plain visible ASCII (or inner spaces); anything else
//! — non-ASCII, control characters, any tab, leading or trailing whitespace, or a value that
//! itself looks like the sentinel — is sent as `=?base64?{standard Base64 of the UTF-8}?=`.
//! `x-mcp-header` annotations in a tool's `inputSchema` are validated exactly as the spec says; a
//! tool with an invalid annotation is excluded from calls and the reason is reported.
//! The gateway page has the same rules in `web/src/gateway/headers.ts`; both are tested against
//! `headers_cases.json`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// Encode one header value (for `Mcp-Name` and `Mcp-Param-*`).
pub fn encode_value(s: &str) -> String {
    let needs_base64 = s.is_empty()
        || !s.bytes().all(|b| (0x20..=0x7e).contains(&b))
        || s.starts_with(' ')
        || s.ends_with(' ')
        || (s.starts_with("=?base64?") && s.ends_with("?="));
    if needs_base64 {
        format!("=?base64?{}?=", STANDARD.encode(s.as_bytes()))
    } else {
        s.to_string()
    }
}

/// Decode a header value that may use the `=?base64?…?=` form. `None` when the Base64 is invalid.
pub fn decode_value(s: &str) -> Option<String> {
    match s
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => STANDARD
            .decode(b64)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(s.to_string()),
    }
}

/// One valid `x-mcp-header` annotation: header `Mcp-Param-{name}` mirrors the value at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The `{Name}` part of `Mcp-Param-{Name}`.
    pub name: String,
    /// Property names from the root of `arguments` to the annotated value.
    pub path: Vec<String>,
}

/// Validate every `x-mcp-header` annotation in a tool's `inputSchema`.
/// `Ok` holds the headers to mirror; `Err` the reason the whole tool must be excluded.
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    if input_schema.get("x-mcp-header").is_some() {
        return Err("x-mcp-header on the root of inputSchema (only on properties)".into());
    }
    walk_properties(input_schema, &mut Vec::new(), &mut found)?;
    // Annotations anywhere else (items, composition keywords, $defs, …) are not statically
    // reachable by a chain of `properties` and make the tool invalid.
    find_unreachable(input_schema, false, &mut Vec::new())?;
    // A set: a schema with many annotated properties must not cost their square.
    let mut seen = std::collections::HashSet::new();
    for h in &found {
        if !seen.insert(h.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header {:?} is used more than once (names are case-insensitive)",
                h.name
            ));
        }
    }
    Ok(found)
}

fn walk_properties(
    schema: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, prop) in props {
        path.push(key.clone());
        if let Some(h) = prop.get("x-mcp-header") {
            let at = path.join(".");
            let name = h
                .as_str()
                .ok_or_else(|| format!("x-mcp-header at {at} is not a string"))?;
            if name.is_empty() {
                return Err(format!("x-mcp-header at {at} is empty"));
            }
            if let Some(c) = name.chars().find(|c| !is_tchar(*c)) {
                return Err(format!(
                    "x-mcp-header {name:?} at {at} has a character not allowed in a header name: {c:?}"
                ));
            }
            match prop.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                Some(t) => {
                    return Err(format!(
                        "x-mcp-header {name:?} at {at} is on a property of type {t:?} (only string, integer, boolean)"
                    ));
                }
                None => {
                    return Err(format!(
                        "x-mcp-header {name:?} at {at} is on a property without a single primitive type"
                    ));
                }
            }
            out.push(ParamHeader {
                name: name.to_string(),
                path: path.clone(),
            });
        }
        walk_properties(prop, path, out)?;
        path.pop();
    }
    Ok(())
}

/// Report an annotation found anywhere that is not a `properties` chain from the root.
fn find_unreachable(schema: &Value, unreachable: bool, at: &mut Vec<String>) -> Result<(), String> {
    let Some(obj) = schema.as_object() else {
        if let Some(items) = schema.as_array() {
            for (i, item) in items.iter().enumerate() {
                at.push(i.to_string());
                find_unreachable(item, unreachable, at)?;
                at.pop();
            }
        }
        return Ok(());
    };
    if unreachable && obj.contains_key("x-mcp-header") {
        return Err(format!(
            "x-mcp-header at {} is not reachable through properties alone",
            at.join("/")
        ));
    }
    for (key, child) in obj {
        if key == "properties" {
            if let Some(props) = child.as_object() {
                for (name, prop) in props {
                    at.push(format!("properties/{name}"));
                    find_unreachable(prop, unreachable, at)?;
                    at.pop();
                }
            }
            continue;
        }
        if key == "x-mcp-header"
            || key == "default"
            || key == "const"
            || key == "enum"
            || key == "examples"
        {
            continue;
        }
        at.push(key.clone());
        find_unreachable(child, true, at)?;
        at.pop();
    }
    Ok(())
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Compute the `Mcp-Param-*` headers for a call: the value at each header's path, converted and
/// encoded. Absent and `null` values are omitted. Non-primitive values are omitted too (the
/// server will reject the body; we do not invent a header for it).
pub fn param_header_values(headers: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for h in headers {
        let mut v = arguments;
        let mut ok = true;
        for p in &h.path {
            match v.get(p) {
                Some(next) => v = next,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    i.to_string()
                } else if let Some(u) = n.as_u64() {
                    u.to_string()
                } else if let Some(f) = n
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15)
                {
                    (f as i64).to_string()
                } else {
                    n.to_string()
                }
            }
            _ => continue,
        };
        out.push((format!("Mcp-Param-{}", h.name), encode_value(&text)));
    }
    out
}

/// The standard modern headers for a request: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.
pub fn standard_headers(
    version: &str,
    method: &str,
    params: Option<&Value>,
) -> Vec<(String, String)> {
    let mut out = vec![
        ("MCP-Protocol-Version".to_string(), version.to_string()),
        ("Mcp-Method".to_string(), method.to_string()),
    ];
    if let Some(field) = crate::method::name_field(method)
        && let Some(name) = params.and_then(|p| p.get(field)).and_then(Value::as_str)
    {
        out.push(("Mcp-Name".to_string(), encode_value(name)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encodes_the_spec_examples() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_value("a\tb"), "=?base64?YQli?=");
        assert_eq!(encode_value(""), "=?base64??=");
        assert_eq!(
            decode_value("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
    }

    #[test]
    fn validates_annotations() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}}
        }});
        let hs = param_headers(&ok).unwrap();
        assert_eq!(hs.len(), 2);
        assert_eq!(hs[1].path, vec!["opts", "dry"]);
        let bad = |s: Value| param_headers(&s).unwrap_err();
        assert!(
            bad(json!({"properties": {"n": {"type": "number", "x-mcp-header": "N"}}}))
                .contains("number")
        );
        assert!(bad(json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}})).contains("more than once"));
        assert!(
            bad(json!({"properties": {"a": {"type": "string", "x-mcp-header": "bad name"}}}))
                .contains("character")
        );
        assert!(
            bad(json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}))
                .contains("empty")
        );
        assert!(bad(json!({"properties": {"l": {"type": "array", "items": {"type": "string", "x-mcp-header": "L"}}}})).contains("not reachable"));
        assert!(
            bad(json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}))
                .contains("not reachable")
        );
    }

    #[test]
    fn mirrors_values() {
        let hs = vec![
            ParamHeader {
                name: "Region".into(),
                path: vec!["region".into()],
            },
            ParamHeader {
                name: "Count".into(),
                path: vec!["n".into()],
            },
            ParamHeader {
                name: "Flag".into(),
                path: vec!["f".into()],
            },
            ParamHeader {
                name: "Gone".into(),
                path: vec!["missing".into()],
            },
        ];
        let v = param_header_values(&hs, &json!({"region": "Zürich", "n": 42, "f": null}));
        assert_eq!(
            v,
            vec![
                (
                    "Mcp-Param-Region".to_string(),
                    "=?base64?WsO8cmljaA==?=".to_string()
                ),
                ("Mcp-Param-Count".to_string(), "42".to_string()),
            ]
        );
    }

    /// The cases the gateway page's mirror (`web/src/gateway/headers.ts`) is tested against too.
    #[test]
    fn every_shared_case_gets_its_headers() {
        let cases: Value = serde_json::from_str(include_str!("headers_cases.json")).unwrap();
        for c in cases["encode"].as_array().unwrap() {
            let value = c["value"].as_str().unwrap();
            assert_eq!(encode_value(value), c["encoded"], "encode {value:?}");
        }
        for c in cases["annotations"].as_array().unwrap() {
            let got = param_headers(&c["schema"]);
            match c["invalid"].as_str() {
                Some(why) => {
                    let e = got.expect_err(c["about"].as_str().unwrap());
                    assert!(e.contains(why), "{}: {e:?} must say {why:?}", c["about"]);
                }
                None => {
                    let got: Vec<Value> = got
                        .unwrap()
                        .into_iter()
                        .map(|h| json!({"name": h.name, "path": h.path}))
                        .collect();
                    assert_eq!(Value::from(got), c["headers"], "{}", c["about"]);
                }
            }
        }
        let pairs = |v: Vec<(String, String)>| -> Value {
            v.into_iter().map(|(k, v)| json!([k, v])).collect()
        };
        for c in cases["values"].as_array().unwrap() {
            let headers: Vec<ParamHeader> = c["headers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| ParamHeader {
                    name: h["name"].as_str().unwrap().into(),
                    path: serde_json::from_value(h["path"].clone()).unwrap(),
                })
                .collect();
            let got = param_header_values(&headers, &c["arguments"]);
            assert_eq!(pairs(got), c["out"], "{}", c["about"]);
        }
        for c in cases["standard"].as_array().unwrap() {
            let params = Some(&c["params"]).filter(|p| !p.is_null());
            let got = standard_headers(
                c["version"].as_str().unwrap(),
                c["method"].as_str().unwrap(),
                params,
            );
            assert_eq!(pairs(got), c["out"], "{}", c["method"]);
        }
    }

    /// 100,000 annotated properties: the duplicate check compared every pair (5·10^9 string
    /// comparisons, minutes); now it is one pass.
    #[test]
    fn many_annotations_are_checked_in_one_pass() {
        let props: serde_json::Map<String, Value> = (0..100_000)
            .map(|i| {
                let p = json!({"type": "string", "x-mcp-header": format!("H{i}")});
                (format!("p{i}"), p)
            })
            .collect();
        let hs = param_headers(&json!({"type": "object", "properties": props})).unwrap();
        assert_eq!(hs.len(), 100_000);
    }
}
