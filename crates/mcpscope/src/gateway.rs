//! `mcpscope gateway --config FILE`: the team gateway mode (`docs/gateway.md`, the crate
//! `mcpscope-gateway`). Its own clap struct here rather than in `args.rs`: it shares no flag
//! with the default mode, and its environment is read in one place (`Settings`).
//!
//! Prints the URL to open on stdout (with `?token=` when the token was made here) and serves
//! until Ctrl-C or SIGTERM (Kubernetes stops a pod with SIGTERM).

use clap::Parser;
use std::path::PathBuf;

/// `mcpscope gateway` arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcpscope gateway",
    about = "Serve the gateway inspector page and a relay to the MCP gateways FILE names, and nothing else",
    after_help = "Environment: MCP_PROXY_ALLOWED_ORIGINS, MCP_PROXY_CA_FILE, MCP_PROXY_REQUEST_TIMEOUT (Go duration, default 2m), MCP_PROXY_DIAL_ADDRESS, MCP_PROXY_ALLOW_INSECURE_AUTH, MCP_INSPECTOR_API_TOKEN, ALLOWED_ORIGINS, INSPECTOR_TLS_KEY_PATH / INSPECTOR_TLS_CERT_PATH. See docs/gateway.md."
)]
pub struct GatewayArgs {
    /// The gateways file (JSON): {"gateways": {"NAME": {"url": "https://…/mcp"}}}.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The address to listen on; beyond loopback only with --trusted-proxy or MCP_INSPECTOR_API_TOKEN.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// The port (0: the system picks).
    #[arg(long, default_value_t = mcpscope_gateway::DEFAULT_PORT)]
    pub port: u16,
    /// Append one JSON line per exchange to FILE (never tokens).
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Audit lines carry the tool's arguments (they may hold secrets).
    #[arg(long, requires = "audit_log")]
    pub audit_arguments: bool,
    /// The authenticating proxy's address or network (repeatable, or comma-separated); turns on
    /// team mode: users come from --user-header.
    #[arg(
        long = "trusted-proxy",
        value_name = "ADDR_OR_CIDR",
        env = "MCPSCOPE_GATEWAY_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<String>,
    /// The header the proxy names the user in.
    #[arg(
        long,
        env = "MCPSCOPE_GATEWAY_USER_HEADER",
        default_value = "X-Forwarded-User"
    )]
    pub user_header: String,
    /// The header the proxy lists the user's groups in (comma-separated).
    #[arg(
        long,
        env = "MCPSCOPE_GATEWAY_GROUPS_HEADER",
        default_value = "X-Forwarded-Groups"
    )]
    pub groups_header: String,
}

/// Run the gateway mode until interrupted; the exit code.
pub async fn run(args: GatewayArgs) -> i32 {
    let settings = match mcpscope_gateway::Settings::from_lookup(|k| std::env::var(k).ok()) {
        Ok(s) => s,
        Err(e) => return crate::web::fail(e),
    };
    let tls = match mcpscope_server::TlsConfig::from_env() {
        Ok(t) => t,
        Err(e) => return crate::web::fail(e),
    };
    let mut options = mcpscope_gateway::Options::new(args.config);
    options.host = args.host;
    options.port = args.port;
    options.audit_log = args.audit_log;
    options.audit_arguments = args.audit_arguments;
    options.trusted_proxies = args.trusted_proxies;
    options.user_header = args.user_header;
    options.groups_header = args.groups_header;
    options.tls = tls;
    let team = !options.trusted_proxies.is_empty();
    let started = match mcpscope_gateway::start(options, settings).await {
        Ok(s) => s,
        Err(e) => return crate::web::fail(e),
    };
    println!("mcpscope gateway: {}", started.url);
    if team {
        eprintln!("mcpscope gateway: team mode: users come through the trusted proxy");
    }
    tokio::select! {
        () = stop_signal() => {}
        r = started.wait() => {
            if let Err(e) = r {
                eprintln!("mcpscope gateway: stopped serving: {e}");
                return crate::cli::exit::UNREACHABLE;
            }
        }
    }
    crate::cli::exit::OK
}

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
