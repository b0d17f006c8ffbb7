//! `--trace`: what it redacts by default (credential headers, values read from the secret store
//! through `--config` secretRefs, even when a server echoes them back), that `--trace-secrets`
//! keeps the bytes as they were, and that a run killed with SIGTERM or SIGKILL leaves every frame
//! written up to the kill.

use crate::demo_harness::shared_demo;
use crate::misbehaving_support::{DEADLINE, MCPSCOPE, Scratch, read_trace, testkit};
use mcpscope_testkit::StdioMode;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HEADER_SECRET: &str = "sk-live-XYZ-cli-header-5d1e";
const ENV_SECRET: &str = "sk-live-XYZ-cli-env-0b7c";
const BEARER: &str = "tok-cli-bearer-8842";

/// `mcpscope --cli <args>` with its secret store in `dir`, to completion.
fn run(dir: &Path, args: &[String]) -> (i32, String) {
    let mut child = Command::new(MCPSCOPE)
        .arg("--cli")
        .args(args)
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_SECRET_FILE", dir.join("secrets.enc"))
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpscope");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            use std::io::Read;
            let _ = child
                .stderr
                .take()
                .expect("stderr")
                .read_to_string(&mut err);
            return (status.code().unwrap_or(-1), err);
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("mcpscope did not exit within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A config whose two servers keep their secrets in the secret store, as the web UI writes it:
/// the demo over HTTP with a secret header, and a stdio server with a secret env value that it
/// prints on stderr as it starts.
fn config_with_secrets(dir: &Path) -> std::path::PathBuf {
    let store = mcpscope_store::open_secret_store(&mcpscope_store::SecretStoreConfig::file(
        dir.join("secrets.enc"),
        None,
    ))
    .expect("secret store");
    store
        .set("catalog-value/header", HEADER_SECRET)
        .expect("store the header");
    store
        .set("catalog-value/env", ENV_SECRET)
        .expect("store the env value");
    let mut args = vec![
        json!("-c"),
        json!("echo \"starting with API_KEY=$API_KEY\" >&2; exec \"$0\" \"$@\""),
        json!(testkit()),
    ];
    args.extend(
        StdioMode::SlowStart { delay_ms: 0 }
            .args()
            .into_iter()
            .map(Value::from),
    );
    let config = json!({"mcpServers": {
        "http": {"type": "http", "url": format!("{}/mcp", shared_demo()),
                 "headers": {"X-Api-Key": {"secretRef": "catalog-value/header"}}},
        "stdio": {"command": "sh", "args": args,
                  "env": {"API_KEY": {"secretRef": "catalog-value/env"}}}
    }});
    let path = dir.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("write the config");
    path
}

/// Trace the two servers: the demo echoes the header secret back in a tool result, the stdio
/// server prints its env secret on stderr and echoes it. Returns both traces' text.
fn trace_both(dir: &Path, extra: &[&str]) -> String {
    let config = config_with_secrets(dir);
    let mut text = String::new();
    for (server, tool_arg) in [
        ("http", format!("message=canary {HEADER_SECRET} {BEARER}")),
        ("stdio", format!("text=canary {ENV_SECRET}")),
    ] {
        let trace = dir.join(format!("{server}.ndjson"));
        let mut args: Vec<String> = [
            "--config",
            config.to_str().expect("utf-8 path"),
            "--server",
            server,
            "--trace",
            trace.to_str().expect("utf-8 path"),
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            &tool_arg,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if server == "http" {
            args.extend(["--header".into(), format!("Authorization: Bearer {BEARER}")]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let (code, err) = run(dir, &args);
        assert_eq!(code, 0, "{server}: {err}");
        // Every line is one JSON frame.
        let frames = read_trace(&trace);
        assert!(frames.len() > 3, "{server}: {frames:?}");
        text.push_str(&std::fs::read_to_string(&trace).expect("trace"));
    }
    text
}

#[test]
fn the_trace_redacts_credentials_and_secret_store_values_by_default() {
    let dir = Scratch::new("trace-redacts");
    let text = trace_both(&dir.path(""), &[]);
    for secret in [HEADER_SECRET, ENV_SECRET, BEARER] {
        assert!(!text.contains(secret), "{secret} in the trace:\n{text}");
    }
    for marker in [
        "«secret X-Api-Key»",
        "«secret API_KEY»",
        "starting with API_KEY=«secret API_KEY»",
        "Bearer …redacted (",
    ] {
        assert!(text.contains(marker), "no {marker:?} in the trace:\n{text}");
    }
    assert!(text.contains("canary"), "{text}");
}

#[test]
fn trace_secrets_keeps_the_trace_byte_exact() {
    let dir = Scratch::new("trace-secrets");
    let text = trace_both(&dir.path(""), &["--trace-secrets"]);
    for secret in [HEADER_SECRET, ENV_SECRET, BEARER] {
        assert!(text.contains(secret), "{secret} not in the trace:\n{text}");
    }
    assert!(!text.contains("«secret"), "{text}");
    assert!(text.contains(&format!("Bearer {BEARER}")), "{text}");
}

/// A header given with `--header` whose name says it is secret (`X-Api-Key`) is redacted like
/// `Authorization`, wherever its value appears, unless `--trace-secrets` (issue 24 item 28).
#[test]
fn a_secret_looking_header_flag_is_redacted_unless_trace_secrets() {
    const KEY: &str = "sk-live-XYZ-cli-flag-77a1";
    let dir = Scratch::new("trace-header-flag");
    let trace = dir.path("t.ndjson");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--server-url",
            &format!("{}/mcp", shared_demo()),
            "--header",
            &format!("X-Api-Key: {KEY}"),
            "--trace",
            trace.to_str().expect("utf-8 path"),
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            &format!("message=canary {KEY}"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let (code, err) = run(&dir.path(""), &args(&[]));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&trace).expect("trace");
    assert!(!text.contains(KEY), "the key in the trace:\n{text}");
    assert!(text.contains("«secret X-Api-Key»"), "{text}");
    let (code, err) = run(&dir.path(""), &args(&["--trace-secrets"]));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&trace).expect("trace");
    assert!(text.contains(KEY), "--trace-secrets keeps it:\n{text}");
}

/// `--show-stderr` follows the trace's rule: the stdio server prints its env secret on stderr,
/// and our stderr shows the marker, not the value (with `--trace-secrets`, the value).
#[test]
fn show_stderr_redacts_secret_store_values_unless_trace_secrets() {
    let dir = Scratch::new("show-stderr");
    let config = config_with_secrets(&dir.path(""));
    let trace = dir.path("stdio.ndjson");
    let base: Vec<String> = [
        "--config",
        config.to_str().expect("utf-8 path"),
        "--server",
        "stdio",
        "--show-stderr",
        "--method",
        "tools/list",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, err) = run(&dir.path(""), &base);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains(ENV_SECRET),
        "the secret on our stderr:\n{err}"
    );
    assert!(
        err.contains("server stderr: ") && err.contains("«secret API_KEY»"),
        "no redacted stderr line:\n{err}"
    );
    let mut exact = base.clone();
    exact.extend(["--trace".into(), trace.to_str().expect("utf-8").into()]);
    exact.push("--trace-secrets".into());
    let (code, err) = run(&dir.path(""), &exact);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(ENV_SECRET),
        "--trace-secrets hid the value:\n{err}"
    );
}

/// A child killed when dropped, so a failing test leaves no run behind (its silent server exits
/// when our end of its stdin closes).
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start a traced run against a server that never answers, wait until the trace file holds the
/// `initialize` request, send `signal`, and return the trace as it is on disk.
fn killed_trace(name: &str, signal: Signal) -> Vec<Value> {
    let dir = Scratch::new(name);
    let trace = dir.path("trace.ndjson");
    let mut child = Reaped(
        Command::new(MCPSCOPE)
            .arg("--cli")
            .arg("--trace")
            .arg(&trace)
            // No timeout of ours may end the run before the signal does.
            .args(["--connect-timeout", "0", "--method", "tools/list", "--"])
            .arg(testkit())
            .args(StdioMode::Silent.args())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcpscope"),
    );
    let deadline = Instant::now() + DEADLINE;
    while !std::fs::read_to_string(&trace).is_ok_and(|t| t.contains("initialize")) {
        assert!(
            Instant::now() < deadline,
            "the initialize frame never reached the trace file while the run was alive"
        );
        assert!(
            child.0.try_wait().expect("try_wait").is_none(),
            "mcpscope ended on its own"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.0.id() as i32), signal).expect("send the signal");
    let _ = child.0.wait();
    read_trace(&trace)
}

#[test]
fn a_run_killed_with_sigkill_or_sigterm_leaves_every_frame_up_to_the_kill() {
    for (name, signal) in [
        ("trace-sigkill", Signal::SIGKILL),
        ("trace-sigterm", Signal::SIGTERM),
    ] {
        let frames = killed_trace(name, signal);
        // Every line whole, in order: the spawn, then the initialize request.
        let seqs: Vec<u64> = frames.iter().filter_map(|f| f["seq"].as_u64()).collect();
        assert_eq!(seqs.len(), frames.len(), "{signal}: {frames:?}");
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{signal}: {seqs:?}");
        assert!(
            frames.iter().any(|f| f["kind"] == "lifecycle"
                && f["meta"]["note"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("spawned pid"))),
            "{signal}: {frames:?}"
        );
        assert!(
            frames
                .iter()
                .any(|f| f["method"] == "initialize" && f["direction"] == "out"),
            "{signal}: {frames:?}"
        );
    }
}
