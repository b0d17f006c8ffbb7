//! The `mcpscope-testkit` binary: runs one deliberately misbehaving stdio MCP server, chosen by
//! subcommand (`mcpscope-testkit --help` lists them with what each proves), or, with `http`, one of
//! the HTTP fixtures on loopback for poking at with curl or a browser, or, with `oauth`, the
//! authorization server and the MCP server it protects.

use clap::{Parser, Subcommand, ValueEnum};
use mcpscope_testkit::{HttpMode, OAuthFixture, OAuthOptions, StdioMode, run_stdio, serve_http};
use std::net::Ipv4Addr;
use std::time::Duration;

/// Deliberately misbehaving MCP servers, for testing MCP clients and inspectors.
#[derive(Parser)]
#[command(name = "mcpscope-testkit", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Stdio(StdioMode),
    /// Serve one HTTP fixture on 127.0.0.1 and print its entry URL on the first stdout line.
    Http {
        /// Which fixture (see the library's `HttpMode` for what each proves).
        #[arg(value_enum)]
        mode: HttpModeArg,
        /// Port to bind; 0 picks a free one.
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// For session-expiring: requests answered per session before it expires.
        #[arg(long, default_value_t = 3)]
        requests_per_session: usize,
    },
    /// Serve the OAuth authorization server and the MCP server it protects on 127.0.0.1; print
    /// the MCP URL on the first stdout line. The authorization endpoint approves at once, or with
    /// `--consent` shows a page with Approve and Deny.
    Oauth {
        /// Port to bind; 0 picks a free one.
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// A scope tools/call needs (403 insufficient_scope without it). Repeatable.
        #[arg(long = "call-scope")]
        call_scopes: Vec<String>,
        /// Lifetime of access tokens, in seconds.
        #[arg(long, default_value_t = 3600)]
        access_ttl_secs: u64,
        /// Issue no refresh tokens.
        #[arg(long)]
        no_refresh_tokens: bool,
        /// Delay before the token endpoint answers, in milliseconds.
        #[arg(long, default_value_t = 0)]
        token_delay_ms: u64,
        /// Send authorization requests here instead of approving (a login page elsewhere).
        #[arg(long, value_name = "URL")]
        authorize_redirect_to: Option<String>,
        /// A hostile metadata document: this authorization_endpoint (`file:…`, `javascript:…`).
        #[arg(long, value_name = "URL")]
        authorization_endpoint: Option<String>,
        /// An extra tool (an echo) that needs extra scopes: `NAME=SCOPE[,SCOPE…]`. Repeatable.
        #[arg(long = "tool-scope", value_name = "NAME=SCOPES", value_parser = tool_scope)]
        tool_scopes: Vec<(String, Vec<String>)>,
        /// Show a consent page (Approve / Deny) instead of approving at once.
        #[arg(long)]
        consent: bool,
        /// Issue access tokens as signed JWTs instead of opaque strings.
        #[arg(long)]
        jwt: bool,
    },
}

/// `NAME=SCOPE[,SCOPE…]` of `--tool-scope`.
fn tool_scope(s: &str) -> Result<(String, Vec<String>), String> {
    let (name, scopes) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected NAME=SCOPE[,SCOPE…]"))?;
    let scopes: Vec<String> = scopes
        .split([',', ' '])
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect();
    if name.is_empty() || scopes.is_empty() {
        return Err(format!("{s:?}: expected NAME=SCOPE[,SCOPE…]"));
    }
    Ok((name.to_string(), scopes))
}

/// Command-line names for [`HttpMode`]; the library type carries data clap cannot derive from.
#[derive(Clone, Copy, ValueEnum)]
enum HttpModeArg {
    Status500,
    HtmlBody,
    SessionExpiring,
    Redirect,
    RedirectSession,
    SseDropThenResume,
    AuthRequired,
    LegacySseOnly,
    SlowHeaders,
}

fn main() {
    let cli = Cli::parse();
    // One thread is plenty for one client, and keeps the fixtures' timing easy to reason about.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpscope-testkit: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let status = match cli.command {
        Command::Stdio(mode) => runtime.block_on(run_stdio(mode)),
        Command::Http {
            mode,
            port,
            requests_per_session,
        } => runtime.block_on(http(mode, port, requests_per_session)),
        Command::Oauth {
            port,
            call_scopes,
            access_ttl_secs,
            no_refresh_tokens,
            token_delay_ms,
            authorize_redirect_to,
            authorization_endpoint,
            tool_scopes,
            consent,
            jwt,
        } => runtime.block_on(oauth(
            port,
            OAuthOptions {
                access_token_ttl: Duration::from_secs(access_ttl_secs),
                refresh_tokens: !no_refresh_tokens,
                token_delay: Duration::from_millis(token_delay_ms),
                authorize_redirect_to,
                authorization_endpoint,
                call_scopes,
                tool_scopes,
                consent,
                jwt_access_tokens: jwt,
                ..OAuthOptions::default()
            },
        )),
    };
    // exit() rather than returning: dropping the runtime would wait for the blocking thread
    // that is still parked in a read on stdin.
    std::process::exit(status);
}

async fn http(mode: HttpModeArg, port: u16, requests_per_session: usize) -> i32 {
    let mode = match mode {
        HttpModeArg::Status500 => HttpMode::Status500,
        HttpModeArg::HtmlBody => HttpMode::HtmlBody,
        HttpModeArg::SessionExpiring => HttpMode::SessionExpiring {
            requests_per_session,
        },
        HttpModeArg::Redirect => HttpMode::Redirect,
        HttpModeArg::RedirectSession => HttpMode::RedirectSession,
        HttpModeArg::SseDropThenResume => HttpMode::SseDropThenResume,
        HttpModeArg::AuthRequired => HttpMode::AuthRequired,
        HttpModeArg::LegacySseOnly => HttpMode::LegacySseOnly,
        HttpModeArg::SlowHeaders => HttpMode::SlowHeaders,
    };
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("mcpscope-testkit: cannot listen on 127.0.0.1:{port}: {e}");
            return 1;
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("http://{addr}{}", mode.entry_path()),
        Err(e) => {
            eprintln!("mcpscope-testkit: cannot read the bound address: {e}");
            return 1;
        }
    }
    match serve_http(listener, mode).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("mcpscope-testkit: http server failed: {e}");
            1
        }
    }
}

async fn oauth(port: u16, opts: OAuthOptions) -> i32 {
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("mcpscope-testkit: cannot listen on 127.0.0.1:{port}: {e}");
            return 1;
        }
    };
    match OAuthFixture::spawn_on(listener, opts) {
        Ok(fixture) => {
            println!("{}", fixture.mcp_url());
            // Serve until killed.
            std::future::pending::<()>().await;
            drop(fixture);
            0
        }
        Err(e) => {
            eprintln!("mcpscope-testkit: the oauth fixture failed: {e}");
            1
        }
    }
}
