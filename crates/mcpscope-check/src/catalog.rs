//! The catalogue: every check `mcpscope check` makes, once — its id, its area, whether the spec
//! says MUST or SHOULD, which revisions it applies to, and the spec sentence it comes from.
//! `docs/checks.md` is the reader's copy and is tested against this table; a check's code names
//! its id from here and nowhere else.
//!
//! Ids follow the names other tools already use where one exists (the official conformance
//! suite's scenarios, MCPJam's check ids), so a user moving from either finds the same words.

use serde::Serialize;

/// Which part of the protocol a check is about (the report's grouping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    /// Handshake, version negotiation, ping.
    Lifecycle,
    /// Declared capabilities served, undeclared ones refused.
    Capabilities,
    /// Every frame: schema, ids, stdout.
    Frames,
    /// Tools: list, definitions, calls.
    Tools,
    /// Resources and templates.
    Resources,
    /// Prompts.
    Prompts,
    /// Completions and logging.
    Utilities,
    /// List pagination.
    Pagination,
    /// Streamable HTTP: sessions, headers, origins.
    Http,
    /// Authorization of a protected HTTP server: its challenge, metadata, tokens.
    Auth,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    Caching,
}

impl Area {
    /// The area's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Area::Lifecycle => "lifecycle",
            Area::Capabilities => "capabilities",
            Area::Frames => "frames",
            Area::Tools => "tools",
            Area::Resources => "resources",
            Area::Prompts => "prompts",
            Area::Utilities => "utilities",
            Area::Pagination => "pagination",
            Area::Http => "http",
            Area::Caching => "caching",
            Area::Auth => "authorization",
        }
    }
}

/// How strongly the spec asks: a MUST broken fails the check, a SHOULD broken warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// A requirement.
    Must,
    /// A recommendation.
    Should,
}

impl Level {
    /// `MUST` or `SHOULD`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

/// The revisions a check applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applies {
    /// 2025-11-25 (the `initialize` era).
    Legacy,
    /// 2026-07-28 (stateless requests).
    Modern,
    /// Both.
    Both,
}

/// One check.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Def {
    /// Stable id: baselines, JUnit test names and `docs/checks.md` use it.
    pub id: &'static str,
    /// Report grouping.
    pub area: Area,
    /// MUST or SHOULD.
    pub level: Level,
    /// Which revisions it applies to.
    pub applies: Applies,
    /// Where in the spec: revision and page (and section).
    pub source: &'static str,
    /// The spec's sentence, as written there.
    pub sentence: &'static str,
}

/// Every check, in report order.
pub static CHECKS: &[Def] = &[
    Def {
        id: "server-initialize",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/lifecycle §Initialization",
        sentence: "The server MUST respond with its own capabilities and information.",
    },
    Def {
        id: "version-negotiation",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/lifecycle §Version Negotiation",
        sentence: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports.",
    },
    Def {
        id: "ping",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/utilities/ping §Behavior Requirements",
        sentence: "The receiver MUST respond promptly with an empty response.",
    },
    Def {
        id: "server-discover",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 server/discover",
        sentence: "Servers MUST implement server/discover; its result names the protocol versions the server supports (supportedVersions) and its capabilities.",
    },
    Def {
        id: "unsupported-version-error",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/versioning",
        sentence: "A server that does not implement the requested version MUST answer UnsupportedProtocolVersionError (-32022) naming the versions it supports (data.supported).",
    },
    Def {
        id: "capabilities-served",
        area: Area::Capabilities,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/lifecycle §Capability Negotiation",
        sentence: "Both parties MUST respect the negotiated protocol version and capabilities: a declared capability's methods are served.",
    },
    Def {
        id: "undeclared-capability-error",
        area: Area::Capabilities,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 basic/lifecycle §Capability Negotiation; 2026-07-28 basic/index §Error Codes",
        sentence: "A method behind a capability the server did not declare is refused with Method not found (-32601).",
    },
    Def {
        id: "wire-schema-valid",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 / 2026-07-28 schema.json",
        sentence: "Every message MUST conform to the schema of the negotiated revision.",
    },
    Def {
        id: "response-ids-correlated",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/index §Responses",
        sentence: "Responses MUST include the same ID as the request they correspond to; notifications MUST NOT be answered.",
    },
    Def {
        id: "stdout-only-mcp",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/transports §stdio",
        sentence: "The server MUST NOT write anything to its stdout that is not a valid MCP message.",
    },
    Def {
        id: "tools-list",
        area: Area::Tools,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/tools §Listing Tools",
        sentence: "Servers that support tools MUST declare the tools capability; clients discover tools with tools/list.",
    },
    Def {
        id: "tools-input-schemas-valid",
        area: Area::Tools,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/tools §Tool; basic/index §JSON Schema Usage",
        sentence: "inputSchema MUST be a valid JSON Schema object (not null); tool names SHOULD be unique and use only [A-Za-z0-9_.-].",
    },
    Def {
        id: "tools-unknown-tool-error",
        area: Area::Tools,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 server/tools §Error Handling",
        sentence: "Servers SHOULD report an unknown tool as a protocol error (Invalid params, -32602).",
    },
    Def {
        id: "tool-output-schema-conformant",
        area: Area::Tools,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/tools §Output Schema",
        sentence: "If an output schema is provided, servers MUST provide structured results that conform to this schema.",
    },
    Def {
        id: "resources-list",
        area: Area::Resources,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/resources §Listing Resources",
        sentence: "Servers that support resources MUST declare the resources capability; clients discover them with resources/list and resources/templates/list.",
    },
    Def {
        id: "resources-read-listed",
        area: Area::Resources,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/resources §Reading Resources; 2026-07-28 server/resources",
        sentence: "A listed resource can be read with resources/read; a server MUST NOT return empty contents for it.",
    },
    Def {
        id: "resource-not-found",
        area: Area::Resources,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 server/resources §Error Handling; 2026-07-28 SEP-2164",
        sentence: "Resource not found: -32002 (2025-11-25); Invalid params -32602 (2026-07-28, which MUST NOT answer an empty contents array).",
    },
    Def {
        id: "prompts-list",
        area: Area::Prompts,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/prompts §Listing Prompts",
        sentence: "Servers that support prompts MUST declare the prompts capability; clients discover them with prompts/list.",
    },
    Def {
        id: "prompts-get",
        area: Area::Prompts,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/prompts §Getting a Prompt",
        sentence: "prompts/get with a listed prompt's name and its required arguments returns its messages.",
    },
    Def {
        id: "prompts-unknown-prompt-error",
        area: Area::Prompts,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 server/prompts §Error Handling",
        sentence: "Servers SHOULD return standard JSON-RPC errors: invalid prompt name: -32602 (Invalid params).",
    },
    Def {
        id: "logging-set-level",
        area: Area::Utilities,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 server/utilities/logging",
        sentence: "Servers that emit log message notifications MUST declare the logging capability; logging/setLevel sets the minimum level.",
    },
    Def {
        id: "completion-complete",
        area: Area::Utilities,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/utilities/completion",
        sentence: "Servers that support completions MUST declare the completions capability; a completion result has at most 100 values.",
    },
    Def {
        id: "pagination-terminates",
        area: Area::Pagination,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 server/utilities/pagination",
        sentence: "A missing nextCursor ends the results; a cursor is opaque, and following them must reach the end.",
    },
    Def {
        id: "pagination-invalid-cursor",
        area: Area::Pagination,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 server/utilities/pagination §Error Handling",
        sentence: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params).",
    },
    Def {
        id: "dns-rebinding-protection",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/transports §Security Warning; 2026-07-28 basic/transports/streamable-http §Security & Endpoint",
        sentence: "Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks. If the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden.",
    },
    Def {
        id: "session-id-visible-ascii",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/transports §Session Management",
        sentence: "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).",
    },
    Def {
        id: "notification-post-accepted",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/transports §Sending Messages to the Server",
        sentence: "If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.",
    },
    Def {
        id: "get-stream-or-405",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/transports §Listening for Messages from the Server",
        sentence: "The server MUST either return `Content-Type: text/event-stream` in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.",
    },
    Def {
        id: "protocol-version-header-invalid",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/transports §Protocol Version Header",
        sentence: "If the server receives a request with an invalid or unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`.",
    },
    Def {
        id: "server-session-lifecycle",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/transports §Session Management",
        sentence: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found. (A DELETE ends a session; the server MAY answer it with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions.)",
    },
    Def {
        id: "no-session-id",
        area: Area::Http,
        level: Level::Should,
        applies: Applies::Modern,
        source: "2026-07-28 basic/transports/streamable-http §Backward Compatibility",
        sentence: "An `Mcp-Session-Id` header on a request: ignore it, and do not mint or echo session IDs.",
    },
    Def {
        id: "method-header-mismatch",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/transports/streamable-http §Server Validation",
        sentence: "Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body. When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include a JSON-RPC error response using the following error code: -32020 (HeaderMismatch).",
    },
    Def {
        id: "name-header-mismatch",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/transports/streamable-http §Server Validation",
        sentence: "Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body (Mcp-Name: params.name or params.uri): HTTP status 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch).",
    },
    Def {
        id: "missing-method-header-rejected",
        area: Area::Http,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/transports/streamable-http §Server Validation",
        sentence: "Validation failure conditions include: A required standard header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) is missing. (Rejected with HTTP 400 Bad Request and JSON-RPC error -32020, HeaderMismatch.)",
    },
    Def {
        id: "auth-www-authenticate",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Error Handling, §Protected Resource Metadata Discovery Requirements; RFC 6750 §3",
        sentence: "Servers MUST return appropriate HTTP status codes for authorization errors: 401 Unauthorized — Authorization required or token invalid. (RFC 6750 §3: the resource server MUST include the WWW-Authenticate response header field.) MCP servers MUST implement one of the following discovery mechanisms: the resource metadata URL in the WWW-Authenticate header under resource_metadata when returning 401 Unauthorized responses, or a well-known URI.",
    },
    Def {
        id: "auth-www-authenticate-scope",
        area: Area::Auth,
        level: Level::Should,
        applies: Applies::Both,
        source: "basic/authorization §Protected Resource Metadata Discovery Requirements (2026-07-28: §Scope Selection Strategy)",
        sentence: "MCP servers SHOULD include a scope parameter in the WWW-Authenticate header as defined in RFC 6750 Section 3 to indicate the scopes required for accessing the resource.",
    },
    Def {
        id: "auth-protected-resource-metadata",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Authorization Server Location; RFC 9728 §2, §3.3",
        sentence: "MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers. The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server. (RFC 9728 §3.3: the resource value returned MUST be identical to the protected resource's resource identifier.)",
    },
    Def {
        id: "auth-server-metadata",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Overview, §Authorization Server Metadata Discovery; RFC 8414 §3.3",
        sentence: "MCP authorization servers MUST provide at least one of the following discovery mechanisms: OAuth 2.0 Authorization Server Metadata (RFC8414), OpenID Connect Discovery 1.0. (RFC 8414 §3.3: the issuer value returned MUST be identical to the authorization server's issuer identifier value into which the well-known URI string was inserted.)",
    },
    Def {
        id: "auth-pkce-s256",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Authorization Code Protection (2026-07-28: security-considerations)",
        sentence: "MCP clients MUST use the S256 code challenge method when technically capable. If code_challenge_methods_supported is absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed. Authorization servers providing OpenID Connect Discovery 1.0 MUST include code_challenge_methods_supported in their metadata to ensure MCP compatibility.",
    },
    Def {
        id: "auth-https-endpoints",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Communication Security (2026-07-28: security-considerations); OAuth 2.1 §1.5",
        sentence: "Implementations MUST follow OAuth 2.1 Section 1.5 \"Communication Security\". Specifically: All authorization server endpoints MUST be served over HTTPS. All redirect URIs MUST be either localhost or use HTTPS.",
    },
    Def {
        id: "auth-registration",
        area: Area::Auth,
        level: Level::Should,
        applies: Applies::Both,
        source: "basic/authorization §Client Registration Approaches (2026-07-28: client-registration)",
        sentence: "Authorization servers and MCP clients SHOULD support OAuth Client ID Metadata Documents. Authorization servers and MCP clients MAY support the OAuth 2.0 Dynamic Client Registration Protocol (RFC7591). Clients supporting all options SHOULD follow the priority order: pre-registered client information, Client ID Metadata Documents (client_id_metadata_document_supported), Dynamic Client Registration (registration_endpoint), prompt the user.",
    },
    Def {
        id: "auth-token-audience",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Token Handling, §Access Token Privilege Restriction",
        sentence: "MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, according to RFC 8707 Section 2. Invalid or expired tokens MUST receive a HTTP 401 response. MCP servers MUST only accept tokens specifically intended for themselves and MUST reject tokens that do not include them in the audience claim or otherwise verify that they are the intended recipient of the token.",
    },
    Def {
        id: "auth-resource-indicator",
        area: Area::Auth,
        level: Level::Must,
        applies: Applies::Both,
        source: "basic/authorization §Token Audience Binding and Validation; RFC 8707 §2",
        sentence: "RFC 8707 Resource Indicators provide critical security benefits by binding tokens to their intended audiences when the Authorization Server supports the capability. MCP servers MUST validate that tokens presented to them were specifically issued for their use.",
    },
    // ---- 2026-07-28 specifics and conduct (checks/modern.rs, checks/conduct.rs) ----
    Def {
        id: "result-type-present",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/index §Result Responses",
        sentence: "The `result` MUST include a `resultType` field to indicate the type of the result.",
    },
    Def {
        id: "missing-request-meta-rejected",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/index §_meta (Per-request protocol fields)",
        sentence: "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code `-32602` (Invalid params). On HTTP, the response status MUST be `400 Bad Request`.",
    },
    Def {
        id: "cache-hint-coverage",
        area: Area::Caching,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 server/utilities/caching §Cacheable Results",
        sentence: "Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `server/discover`, `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`, `resources/read`.",
    },
    Def {
        id: "cache-hint-values-valid",
        area: Area::Caching,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 server/utilities/caching §Caching Hints",
        sentence: "The Time-to-live (TTL) Field, `ttlMs`, is an integer value in milliseconds. Servers MUST provide a `ttlMs` value that is `>= 0`. The Cache Scope Field, `cacheScope`, indicates the intended scope of the cached response, either `\"public\"` or `\"private\"`.",
    },
    Def {
        id: "cache-scope-stable-across-pages",
        area: Area::Caching,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 server/utilities/caching §Pagination",
        sentence: "Servers MUST apply the same `cacheScope` to all response pages for a given list request.",
    },
    Def {
        id: "removed-methods-not-found",
        area: Area::Lifecycle,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/versioning §Compatibility Matrix; basic/transports/streamable-http §Protocol Version Header",
        sentence: "A request carrying modern per-request `_meta` is served statelessly according to this revision. If the server does not implement the requested RPC method, it MUST respond with `404 Not Found` and a JSON-RPC error with code `-32601` (`Method not found`). (ping, logging/setLevel, resources/subscribe and resources/unsubscribe were removed.)",
    },
    Def {
        id: "logs-require-log-level",
        area: Area::Utilities,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 server/utilities/logging §Per-request log level",
        sentence: "The server MUST NOT emit `notifications/message` for a request that does not include this field (`io.modelcontextprotocol/logLevel`).",
    },
    Def {
        id: "input-required-result-request-state",
        area: Area::Tools,
        level: Level::Must,
        applies: Applies::Modern,
        source: "2026-07-28 basic/patterns/mrtr §Server Requirements",
        sentence: "Servers MUST include at least one of `inputRequests` or `requestState` in every `InputRequiredResult` response. (The client retries the original request with `inputResponses` and the exact `requestState`; the server completes it or asks again.)",
    },
    Def {
        id: "input-required-result-tampered-state",
        area: Area::Tools,
        level: Level::Should,
        applies: Applies::Modern,
        source: "2026-07-28 basic/patterns/mrtr §Server Requirements",
        sentence: "If `requestState` influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification. Integrity protection MAY be omitted only when tampering can cause nothing worse than request failure.",
    },
    Def {
        id: "input-required-result-missing-input-response",
        area: Area::Tools,
        level: Level::Should,
        applies: Applies::Modern,
        source: "2026-07-28 basic/patterns/mrtr §Error Handling",
        sentence: "If the client fails to send all the information requested in a previous `InputRequests`, and the missing information is necessary for the server to process the request, the server SHOULD respond with a new `InputRequiredResult` requesting the missing information again, rather than returning an error.",
    },
    Def {
        id: "logging-levels-filtered",
        area: Area::Utilities,
        level: Level::Should,
        applies: Applies::Legacy,
        source: "2025-11-25 server/utilities/logging §Setting Log Level",
        sentence: "To configure the minimum log level, clients MAY send a `logging/setLevel` request. (After `logging/setLevel` error, the server only sends error level and above.)",
    },
    Def {
        id: "notification-not-answered",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/index §Notifications; JSON-RPC 2.0 §4.1",
        sentence: "Notifications are sent from the client to the server or vice versa, as a one-way message. The receiver MUST NOT send a response.",
    },
    Def {
        id: "progress-only-with-token",
        area: Area::Frames,
        level: Level::Must,
        applies: Applies::Both,
        source: "2025-11-25 basic/utilities/progress §Behavior Requirements",
        sentence: "Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation.",
    },
    Def {
        id: "cancellation-honoured",
        area: Area::Frames,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 basic/utilities/cancellation §Behavior Requirements",
        sentence: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request.",
    },
    Def {
        id: "stderr-not-protocol",
        area: Area::Frames,
        level: Level::Should,
        applies: Applies::Both,
        source: "2025-11-25 basic/transports §stdio; 2026-07-28 basic/transports/stdio",
        sentence: "The server reads JSON-RPC messages from its standard input (`stdin`) and sends messages to its standard output (`stdout`). The server MAY write UTF-8 strings to its standard error (`stderr`) for any logging purposes.",
    },
    Def {
        id: "requests-before-initialized",
        area: Area::Lifecycle,
        level: Level::Should,
        applies: Applies::Legacy,
        source: "2025-11-25 basic/lifecycle §Initialization",
        sentence: "The server SHOULD NOT send requests other than pings and logging before receiving the `initialized` notification.",
    },
];

/// The definition of `id`. Panics on an id not in [`CHECKS`]: a check's code names only ids of
/// this table (a test walks every id the checks use).
pub fn def(id: &str) -> &'static Def {
    CHECKS
        .iter()
        .find(|d| d.id == id)
        .unwrap_or_else(|| panic!("check {id:?} is not in the catalogue"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for d in CHECKS {
            assert!(seen.insert(d.id), "{} twice", d.id);
            assert!(
                d.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                d.id
            );
            assert!(!d.sentence.is_empty() && !d.source.is_empty(), "{}", d.id);
        }
    }

    #[test]
    fn docs_checks_md_lists_every_check_with_its_level() {
        let doc = include_str!("../../../docs/checks.md");
        for d in CHECKS {
            let row = doc
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` ", d.id)))
                .unwrap_or_else(|| panic!("docs/checks.md has no row for {}", d.id));
            let level = match d.level {
                Level::Must => "MUST",
                Level::Should => "SHOULD",
            };
            assert!(row.contains(level), "{}: {row}", d.id);
        }
    }
}
