//! Streamable HTTP: what the transport itself requires of a server, checked with requests made by
//! hand ([`raw_http`]) beside the era's session — never on it, so ending a session or sending a
//! foreign `Origin` cannot disturb the other checks.
//!
//! Both eras: `dns-rebinding-protection` (a server on this machine's loopback refuses a foreign
//! `Origin` with 403). 2025-11-25, on a session of our own opened with `initialize`:
//! `session-id-visible-ascii`, `notification-post-accepted` (`notifications/initialized` → 202, no
//! body), `get-stream-or-405` (a GET opens an SSE stream or gets 405),
//! `protocol-version-header-invalid` (`MCP-Protocol-Version: 1900-01-01` → 400) and
//! `server-session-lifecycle` (DELETE, then the ended session's id → 404; a 405 to the DELETE is
//! the server saying clients may not end sessions, which the spec allows: skipped). 2026-07-28:
//! [`http_modern`](super::http_modern). Not an HTTP target: every check here is skipped, saying so.

use super::http_modern;
use crate::catalog::{Applies, Area, CHECKS};
use crate::raw_http::{self, Answer, Ask};
use crate::run::Cx;
use crate::verdict::{Outcome, Verdict};
use mcpscope_proto::era::{Era, LEGACY_VERSION};
use serde_json::{Value, json};

/// An origin no local server should trust: a web page elsewhere, as a DNS rebinding attack uses.
pub(crate) const FOREIGN_ORIGIN: &str = "http://evil.example";
/// A protocol version no server speaks.
const NO_SUCH_VERSION: &str = "1900-01-01";

/// Run the era's HTTP checks (or skip them all on a target that is not Streamable HTTP).
pub(crate) async fn run(cx: &Cx) {
    if raw_http::endpoint(cx).is_none() {
        let why = if cx.is_stdio() {
            "not an HTTP server"
        } else {
            "not a Streamable HTTP server (the deprecated HTTP+SSE transport)"
        };
        for d in CHECKS.iter().filter(|d| d.area == Area::Http) {
            let applies = match d.applies {
                Applies::Both => true,
                Applies::Legacy => cx.era == Era::Legacy,
                Applies::Modern => cx.era == Era::Modern,
            };
            if applies {
                cx.skip(d.id, why);
            }
        }
        return;
    }
    dns_rebinding(cx).await;
    match cx.era {
        Era::Legacy => legacy(cx).await,
        Era::Modern => http_modern::run(cx).await,
    }
}

/// `id` held; the exchange is not needed to show it.
fn pass(cx: &Cx, id: &'static str, message: String) {
    cx.add(Verdict::new(id, cx.version(), Outcome::Pass, message));
}

/// `id`'s rule was broken, shown by `answers` (their frames, the last one's `curl`).
pub(crate) fn broken(cx: &Cx, id: &'static str, message: String, answers: &[&Answer]) {
    let evidence = answers.iter().flat_map(|a| a.evidence.clone()).collect();
    let reproduce = answers.last().map(|a| a.reproduce.clone());
    cx.add(
        Verdict::broken(id, cx.version(), message)
            .with_evidence(evidence)
            .with_reproduce(reproduce),
    );
}

/// A request with `Origin: http://evil.example` to a server on the loopback interface gets 403.
async fn dns_rebinding(cx: &Cx) {
    const ID: &str = "dns-rebinding-protection";
    let Some((url, _)) = raw_http::endpoint(cx) else {
        return;
    };
    if !is_loopback(url) {
        cx.skip(
            ID,
            "the server is not on this machine's loopback interface: which origins it trusts is its own choice, so a foreign Origin proves nothing",
        );
        return;
    }
    let (body, mut headers) = match cx.era {
        Era::Legacy => (initialize("mcpscope-check-origin"), Vec::new()),
        Era::Modern => http_modern::discover("mcpscope-check-origin"),
    };
    let control = Ask::post(body.clone(), &pairs(&headers));
    headers.push(("Origin", FOREIGN_ORIGIN.to_string()));
    let a = raw_http::send(cx, Ask::post(body, &pairs(&headers))).await;
    end_session(cx, &a).await;
    let status = match a.status {
        Some(403) => {
            let m = format!("a request with Origin: {FOREIGN_ORIGIN} was refused with 403");
            return pass(cx, ID, m);
        }
        Some(s) => s,
        None => {
            let m = format!("a request with Origin: {FOREIGN_ORIGIN}: {}", a.describe());
            return broken(cx, ID, m, &[&a]);
        }
    };
    let served = (200..300).contains(&status);
    if !served {
        // Refused, but not with 403: judged only if the same request without the Origin is
        // served (an endpoint that refuses it anyway — an HTTP+SSE server's 405 — says nothing).
        let c = raw_http::send(cx, control).await;
        end_session(cx, &c).await;
        if !c.status.is_some_and(|s| (200..300).contains(&s)) {
            let m = format!(
                "not judged: the endpoint answers this request with {} even without an Origin",
                c.describe()
            );
            return cx.skip(ID, m);
        }
    }
    let what = if served {
        "a web page can drive this server (DNS rebinding)"
    } else {
        "refused, but a foreign origin gets 403 Forbidden"
    };
    broken(
        cx,
        ID,
        format!(
            "a request with Origin: {FOREIGN_ORIGIN} to a server on the loopback interface got {}, not 403: {what}",
            a.describe()
        ),
        &[&a],
    );
}

/// An `initialize` that went through opened a session: end it.
async fn end_session(cx: &Cx, a: &Answer) {
    if let Some(session) = a.header("mcp-session-id") {
        let session = session.to_string();
        raw_http::send(cx, Ask::delete(&[("Mcp-Session-Id", &session)])).await;
    }
}

/// Whether `url`'s host is the loopback interface (`localhost`, 127.0.0.0/8, `::1`).
pub(crate) fn is_loopback(url: &str) -> bool {
    match url::Url::parse(url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// `&(&str, String)` → `(&str, &str)` for [`Ask::post`].
pub(crate) fn pairs<'a>(headers: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// An `initialize` request of 2025-11-25.
fn initialize(id: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {},
                   "clientInfo": {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}}
    })
}

fn ping(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

/// Our own 2025-11-25 session: initialize, then the checks that need a session.
async fn legacy(cx: &Cx) {
    let init = raw_http::send(cx, Ask::post(initialize("mcpscope-check-session"), &[])).await;
    let result = init.message.as_ref().and_then(|m| m.get("result"));
    let Some(result) = result.filter(|_| init.status == Some(200)) else {
        let why = format!(
            "our own initialize, sent beside the session, got {}",
            init.describe()
        );
        for id in [
            "session-id-visible-ascii",
            "notification-post-accepted",
            "get-stream-or-405",
            "protocol-version-header-invalid",
            "server-session-lifecycle",
        ] {
            cx.skip(id, why.clone());
        }
        return;
    };
    let version = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(LEGACY_VERSION)
        .to_string();
    let session = init.header("mcp-session-id").map(str::to_string);
    session_id_visible_ascii(cx, session.as_deref(), &init);
    let mut headers = vec![("MCP-Protocol-Version", version.clone())];
    if let Some(s) = &session {
        headers.push(("Mcp-Session-Id", s.clone()));
    }
    notification_accepted(cx, &headers).await;
    get_stream_or_405(cx, &headers).await;
    protocol_version_invalid(cx, session.as_deref()).await;
    session_lifecycle(cx, session.as_deref(), &headers).await;
}

/// The `Mcp-Session-Id` issued on the initialize answer is visible ASCII (0x21–0x7E).
fn session_id_visible_ascii(cx: &Cx, session: Option<&str>, init: &Answer) {
    const ID: &str = "session-id-visible-ascii";
    let Some(s) = session else {
        cx.skip(
            ID,
            "the server issued no Mcp-Session-Id: it keeps no sessions",
        );
        return;
    };
    let bad: Vec<String> = s
        .chars()
        .filter(|c| !('\x21'..='\x7e').contains(c))
        .map(|c| format!("{:?}", c))
        .collect();
    if s.is_empty() || !bad.is_empty() {
        let what = if s.is_empty() {
            "is empty".to_string()
        } else {
            format!("contains {}", bad.join(", "))
        };
        broken(
            cx,
            ID,
            format!("the Mcp-Session-Id {s:?} {what}: only visible ASCII (0x21–0x7E) is allowed"),
            &[init],
        );
        return;
    }
    pass(
        cx,
        ID,
        format!("Mcp-Session-Id of {} visible ASCII characters", s.len()),
    );
}

/// `notifications/initialized` → 202 Accepted, no body.
async fn notification_accepted(cx: &Cx, headers: &[(&str, String)]) {
    const ID: &str = "notification-post-accepted";
    let body = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let a = raw_http::send(cx, Ask::post(body, &pairs(headers))).await;
    if a.status == Some(202) && a.body.is_empty() {
        pass(cx, ID, "notifications/initialized: 202, no body".into());
        return;
    }
    broken(
        cx,
        ID,
        format!(
            "notifications/initialized got {}; an accepted notification gets 202 Accepted with no body",
            a.describe()
        ),
        &[&a],
    );
}

/// A GET of the endpoint (`Accept: text/event-stream`) opens an SSE stream or gets 405; the
/// stream is closed as soon as its headers are in.
async fn get_stream_or_405(cx: &Cx, headers: &[(&str, String)]) {
    const ID: &str = "get-stream-or-405";
    let a = raw_http::send(cx, Ask::stream(&pairs(headers))).await;
    let sse = a
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"));
    match a.status {
        Some(405) => pass(cx, ID, "GET: 405, no standalone stream".into()),
        Some(200) if sse => pass(cx, ID, "GET: 200, an SSE stream".into()),
        _ => broken(
            cx,
            ID,
            format!(
                "GET with Accept: text/event-stream got {}{}; the answer is an SSE stream (Content-Type: text/event-stream) or 405 Method Not Allowed",
                a.describe(),
                a.header("content-type")
                    .map(|t| format!(" (Content-Type: {t})"))
                    .unwrap_or_default()
            ),
            &[&a],
        ),
    }
}

/// A request in the session with `MCP-Protocol-Version: 1900-01-01` → 400.
async fn protocol_version_invalid(cx: &Cx, session: Option<&str>) {
    const ID: &str = "protocol-version-header-invalid";
    let mut headers = vec![("MCP-Protocol-Version", NO_SUCH_VERSION)];
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id", s));
    }
    let a = raw_http::send(cx, Ask::post(ping("mcpscope-check-bad-version"), &headers)).await;
    if a.status == Some(400) {
        pass(
            cx,
            ID,
            format!("ping with MCP-Protocol-Version: {NO_SUCH_VERSION}: 400"),
        );
        return;
    }
    broken(
        cx,
        ID,
        format!(
            "ping with MCP-Protocol-Version: {NO_SUCH_VERSION} got {}, not 400 Bad Request",
            a.describe()
        ),
        &[&a],
    );
}

/// DELETE ends the session; its id then gets 404. A 405 to the DELETE is allowed (skipped).
async fn session_lifecycle(cx: &Cx, session: Option<&str>, headers: &[(&str, String)]) {
    const ID: &str = "server-session-lifecycle";
    if session.is_none() {
        cx.skip(
            ID,
            "the server issued no Mcp-Session-Id: it keeps no sessions",
        );
        return;
    }
    let del = raw_http::send(cx, Ask::delete(&pairs(headers))).await;
    let Some(status) = del.status else {
        broken(
            cx,
            ID,
            format!("DELETE of the session: {}", del.describe()),
            &[&del],
        );
        return;
    };
    if status == 405 {
        cx.skip(
            ID,
            "DELETE of the session was answered 405 Method Not Allowed: the server does not let clients end sessions, which the spec allows",
        );
        return;
    }
    let after = raw_http::send(
        cx,
        Ask::post(ping("mcpscope-check-ended-session"), &pairs(headers)),
    )
    .await;
    if after.status == Some(404) {
        pass(
            cx,
            ID,
            format!("DELETE answered {status}; a request with the ended session's id then got 404"),
        );
        return;
    }
    let how = if (200..300).contains(&status) {
        format!("DELETE of the session answered {status}")
    } else {
        format!(
            "DELETE of the session answered {status} (neither ending it nor 405 Method Not Allowed, the spec's refusal)"
        )
    };
    broken(
        cx,
        ID,
        format!(
            "{how}, but a request with its id then got {}; a terminated session's id gets 404 Not Found",
            after.describe()
        ),
        &[&del, &after],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for url in [
            "http://127.0.0.1:3000/mcp",
            "http://127.9.9.9/mcp",
            "http://localhost/mcp",
            "http://LOCALHOST:1/",
            "http://[::1]:8080/mcp",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "https://example.com/mcp",
            "http://10.0.0.1/mcp",
            "http://[::2]/mcp",
            "http://localhost.example.com/",
            "not a url",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
