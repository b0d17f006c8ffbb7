//! Credentials kept out of what is shown and stored: the one rule the web backend (view, SQLite,
//! exports) and the CLI (`--trace`, unless `--trace-secrets`) share.
//!
//! Three things are redacted, in this order, by [`frame`]:
//!
//! 1. [`credential_headers`]: `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
//!    keep their scheme and length only.
//! 2. [`oauth`]: tokens, client secrets, codes and PKCE verifiers in OAuth bodies and URLs.
//! 3. [`Secrets`]: every value the user keeps secret (resolved from the secret store for this
//!    connection), wherever it appears — a header, a URL, a body, a stdio or stderr line — since a
//!    server may echo it back. Each becomes `«secret NAME»`, NAME being the header or variable it
//!    was given as, so the reader still sees which secret went where.
//!
//! ```
//! use bytes::Bytes;
//! use mcpscope_proto::{FrameKind, FrameMeta, redact::{self, Secrets}};
//! let mut secrets = Secrets::default();
//! secrets.add("API_KEY", "sk-live-XYZ");
//! let mut meta = FrameMeta::default();
//! let mut body = Bytes::from_static(b"key is sk-live-XYZ");
//! redact::frame(FrameKind::StderrLine, &mut meta, &mut body, &secrets);
//! assert_eq!(&body[..], "key is «secret API_KEY»".as_bytes());
//! ```

use crate::{FrameKind, FrameMeta};
use bytes::Bytes;
use serde_json::Value;

/// Headers that are credentials whatever their value.
pub const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// True when `name` is one of [`CREDENTIAL_HEADERS`] (any case).
pub fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
}

/// Words in a header name that say its value is a secret (`X-Api-Key`, `X-Auth-Token`,
/// `Private-Token`, `X-Client-Secret`).
const SECRET_NAME_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "password",
    "credential",
    "auth",
    "cookie",
    "signature",
];

/// True when a header the user gives (`--header`, a config entry) is to be kept secret: a
/// credential header, or a name that says so ([`SECRET_NAME_WORDS`]). Its value is then one of
/// the connection's [`Secrets`], redacted wherever it appears.
///
/// ```
/// use mcpscope_proto::redact::is_secret_header;
/// assert!(is_secret_header("X-Api-Key") && is_secret_header("authorization"));
/// assert!(!is_secret_header("Accept") && !is_secret_header("X-Request-Id"));
/// ```
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    is_credential_header(&name) || SECRET_NAME_WORDS.iter().any(|w| name.contains(w))
}

/// Every redaction of a frame: credential headers, OAuth fields, then the connection's secrets.
pub fn frame(kind: FrameKind, meta: &mut FrameMeta, body: &mut Bytes, secrets: &Secrets) {
    credential_headers(meta);
    oauth(kind, meta, body);
    secrets.frame(meta, body);
}

/// Credential headers keep their scheme (`Bearer `) and length only.
pub fn credential_headers(meta: &mut FrameMeta) {
    for (k, v) in meta.headers.iter_mut() {
        if !is_credential_header(k) || v.contains("…redacted (") {
            continue;
        }
        let scheme = match v.split_once(' ') {
            Some((s, _)) if k.to_ascii_lowercase().ends_with("authorization") => format!("{s} "),
            _ => String::new(),
        };
        *v = format!("{scheme}…redacted ({} characters)", v.len());
    }
}

/// Fields of OAuth requests and responses that are credentials: kept out like the headers above
/// (their length stays, so a missing or empty one still shows).
pub const OAUTH_SECRETS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code",
    "code_verifier",
    "registration_access_token",
    // RFC 7009 revocation requests carry the token being revoked.
    "token",
];

fn redacted(v: &str) -> String {
    format!("…redacted ({} characters)", v.len())
}

/// Form pairs (`a=b&c=d`) with the credentials' values redacted; `None` when nothing changed.
fn redact_pairs(text: &str) -> Option<String> {
    let mut changed = false;
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| {
            if OAUTH_SECRETS.contains(&k.as_ref()) {
                changed = true;
                (k.into_owned(), redacted(&v))
            } else {
                (k.into_owned(), v.into_owned())
            }
        })
        .collect();
    changed.then(|| {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    })
}

fn redact_json(v: &mut Value) -> bool {
    let mut changed = false;
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    Value::String(t) if OAUTH_SECRETS.contains(&k.as_str()) => {
                        *t = redacted(t);
                        changed = true;
                    }
                    _ => changed |= redact_json(x),
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                changed |= redact_json(x);
            }
        }
        _ => {}
    }
    changed
}

/// OAuth frames keep no credentials: tokens, client secrets, codes and PKCE verifiers in JSON or
/// form bodies and in URL queries (the callback's `code`) are replaced by their length. Only
/// OAuth frames are touched: an MCP message may well carry a field named `code`.
pub fn oauth(kind: FrameKind, meta: &mut FrameMeta, body: &mut Bytes) {
    if !matches!(kind, FrameKind::OAuthRequest | FrameKind::OAuthResponse) {
        return;
    }
    if let Some(u) = &meta.url
        && let Ok(mut parsed) = url::Url::parse(u)
        && let Some(q) = parsed.query().and_then(redact_pairs)
    {
        parsed.set_query(Some(&q));
        meta.url = Some(parsed.to_string());
    }
    if body.is_empty() {
        return;
    }
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        if redact_json(&mut v) {
            *body = Bytes::from(v.to_string());
        }
    } else if let Ok(text) = std::str::from_utf8(body)
        && let Some(q) = redact_pairs(text.trim())
    {
        *body = Bytes::from(q);
    }
}

/// The secret values of one connection, each with the name it was given as.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    /// (what to look for, its marker), longest first so a secret that contains another is
    /// replaced whole.
    needles: Vec<(Vec<u8>, String)>,
}

impl Secrets {
    /// Add `value`, given as `name` (a header or environment variable); for a credential header
    /// its token alone too (`Bearer sk-…`), since a server may echo the token without its scheme.
    pub fn add(&mut self, name: &str, value: &str) {
        if is_credential_header(name)
            && let Some((_, token)) = value.split_once(' ')
        {
            self.add_form(name, token.trim());
        }
        self.add_form(name, value);
    }

    /// Empty values are ignored: there is nothing to hide and every position would match.
    fn add_form(&mut self, name: &str, value: &str) {
        if value.is_empty() {
            return;
        }
        let marker = format!("«secret {name}»");
        // A server echoing the value in JSON may have escaped it (quotes, backslashes, control
        // characters; Python's json.dumps escapes every non-ASCII character too).
        let quoted = serde_json::to_string(value).unwrap_or_default();
        let json = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(value)
            .to_string();
        let ascii: String = json
            .chars()
            .map(|c| match c {
                c if c.is_ascii() => c.to_string(),
                c => c
                    .encode_utf16(&mut [0; 2])
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect(),
            })
            .collect();
        // In a URL (a query a server logs, a redirect it returns) the value is percent-encoded:
        // `%20` or `+` for a space, upper- or lower-case hex.
        let forms = [
            value.to_string(),
            json,
            ascii,
            url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
            percent_encoded(value, false),
            percent_encoded(value, true),
        ];
        for form in forms {
            if !form.is_empty() && !self.needles.iter().any(|(n, _)| n == form.as_bytes()) {
                self.needles.push((form.into_bytes(), marker.clone()));
            }
        }
        self.needles.sort_by_key(|n| std::cmp::Reverse(n.0.len()));
    }

    /// True when there is no secret to look for.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// `bytes` with every secret replaced by its marker; `None` when none occurs.
    pub fn bytes(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut out: Option<Vec<u8>> = None;
        for (needle, marker) in &self.needles {
            let current = out.as_deref().unwrap_or(bytes);
            let finder = memchr::memmem::Finder::new(needle);
            let mut hits = finder.find_iter(current).peekable();
            if hits.peek().is_none() {
                continue;
            }
            let mut next = Vec::with_capacity(current.len());
            let mut at = 0;
            for hit in hits {
                next.extend_from_slice(&current[at..hit]);
                next.extend_from_slice(marker.as_bytes());
                at = hit + needle.len();
            }
            next.extend_from_slice(&current[at..]);
            out = Some(next);
        }
        out
    }

    /// `text` with every secret replaced by its marker; `None` when none occurs.
    pub fn text(&self, text: &str) -> Option<String> {
        // Markers and needles are whole UTF-8 strings, so the result is UTF-8 again.
        self.bytes(text.as_bytes()).map(|b| {
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
    }

    fn string(&self, s: &mut String) {
        if let Some(r) = self.text(s) {
            *s = r;
        }
    }

    fn option(&self, s: &mut Option<String>) {
        if let Some(s) = s {
            self.string(s);
        }
    }

    /// Replace every secret in a frame's body, header values, URL and notes.
    pub fn frame(&self, meta: &mut FrameMeta, body: &mut Bytes) {
        if self.is_empty() {
            return;
        }
        if let Some(b) = self.bytes(body) {
            *body = Bytes::from(b);
        }
        for (_, v) in meta.headers.iter_mut() {
            self.string(v);
        }
        self.option(&mut meta.url);
        self.option(&mut meta.note);
        self.option(&mut meta.sse_id);
        self.option(&mut meta.sse_event);
    }

    /// Replace every secret in the strings (and object keys) of a JSON value: results, logs and
    /// notifications a server sent back.
    pub fn value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => self.string(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.value(x)),
            Value::Object(m) => {
                if m.keys().any(|k| self.text(k).is_some()) {
                    let old = std::mem::take(m);
                    for (k, x) in old {
                        m.insert(self.text(&k).unwrap_or(k), x);
                    }
                }
                m.values_mut().for_each(|x| self.value(x));
            }
            _ => {}
        }
    }
}

/// `value` with every byte outside RFC 3986's unreserved set as `%XX` (lower-case hex if asked).
fn percent_encoded(value: &str, lower: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else if lower {
            out.push_str(&format!("%{b:02x}"));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoded_secrets_are_redacted() {
        let mut secrets = Secrets::default();
        secrets.add("API_KEY", "s3cr/t +key=1");
        for text in [
            "GET /cb?k=s3cr%2Ft%20%2Bkey%3D1 HTTP/1.1",
            "GET /cb?k=s3cr%2ft%20%2bkey%3d1",
            "k=s3cr%2Ft+%2Bkey%3D1&x=2",
        ] {
            let out = secrets
                .text(text)
                .unwrap_or_else(|| panic!("not found in {text}"));
            assert!(out.contains("«secret API_KEY»"), "{out}");
            assert!(!out.contains("s3cr"), "{out}");
        }
    }

    #[test]
    fn oauth_credentials_are_redacted_in_bodies_and_urls() {
        let mut meta = FrameMeta {
            url: Some("http://127.0.0.1:6274/oauth/callback?code=abc123&state=s1&iss=x".into()),
            ..Default::default()
        };
        let mut body = Bytes::from_static(
            br#"{"access_token":"secret-access","token_type":"Bearer","refresh_token":"rt","scope":"mcp:read"}"#,
        );
        oauth(FrameKind::OAuthResponse, &mut meta, &mut body);
        let text = std::str::from_utf8(&body).unwrap();
        assert!(
            !text.contains("secret-access") && !text.contains("\"rt\""),
            "{text}"
        );
        assert!(
            text.contains("…redacted (13 characters)") && text.contains("mcp:read"),
            "{text}"
        );
        let url = meta.url.unwrap();
        assert!(!url.contains("abc123") && url.contains("state=s1"), "{url}");

        let mut meta = FrameMeta::default();
        let mut form = Bytes::from_static(
            b"grant_type=authorization_code&code=c0de&code_verifier=v3rifier&client_secret=shh&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb",
        );
        oauth(FrameKind::OAuthRequest, &mut meta, &mut form);
        let text = std::str::from_utf8(&form).unwrap();
        for secret in ["c0de", "v3rifier", "shh"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(text.contains("grant_type=authorization_code"), "{text}");

        // Only OAuth frames are touched: an MCP message may well carry a field named `code`.
        let mut body = Bytes::from_static(br#"{"code":42}"#);
        oauth(FrameKind::StdoutLine, &mut FrameMeta::default(), &mut body);
        assert_eq!(&body[..], br#"{"code":42}"#);
    }

    #[test]
    fn credential_headers_keep_scheme_and_length() {
        let mut m = FrameMeta {
            headers: vec![
                ("Authorization".into(), "Bearer secret-token".into()),
                ("Mcp-Method".into(), "tools/call".into()),
                ("cookie".into(), "a=b".into()),
            ],
            ..Default::default()
        };
        credential_headers(&mut m);
        assert_eq!(m.headers[0].1, "Bearer …redacted (19 characters)");
        assert_eq!(m.headers[1].1, "tools/call");
        assert_eq!(m.headers[2].1, "…redacted (3 characters)");
        // Twice is the same as once (the CLI and the web backend may both pass a frame).
        credential_headers(&mut m);
        assert_eq!(m.headers[0].1, "Bearer …redacted (19 characters)");
    }

    #[test]
    fn secrets_are_replaced_everywhere_in_every_form() {
        let mut s = Secrets::default();
        s.add("X-Api-Key", "sk-live-XYZ");
        s.add("TOKEN", "tök\"en");
        s.add("EMPTY", "");
        s.add("Authorization", "Bearer tok-1");
        assert_eq!(
            s.text("echo tok-1 and Bearer tok-1").as_deref(),
            Some("echo «secret Authorization» and «secret Authorization»")
        );
        let mut meta = FrameMeta {
            url: Some("http://127.0.0.1/mcp?key=sk-live-XYZ".into()),
            headers: vec![("X-Api-Key".into(), "sk-live-XYZ".into())],
            ..Default::default()
        };
        let mut body = Bytes::from(
            r#"{"a":"sk-live-XYZsk-live-XYZ","b":"t\u00f6k\"en","c":"tök\"en"}"#.to_string(),
        );
        s.frame(&mut meta, &mut body);
        let text = std::str::from_utf8(&body).unwrap();
        assert_eq!(
            text,
            r#"{"a":"«secret X-Api-Key»«secret X-Api-Key»","b":"«secret TOKEN»","c":"«secret TOKEN»"}"#
        );
        assert_eq!(meta.headers[0].1, "«secret X-Api-Key»");
        assert_eq!(
            meta.url.as_deref(),
            Some("http://127.0.0.1/mcp?key=«secret X-Api-Key»")
        );
        let mut v = serde_json::json!({"sk-live-XYZ": ["echo sk-live-XYZ", 1]});
        s.value(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"«secret X-Api-Key»": ["echo «secret X-Api-Key»", 1]})
        );
        assert!(s.bytes(b"nothing here").is_none());
    }
}
