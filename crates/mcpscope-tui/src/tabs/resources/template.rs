//! RFC 6570 URI templates with string values (levels 1–4), as the web UI's `uriTemplate.ts`
//! expands them: the variables a template names (one form field each) and the URI it expands
//! to. A variable left empty is undefined (skipped), as there.

/// One `{…}` expression: its operator and its variables (name, prefix length).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expr {
    op: char,
    vars: Vec<(String, Option<usize>)>,
}

/// A literal part or an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Expr(Expr),
}

fn parse(template: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| c + open) else {
            break;
        };
        if open > 0 {
            parts.push(Part::Lit(rest[..open].to_string()));
        }
        parts.push(Part::Expr(expr(&rest[open + 1..close])));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Lit(rest.to_string()));
    }
    parts
}

fn expr(body: &str) -> Expr {
    let (op, body) = match body.chars().next() {
        Some(c) if "+#./;?&".contains(c) => (c, &body[c.len_utf8()..]),
        _ => (' ', body),
    };
    let vars = body
        .split(',')
        .filter(|v| !v.is_empty())
        .map(|v| {
            let v = v.trim_end_matches('*');
            match v.split_once(':') {
                Some((name, n)) => (name.to_string(), n.parse().ok()),
                None => (v.to_string(), None),
            }
        })
        .collect();
    Expr { op, vars }
}

/// The variable names of `template`, in order of first appearance.
pub fn variables(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in parse(template) {
        if let Part::Expr(e) = p {
            for (name, _) in e.vars {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// Percent-encode `s`; `reserved` keeps reserved characters and `%XX` triplets (`+`, `#`).
fn encode(s: &str, reserved: bool) -> String {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let b = s.as_bytes();
    let mut out = String::new();
    for (i, c) in s.char_indices() {
        let triplet = c == '%'
            && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        let keep = c.is_ascii_alphanumeric()
            || "-._~".contains(c)
            || reserved && (RESERVED.contains(c) || triplet);
        if keep {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

/// `(first, separator, named, if empty, allow reserved)` of an operator (RFC 6570 §3.2.1).
fn operator(op: char) -> (&'static str, &'static str, bool, &'static str, bool) {
    match op {
        '+' => ("", ",", false, "", true),
        '#' => ("#", ",", false, "", true),
        '.' => (".", ".", false, "", false),
        '/' => ("/", "/", false, "", false),
        ';' => (";", ";", true, "", false),
        '?' => ("?", "&", true, "=", false),
        '&' => ("&", "&", true, "=", false),
        _ => ("", ",", false, "", false),
    }
}

/// `template` expanded with `value(name)` (`None` or empty: undefined, skipped).
pub fn expand<'a>(template: &str, value: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::new();
    for p in parse(template) {
        let e = match p {
            Part::Lit(l) => {
                out.push_str(&l);
                continue;
            }
            Part::Expr(e) => e,
        };
        let (first, sep, named, if_empty, reserved) = operator(e.op);
        let mut pieces = Vec::new();
        for (name, prefix) in &e.vars {
            let Some(v) = value(name).filter(|v| !v.is_empty()) else {
                continue;
            };
            let v: String = match prefix {
                Some(n) => v.chars().take(*n).collect(),
                None => v.to_string(),
            };
            pieces.push(match (named, v.is_empty()) {
                (true, true) => format!("{name}{if_empty}"),
                (true, false) => format!("{name}={}", encode(&v, reserved)),
                _ => encode(&v, reserved),
            });
        }
        if !pieces.is_empty() {
            out.push_str(first);
            out.push_str(&pieces.join(sep));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_expands_the_demo_templates_and_rfc_examples() {
        assert_eq!(variables("demo://greeting/{name}"), ["name"]);
        assert_eq!(variables("x{?a,b}{/a}"), ["a", "b"]);
        let vals = |n: &str| match n {
            "name" => Some("Ada L"),
            "path" => Some("docs/a.md"),
            "var" => Some("value"),
            "x" => Some("1024"),
            _ => None,
        };
        assert_eq!(
            expand("demo://greeting/{name}", vals),
            "demo://greeting/Ada%20L"
        );
        assert_eq!(expand("f/{+path}", vals), "f/docs/a.md");
        assert_eq!(expand("f/{path}", vals), "f/docs%2Fa.md");
        assert_eq!(expand("{?x,y,var}", vals), "?x=1024&var=value");
        assert_eq!(expand("{/var:3}{.x}", vals), "/val.1024");
        assert_eq!(expand("{#path}", vals), "#docs/a.md");
        assert_eq!(expand("{;x,name}", vals), ";x=1024;name=Ada%20L");
    }
}
