//! Plumbing for the real-peer tests: find the npm and Python peers `testenv/install.sh` puts in `.peers/`,
//! start their HTTP servers on free loopback ports, and hand the CLI their stdio commands.
//!
//! Without `.peers/` these tests fail and say how to install it, so a CI that forgot the step
//! does not pass by testing nothing; `MCPSCOPE_SKIP_PEERS=1` skips them on purpose.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// server-everything's entry point under the peers' `node_modules`.
pub(crate) const EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// The repository root (the workspace holds `testenv/` and `.peers/`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The installed peers.
pub(crate) struct Peers {
    testenv: PathBuf,
    peers_dir: PathBuf,
}

impl Peers {
    /// The peers, or `None` (after a notice) when `MCPSCOPE_SKIP_PEERS=1`. Panics, saying what
    /// to run, when they are not installed.
    pub(crate) fn get(test: &str) -> Option<Peers> {
        if std::env::var("MCPSCOPE_SKIP_PEERS").as_deref() == Ok("1") {
            eprintln!("{test}: skipped, MCPSCOPE_SKIP_PEERS=1 (real-peer tests need .peers/)");
            return None;
        }
        let root = repo_root();
        // The same override testenv/lib.sh honours.
        let peers_dir = std::env::var_os("MCPSCOPE_PEERS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".peers"));
        let needed = [
            "node22/node_modules/.bin/node",
            "peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            "peers/node_modules/@modelcontextprotocol/server/package.json",
            "peers/node_modules/@modelcontextprotocol/node/package.json",
            "peers/node_modules/@modelcontextprotocol/sdk/package.json",
            "peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
            "peers/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
            "peers/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js",
            "peers/node_modules/@modelcontextprotocol/server-basic-react/dist/index.js",
            "python/bin/python",
        ];
        let missing: Vec<String> = needed
            .iter()
            .map(|p| peers_dir.join(p))
            .filter(|p| !p.exists())
            .map(|p| p.display().to_string())
            .collect();
        assert!(
            missing.is_empty(),
            "{test}: the real-peer tests need the npm peers, and these are missing:\n  {}\n\
             Run `bash testenv/install.sh` (once; it installs Node 22, server-everything, the \
             TypeScript SDK and, in a venv, the Python SDK and FastMCP into .peers/), or set MCPSCOPE_SKIP_PEERS=1 to skip these tests.",
            missing.join("\n  ")
        );
        Some(Peers {
            testenv: root.join("testenv"),
            peers_dir,
        })
    }

    fn script(&self, name: &str) -> String {
        self.testenv
            .join("peers")
            .join(name)
            .to_string_lossy()
            .into_owned()
    }

    /// The peers' Python (the venv with the Python SDK, FastMCP and `cryptography`).
    pub(crate) fn python(&self) -> PathBuf {
        self.peers_dir.join("python/bin/python")
    }

    /// CLI arguments that run `script mode` as a stdio server (the CLI gives a stdio server a
    /// small allowlisted environment, so the peers' location is passed explicitly).
    pub(crate) fn stdio(&self, script: &str) -> Vec<String> {
        vec![
            "-e".to_owned(),
            format!("MCPSCOPE_PEERS_DIR={}", self.peers_dir.display()),
            "-e".to_owned(),
            "MCPSCOPE_TS_SERVER_QUIET=1".to_owned(),
            "--".to_owned(),
            self.script(script),
            "stdio".to_owned(),
        ]
    }

    /// CLI arguments that run an npm package's entry point (`entry`, under the peers'
    /// `node_modules`) on Node 22 as a stdio server, with `env` set and `args` after it.
    pub(crate) fn node_stdio(
        &self,
        entry: &str,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Vec<String> {
        let mut all = Vec::new();
        for (k, v) in env {
            all.extend(["-e".to_owned(), format!("{k}={v}")]);
        }
        all.push("--".to_owned());
        all.push(
            self.peers_dir
                .join("node22/node_modules/.bin/node")
                .display()
                .to_string(),
        );
        all.push(
            self.peers_dir
                .join("peers/node_modules")
                .join(entry)
                .display()
                .to_string(),
        );
        all.extend(args.iter().map(|a| (*a).to_owned()));
        all
    }

    /// The inspector core over server-everything (stdio, legacy) as the web UI runs it (its
    /// default policy), connected; its history and secrets in `dir`. The server is `everything`.
    pub(crate) async fn everything_in_core(
        &self,
        dir: &Path,
    ) -> std::sync::Arc<mcpscope_inspect::Inspector> {
        use mcpscope_inspect::{Catalog, CatalogEntry, Inspector, Options};
        let cmd = self.node_stdio(EVERYTHING, &[], &["stdio"]);
        let at = cmd.iter().position(|a| a == "--").expect("--") + 1;
        let entry: CatalogEntry = serde_json::from_value(serde_json::json!({
            "command": cmd[at], "args": cmd[at + 1..], "protocolEra": "legacy"
        }))
        .expect("entry");
        let retention = mcpscope_store::Retention::default();
        let store = mcpscope_store::HistoryStore::open(&dir.join("history.sqlite"), retention)
            .expect("history");
        let options = Options {
            ping_interval: None,
            secrets: Some(mcpscope_store::SecretStoreConfig::file(
                dir.join("secrets.enc"),
                None,
            )),
            ..Options::default()
        };
        let catalog = Catalog::in_memory(vec![("everything".into(), entry)]);
        let app = Inspector::new(catalog, store, options);
        app.connect("everything", None)
            .await
            .expect("connect server-everything");
        app
    }

    /// Starts `script mode 0` and waits for it to say where it listens.
    pub(crate) async fn serve(&self, script: &str, mode: &str) -> PeerServer {
        let mut child = tokio::process::Command::new(self.script(script))
            .args([mode, "0"])
            .env("MCPSCOPE_PEERS_DIR", &self.peers_dir)
            .env("MCPSCOPE_TS_SERVER_QUIET", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {script} {mode}: {e}"));
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = Vec::new();
        let base = loop {
            // Generous: a Python peer (FastMCP) took over 20 s to import and bind on a
            // freshly installed 2-core CI machine under load; starting is not what is tested.
            let line = tokio::time::timeout(Duration::from_secs(90), lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("{script} {mode} did not start: {seen:?}"))
                .expect("read the peer's stderr")
                .unwrap_or_else(|| panic!("{script} {mode} exited: {seen:?}"));
            // `mcpscope-testenv: listening on http://127.0.0.1:PORT[/mcp] (pid N)`
            if let Some(rest) = line.split("listening on ").nth(1)
                && let Some(url) = rest.split_whitespace().next()
            {
                break url.trim_end_matches("/mcp").to_owned();
            }
            seen.push(line);
        };
        // Keep draining stderr so a chatty peer never blocks on a full pipe, and keep the lines
        // for tests that check what the server did (`PeerServer::wait_for_stderr`).
        let (stderr, kept) = tokio::sync::watch::channel(Vec::<String>::new());
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                stderr.send_modify(|all| all.push(line));
            }
        });
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        PeerServer {
            base,
            stderr: kept,
            _child: child,
        }
    }
}

/// A peer serving HTTP; killed when dropped.
pub(crate) struct PeerServer {
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    /// Its stderr lines after the listening line, so far.
    stderr: tokio::sync::watch::Receiver<Vec<String>>,
    _child: tokio::process::Child,
}

impl PeerServer {
    /// Waits (generously: the machine may be loaded) until the server prints `line` on stderr.
    pub(crate) async fn wait_for_stderr(&self, line: &str) {
        let mut stderr = self.stderr.clone();
        let seen = tokio::time::timeout(
            Duration::from_secs(30),
            stderr.wait_for(|all| all.iter().any(|l| l == line)),
        )
        .await;
        assert!(
            matches!(seen, Ok(Ok(_))),
            "the server never printed {line:?}; its stderr: {:?}",
            *self.stderr.borrow()
        );
    }
}
