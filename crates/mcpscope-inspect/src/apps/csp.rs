//! The Content Security Policy an app runs under, and its iframe `allow` list.
//!
//! The spec's default (mcp-wire-reference §9) is the floor and the ceiling at once: a host may
//! tighten it, never loosen it. So the effective policy is the default, widened only by the
//! domains the resource declares in `_meta.ui.csp`, each checked first: an http(s)/ws(s) origin
//! or a host pattern (`example.com`, `*.example.com`, with an optional port and path). Anything
//! that could smuggle a directive or a keyword into the policy (`;`, `,`, quotes, whitespace,
//! `'unsafe-eval'`), or widen it to everything (`*` alone, a scheme alone, `*.com`), or name a
//! script-capable scheme (`javascript:`, `data:`, `blob:`), is refused and named.

/// The spec's default CSP for an app that declares none.
pub const DEFAULT_CSP: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none';";

/// More declared domains than this in one list is refused (a policy is a header-sized string).
pub const MAX_DOMAINS: usize = 64;

/// The domains `_meta.ui.csp` declares, each list already checked.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredCsp {
    /// `connect-src` (fetch, XHR, WebSocket).
    pub connect_domains: Vec<String>,
    /// Scripts, styles, images, media and fonts.
    pub resource_domains: Vec<String>,
    /// `frame-src`: nested iframes.
    pub frame_domains: Vec<String>,
    /// `base-uri`.
    pub base_uri_domains: Vec<String>,
}

/// Why `domain` cannot widen a policy, if it cannot.
pub fn check_domain(domain: &str) -> Result<(), String> {
    let refuse = |why: &str| Err(format!("the CSP domain {domain:?} is refused: {why}"));
    if domain.is_empty() || domain.len() > 253 {
        return refuse("empty or longer than 253 characters");
    }
    if let Some(c) = domain
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, ';' | ',' | '\'' | '"' | '\\'))
    {
        return refuse(&format!(
            "it contains {c:?}, which could end the source or add a directive or keyword"
        ));
    }
    let lower = domain.to_ascii_lowercase();
    let rest = match lower.split_once("://") {
        Some(("http" | "https" | "ws" | "wss", rest)) => rest,
        Some((scheme, _)) => {
            return refuse(&format!("the scheme {scheme}: is not http(s) or ws(s)"));
        }
        None if lower.contains(':') && !host_with_port(&lower) => {
            return refuse(
                "a scheme source (javascript:, data:, blob:, https: alone …) is never allowed",
            );
        }
        None => lower.as_str(),
    };
    check_host(rest).or_else(|why| refuse(&why))
}

/// `host:port` without a scheme (`example.com:8080`, `localhost:3000`), as opposed to a scheme
/// source such as `data:` or `https:`: what comes before the colon is a host.
fn host_with_port(s: &str) -> bool {
    let before = s.split(':').next().unwrap_or(s);
    before.contains('.') || before == "localhost" || before.starts_with('[')
}

/// The host pattern, optional port and path of a source (lowercase, scheme removed).
fn check_host(rest: &str) -> Result<(), String> {
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~/%".contains(c))
    {
        return Err(format!(
            "the path {path:?} has characters a CSP source cannot hold"
        ));
    }
    // A bracketed IPv6 literal holds colons of its own.
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !authority.ends_with(']') => (h, Some(p)),
        _ => (authority, None),
    };
    if let Some(p) = port
        && p != "*"
        && (p.is_empty() || p.len() > 5 || !p.chars().all(|c| c.is_ascii_digit()))
    {
        return Err(format!("the port {p:?} is not a number"));
    }
    if host == "*" || host.is_empty() {
        return Err("a wildcard alone allows every host".into());
    }
    let labels = host.strip_prefix("*.").unwrap_or(host);
    if host.starts_with("*.") && !labels.contains('.') {
        return Err(format!("*.{labels} is a whole top-level domain"));
    }
    if host.starts_with('[') && host.ends_with(']') {
        return Ok(());
    }
    let label_ok =
        |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if labels.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(format!("{host:?} is not a host name or a *.host pattern"))
    }
}

/// The effective policy: [`DEFAULT_CSP`] with each directive widened only by its declared
/// domains. Nothing else changes, so it is never looser than the default otherwise.
pub fn effective_csp(declared: &DeclaredCsp) -> String {
    let join = |base: &str, extra: &[String]| {
        let mut s = base.to_string();
        for d in extra {
            s.push(' ');
            s.push_str(d);
        }
        s
    };
    let res = &declared.resource_domains;
    let mut parts = vec![
        "default-src 'none'".to_string(),
        join("script-src 'self' 'unsafe-inline'", res),
        join("style-src 'self' 'unsafe-inline'", res),
        join("img-src 'self' data:", res),
        join("media-src 'self' data:", res),
    ];
    if !res.is_empty() {
        // Fonts fall back to default-src 'none'; a declared resource domain may serve them.
        parts.push(join("font-src 'self'", res));
    }
    parts.push(match declared.connect_domains.as_slice() {
        [] => "connect-src 'none'".into(),
        domains => join("connect-src 'self'", domains),
    });
    if !declared.frame_domains.is_empty() {
        parts.push(join("frame-src", &declared.frame_domains));
    }
    if !declared.base_uri_domains.is_empty() {
        parts.push(join("base-uri 'self'", &declared.base_uri_domains));
    }
    let mut csp = parts.join("; ");
    csp.push(';');
    csp
}

/// The permissions of `_meta.ui.permissions` an iframe may be given, each with the name of its
/// `allow` feature.
pub const PERMISSIONS: [(&str, &str); 4] = [
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboardWrite", "clipboard-write"),
];

/// The iframe `allow` attribute for the declared permissions (`""` when none).
pub fn allow_of(declared: &[&str]) -> String {
    PERMISSIONS
        .iter()
        .filter(|(key, _)| declared.contains(key))
        .map(|(_, feature)| *feature)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_declaration_is_the_spec_default() {
        assert_eq!(effective_csp(&DeclaredCsp::default()), DEFAULT_CSP);
    }

    #[test]
    fn declared_domains_widen_only_their_directives() {
        let d = DeclaredCsp {
            connect_domains: vec!["https://api.example.com".into()],
            resource_domains: vec!["*.cdn.example".into()],
            frame_domains: vec![],
            base_uri_domains: vec![],
        };
        let csp = effective_csp(&d);
        assert!(csp.starts_with("default-src 'none'; "), "{csp}");
        assert!(
            csp.contains("script-src 'self' 'unsafe-inline' *.cdn.example;"),
            "{csp}"
        );
        assert!(
            csp.contains("connect-src 'self' https://api.example.com;"),
            "{csp}"
        );
        assert!(csp.contains("font-src 'self' *.cdn.example;"), "{csp}");
        assert!(
            !csp.contains("frame-src") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
    }

    #[test]
    fn good_domains_pass() {
        for d in [
            "https://api.example.com",
            "http://localhost:3000",
            "wss://live.example.com:443/socket",
            "example.com",
            "*.example.com",
            "cdn.example.com:*",
            "https://[::1]:8080",
        ] {
            assert_eq!(check_domain(d), Ok(()), "{d}");
        }
    }

    #[test]
    fn hostile_domains_are_refused_and_named() {
        for (d, why) in [
            ("*", "wildcard alone"),
            ("https://*", "wildcard alone"),
            ("'unsafe-eval'", "'\\''"),
            ("example.com; script-src *", "';'"),
            ("example.com 'unsafe-inline'", "' '"),
            ("a.com,b.com", "','"),
            ("\"x\"", "'\"'"),
            ("javascript:alert(1)", "scheme source"),
            ("data:", "scheme source"),
            ("blob:", "scheme source"),
            ("https:", "scheme source"),
            ("ftp://files.example", "ftp:"),
            ("javascript://x", "javascript:"),
            ("*.com", "top-level"),
            ("exa*mple.com", "not a host"),
            ("example.com:80x", "not a number"),
            ("", "empty"),
            ("example.com\n", "'\\n'"),
        ] {
            let e = check_domain(d).expect_err(d);
            assert!(e.contains(why), "{d:?}: {e}");
            assert!(e.contains("refused"), "{e}");
        }
    }

    #[test]
    fn allow_names_only_the_declared_permissions() {
        assert_eq!(allow_of(&[]), "");
        assert_eq!(
            allow_of(&["clipboardWrite", "camera"]),
            "camera; clipboard-write"
        );
    }
}
