//! `mcpscope --tui`: the terminal UI over the same data directory as the web UI.
//!
//! `mcpscope --tui` shows every server of the catalog (`mcp.json` in the data directory, created
//! with the demo server when missing; `--catalog FILE`; `--config FILE` read-only);
//! `mcpscope --tui COMMAND [ARGS] [-- SERVER_ARGS]` or `mcpscope --tui URL` one ad-hoc server,
//! connected at once. The history is the web UI's `history.sqlite`, so the TUI holds the same
//! data-directory lock (`mcpscope.lock`): one of the two at a time per directory, the loser
//! told which process has it. OAuth's redirect comes back to the loopback callback
//! (`--callback-url`), listened on while a login waits (`tui_callback.rs`).
//!
//! While the screen is drawn, mcpscope's own stderr (the core's rare complaints: a history write
//! that failed, …) goes to `tui.log` in the data directory instead of over the picture; after
//! the TUI ends, a non-empty log is named on the real stderr.

use crate::args::Args;
use crate::cli::exit;
use crate::web::{catalog_path, fail, lock_data_dir, open_history, seed_catalog_file};
use mcpscope_inspect::{Catalog, CatalogEntry, Options};
use serde_json::{Map, Value};

/// Start the terminal UI; returns the exit code.
pub async fn run(args: Args) -> i32 {
    match run_steps(&args).await {
        Ok(()) => exit::OK,
        Err(code) => code,
    }
}

async fn run_steps(args: &Args) -> Result<(), i32> {
    let data_dir = mcpscope_store::data_dir();
    let ad_hoc = ad_hoc_entry(args)?;
    let (catalog, shown, history_path) = match ad_hoc {
        Some((name, entry)) => {
            let dir = data_dir.clone().ok_or_else(|| {
                fail("no data directory (no home directory found); set MCPSCOPE_DATA_DIR")
            })?;
            (
                Catalog::in_memory(vec![(name, entry)]),
                None,
                dir.join("history.sqlite"),
            )
        }
        None => {
            let (path, read_only) = catalog_path(args, data_dir.as_deref())?;
            let history = match &data_dir {
                Some(d) => d.join("history.sqlite"),
                None => path.with_file_name("history.sqlite"),
            };
            if !read_only && !path.exists() {
                seed_catalog_file(&path)?;
            }
            let catalog = Catalog::load(&path, read_only).map_err(fail)?;
            (catalog, Some(path.display().to_string()), history)
        }
    };
    let lock = lock_data_dir(data_dir.as_deref(), &history_path)?;
    let log_dir = history_path.parent().map(std::path::Path::to_path_buf);
    let store = open_history(history_path).await?;
    let connect = shown.is_none().then(|| catalog.servers()[0].0.clone());
    let options = Options {
        callback_url: args.auth.callback_url.clone(),
        secrets: crate::secret_store::secret_config().ok(),
        ..Options::default()
    };
    let inspector = mcpscope_inspect::Inspector::new(catalog, store, options);
    // Logins come back to the loopback callback, listened on while one waits.
    let callback = crate::tui_callback::follow(inspector.clone(), args.auth.callback_url.clone());
    let log = log_dir.map(|d| d.join("tui.log"));
    let redirected = log.as_deref().and_then(StderrToFile::start);
    let r = mcpscope_tui::run(
        inspector,
        mcpscope_tui::TuiOptions {
            connect,
            catalog: shown,
        },
    )
    .await;
    callback.abort();
    drop(redirected);
    if let Some(log) = &log
        && std::fs::metadata(log).is_ok_and(|m| m.len() > 0)
    {
        eprintln!(
            "mcpscope: messages written while the terminal UI ran are in {}",
            log.display()
        );
    }
    drop(lock);
    r.map_err(|e| {
        eprintln!("mcpscope: the terminal UI stopped: {e}");
        exit::UNREACHABLE
    })
}

/// The one server of `mcpscope --tui TARGET …` as a catalog entry and its name; `None` when no
/// target was given (the catalog's servers).
fn ad_hoc_entry(args: &Args) -> Result<Option<(String, CatalogEntry)>, i32> {
    // `mcpscope --tui -- CMD ARGS…` names the server after `--` alone, as `--cli` accepts it.
    let positional: Vec<String> = args
        .connect
        .target
        .iter()
        .chain(&args.connect.server_args)
        .cloned()
        .collect();
    let url = args
        .connect
        .server_url
        .clone()
        .or_else(|| positional.first().filter(|t| is_url(t)).cloned());
    let mut entry = CatalogEntry {
        protocol_era: args.connect.protocol_era.clone(),
        ..Default::default()
    };
    let name = if args.connect.demo {
        entry.command = Some(crate::resolve::own_executable().map_err(|e| fail(e.0))?);
        entry.args = vec!["demo-server".into()];
        "demo".to_string()
    } else if let Some(u) = url {
        entry.url = Some(u.clone());
        entry.kind = args
            .connect
            .transport
            .map(|t| format!("{t:?}").to_ascii_lowercase());
        entry.headers = pairs(&args.connect.headers, ':')?;
        url_name(&u)
    } else if let Some((command, rest)) = positional.split_first() {
        entry.command = Some(command.clone());
        entry.args = rest.to_vec();
        entry.env = pairs(&args.connect.env, '=')?;
        entry.cwd = args.connect.cwd.clone();
        command_name(command)
    } else {
        return Ok(None);
    };
    if args.connect.config.is_some() || args.catalog.is_some() {
        return Err(fail(
            "give either a server (TARGET or --demo) or a catalog (--config/--catalog), not both",
        ));
    }
    Ok(Some((name, entry)))
}

fn is_url(t: &str) -> bool {
    t.starts_with("http://") || t.starts_with("https://")
}

/// `node server.js` → `server.js`; `uvx mcp-server-git` → `mcp-server-git`; else the command.
fn command_name(command: &str) -> String {
    std::path::Path::new(command)
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_else(|| command.to_string())
}

/// `https://example.com/mcp` → `example.com`.
fn url_name(u: &str) -> String {
    url::Url::parse(u)
        .ok()
        .and_then(|p| p.host_str().map(str::to_string))
        .unwrap_or_else(|| u.to_string())
}

/// `NAME: VALUE` / `KEY=VALUE` items as a JSON object of strings.
fn pairs(items: &[String], sep: char) -> Result<Map<String, Value>, i32> {
    let mut m = Map::new();
    for it in items {
        let Some((k, v)) = it.split_once(sep) else {
            return Err(fail(format!("{it:?}: expected NAME{sep}VALUE")));
        };
        m.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
    }
    Ok(m)
}

/// Our stderr pointed at a file until dropped (then back at the terminal).
struct StderrToFile {
    saved: std::os::fd::OwnedFd,
}

impl StderrToFile {
    /// Point stderr at `path` (created owner-only, truncated); `None` when it cannot be, and
    /// stderr is left as it was.
    fn start(path: &std::path::Path) -> Option<StderrToFile> {
        let _ = mcpscope_server::precreate_private(path);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .ok()?;
        let saved = nix::unistd::dup(std::io::stderr()).ok()?;
        nix::unistd::dup2_stderr(&file).ok()?;
        Some(StderrToFile { saved })
    }
}

impl Drop for StderrToFile {
    fn drop(&mut self) {
        let _ = nix::unistd::dup2_stderr(&self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn entry(argv: &[&str]) -> (String, CatalogEntry) {
        let args = Args::parse_from(std::iter::once("mcpscope").chain(argv.iter().copied()));
        ad_hoc_entry(&args).unwrap().expect("an ad-hoc server")
    }

    #[test]
    fn the_server_after_a_double_dash_alone_is_the_ad_hoc_server() {
        // A newcomer's `mcpscope --tui -- uvx srv --port 3` once opened the catalog instead.
        let (name, e) = entry(&["--tui", "--", "uvx", "srv", "--port", "3"]);
        assert_eq!(name, "uvx");
        assert_eq!(e.command.as_deref(), Some("uvx"));
        assert_eq!(e.args, ["srv", "--port", "3"]);
        let (_, e) = entry(&["--tui", "node", "srv.js", "--", "--port", "3"]);
        assert_eq!(e.command.as_deref(), Some("node"));
        assert_eq!(e.args, ["srv.js", "--port", "3"]);
        let (_, e) = entry(&["--tui", "--", "http://127.0.0.1:1/mcp"]);
        assert_eq!(e.url.as_deref(), Some("http://127.0.0.1:1/mcp"));
    }
}
