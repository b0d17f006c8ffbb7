//! `mcpscope` without `--cli`: start the web UI.
//!
//! Listens on `127.0.0.1:6274` (`HOST`, `CLIENT_PORT`; the official Inspector's names), prints the
//! URL with a fresh per-launch token (`MCP_INSPECTOR_API_TOKEN` fixes it) and opens the browser
//! unless `--no-open` — with a single-use launch code, never the token, on its command line. The catalog is `--catalog FILE` (editable), `--config FILE` (read-only), or
//! `mcp.json` in the data directory (`MCPSCOPE_DATA_DIR`, else `$XDG_DATA_HOME/mcpscope` or
//! `~/.local/share/mcpscope`); an editable catalog that does not exist yet is created with the
//! built-in demo server, so a newcomer has something to connect to. History lives beside it in
//! `history.sqlite`.
//!
//! One web UI per data directory: it holds `mcpscope.lock` there from before it opens the history
//! until it exits, and a second one says which process holds it and exits 4 without touching the
//! first one's files. The directory is made 0700 and its files 0600 (looser ones are tightened,
//! with a warning).
//!
//! Safety switches, named as in the official Inspector and loud when used:
//! `DANGEROUSLY_OMIT_AUTH=true|1` (no token), `DANGEROUSLY_BIND_ALL_INTERFACES=true|1` (a
//! non-loopback `HOST`), `ALLOWED_ORIGINS` (replaces the default Origin allowlist).
//!
//! Beside it, the MCP Apps sandbox listener (`MCP_SANDBOX_PORT`, default 6275, 0 = the system
//! picks): the same host, another port, so apps run on an origin that cannot reach `/api`.
//!
//! HTTPS: `INSPECTOR_TLS_KEY_PATH` and `INSPECTOR_TLS_CERT_PATH` (both PEM; the official
//! Inspector's names) make both listeners serve TLS, reloaded when the files change; the URLs
//! say `https://` and the token's cookie is `Secure`. Both listeners bound idle connections
//! and open connections (`mcpscope_server::serve_router`).

use crate::args::Args;
use crate::cli::exit;
use mcpscope_server::{
    AppState, Catalog, CatalogEntry, DataDirLock, ListenOptions, Security, ServerOptions, TlsConfig,
};
use mcpscope_store::{HistoryStore, Retention};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// A fixed token shorter than this is reported: it could be guessed (ours have 64 hex digits).
const SHORT_TOKEN: usize = 32;

/// The default port (the official Inspector's).
pub const DEFAULT_PORT: u16 = 6274;

fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .map(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"))
        .unwrap_or(false)
}

fn env_text(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// True when `host` names this machine only.
pub fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost") || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

pub(crate) fn fail(message: impl std::fmt::Display) -> i32 {
    eprintln!("mcpscope: {message}");
    exit::USAGE
}

/// The catalog the web UI starts with: the demo server, run by this very executable.
fn seed_catalog() -> Result<serde_json::Value, String> {
    let exe = crate::resolve::own_executable().map_err(|e| e.0)?;
    let demo = CatalogEntry {
        command: Some(exe),
        args: vec!["demo-server".into()],
        ..Default::default()
    };
    Ok(serde_json::json!({"mcpServers": {"demo": demo}}))
}

/// Start the web UI and serve until Ctrl-C. Returns the exit code.
pub async fn run(args: Args) -> i32 {
    match serve_until_interrupted(&args).await {
        Ok(()) => exit::OK,
        Err(code) => code,
    }
}

/// `mcpscope chek …`: a first word that is not a file but is a letter or two from one of the
/// subcommands was meant as that subcommand (the web UI would otherwise say it takes no target).
fn mistyped_command(first: Option<&String>) -> Option<String> {
    let word = first?;
    if std::path::Path::new(word).exists() || word.contains(['/', '.', ':']) {
        return None;
    }
    let meant = ["check", "gateway", "demo-server"]
        .into_iter()
        .find(|c| crate::cli::edit_distance(word, c) <= 2)?;
    Some(format!(
        "`{word}` is not a command of mcpscope: did you mean `mcpscope {meant} …`? (`mcpscope {meant} --help` says what it takes)"
    ))
}

/// The steps of [`run`] in order; `Err` is the exit code, its reason already printed.
async fn serve_until_interrupted(args: &Args) -> Result<(), i32> {
    if !args.connect.target.is_empty()
        || !args.connect.server_args.is_empty()
        || args.connect.demo
        || args.method.is_some()
    {
        if let Some(hint) = mistyped_command(args.connect.target.first()) {
            return Err(fail(&hint));
        }
        return Err(fail(
            "the web UI takes its servers from the catalog; add this one in the UI (or with --catalog FILE), or add --cli to run one method from the terminal",
        ));
    }
    let (host, port, loopback) = listen_address()?;
    // A key and certificate (INSPECTOR_TLS_KEY_PATH / INSPECTOR_TLS_CERT_PATH) make both
    // listeners HTTPS; a bad pair stops us before anything else is opened.
    let listen = ListenOptions {
        tls: TlsConfig::from_env().map_err(fail)?,
        ..ListenOptions::default()
    };
    let scheme = listen.scheme();
    let token = api_token();
    let origins = allowed_origins();
    let data_dir = mcpscope_store::data_dir();
    let (catalog_path, read_only) = catalog_path(args, data_dir.as_deref())?;
    let history_path = match &data_dir {
        Some(d) => d.join("history.sqlite"),
        None => catalog_path.with_file_name("history.sqlite"),
    };
    let mut lock = lock_data_dir(data_dir.as_deref(), &history_path)?;
    if !read_only && !catalog_path.exists() {
        seed_catalog_file(&catalog_path)?;
    }
    let catalog = Catalog::load(&catalog_path, read_only).map_err(fail)?;
    let store = open_history(history_path).await?;
    let listener = bind(&host, port).await?;
    let requested_port = port;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    let mut security = Security::for_port(port, token.clone(), origins);
    if listen.tls.is_some() {
        security.serve_https();
    }
    if !loopback {
        security.allow_host(&format!("{host}:{port}"));
    }
    let shown_host = shown_host(&host, loopback);
    let ports = (requested_port, port);
    let (sandbox, sandbox_url) =
        start_sandbox(&host, &shown_host, ports, &security, listen.clone()).await?;
    let url = match &token {
        Some(t) => format!("{scheme}://{shown_host}:{port}/?token={t}"),
        None => format!("{scheme}://{shown_host}:{port}/"),
    };
    // Every local user can read a browser's command line (`/proc/PID/cmdline`): the browser we
    // open gets a single-use code that expires in seconds, never the token (the printed URL
    // keeps it, for people who copy it).
    let browser_url = match &token {
        Some(_) => format!(
            "{scheme}://{shown_host}:{port}/?launch={}",
            security.issue_launch_code()
        ),
        None => url.clone(),
    };
    let mut options = ServerOptions {
        secrets: crate::secret_store::secret_config().ok(),
        ..ServerOptions::for_port(port)
    };
    if listen.tls.is_some() {
        // The port speaks only TLS, so the OAuth redirect comes back over https, to the host
        // the certificate names (the printed URL's).
        options.callback_url = format!("https://{shown_host}:{port}/oauth/callback");
    }
    let state = AppState::new(security, catalog, store, options).with_sandbox_url(sandbox_url);
    // Ctrl-C is caught from before the URL is printed: one pressed the moment it appears must
    // shut down cleanly (history written, lock released), not kill us by the default action.
    let shutdown = interrupted();
    lock.announce(Some(&format!("{scheme}://{shown_host}:{port}")));
    println!("mcpscope web UI: {url}");
    eprintln!(
        "mcpscope: catalog {}{}; history {}",
        catalog_path.display(),
        if read_only { " (read-only)" } else { "" },
        state.store().path().display()
    );
    if !args.no_open {
        open_browser(browser_url);
    }
    let served = mcpscope_server::serve(listener, state, listen, shutdown).await;
    sandbox.abort();
    // Held until every connection is closed and the history is written.
    drop(lock);
    served.map_err(|e| {
        eprintln!("mcpscope: the web UI stopped: {e}");
        exit::UNREACHABLE
    })
}

/// `HOST` and `CLIENT_PORT`, and whether the host is loopback; any other host only with
/// `DANGEROUSLY_BIND_ALL_INTERFACES`, and loudly.
fn listen_address() -> Result<(String, u16, bool), i32> {
    let host = env_text("HOST").unwrap_or_else(|| "127.0.0.1".into());
    let port = match env_text("CLIENT_PORT").map(|p| p.trim().parse::<u16>()) {
        None => DEFAULT_PORT,
        Some(Ok(p)) => p,
        Some(Err(_)) => return Err(fail("CLIENT_PORT must be a port number (0-65535)")),
    };
    let loopback = is_loopback(&host);
    if !loopback {
        if !env_flag("DANGEROUSLY_BIND_ALL_INTERFACES") {
            return Err(fail(format!(
                "refusing to listen on {host}: only loopback addresses are allowed, because anyone who reaches the web UI can start processes on this machine.\n\nset DANGEROUSLY_BIND_ALL_INTERFACES=true to do it anyway (the token is still required)"
            )));
        }
        eprintln!(
            "mcpscope: WARNING: listening on {host} (DANGEROUSLY_BIND_ALL_INTERFACES): other machines can reach this inspector; keep the token secret"
        );
    }
    Ok((host, port, loopback))
}

/// The per-launch token: `MCP_INSPECTOR_API_TOKEN` (a short one is warned about), else a fresh
/// one; `None` with `DANGEROUSLY_OMIT_AUTH`, and loudly.
fn api_token() -> Option<String> {
    if env_flag("DANGEROUSLY_OMIT_AUTH") {
        eprintln!(
            "mcpscope: WARNING: authentication is off (DANGEROUSLY_OMIT_AUTH): any program on this machine can use the web UI to start processes"
        );
        return None;
    }
    let fixed = env_text("MCP_INSPECTOR_API_TOKEN");
    if let Some(t) = &fixed
        && t.chars().count() < SHORT_TOKEN
    {
        eprintln!(
            "mcpscope: WARNING: MCP_INSPECTOR_API_TOKEN has {} characters; a token shorter than {SHORT_TOKEN} can be guessed. Use a random one (e.g. openssl rand -hex 32), or unset it for a fresh 256-bit token per launch",
            t.chars().count()
        );
    }
    Some(fixed.unwrap_or_else(mcpscope_server::new_token))
}

/// `ALLOWED_ORIGINS`, comma-separated: replaces the default Origin allowlist.
fn allowed_origins() -> Option<Vec<String>> {
    env_text("ALLOWED_ORIGINS").map(|v| {
        v.split(',')
            .map(|o| o.trim().to_string())
            .filter(|o| !o.is_empty())
            .collect()
    })
}

/// The catalog file and whether it is read-only: `--config` (read-only), `--catalog`, else
/// `mcp.json` in the data directory.
pub(crate) fn catalog_path(args: &Args, data_dir: Option<&Path>) -> Result<(PathBuf, bool), i32> {
    match (&args.connect.config, &args.catalog) {
        (Some(c), _) => Ok((PathBuf::from(c), true)),
        (None, Some(c)) => Ok((PathBuf::from(c), false)),
        (None, None) => match data_dir {
            Some(d) => Ok((d.join("mcp.json"), false)),
            None => Err(fail(
                "no data directory (no home directory found); set MCPSCOPE_DATA_DIR or pass --catalog FILE",
            )),
        },
    }
}

/// Create a missing editable catalog with the built-in demo server in it.
pub(crate) fn seed_catalog_file(catalog_path: &Path) -> Result<(), i32> {
    let seeded = seed_catalog().map_err(fail)?;
    let mut text = serde_json::to_string_pretty(&seeded).unwrap_or_default();
    text.push('\n');
    if let Err(e) = mcpscope_server::write_atomically(catalog_path, text.as_bytes()) {
        return Err(fail(format!(
            "cannot create the catalog {}: {e}; pass --catalog FILE somewhere writable",
            catalog_path.display()
        )));
    }
    eprintln!(
        "mcpscope: created the catalog {} with the built-in demo server",
        catalog_path.display()
    );
    Ok(())
}

/// Open (creating it owner-only first) the history database, off the async threads.
pub(crate) async fn open_history(history_path: PathBuf) -> Result<HistoryStore, i32> {
    let opened = tokio::task::spawn_blocking(move || {
        mcpscope_server::precreate_private(&history_path).map_err(|e| {
            format!(
                "cannot create the history database {}: {e}",
                history_path.display()
            )
        })?;
        HistoryStore::open(&history_path, Retention::default()).map_err(|e| e.to_string())
    })
    .await;
    match opened {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(fail(e)),
        Err(e) => Err(fail(e)),
    }
}

/// Listen on `host:port` (an IPv6 host without its brackets); a port in use is exit 4.
async fn bind(host: &str, port: u16) -> Result<tokio::net::TcpListener, i32> {
    let bind_host = host.trim_start_matches('[').trim_end_matches(']');
    tokio::net::TcpListener::bind((bind_host, port))
        .await
        .map_err(|e| {
            eprintln!(
                "mcpscope: cannot listen on {host}:{port}: {e}\n\nis another mcpscope or MCP Inspector running? set CLIENT_PORT to use another port"
            );
            exit::UNREACHABLE
        })
}

/// `MCP_SANDBOX_PORT`: the MCP Apps sandbox's port (default 6275; 0: the system picks one).
/// A UI on a port the system picked (`CLIENT_PORT=0`: tests, several at once) gets a picked
/// sandbox port too unless one is given, so parallel launches never fight over 6275.
fn sandbox_port((requested_ui, ui_port): (u16, u16)) -> Result<u16, i32> {
    let default = if requested_ui == 0 {
        0
    } else {
        mcpscope_server::DEFAULT_SANDBOX_PORT
    };
    let port = match env_text("MCP_SANDBOX_PORT").map(|p| p.trim().parse::<u16>()) {
        None => default,
        Some(Ok(p)) => p,
        Some(Err(_)) => return Err(fail("MCP_SANDBOX_PORT must be a port number (0-65535)")),
    };
    if port != 0 && port == ui_port {
        return Err(fail(format!(
            "MCP_SANDBOX_PORT is {port}, the web UI's own port: MCP Apps must run on another origin; choose another port"
        )));
    }
    Ok(port)
}

/// Start the MCP Apps sandbox listener on the UI's host (another port, so another origin),
/// framed only by the UI's origins, with the UI's listener options (HTTPS when the UI is: an
/// https page cannot frame an http one); its task and the URL of its page.
async fn start_sandbox(
    host: &str,
    shown_host: &str,
    ui_ports: (u16, u16),
    security: &Security,
    listen: ListenOptions,
) -> Result<(tokio::task::JoinHandle<()>, String), i32> {
    let port = sandbox_port(ui_ports)?;
    let bind_host = host.trim_start_matches('[').trim_end_matches(']');
    let listener = tokio::net::TcpListener::bind((bind_host, port))
        .await
        .map_err(|e| {
            eprintln!(
                "mcpscope: cannot listen on {host}:{port} for the MCP Apps sandbox: {e}\n\nis another mcpscope or MCP Inspector running? set MCP_SANDBOX_PORT to another port (0 lets the system choose)"
            );
            exit::UNREACHABLE
        })?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    let origins = security.allowed_origins.clone();
    let scheme = listen.scheme();
    let task = tokio::spawn(async move {
        let forever = std::future::pending();
        if let Err(e) = mcpscope_server::serve_sandbox(listener, origins, listen, forever).await {
            eprintln!("mcpscope: the MCP Apps sandbox stopped: {e}");
        }
    });
    Ok((task, format!("{scheme}://{shown_host}:{port}/sandbox")))
}

/// The host the printed URL names: the loopback host as given (an IPv6 one in brackets), else
/// 127.0.0.1.
fn shown_host(host: &str, loopback: bool) -> String {
    if !loopback {
        "127.0.0.1".to_string()
    } else if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// Resolves at the first Ctrl-C or SIGTERM (`stop.rs`); a second one quits at once. The handlers
/// are installed now, when this is called, not when the future is first polled. The stop itself
/// (`mcpscope_server::serve`) ends the event streams first, so only requests in progress hold it,
/// for the listener's short grace; past a second, a line says so and how to quit now.
fn interrupted() -> impl std::future::Future<Output = ()> {
    let mut signals = crate::stop::Signals::catch();
    async move {
        let signal = signals.next().await;
        signals.then_exit_at_once("mcpscope");
        crate::stop::say_if_still_running(
            std::time::Duration::from_secs(1),
            format!(
                "mcpscope: stopping: requests in progress get up to {:?}, then the servers are closed; {} again quits at once",
                ListenOptions::default().shutdown_grace,
                signal.said()
            ),
        );
    }
}

/// Open the URL in the user's browser, off the async threads; a failure only says so.
fn open_browser(url: String) {
    tokio::task::spawn_blocking(move || {
        if let Err(e) = webbrowser::open(&url) {
            eprintln!("mcpscope: could not open a browser ({e}); open the URL above");
        }
    });
}

/// Make the data directory private (saying what was tightened) and lock the directory of the
/// history for this process. `Err` is the exit code: 4 when another web UI holds it.
pub(crate) fn lock_data_dir(
    data_dir: Option<&Path>,
    history_path: &Path,
) -> Result<DataDirLock, i32> {
    if let Some(d) = data_dir {
        match mcpscope_server::make_private(d) {
            Ok(tightened) if !tightened.is_empty() => eprintln!(
                "mcpscope: WARNING: others could read mcpscope's files; tightened to owner-only (700 for the directory, 600 for files): {}",
                tightened.join(", ")
            ),
            Ok(_) => {}
            Err(e) => {
                return Err(fail(format!(
                    "cannot create the data directory {} ({e}); set MCPSCOPE_DATA_DIR to a writable directory",
                    d.display()
                )));
            }
        }
    }
    // Without a data directory the history sits beside the catalog; that directory is locked.
    let dir = history_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let _ = std::fs::create_dir_all(dir);
    DataDirLock::acquire(dir).map_err(|message| {
        eprintln!("mcpscope: {message}");
        exit::UNREACHABLE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subcommand_typed_a_letter_off_is_named() {
        let hint = mistyped_command(Some(&"chek".to_string())).unwrap();
        assert!(hint.contains("did you mean `mcpscope check …`"), "{hint}");
        assert!(
            mistyped_command(Some(&"gatewy".to_string()))
                .unwrap()
                .contains("mcpscope gateway")
        );
        assert_eq!(mistyped_command(Some(&"node".to_string())), None);
        assert_eq!(mistyped_command(Some(&"./check".to_string())), None);
        assert_eq!(mistyped_command(None), None);
    }

    #[test]
    fn loopback_names() {
        for h in ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["0.0.0.0", "::", "192.168.1.2", "example.com"] {
            assert!(!is_loopback(h), "{h}");
        }
    }
}
