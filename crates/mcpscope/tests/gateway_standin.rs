//! The stand-in MCP gateway (`testenv/peers/gateway-standin.py`: FastMCP 4.2.3 mounting two
//! prefixed backends on the Python SDK, mcp 2.3.0 — code we did not write) met by our CLI: 002's
//! demo table (`toystore_greet` `Name=Ada` → `Hi Ada`, `stateless_hello_world` → `Hello, Ada!`,
//! prompts `toystore_greet` → `Say hi to` and `stateless_greeting` → `Please greet Ada warmly`)
//! in a 2025-11-25 session-based gateway and a 2026-07-28 stateless one, the dual-era gateway
//! the protocol selector's Auto meets, HTTPS with a private CA made here by openssl
//! (`testenv/peers/make-test-ca.sh`), and a gateway behind a bearer token.
//!
//! These pin what the gateway mode's relay tests and journeys stand on: if the stand-in's
//! answers drift, they fail here first, against the CLI, with no relay in between.
//!
//! Like the other real-peer tests they need `.peers/python` (`testenv/install.sh python`): they
//! fail saying so when it is missing, and `MCPSCOPE_SKIP_PEERS=1` skips them on purpose.

use crate::demo_harness::{MCPSCOPE, Run, header, run_binary};
use crate::misbehaving_support::Scratch;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// The repository root (it holds `testenv/` and `.peers/`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The peers' directory when the Python venv is installed; `None` (after a notice) when
/// `MCPSCOPE_SKIP_PEERS=1`; panics saying what to run when it is missing (a CI that forgot the
/// install step must not pass by testing nothing).
pub(crate) fn python_peers(test: &str) -> Option<PathBuf> {
    if std::env::var("MCPSCOPE_SKIP_PEERS").as_deref() == Ok("1") {
        eprintln!(
            "{test}: skipped, MCPSCOPE_SKIP_PEERS=1 (the gateway stand-in needs .peers/python)"
        );
        return None;
    }
    // The same override testenv/lib.sh honours.
    let peers = std::env::var_os("MCPSCOPE_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"));
    let python = peers.join("python/bin/python");
    assert!(
        python.exists(),
        "{test}: the gateway stand-in runs on the peers' Python venv, and {} is missing.\n\
         Run `bash testenv/install.sh python` (the Python SDK and FastMCP, pinned), or set \
         MCPSCOPE_SKIP_PEERS=1 to skip these tests.",
        python.display()
    );
    Some(peers)
}

/// The files [`make_test_ca`] made, as the flags and variables take them.
pub(crate) struct TestCa {
    /// `server.pem`.
    pub(crate) cert: String,
    /// `server-key.pem`.
    pub(crate) key: String,
    /// `ca.pem`.
    pub(crate) ca: String,
}

/// A private CA and a server certificate for 127.0.0.1/localhost in `dir`
/// (`testenv/peers/make-test-ca.sh`): `ca.pem`, `server.pem`, `server-key.pem`.
pub(crate) async fn make_test_ca(dir: &Path) -> TestCa {
    let script = repo_root().join("testenv/peers/make-test-ca.sh");
    let (code, stdout, stderr) = run_binary(
        &script.to_string_lossy(),
        &[dir.to_string_lossy().into_owned()],
        &[],
    )
    .await;
    assert_eq!(code, 0, "make-test-ca.sh failed\n{stdout}\n{stderr}");
    let path = |name: &str| dir.join(name).to_str().expect("utf-8").to_owned();
    TestCa {
        cert: path("server.pem"),
        key: path("server-key.pem"),
        ca: path("ca.pem"),
    }
}

/// A running stand-in gateway; killed when dropped.
pub(crate) struct Standin {
    /// `http(s)://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
    /// The `--record` file: one JSON line per HTTP request the gateway received.
    record: PathBuf,
    _child: tokio::process::Child,
}

impl Standin {
    /// Starts `gateway-standin.sh --port 0 --record <dir>/<name>.ndjson <flags…>` and waits for
    /// its `listening on URL` line.
    pub(crate) async fn start(peers: &Path, dir: &Scratch, name: &str, flags: &[&str]) -> Standin {
        let record = dir.path(&format!("{name}.ndjson"));
        let script = repo_root().join("testenv/peers/gateway-standin.sh");
        let mut child = tokio::process::Command::new(&script)
            .args(["--port", "0", "--record"])
            .arg(&record)
            .args(flags)
            .env("MCPSCOPE_PEERS_DIR", peers)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        // Generous: importing FastMCP takes seconds on a loaded 2-core machine; starting is not
        // what is tested.
        let line = tokio::time::timeout(Duration::from_secs(90), lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("the stand-in {name} {flags:?} did not start in 90 s"))
            .expect("read the stand-in's stdout")
            .unwrap_or_else(|| panic!("the stand-in {name} {flags:?} exited before listening"));
        let url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from the stand-in: {line:?}"))
            .to_owned();
        Standin {
            url,
            record,
            _child: child,
        }
    }

    /// Every request the gateway received so far, in order.
    pub(crate) fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("every record line is JSON"))
            .collect()
    }
}

/// The value of header `name` (any case) in a `--record` line.
pub(crate) fn recorded_header<'a>(request: &'a Value, name: &str) -> Option<&'a str> {
    request["headers"]
        .as_array()?
        .iter()
        .find(|pair| {
            pair[0]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .and_then(|pair| pair[1].as_str())
}

/// Runs `mcpscope --cli URL --format json --trace FILE <args…>` with `env` added.
pub(crate) async fn cli_at<S: AsRef<str>>(
    dir: &Scratch,
    url: &str,
    args: &[S],
    env: &[(&str, &str)],
) -> Run {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let trace = dir.path(&format!("trace-{n}.ndjson"));
    let mut all: Vec<String> = vec!["--cli".into(), url.into(), "--format".into(), "json".into()];
    all.extend(["--trace".into(), trace.to_string_lossy().into_owned()]);
    all.extend(args.iter().map(|a| a.as_ref().to_owned()));
    let (code, stdout, stderr) = run_binary(MCPSCOPE, &all, env).await;
    let trace = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every trace line is JSON"))
        .collect();
    Run {
        label: format!("mcpscope {}", all.join(" ")),
        code,
        stdout,
        stderr,
        trace,
    }
}

/// The text of a result's first content item (tools/call) or first message (prompts/get).
fn text(run: &Run) -> String {
    let result = run.result();
    let text = result["content"][0]["text"]
        .as_str()
        .or_else(|| result["messages"][0]["content"]["text"].as_str());
    text.unwrap_or_else(|| panic!("no text in the result\n{}", run.dump()))
        .to_owned()
}

/// Every `Mcp-Session-Id` the gateway handed out in this run's HTTP responses.
fn session_ids(run: &Run) -> Vec<String> {
    run.frames("http-response")
        .into_iter()
        .filter_map(|f| header(f, "mcp-session-id").map(str::to_owned))
        .collect()
}

/// The HTTP responses to the run's POSTs (not its standalone GET stream, which is SSE).
fn post_responses(run: &Run) -> Vec<&Value> {
    let posts: Vec<&Value> = run
        .frames("http-request")
        .into_iter()
        .filter(|f| f["meta"]["method"] == "POST")
        .map(|f| &f["meta"]["exchange"])
        .collect();
    run.frames("http-response")
        .into_iter()
        .filter(|f| posts.contains(&&f["meta"]["exchange"]))
        .collect()
}

/// The content type the tools/call (the run's last POST) was answered with.
fn last_answer_type(run: &Run) -> String {
    post_responses(run)
        .last()
        .and_then(|f| header(f, "content-type"))
        .unwrap_or_default()
        .to_owned()
}

/// 002's demo table through `url` in `era` (`legacy`, `modern` or `auto`): both tools listed
/// with their prefixes, both calls, both prompts. `extra` goes on every run (a header, …).
pub(crate) async fn demo_table(
    dir: &Scratch,
    url: &str,
    era: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> [Run; 5] {
    let with = |args: &[&str]| -> Vec<String> {
        let head = ["--protocol-era", era].into_iter();
        head.chain(args.iter().copied())
            .chain(extra.iter().copied())
            .map(str::to_owned)
            .collect()
    };
    let list = with(&["--method", "tools/list"]);
    let greet = with(&[
        "--method",
        "tools/call",
        "--tool-name",
        "toystore_greet",
        "--tool-arg",
        "Name=Ada",
    ]);
    let hello = with(&[
        "--method",
        "tools/call",
        "--tool-name",
        "stateless_hello_world",
        "--tool-arg",
        "Name=Ada",
    ]);
    let say_hi = with(&["--method", "prompts/get", "--prompt-name", "toystore_greet"]);
    let greeting = with(&[
        "--method",
        "prompts/get",
        "--prompt-name",
        "stateless_greeting",
        "--prompt-args",
        "Name=Ada",
    ]);
    let (list, greet, hello, say_hi, greeting) = tokio::join!(
        cli_at(dir, url, &list, env),
        cli_at(dir, url, &greet, env),
        cli_at(dir, url, &hello, env),
        cli_at(dir, url, &say_hi, env),
        cli_at(dir, url, &greeting, env),
    );
    for run in [&list, &greet, &hello, &say_hi, &greeting] {
        run.expect_exit(0);
    }
    let tools = list.result();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        ["toystore_greet", "stateless_hello_world"],
        "{}",
        list.dump()
    );
    assert_eq!(text(&greet), "Hi Ada", "{}", greet.dump());
    assert_eq!(text(&hello), "Hello, Ada!", "{}", hello.dump());
    assert_eq!(text(&say_hi), "Say hi to", "{}", say_hi.dump());
    assert_eq!(
        text(&greeting),
        "Please greet Ada warmly",
        "{}",
        greeting.dump()
    );
    [list, greet, hello, say_hi, greeting]
}

/// The method of the first request a run sent (how the era was chosen: `initialize` or
/// `server/discover`).
fn opened_with(run: &Run) -> String {
    run.sent()
        .first()
        .and_then(|m| m["method"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_table_through_a_legacy_session_gateway() {
    let test = "the_demo_table_through_a_legacy_session_gateway";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-legacy");
    let gateway = Standin::start(&peers, &dir, "legacy", &["--era", "legacy"]).await;
    let runs = demo_table(&dir, &gateway.url, "legacy", &[], &[]).await;
    // SSE responses (the default): the call is answered with a request-scoped stream.
    assert_eq!(
        last_answer_type(&runs[1]),
        "text/event-stream",
        "{}",
        runs[1].dump()
    );
    for run in &runs {
        assert_eq!(opened_with(run), "initialize", "{}", run.dump());
        assert!(
            !session_ids(run).is_empty(),
            "a session id was issued\n{}",
            run.dump()
        );
    }
    // A 2025-11-25-only gateway: auto falls back to it, a pinned 2026-07-28 client is refused.
    let (auto, modern) = tokio::join!(
        cli_at(
            &dir,
            &gateway.url,
            &["--protocol-era", "auto", "--method", "tools/list"],
            &[]
        ),
        cli_at(
            &dir,
            &gateway.url,
            &["--protocol-era", "modern", "--method", "tools/list"],
            &[]
        ),
    );
    auto.expect_exit(0);
    assert_eq!(
        auto.result()["tools"].as_array().map(Vec::len),
        Some(2),
        "{}",
        auto.dump()
    );
    assert!(auto.sent_method("initialize").len() == 1, "{}", auto.dump());
    assert_ne!(modern.code, 0, "{}", modern.dump());
    assert!(
        modern.sent_method("initialize").is_empty(),
        "{}",
        modern.dump()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_table_through_a_stateless_2026_gateway() {
    let test = "the_demo_table_through_a_stateless_2026_gateway";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-modern");
    let gateway = Standin::start(&peers, &dir, "modern", &["--era", "modern"]).await;
    let runs = demo_table(&dir, &gateway.url, "modern", &[], &[]).await;
    // The CLI asks for progress, the tool reports it, so the SDK commits the call's answer to
    // SSE (a quick answer without a notification would be JSON whatever the mode).
    assert_eq!(
        last_answer_type(&runs[2]),
        "text/event-stream",
        "{}",
        runs[2].dump()
    );
    for run in &runs {
        assert!(run.sent_method("initialize").is_empty(), "{}", run.dump());
        assert!(
            session_ids(run).is_empty(),
            "no session in 2026-07-28\n{}",
            run.dump()
        );
    }
    // Every POST the gateway received carried the 2026-07-28 routing headers.
    let posts: Vec<Value> = gateway
        .received()
        .into_iter()
        .filter(|r| r["method"] == "POST")
        .collect();
    assert!(!posts.is_empty());
    for post in &posts {
        assert_eq!(
            recorded_header(post, "mcp-protocol-version"),
            Some("2026-07-28"),
            "{post}"
        );
        assert!(recorded_header(post, "mcp-method").is_some(), "{post}");
    }
    // Auto finds 2026-07-28 here; a pinned 2025-11-25 client is refused (-32022 names the
    // versions served).
    let (auto, legacy) = tokio::join!(
        cli_at(
            &dir,
            &gateway.url,
            &["--protocol-era", "auto", "--method", "tools/list"],
            &[]
        ),
        cli_at(
            &dir,
            &gateway.url,
            &["--protocol-era", "legacy", "--method", "tools/list"],
            &[]
        ),
    );
    auto.expect_exit(0);
    assert_eq!(opened_with(&auto), "server/discover", "{}", auto.dump());
    assert!(auto.sent_method("initialize").is_empty(), "{}", auto.dump());
    assert_ne!(legacy.code, 0, "{}", legacy.dump());
    assert!(
        legacy.stderr.contains("2026-07-28"),
        "the refusal names the version served\n{}",
        legacy.dump()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dual_era_gateway_with_json_responses_serves_both_and_auto_prefers_2026() {
    let test = "a_dual_era_gateway_with_json_responses_serves_both_and_auto_prefers_2026";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-both");
    let gateway = Standin::start(&peers, &dir, "both", &["--era", "both", "--json-response"]).await;
    let (legacy, auto) = tokio::join!(
        demo_table(&dir, &gateway.url, "legacy", &[], &[]),
        demo_table(&dir, &gateway.url, "auto", &[], &[]),
    );
    for run in &legacy {
        assert_eq!(opened_with(run), "initialize", "{}", run.dump());
    }
    for run in &auto {
        assert_eq!(opened_with(run), "server/discover", "{}", run.dump());
        assert!(run.sent_method("initialize").is_empty(), "{}", run.dump());
    }
    // --json-response: every answer with a body is JSON, in both eras.
    for run in legacy.iter().chain(&auto) {
        for response in post_responses(run) {
            if let Some(kind) = header(response, "content-type") {
                assert!(
                    kind.starts_with("application/json"),
                    "{kind}\n{}",
                    run.dump()
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_with_a_private_ca_and_a_bearer_token() {
    let test = "https_with_a_private_ca_and_a_bearer_token";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-tls");
    let pki = make_test_ca(&dir.path("")).await;
    let (cert, key, ca) = (pki.cert.as_str(), pki.key.as_str(), pki.ca.as_str());
    let flags = [
        "--tls-cert",
        cert,
        "--tls-key",
        key,
        "--bearer",
        "t0ken-for-ada",
    ];
    let legacy_flags = [&["--era", "legacy"][..], &flags].concat();
    let modern_flags = [&["--era", "modern"][..], &flags].concat();
    let (legacy_gw, modern_gw) = tokio::join!(
        Standin::start(&peers, &dir, "tls-legacy", &legacy_flags),
        Standin::start(&peers, &dir, "tls-modern", &modern_flags),
    );
    assert!(
        legacy_gw.url.starts_with("https://127.0.0.1:"),
        "{}",
        legacy_gw.url
    );
    let trust = [("MCPSCOPE_EXTRA_CA_CERTS", ca)];
    let bearer = ["--header", "Authorization: Bearer t0ken-for-ada"];

    // The CA and the token: the whole table, in both eras.
    let (legacy, modern) = tokio::join!(
        demo_table(&dir, &legacy_gw.url, "legacy", &bearer, &trust),
        demo_table(&dir, &modern_gw.url, "modern", &bearer, &trust),
    );
    drop((legacy, modern));
    for gateway in [&legacy_gw, &modern_gw] {
        let got = gateway.received();
        assert!(!got.is_empty());
        for request in &got {
            assert_eq!(
                recorded_header(request, "authorization"),
                Some("Bearer t0ken-for-ada"),
                "{request}"
            );
        }
    }

    // Without the CA the certificate is refused; without the token (or with a wrong one) the
    // gateway's 401 is an authentication failure, not a tool result.
    let list = ["--protocol-era", "modern", "--method", "tools/list"];
    let wrong = [&list[..], &["--header", "Authorization: Bearer not-it"]].concat();
    let with_token = [&list[..], &bearer].concat();
    let (untrusted, anonymous, wrong) = tokio::join!(
        cli_at(&dir, &modern_gw.url, &with_token, &[]),
        cli_at(&dir, &modern_gw.url, &list, &trust),
        cli_at(&dir, &modern_gw.url, &wrong, &trust),
    );
    untrusted.expect_exit(4);
    assert!(
        untrusted.error()["message"]
            .to_string()
            .contains("certificate"),
        "{}",
        untrusted.dump()
    );
    for refused in [&anonymous, &wrong] {
        assert_ne!(refused.code, 0, "{}", refused.dump());
        let statuses: Vec<u64> = refused
            .frames("http-response")
            .iter()
            .filter_map(|f| f["meta"]["status"].as_u64())
            .collect();
        assert!(statuses.contains(&401), "{statuses:?}\n{}", refused.dump());
    }
}

// --- through the relay (`mcpscope gateway`, docs/gateway.md) --------------------------------

/// The token the relay's user presents (`MCP_INSPECTOR_API_TOKEN`).
const RELAY_TOKEN: &str = "relay-user-token";

/// `mcpscope gateway --config FILE --port 0` with `env`; killed when dropped.
struct Relay {
    /// `http://127.0.0.1:PORT`.
    base: String,
    _child: tokio::process::Child,
}

impl Relay {
    async fn start(dir: &Scratch, gateways: Value, env: &[(&str, &str)]) -> Relay {
        let file = dir.path("gateways.json");
        std::fs::write(&file, gateways.to_string()).expect("write the gateways file");
        let mut child = tokio::process::Command::new(MCPSCOPE)
            .args(["gateway", "--port", "0", "--config"])
            .arg(&file)
            .env("MCP_INSPECTOR_API_TOKEN", RELAY_TOKEN)
            .env_remove("HOST")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("start mcpscope gateway");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let base = loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("mcpscope gateway prints its URL")
                .expect("its stdout")
                .expect("mcpscope gateway is still running");
            if let Some(url) = line.strip_prefix("mcpscope gateway: ") {
                let url = url::Url::parse(url).expect("a URL");
                let port = url.port().expect("a port");
                break format!("http://127.0.0.1:{port}");
            }
        };
        Relay {
            base,
            _child: child,
        }
    }

    /// The relay's MCP endpoint for gateway `name`.
    fn mcp(&self, name: &str) -> String {
        format!("{}/api/gateways/{name}/mcp", self.base)
    }
}

/// The only headers docs/gateway.md lets the relay send a gateway, plus what HTTP itself adds.
fn relayed_header_allowed(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "host"
            | "content-length"
            | "accept-encoding"
            | "content-type"
            | "accept"
            | "mcp-protocol-version"
            | "mcp-session-id"
            | "mcp-method"
            | "mcp-name"
            | "last-event-id"
            | "authorization"
    ) || name.starts_with("mcp-param-")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_table_through_the_relay_over_https_in_both_eras() {
    let test = "the_demo_table_through_the_relay_over_https_in_both_eras";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-relay");
    let pki = make_test_ca(&dir.path("")).await;
    let (cert, key, ca) = (pki.cert.as_str(), pki.key.as_str(), pki.ca.as_str());
    let tls = ["--tls-cert", cert, "--tls-key", key];
    let legacy_flags = [&["--era", "legacy"][..], &tls].concat();
    let modern_flags = [&["--era", "modern", "--bearer", "t0ken-for-ada"][..], &tls].concat();
    let (toystore, stateless) = tokio::join!(
        Standin::start(&peers, &dir, "relay-legacy", &legacy_flags),
        Standin::start(&peers, &dir, "relay-modern", &modern_flags),
    );
    let gateways = serde_json::json!({"gateways": {
        "toystore": {"url": toystore.url, "servers": {"toystore_": "toystore", "stateless_": "stateless"}},
        "stateless": {"url": stateless.url},
    }});
    let relay = Relay::start(&dir, gateways, &[("MCP_PROXY_CA_FILE", ca)]).await;
    let (via_toystore, via_stateless) = (relay.mcp("toystore"), relay.mcp("stateless"));
    let user = format!("x-mcp-remote-auth: Bearer {RELAY_TOKEN}");
    // What a browser or a proxy in front would add: none of it may reach a gateway.
    let noise = [
        "--header",
        "Cookie: mcpscope_token=leak; session=leak",
        "--header",
        "X-Forwarded-For: 203.0.113.7",
        "--header",
        "X-Forwarded-User: ada",
        "--header",
        "Referer: http://127.0.0.1/gateway.html",
        "--header",
        "Sec-Fetch-Mode: cors",
    ];
    let legacy_extra = [&["--header", user.as_str()][..], &noise].concat();
    let modern_extra = [
        &[
            "--header",
            user.as_str(),
            "--header",
            "X-MCP-Gateway-Token: t0ken-for-ada",
        ][..],
        &noise,
    ]
    .concat();
    let (legacy, modern) = tokio::join!(
        demo_table(&dir, &via_toystore, "legacy", &legacy_extra, &[]),
        demo_table(&dir, &via_stateless, "modern", &modern_extra, &[]),
    );
    for run in &legacy {
        assert_eq!(opened_with(run), "initialize", "{}", run.dump());
        assert!(
            !session_ids(run).is_empty(),
            "the session id is relayed\n{}",
            run.dump()
        );
    }
    // The request-scoped SSE answers came through as SSE, in both eras.
    assert_eq!(
        last_answer_type(&legacy[1]),
        "text/event-stream",
        "{}",
        legacy[1].dump()
    );
    assert_eq!(
        last_answer_type(&modern[2]),
        "text/event-stream",
        "{}",
        modern[2].dump()
    );

    // Auto through the relay: 2026-07-28 where the gateway speaks it, 2025-11-25 otherwise.
    let auto_legacy = [
        &["--protocol-era", "auto", "--method", "tools/list"][..],
        &legacy_extra,
    ]
    .concat();
    let auto_modern = [
        &["--protocol-era", "auto", "--method", "tools/list"][..],
        &modern_extra,
    ]
    .concat();
    let (auto_l, auto_m) = tokio::join!(
        cli_at(&dir, &via_toystore, &auto_legacy, &[]),
        cli_at(&dir, &via_stateless, &auto_modern, &[]),
    );
    auto_l.expect_exit(0);
    assert_eq!(
        auto_l.sent_method("initialize").len(),
        1,
        "{}",
        auto_l.dump()
    );
    auto_m.expect_exit(0);
    assert!(
        auto_m.sent_method("initialize").is_empty(),
        "{}",
        auto_m.dump()
    );

    // The bearer gateway without X-MCP-Gateway-Token: the gateway's own 401, relayed as it is
    // (with its WWW-Authenticate, without the relay's refusal mark).
    let anonymous = [
        "--protocol-era",
        "modern",
        "--method",
        "tools/list",
        "--header",
        user.as_str(),
    ];
    let refused = cli_at(&dir, &via_stateless, &anonymous, &[]).await;
    assert_ne!(refused.code, 0, "{}", refused.dump());
    let unauthorized: Vec<&Value> = refused
        .frames("http-response")
        .into_iter()
        .filter(|f| f["meta"]["status"] == 401)
        .collect();
    assert!(!unauthorized.is_empty(), "{}", refused.dump());
    for answer in &unauthorized {
        assert!(
            header(answer, "www-authenticate").is_some_and(|v| v.starts_with("Bearer")),
            "{answer}"
        );
        assert!(header(answer, "x-mcpscope-refusal").is_none(), "{answer}");
    }

    // What the gateways received: only the relayed headers; the gateway token only as the
    // bearer gateway's Authorization, never to the other gateway.
    for (gateway, bearer) in [
        (&toystore, None),
        (&stateless, Some("Bearer t0ken-for-ada")),
    ] {
        let got = gateway.received();
        assert!(!got.is_empty());
        for request in &got {
            for pair in request["headers"].as_array().into_iter().flatten() {
                let name = pair[0].as_str().unwrap_or_default();
                assert!(
                    relayed_header_allowed(name),
                    "{name} reached {}: {request}",
                    gateway.url
                );
            }
            let body = request["body"].as_str().unwrap_or_default();
            assert!(
                !body.contains("leak") && !body.contains(RELAY_TOKEN),
                "{request}"
            );
            let auth = recorded_header(request, "authorization");
            if bearer.is_none() {
                assert_eq!(auth, None, "{request}");
            } else if auth.is_some() {
                assert_eq!(auth, bearer, "{request}");
            }
        }
    }
}

/// One JSON-RPC POST to the stand-in at 2025-11-25, in `session` when given: (status, session
/// id answered, body).
async fn legacy_post(
    url: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("the stand-in answers");
    let status = response.status().as_u16();
    let sid = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, sid, response.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_expires_by_ttl_or_on_demand_with_404() {
    let test = "a_legacy_session_expires_by_ttl_or_on_demand_with_404";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-expiry");
    let flags = ["--era", "legacy", "--json-response", "--session-ttl", "2"];
    let gateway = Standin::start(&peers, &dir, "expiry", &flags).await;
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let open = || async {
        let (status, sid, body) = legacy_post(&gateway.url, None, initialize.clone()).await;
        assert_eq!(status, 200, "{body}");
        sid.expect("a session id with the answer to initialize")
    };

    // On demand: POST /standin/expire, and the session's id is unknown from then on.
    let sid = open().await;
    let (status, _, body) = legacy_post(&gateway.url, Some(&sid), list.clone()).await;
    assert_eq!(status, 200, "{body}");
    let expire = gateway.url.replace("/mcp", "/standin/expire");
    let expired = reqwest::Client::new().post(&expire).send().await.unwrap();
    assert_eq!(expired.status(), 200);
    let (status, _, body) = legacy_post(&gateway.url, Some(&sid), list.clone()).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("Session not found"), "{body}");

    // By time: idle past --session-ttl, the SDK closes it (its own 404).
    let sid = open().await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (status, _, body) = legacy_post(&gateway.url, Some(&sid), list).await;
    assert_eq!(status, 404, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_dials_the_dial_address_keeping_the_gateways_url_and_host() {
    let test = "the_relay_dials_the_dial_address_keeping_the_gateways_url_and_host";
    let Some(peers) = python_peers(test) else {
        return;
    };
    let dir = Scratch::new("gw-dial");
    let pki = make_test_ca(&dir.path("")).await;
    let (cert, key, ca) = (pki.cert.as_str(), pki.key.as_str(), pki.ca.as_str());
    let flags = ["--era", "modern", "--tls-cert", cert, "--tls-key", key];
    let gateway = Standin::start(&peers, &dir, "dial", &flags).await;
    let port = gateway
        .url
        .trim_start_matches("https://127.0.0.1:")
        .trim_end_matches("/mcp");
    // The file names a host and port nothing listens on; only the dial address reaches it, and
    // the certificate is checked against the URL's name (localhost is on it).
    let gateways = serde_json::json!({"gateways": {"far": {"url": "https://localhost:9/mcp"}}});
    let dial = format!("127.0.0.1:{port}");
    let env = [
        ("MCP_PROXY_CA_FILE", ca),
        ("MCP_PROXY_DIAL_ADDRESS", dial.as_str()),
    ];
    let relay = Relay::start(&dir, gateways, &env).await;
    let user = format!("x-mcp-remote-auth: Bearer {RELAY_TOKEN}");
    let args = [
        "--protocol-era",
        "modern",
        "--method",
        "tools/call",
        "--tool-name",
        "stateless_hello_world",
        "--tool-arg",
        "Name=Ada",
        "--header",
        user.as_str(),
    ];
    let run = cli_at(&dir, &relay.mcp("far"), &args, &[]).await;
    run.expect_exit(0);
    assert_eq!(text(&run), "Hello, Ada!", "{}", run.dump());
    let got = gateway.received();
    assert!(!got.is_empty());
    for request in &got {
        assert_eq!(
            recorded_header(request, "host"),
            Some("localhost:9"),
            "{request}"
        );
    }
}
