//! The one rule for a URL a server supplied that mcpscope might open in a browser or offer as a
//! link: an OAuth `authorization_endpoint` or `registration_endpoint`, a URL elicitation, a
//! resource link, an MCP App's `ui/open-link`.
//!
//! Only `https:` is opened, and `http:` on this machine (`localhost`, 127.0.0.0/8, `[::1]`).
//! Anything else — `file:`, `javascript:`, `data:`, a custom scheme an OS hands to some program
//! (the CVE-2025-6514 class) — is refused with the reason, and so is a URL with a user name or
//! password in it (`https://bank.example@evil.example/` hides its real host). The web UI has the
//! same rule in `web/src/utils/openable.ts`; both are tested against `openable_cases.json`.

use url::{Host, Url};

/// `Ok` with the parsed URL when mcpscope may open `raw`; else why not, as a sentence that does
/// not repeat the URL (the caller shows it, escaped as it shows any server text).
pub fn openable(raw: &str) -> Result<Url, String> {
    let u = Url::parse(raw.trim()).map_err(|_| "it is not an absolute URL".to_string())?;
    if !u.username().is_empty() || u.password().is_some() {
        return Err(
            "a URL with a user name or password in it is refused (it can hide the real host)"
                .into(),
        );
    }
    match u.scheme() {
        "https" if u.host().is_some() => Ok(u),
        "http" if is_loopback(u.host()) => Ok(u),
        "http" => Err(
            "http: is opened only on this machine (localhost, 127.0.0.1, [::1]); anything else must be https:"
                .into(),
        ),
        s => Err(format!(
            "the {s}: scheme is refused: only https: URLs (and http: on this machine) are opened"
        )),
    }
}

fn is_loopback(host: Option<Host<&str>>) -> bool {
    match host {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(a)) => a.is_loopback(),
        Some(Host::Ipv6(a)) => a.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::openable;
    use serde_json::Value;

    /// The cases the web UI's copy of the rule is tested against too.
    #[test]
    fn every_shared_case_gets_its_verdict() {
        let cases: Value = serde_json::from_str(include_str!("openable_cases.json")).unwrap();
        for case in cases.as_array().unwrap() {
            let url = case["url"].as_str().unwrap();
            let got = openable(url);
            match case["refused"].as_str() {
                None => assert!(got.is_ok(), "{url:?} must be openable: {got:?}"),
                Some(why) => {
                    let e = got.expect_err(url);
                    assert!(e.contains(why), "{url:?}: {e:?} must say {why:?}");
                }
            }
        }
    }
}
