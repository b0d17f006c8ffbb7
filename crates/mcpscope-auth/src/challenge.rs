//! `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3): the Bearer challenge's
//! `resource_metadata` (RFC 9728), `scope`, `error` and `error_description`.
//!
//! Servers put several challenges in one header (`DPoP algs="ES256", Bearer scope="a b"`), quote
//! values or not, and vary the case of names; the parser takes all of that. What it cannot read
//! is skipped, never guessed.

/// One challenge: its scheme and parameters (names lowercased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `Bearer`, `DPoP`, `Basic`, … as sent.
    pub scheme: String,
    /// `name=value` pairs in order.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What a Bearer challenge says, as far as the MCP authorization flow cares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// RFC 9728 `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// The scopes the server wants, space-separated.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    /// The server's explanation.
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The challenged scopes as a list.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// Space-separated scopes as a list, without empties or repeats.
pub fn split_scopes(s: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for s in s.unwrap_or("").split_ascii_whitespace() {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// The Bearer challenge in a `WWW-Authenticate` header, if there is one.
pub fn bearer(header: &str) -> Option<BearerChallenge> {
    let c = parse(header)
        .into_iter()
        .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))?;
    Some(BearerChallenge {
        resource_metadata: c.param("resource_metadata").map(str::to_string),
        scope: c.param("scope").map(str::to_string),
        error: c.param("error").map(str::to_string),
        error_description: c.param("error_description").map(str::to_string),
    })
}

/// Every challenge in the header.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut p = Parser {
        s: header.as_bytes(),
        i: 0,
    };
    let mut out = vec![];
    loop {
        p.skip(|c| c == b' ' || c == b'\t' || c == b',');
        let Some(scheme) = p.token() else { break };
        let mut challenge = Challenge {
            scheme,
            params: vec![],
        };
        loop {
            let save = p.i;
            p.skip(|c| c == b' ' || c == b'\t' || c == b',');
            let Some(name) = p.token() else {
                // token68 (`Basic dXNlcg==`) or junk: skip to the next comma.
                p.skip(|c| c != b',');
                if p.i == save {
                    break;
                }
                continue;
            };
            p.skip(|c| c == b' ' || c == b'\t');
            if p.peek() != Some(b'=') {
                // A token not followed by '=' starts the next challenge.
                p.i = save;
                break;
            }
            p.i += 1;
            p.skip(|c| c == b' ' || c == b'\t');
            let value = if p.peek() == Some(b'"') {
                p.quoted()
            } else {
                // token68 values may end in '=' padding; take up to the separator.
                let start = p.i;
                p.skip(|c| c != b',' && c != b' ' && c != b'\t');
                String::from_utf8_lossy(&p.s[start..p.i]).into_owned()
            };
            challenge.params.push((name.to_ascii_lowercase(), value));
        }
        out.push(challenge);
    }
    out
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip(&mut self, f: impl Fn(u8) -> bool) {
        while let Some(c) = self.peek() {
            if !f(c) {
                break;
            }
            self.i += 1;
        }
    }

    /// An RFC 9110 token (tchar+).
    fn token(&mut self) -> Option<String> {
        let start = self.i;
        self.skip(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c));
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// A quoted-string starting at `"`, with `\` escapes; an unterminated one runs to the end.
    fn quoted(&mut self) -> String {
        self.i += 1;
        let mut out = vec![];
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(n) = self.peek() {
                        out.push(n);
                        self.i += 1;
                    }
                }
                _ => out.push(c),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdk_header_with_every_parameter() {
        let h = r#"Bearer error="insufficient_scope", error_description="Insufficient scope", scope="files:read files:write", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp""#;
        let b = bearer(h).unwrap();
        assert_eq!(b.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(b.error_description.as_deref(), Some("Insufficient scope"));
        assert_eq!(b.scopes(), vec!["files:read", "files:write"]);
        assert_eq!(
            b.resource_metadata.as_deref(),
            Some("http://localhost:3000/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn several_challenges_tokens_escapes_and_case() {
        let h = r#"DPoP algs="ES256 PS256", BEARER Realm=example, Scope="a \"b\"",error=invalid_token, Basic dXNlcjpwYXNz=="#;
        let all = parse(h);
        assert_eq!(all.len(), 3, "{all:?}");
        assert_eq!(all[0].scheme, "DPoP");
        assert_eq!(all[0].param("algs"), Some("ES256 PS256"));
        let b = bearer(h).unwrap();
        assert_eq!(b.scope.as_deref(), Some(r#"a "b""#));
        assert_eq!(b.error.as_deref(), Some("invalid_token"));
        assert_eq!(all[2].scheme, "Basic");
    }

    #[test]
    fn no_bearer_and_bare_bearer() {
        assert_eq!(bearer(r#"DPoP algs="ES256""#), None);
        assert_eq!(bearer("Bearer"), Some(BearerChallenge::default()));
        assert_eq!(bearer(""), None);
        assert_eq!(split_scopes(Some(" a  b a ")), vec!["a", "b"]);
    }
}
