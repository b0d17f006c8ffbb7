//! `mcpscope gateway --config FILE`: the team gateway mode (`docs/gateway.md`, the crate
//! `mcpscope-gateway`). Its own clap struct here rather than in `args.rs`: it shares no flag
//! with the default mode, and its environment is read in one place (`Settings`).
//!
//! Prints the URL to open on stdout (with `?token=` when the token was made here) and serves
//! until Ctrl-C or SIGTERM (Kubernetes stops a pod with SIGTERM). Then it stops as a rollout
//! expects (`docs/gateway.md`, "Stopping"): `/readyz` answers 503 at once, new connections are
//! still taken for `--shutdown-delay`, then refused; requests in progress, streamed answers
//! included, get `--shutdown-grace`; one line when the drain starts, one when it ends (with how
//! many were cut); exit 0. A second signal exits at once.

use crate::stop::{Signal, Signals};
use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;

/// `mcpscope gateway` arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcpscope gateway",
    about = "Serve the gateway inspector page and a relay to the MCP gateways FILE names, and nothing else",
    after_help = "Environment: MCP_PROXY_ALLOWED_ORIGINS, MCP_PROXY_CA_FILE, MCP_PROXY_REQUEST_TIMEOUT (Go duration, default 2m), MCP_PROXY_DIAL_ADDRESS, MCP_PROXY_ALLOW_INSECURE_AUTH, MCP_INSPECTOR_API_TOKEN, ALLOWED_ORIGINS, INSPECTOR_TLS_KEY_PATH / INSPECTOR_TLS_CERT_PATH, MCPSCOPE_GATEWAY_SESSION_KEY (or MCPSCOPE_GATEWAY_SESSION_KEY_FILE: the same on every replica; `openssl rand -hex 32`). See docs/gateway.md."
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
    /// After SIGTERM or Ctrl-C, how long new connections are still answered (with /readyz
    /// already 503) before the listener closes: the load balancer's time to stop sending here.
    /// A Go duration.
    #[arg(
        long,
        env = "MCPSCOPE_SHUTDOWN_DELAY",
        value_name = "DURATION",
        default_value = "0s",
        value_parser = duration
    )]
    pub shutdown_delay: Duration,
    /// Then how long requests in progress (streamed answers included) may take before they are
    /// cut. A Go duration.
    #[arg(
        long,
        env = "MCPSCOPE_SHUTDOWN_GRACE",
        value_name = "DURATION",
        default_value = "20s",
        value_parser = duration
    )]
    pub shutdown_grace: Duration,
}

/// A Go duration (`500ms`, `20s`, `1m`), as `MCP_PROXY_REQUEST_TIMEOUT` is written.
fn duration(v: &str) -> Result<Duration, String> {
    mcpscope_gateway::settings::go_duration(v.trim())
        .map_err(|why| format!("{why}; give a Go duration such as 5s, 20s or 1m30s"))
}

/// Run the gateway mode until interrupted; the exit code.
pub async fn run(args: GatewayArgs) -> i32 {
    // Caught from now: a SIGTERM during start-up is a stop, not the default action.
    let mut signals = Signals::catch();
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
    options.shutdown_delay = args.shutdown_delay;
    options.shutdown_grace = args.shutdown_grace;
    let team = !options.trusted_proxies.is_empty();
    let mut started = match mcpscope_gateway::start(options, settings).await {
        Ok(s) => s,
        Err(e) => return crate::web::fail(e),
    };
    println!("mcpscope gateway: {}", started.url);
    if team {
        eprintln!("mcpscope gateway: team mode: users come through the trusted proxy");
    }
    let signal = tokio::select! {
        s = signals.next() => s,
        r = started.wait() => {
            let e = r.err().map_or_else(|| "the listener ended".to_string(), |e| e.to_string());
            eprintln!("mcpscope gateway: stopped serving: {e}");
            return crate::cli::exit::UNREACHABLE;
        }
    };
    signals.then_exit_at_once("mcpscope gateway");
    eprintln!(
        "{}",
        draining_line(signal, args.shutdown_delay, args.shutdown_grace)
    );
    match started.stop().await {
        Ok(d) => eprintln!("{}", drained_line(&d, args.shutdown_grace)),
        Err(e) => eprintln!("mcpscope gateway: stopping: {e}"),
    }
    crate::cli::exit::OK
}

/// The line that says the drain began and what happens next.
fn draining_line(signal: Signal, delay: Duration, grace: Duration) -> String {
    let listener = if delay.is_zero() {
        "the listener is closed".to_string()
    } else {
        format!("new connections are still answered for {delay:?}, then refused")
    };
    format!(
        "mcpscope gateway: {}: draining: /readyz answers 503, {listener}; requests in progress get up to {grace:?}; {} again quits at once",
        signal.name(),
        signal.name()
    )
}

/// The line that says how the drain ended.
fn drained_line(d: &mcpscope_server::Drained, grace: Duration) -> String {
    if d.cut == 0 {
        format!(
            "mcpscope gateway: drained in {:.1}s: {} request(s) in progress finished",
            d.took.as_secs_f64(),
            d.in_progress
        )
    } else {
        format!(
            "mcpscope gateway: drained in {:.1}s: the {grace:?} grace ran out, {} connection(s) still answering were cut",
            d.took.as_secs_f64(),
            d.cut
        )
    }
}
