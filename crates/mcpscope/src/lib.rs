//! The `mcpscope` binary's library: the web UI (the default), the one-shot CLI (`--cli`), the
//! built-in demo server (`demo-server`), the terminal UI (`--tui`) and the team gateway mode
//! (`gateway`).
//! Kept as a library so integration tests and benchmarks can reach the pieces.

pub mod args;
pub mod check;
pub mod cli;
pub mod gateway;
pub mod oauth;
pub mod observer;
pub mod resolve;
pub mod responder;
pub mod say;
pub mod secret_store;
pub mod stop;
pub mod tui;
pub mod tui_callback;
pub mod web;

use clap::Parser;

/// What the command line asks for.
enum Command {
    /// `mcpscope demo-server [--http PORT]`.
    Demo(args::DemoArgs),
    /// `mcpscope gateway --config FILE`: the team gateway mode.
    Gateway(gateway::GatewayArgs),
    /// `mcpscope check TARGET`: a verdict on a server.
    Check(Box<check::CheckArgs>),
    /// The web UI (the default), the one-shot CLI (`--cli`) or the terminal UI (`--tui`).
    Main(Box<args::Args>),
}

/// Run mcpscope with these command-line arguments; returns the process exit code.
pub fn run(argv: Vec<String>) -> i32 {
    // The arguments are parsed before the runtime starts, not inside its first future: clap's
    // parser takes ~56 KB of stack, which here reuses the pages the runtime's futures touch
    // later instead of adding to them (each new stack page is a page fault of a one-shot start,
    // bench/startup.py).
    let command = match parse(argv) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The one-shot CLI drives one connection and waits on it: a single-threaded runtime starts
    // no worker threads and hands every wake-up over on the same thread, which is most of what
    // separates its `tools/list` from a minimal client's (bench/startup.py). The web UI serves
    // many connections and the browser at once, so it keeps the multi-threaded one.
    let one_shot = matches!(&command, Command::Main(a) if a.cli);
    let mut builder = if one_shot {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(async move {
        match command {
            Command::Demo(demo) => {
                let r = match demo.http {
                    Some(port) => mcpscope_demo::serve_http(port, true).await,
                    None => mcpscope_demo::serve_stdio().await,
                };
                match r {
                    Ok(()) => 0,
                    Err(e) => {
                        eprintln!("demo-server: {e:#}");
                        1
                    }
                }
            }
            Command::Gateway(g) => gateway::run(g).await,
            Command::Check(c) => check::run(*c).await,
            Command::Main(args) if args.cli => cli::run(*args).await,
            Command::Main(args) if args.tui => tui::run(*args).await,
            Command::Main(args) => web::run(*args).await,
        }
    });
    // Do not wait for background tasks (a server that ignores stdin close is being killed).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// `--port` or `--host`, which a newcomer tries first (clap's nearest flag is `--format`): the
/// web UI's address is the official Inspector's environment variables.
fn address_hint(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = arg.split('=').next().unwrap_or_default();
    matches!(flag, "--port" | "--host" | "-p").then(|| {
        "the web UI's port and address are set by the environment, as the official Inspector's: CLIENT_PORT=7000 HOST=127.0.0.1 mcpscope".to_string()
    })
}

/// The command line parsed; `Err` is the exit code after clap printed help, the version or a
/// usage error (with the one-line JSON error every non-zero exit promises).
fn parse(argv: Vec<String>) -> Result<Command, i32> {
    if argv.get(1).map(String::as_str) == Some("demo-server") {
        return Ok(Command::Demo(args::DemoArgs::parse_from(
            std::iter::once("mcpscope demo-server".to_string()).chain(argv.into_iter().skip(2)),
        )));
    }
    if argv.get(1).map(String::as_str) == Some("gateway") {
        return Ok(Command::Gateway(gateway::GatewayArgs::parse_from(
            std::iter::once("mcpscope gateway".to_string()).chain(argv.into_iter().skip(2)),
        )));
    }
    if argv.get(1).map(String::as_str) == Some("check") {
        let rest = std::iter::once("mcpscope check".to_string()).chain(argv.into_iter().skip(2));
        return match check::CheckArgs::try_parse_from(rest) {
            Ok(c) => Ok(Command::Check(Box::new(c))),
            Err(e) => Err(usage_exit(&e)),
        };
    }
    match args::Args::try_parse_from(&argv) {
        Ok(a) => Ok(Command::Main(Box::new(a))),
        Err(e) => Err(usage_exit(&e)),
    }
}

/// Print clap's message (help, version or a usage error) and return the exit code; a usage
/// error also gets the one-line JSON error every non-zero exit promises.
fn usage_exit(e: &clap::Error) -> i32 {
    let code = if e.use_stderr() { cli::exit::USAGE } else { 0 };
    let _ = e.print();
    if code != 0 {
        let mut message = e
            .to_string()
            .lines()
            .next()
            .unwrap_or("usage error")
            .trim_start_matches("error: ")
            .to_string();
        if let Some(hint) = address_hint(e) {
            say::line(&hint);
            message.push_str("; ");
            message.push_str(&hint);
        }
        let f = cli::Failure {
            code: mcpscope_proto::error_code::ErrorCode::Usage,
            message,
            extra: Default::default(),
        };
        say::json_line(&f.json_line());
    }
    code
}
