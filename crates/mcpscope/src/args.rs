//! Command-line definitions. Parsing only: no I/O here (resolution happens in `resolve`).
//!
//! Flag names and meanings follow the official MCP Inspector's `--cli` so users can switch
//! without relearning; what is new (`--trace`, `--lint`, `--elicitation`, `--duration`, …) is
//! named in the same style.

use clap::{Parser, ValueEnum};

/// mcpscope: an inspector for Model Context Protocol servers.
///
/// Exit codes: 0 ok · 1 usage or a JSON-RPC error · 3 auth required · 4 unreachable, connection
/// failed or timed out · 5 tool error (isError or unknown tool) · 6 lint found an invalid frame ·
/// 2 no app (--app-info) · 130 interrupted. On any non-zero exit one JSON line {"error": {...}} is written to stderr.
#[derive(Debug, Parser)]
#[command(name = "mcpscope", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Args {
    /// One-shot CLI mode: connect, run one method, print the result, disconnect.
    #[arg(long, conflicts_with = "tui")]
    pub cli: bool,

    /// Terminal UI: every server of the catalog (or the one TARGET) in this terminal.
    #[arg(long)]
    pub tui: bool,

    /// The server and how to reach it.
    #[command(flatten)]
    pub connect: ConnectArgs,

    /// The method to call (initialize, tools/list, tools/call, resources/read, prompts/get, …, or
    /// any other method name with --params-json).
    #[arg(long)]
    pub method: Option<String>,

    /// Tool to call (tools/call).
    #[arg(long)]
    pub tool_name: Option<String>,
    /// Tool argument KEY=VALUE; the value is read as JSON when it parses, else as a string. Repeatable.
    #[arg(long = "tool-arg", value_name = "KEY=VALUE")]
    pub tool_args: Vec<String>,
    /// All tool arguments as one JSON object (instead of --tool-arg).
    #[arg(long, value_name = "JSON", conflicts_with = "tool_args")]
    pub tool_args_json: Option<String>,
    /// Send --tool-arg values without checking them against the tool's inputSchema first (by
    /// default a tools/call lists the tools and refuses arguments that break the schema, exit 1;
    /// --tool-args-json and --params-json are always sent as written).
    #[arg(long)]
    pub no_validate: bool,
    /// Resource URI (resources/read, resources/subscribe) or resource template (completion/complete).
    #[arg(long)]
    pub uri: Option<String>,
    /// Prompt name (prompts/get, completion/complete).
    #[arg(long)]
    pub prompt_name: Option<String>,
    /// Prompt argument KEY=VALUE. Repeatable.
    #[arg(long = "prompt-args", value_name = "KEY=VALUE", num_args = 1..)]
    pub prompt_args: Vec<String>,
    /// Argument to complete, NAME=PARTIAL-VALUE (completion/complete).
    #[arg(long, value_name = "NAME=VALUE")]
    pub complete_arg: Option<String>,
    /// Already-resolved argument for completion context, KEY=VALUE. Repeatable.
    #[arg(long = "context-arg", value_name = "KEY=VALUE")]
    pub context_args: Vec<String>,
    /// Raw params for the method, as a JSON object (flags above override its fields).
    #[arg(long, value_name = "JSON")]
    pub params_json: Option<String>,
    /// Fetch one page starting at this cursor instead of all pages (list methods). "" is a valid cursor.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Fetch only the first page (list methods).
    #[arg(long)]
    pub first_page: bool,

    /// Log level: the level for logging/setLevel; with other methods it is set first (legacy) or
    /// sent in every request's _meta (modern).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// _meta entry KEY=VALUE sent on the tools/call request only. Repeatable.
    #[arg(long = "tool-metadata", value_name = "KEY=VALUE")]
    pub tool_metadata: Vec<String>,

    /// Run tools/call as a task (legacy: params.task; modern: the server decides) and wait for it.
    #[arg(long)]
    pub task: bool,
    /// Task time-to-live in milliseconds (legacy params.task.ttl).
    #[arg(long, value_name = "MS")]
    pub task_ttl: Option<u64>,
    /// Task id (tasks/get, tasks/result, tasks/cancel, tasks/update).
    #[arg(long)]
    pub task_id: Option<String>,

    /// For subscriptions/listen and resources/subscribe: how long to listen, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub duration: u64,
    /// For subscriptions/listen: what to listen to (tools, prompts, resources; comma-separated).
    /// --uri adds a resource subscription.
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    pub listen: Vec<String>,
    /// Server catalog file (same format as --config). The web UI edits it; when it does not
    /// exist it is created with the built-in demo server. Default: mcp.json in the data
    /// directory (MCPSCOPE_DATA_DIR, else $XDG_DATA_HOME/mcpscope or ~/.local/share/mcpscope).
    #[arg(long, conflicts_with = "config")]
    pub catalog: Option<String>,
    /// Web UI: do not open a browser (the URL with the token is printed either way).
    #[arg(long)]
    pub no_open: bool,

    /// How to answer elicitation requests: decline (default) or accept-defaults (schema defaults).
    #[arg(long, value_enum, default_value_t = ElicitationArg::Decline)]
    pub elicitation: ElicitationArg,
    /// Accept form elicitations with this content (a JSON object, merged over schema defaults).
    #[arg(long, value_name = "JSON")]
    pub elicitation_json: Option<String>,
    /// Answer sampling requests with this text (otherwise they are declined).
    #[arg(long, value_name = "TEXT")]
    pub sampling_text: Option<String>,
    /// A root to offer (file:// URI). Repeatable.
    #[arg(long = "root", value_name = "URI")]
    pub roots: Vec<String>,

    /// Output format: text (pretty JSON, progress and logs on stderr) or json (one document on stdout).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// Print nothing on stderr but errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Write the result to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub output: Option<String>,
    /// Write every frame to this file as NDJSON (time, direction, kind, transport metadata, bytes),
    /// one flushed line per frame, so a killed run keeps every frame up to the kill. Credentials
    /// and secret-store values are redacted unless --trace-secrets is given.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// Keep the --trace (and --show-stderr) byte-exact: Authorization, Cookie, OAuth tokens and
    /// the values read from the secret store are written in clear.
    #[arg(long, requires = "trace")]
    pub trace_secrets: bool,
    /// Check every frame against the official schema of the negotiated revision; exit 6 on findings.
    #[arg(long)]
    pub lint: bool,
    /// Copy the server's stderr lines to our stderr as they arrive.
    #[arg(long)]
    pub show_stderr: bool,

    /// MCP Apps: probe a tool's app without calling it. With tools/call and --tool-name: its
    /// metadata and its ui:// resource read and checked (uri, mime, size, effective CSP,
    /// permissions, warnings; the HTML itself only with --output); exit 2 when the tool has no
    /// app. With tools/list: one NDJSON line per app tool (metadata only). Implies --advertise-apps.
    #[arg(long, help_heading = "MCP Apps")]
    pub app_info: bool,
    /// MCP Apps: declare the io.modelcontextprotocol/ui extension (off by default: a terminal
    /// renders no app, so servers should fall back to text-only tools).
    #[arg(long, help_heading = "MCP Apps")]
    pub advertise_apps: bool,
    /// OAuth: list what the secret store holds — every profile, server and authorization server
    /// with its scopes and expiry, never a token — and exit (no server is contacted).
    #[arg(long, help_heading = "OAuth")]
    pub list_stored_auth: bool,

    /// OAuth for an HTTP server.
    #[command(flatten)]
    pub auth: AuthArgs,
}

/// The server to connect to and how: the target, its transport, headers, environment, era and
/// timeouts. Shared by `--cli`, `--tui` and `check`, so every mode reads a target alike
/// ([`crate::resolve::resolve`]).
#[derive(Debug, clap::Args)]
pub struct ConnectArgs {
    /// Use the built-in demo server (over stdio) as the target.
    #[arg(long)]
    pub demo: bool,

    /// The server: a command (stdio) or an http(s) URL. Options may follow it; the server's own
    /// flags go after `--`.
    #[arg(value_name = "TARGET")]
    pub target: Vec<String>,

    /// Arguments after `--`: passed to the server command untouched.
    #[arg(last = true, value_name = "SERVER_ARGS")]
    pub server_args: Vec<String>,

    /// Transport (default: stdio for a command; for a URL, http if the path ends in /mcp, sse if
    /// it ends in /sse, else Streamable HTTP with a fallback to HTTP+SSE).
    #[arg(long, value_enum)]
    pub transport: Option<TransportArg>,
    /// Server URL (instead of a positional URL).
    #[arg(long)]
    pub server_url: Option<String>,
    /// HTTP header "Name: Value" sent on every request. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Environment variable KEY=VALUE for a stdio server. Repeatable.
    #[arg(short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Working directory for a stdio server.
    #[arg(long)]
    pub cwd: Option<String>,
    /// Server config file ({"mcpServers": {…}}; Claude Desktop, Cursor and VS Code shapes too).
    /// The web UI shows it read-only.
    #[arg(long)]
    pub config: Option<String>,
    /// Which server of the config file.
    #[arg(long)]
    pub server: Option<String>,

    /// Protocol era: legacy (initialize), modern (2026-07-28, server/discover) or auto (probe).
    #[arg(long, value_name = "ERA")]
    pub protocol_era: Option<String>,
    /// How long the Auto probe waits, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 3_000)]
    pub probe_timeout: u64,
    /// Connect and handshake timeout in milliseconds (0 disables).
    #[arg(long, value_name = "MS")]
    pub connect_timeout: Option<u64>,
    /// Request timeout in milliseconds, reset by each progress notification (0 disables).
    #[arg(long, value_name = "MS")]
    pub request_timeout: Option<u64>,
    /// Largest single message accepted, in bytes; a longer one is cut short with an error.
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
    pub max_message_bytes: usize,
    /// Bound on input_required rounds per request (modern).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_input_rounds: usize,
    /// _meta entry KEY=VALUE sent on every request. Repeatable.
    #[arg(long = "metadata", value_name = "KEY=VALUE")]
    pub metadata: Vec<String>,
}

/// OAuth for an HTTP server: client identity, the callback, stored tokens and how to log in
/// ([`crate::oauth::setup`]).
#[derive(Debug, clap::Args)]
pub struct AuthArgs {
    /// OAuth: a client id registered with the authorization server (no registration needed).
    #[arg(long, help_heading = "OAuth")]
    pub client_id: Option<String>,
    /// OAuth: the client secret of --client-id (confidential clients).
    #[arg(long, requires = "client_id", help_heading = "OAuth")]
    pub client_secret: Option<String>,
    /// OAuth: the https URL of a Client ID Metadata Document, used as the client id where the
    /// authorization server accepts them.
    #[arg(long, value_name = "URL", help_heading = "OAuth")]
    pub client_metadata_url: Option<String>,
    /// OAuth: the loopback redirect URI a browser login returns to.
    #[arg(long, value_name = "URL", env = "MCP_OAUTH_CALLBACK_URL", default_value = mcpscope_auth::DEFAULT_CALLBACK_URL, help_heading = "OAuth")]
    pub callback_url: String,
    /// OAuth: send the stored token from the first request (a 401 then refreshes or logs in).
    #[arg(long, help_heading = "OAuth")]
    pub use_stored_auth: bool,
    /// OAuth: stored credentials only, never a login: exit 3 auth_required instead (for CI).
    #[arg(long, conflicts_with_all = ["relogin", "headless_auth", "print_auth_url"], help_heading = "OAuth")]
    pub stored_auth_only: bool,
    /// OAuth: forget the stored tokens for this server and profile (revoking them at the
    /// authorization server, RFC 7009), and log in again.
    #[arg(long, help_heading = "OAuth")]
    pub relogin: bool,
    /// OAuth: with --relogin, forget the stored tokens without revoking them.
    #[arg(long, requires = "relogin", help_heading = "OAuth")]
    pub no_revoke: bool,
    /// OAuth: print the authorization URL instead of opening a browser, then wait for the login.
    #[arg(long, help_heading = "OAuth")]
    pub print_auth_url: bool,
    /// OAuth, for test servers that approve at once: fetch the authorization URL without following
    /// its redirect and take code and iss from its Location (no browser, no listener).
    #[arg(long, conflicts_with = "print_auth_url", help_heading = "OAuth")]
    pub headless_auth: bool,
    /// OAuth: the credentials profile; each profile keeps its own tokens for a server.
    #[arg(
        long,
        value_name = "NAME",
        env = "MCPSCOPE_AUTH_PROFILE",
        default_value = "default",
        help_heading = "OAuth"
    )]
    pub auth_profile: String,
}

/// `--transport` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// A child process.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The deprecated HTTP+SSE transport.
    Sse,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Pretty JSON result on stdout; progress, logs and warnings on stderr.
    Text,
    /// One JSON document on stdout and nothing else.
    Json,
}

/// `--elicitation` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ElicitationArg {
    /// Decline every elicitation.
    Decline,
    /// Accept form elicitations with the schema's defaults (SEP-1034); accept URL elicitations.
    AcceptDefaults,
}

/// `mcpscope demo-server` arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcpscope demo-server",
    about = "Run the built-in demo MCP server (stdio by default)"
)]
pub struct DemoArgs {
    /// Serve HTTP on 127.0.0.1:PORT instead of stdio: Streamable HTTP at /mcp and the deprecated
    /// HTTP+SSE transport at /sse. 0 picks a free port.
    #[arg(long, value_name = "PORT")]
    pub http: Option<u16>,
}

const EXAMPLES: &str = "Examples:
  mcpscope                                   (the web UI on http://127.0.0.1:6274; HOST, CLIENT_PORT)
  mcpscope --cli --demo --method tools/list
  mcpscope --cli node server.js --method tools/call --tool-name add --tool-arg a=1 --tool-arg b=2
  mcpscope --cli https://example.com/mcp --protocol-era auto --method resources/read --uri demo://x --format json
  mcpscope --cli --config mcp.json --server github --method prompts/get --prompt-name review --prompt-args pr=42
  mcpscope --cli python srv.py --method tools/list --trace trace.ndjson
  mcpscope --cli --demo --method tools/call --tool-name show-app --app-info --format json
  mcpscope demo-server --http 3000";
