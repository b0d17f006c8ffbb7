//! Streamable HTTP at 2026-07-28: no sessions (`no-session-id`: an `Mcp-Session-Id` sent is
//! ignored, none minted or echoed) and the request headers checked against the body — a wrong
//! `Mcp-Method` (`method-header-mismatch`), a wrong `Mcp-Name` (`name-header-mismatch`, on a
//! `tools/call`, `prompts/get` or `resources/read` naming nothing the server has, so a server that
//! does not check the header runs nothing) and no `Mcp-Method` at all
//! (`missing-method-header-rejected`) each get HTTP 400 with JSON-RPC -32020 HeaderMismatch.
//! Every probe is a well-formed request of the era but for the one header it is about.

use super::http::{broken, pairs};
use crate::raw_http::{self, Ask};
use crate::run::Cx;
use crate::verdict::{Outcome, Verdict};
use mcpscope_proto::era::{
    HEADER_MISMATCH, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    MODERN_VERSION,
};
use serde_json::{Map, Value, json};

/// A session id no server issued.
const FOREIGN_SESSION: &str = "mcpscope-check-not-a-session";
/// A name no server has: a server that ignores `Mcp-Name` answers "unknown", and runs nothing.
const NO_SUCH_NAME: &str = "mcpscope-check-no-such-name";
/// What the `Mcp-Name` header claims instead.
const OTHER_NAME: &str = "mcpscope-check-other-name";

/// Run the 2026-07-28 HTTP checks.
pub(crate) async fn run(cx: &Cx) {
    no_session_id(cx).await;
    method_mismatch(cx).await;
    name_mismatch(cx).await;
    missing_method(cx).await;
}

/// A request of 2026-07-28 with its `_meta` envelope and the standard headers it needs.
fn request(id: &str, method: &str, mut params: Map<String, Value>) -> Value {
    params.insert(
        "_meta".into(),
        json!({
            META_PROTOCOL_VERSION: MODERN_VERSION,
            META_CLIENT_CAPABILITIES: {},
            META_CLIENT_INFO: {"name": "mcpscope-check", "version": env!("CARGO_PKG_VERSION")}
        }),
    );
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `server/discover` and its headers, as a conforming client sends them.
pub(crate) fn discover(id: &str) -> (Value, Vec<(&'static str, String)>) {
    (
        request(id, "server/discover", Map::new()),
        vec![
            ("MCP-Protocol-Version", MODERN_VERSION.to_string()),
            ("Mcp-Method", "server/discover".to_string()),
        ],
    )
}

/// A `server/discover` carrying an `Mcp-Session-Id` gets an answer without one.
async fn no_session_id(cx: &Cx) {
    const ID: &str = "no-session-id";
    let (body, mut headers) = discover("mcpscope-check-session-id");
    headers.push(("Mcp-Session-Id", FOREIGN_SESSION.to_string()));
    let a = raw_http::send(cx, Ask::post(body, &pairs(&headers))).await;
    let answered = a.status == Some(200)
        && a.message
            .as_ref()
            .is_some_and(|m| m.get("result").is_some());
    let message = match a.header("mcp-session-id") {
        Some(s) if s == FOREIGN_SESSION => {
            format!("the answer echoes the Mcp-Session-Id we sent ({s})")
        }
        Some(s) => format!("the answer mints an Mcp-Session-Id ({s})"),
        None if answered => {
            cx.add(Verdict::new(
                ID,
                cx.version(),
                Outcome::Pass,
                format!("server/discover with Mcp-Session-Id: {FOREIGN_SESSION} answered, no Mcp-Session-Id minted or echoed"),
            ));
            return;
        }
        None => format!(
            "server/discover with an Mcp-Session-Id header got {}: the header is to be ignored",
            a.describe()
        ),
    };
    broken(cx, ID, message, &[&a]);
}

/// `Mcp-Method: tools/list` on a `server/discover` body → 400, -32020.
async fn method_mismatch(cx: &Cx) {
    let (body, mut headers) = discover("mcpscope-check-method-header");
    headers.retain(|(k, _)| *k != "Mcp-Method");
    headers.push(("Mcp-Method", "tools/list".into()));
    rejected(
        cx,
        "method-header-mismatch",
        body,
        &headers,
        "Mcp-Method: tools/list on a server/discover request",
    )
    .await;
}

/// No `Mcp-Method` on a `server/discover` → 400, -32020.
async fn missing_method(cx: &Cx) {
    let (body, mut headers) = discover("mcpscope-check-no-method-header");
    headers.retain(|(k, _)| *k != "Mcp-Method");
    rejected(
        cx,
        "missing-method-header-rejected",
        body,
        &headers,
        "a server/discover request without Mcp-Method",
    )
    .await;
}

/// `Mcp-Name` naming something else than the body → 400, -32020; on the first of tools, prompts,
/// resources the server declares.
async fn name_mismatch(cx: &Cx) {
    const ID: &str = "name-header-mismatch";
    let (method, key, value) = if cx.has("tools") {
        ("tools/call", "name", NO_SUCH_NAME.to_string())
    } else if cx.has("prompts") {
        ("prompts/get", "name", NO_SUCH_NAME.to_string())
    } else if cx.has("resources") {
        (
            "resources/read",
            "uri",
            format!("mcpscope-check:///{NO_SUCH_NAME}"),
        )
    } else {
        cx.skip(
            ID,
            "the server declares no tools, prompts or resources: no request of it carries Mcp-Name",
        );
        return;
    };
    let mut params = Map::new();
    params.insert(key.into(), Value::String(value.clone()));
    if method == "tools/call" {
        params.insert("arguments".into(), json!({}));
    }
    let body = request("mcpscope-check-name-header", method, params);
    let headers = vec![
        ("MCP-Protocol-Version", MODERN_VERSION.to_string()),
        ("Mcp-Method", method.to_string()),
        ("Mcp-Name", OTHER_NAME.to_string()),
    ];
    let what = format!("Mcp-Name: {OTHER_NAME} on a {method} of {value}");
    rejected(cx, ID, body, &headers, &what).await;
}

/// Send `body` with `headers`; the answer must be HTTP 400 with JSON-RPC error -32020.
async fn rejected(cx: &Cx, id: &'static str, body: Value, headers: &[(&str, String)], what: &str) {
    let a = raw_http::send(cx, Ask::post(body, &pairs(headers))).await;
    if a.status == Some(400) && a.error_code() == Some(HEADER_MISMATCH) {
        cx.add(Verdict::new(
            id,
            cx.version(),
            Outcome::Pass,
            format!("{what}: HTTP 400, -32020 HeaderMismatch"),
        ));
        return;
    }
    broken(
        cx,
        id,
        format!(
            "{what} got {}, not HTTP 400 with JSON-RPC error -32020 (HeaderMismatch)",
            a.describe()
        ),
        &[&a],
    );
}
