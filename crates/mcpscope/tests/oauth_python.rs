//! OAuth through the real CLI against the authorization servers the Python ecosystem ships: the
//! official Python SDK's (`testenv/peers/python/oauth_server.py`, its /authorize sending the
//! browser to a consent page) and FastMCP's in-memory one (`oauth_fastmcp.py`, approving at
//! once). Each login goes through the loopback callback with `--print-auth-url`, a script
//! approving as a browser would (fetch the printed URL, follow every redirect, land on our
//! callback); a second run reuses the stored token without a login. Both servers list
//! `client_secret_post` and `client_secret_basic` and accept only the registered one, with the
//! client named in the body — the case that used to end in a second login nobody approved.

use crate::misbehaving_support::{DEADLINE, MCPSCOPE, Scratch, body, read_trace};
use crate::peers_support::Peers;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// One CLI run and what it printed.
struct Out {
    code: i32,
    stdout: String,
    stderr: Vec<String>,
    trace: Vec<Value>,
    /// The authorization URLs it asked a person to open, in order.
    logins: Vec<String>,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.dump()))
    }

    fn message(&self) -> String {
        let last = self.stderr.last().cloned().unwrap_or_default();
        let v: Value = serde_json::from_str(&last)
            .unwrap_or_else(|e| panic!("last stderr line is not JSON ({e}): {}", self.dump()));
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The OAuth requests (`oauth-request` frames) whose note starts with `step`.
    fn oauth_requests(&self, step: &str) -> Vec<&Value> {
        self.trace
            .iter()
            .filter(|f| f["kind"] == "oauth-request")
            .filter(|f| f["meta"]["note"].as_str().unwrap_or("").starts_with(step))
            .collect()
    }

    /// The `Authorization` header of every MCP POST, in order.
    fn mcp_authorizations(&self) -> Vec<Option<String>> {
        self.trace
            .iter()
            .filter(|f| f["kind"] == "http-request" && f["meta"]["method"] == "POST")
            .map(|f| header(f, "authorization"))
            .collect()
    }

    fn dump(&self) -> String {
        let steps: Vec<&str> = self
            .trace
            .iter()
            .filter(|f| f["kind"] == "oauth-step")
            .filter_map(|f| f["meta"]["note"].as_str())
            .collect();
        format!(
            "exit {}\nlogins: {:?}\nstdout: {}\nstderr:\n{}\nsteps:\n{}",
            self.code,
            self.logins,
            self.stdout,
            self.stderr.join("\n"),
            steps.join("\n")
        )
    }
}

fn header(frame: &Value, name: &str) -> Option<String> {
    frame["meta"]["headers"].as_array()?.iter().find_map(|h| {
        let pair = h.as_array()?;
        (pair[0].as_str()?.eq_ignore_ascii_case(name)).then(|| pair[1].as_str().unwrap().to_owned())
    })
}

/// A free loopback port for the callback listener.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The person at the browser: open `authorization_url`, follow every redirect (the Python SDK's
/// consent page approves on a plain GET), and land on `callback`, which must answer 200.
async fn approve_as_a_browser(authorization_url: &str, callback: &str) {
    let browser = reqwest::Client::new();
    let page = browser
        .get(authorization_url)
        .send()
        .await
        .unwrap_or_else(|e| panic!("the browser cannot open {authorization_url}: {e}"));
    assert!(
        page.url().as_str().starts_with(callback),
        "the redirects end on our callback, not {}",
        page.url()
    );
    let status = page.status().as_u16();
    let text = page.text().await.unwrap_or_default();
    assert_eq!(status, 200, "the loopback callback answers: {text}");
}

/// `mcpscope --cli --trace … <url> <args>` with its secret store in `store`. With `browser`,
/// `--print-auth-url` on a loopback callback of its own: the first authorization URL printed is
/// approved as a browser would; a second one (a login nobody would approve) ends the run at
/// once, so a flow that loops fails here instead of hanging.
async fn mcpscope(store: &Path, url: &str, args: &[&str], browser: bool) -> Out {
    let trace = store.join(format!("trace-{}.ndjson", free_port()));
    let callback = format!("http://127.0.0.1:{}/oauth/callback", free_port());
    let mut cmd = tokio::process::Command::new(MCPSCOPE);
    cmd.arg("--cli")
        .arg("--trace")
        .arg(&trace)
        .arg(url)
        .args(args)
        .env("MCPSCOPE_SECRET_STORE", "file")
        .env("MCPSCOPE_DATA_DIR", store)
        .env_remove("MCPSCOPE_SECRET_PASSPHRASE")
        .env_remove("MCPSCOPE_SECRET_FILE")
        .env_remove("MCPSCOPE_AUTH_PROFILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if browser {
        cmd.args(["--print-auth-url", "--callback-url", &callback]);
    }
    let mut child = cmd.spawn().expect("run mcpscope");
    let mut stdout = child.stdout.take().unwrap();
    let collect_stdout = tokio::spawn(async move {
        let mut s = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stdout, &mut s)
            .await
            .unwrap();
        s
    });
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut stderr = Vec::new();
    let mut logins = Vec::new();
    let read = tokio::time::timeout(DEADLINE, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.trim().strip_prefix("http") {
                logins.push(format!("http{rest}"));
                if logins.len() > 1 {
                    stderr.push(line);
                    return false;
                }
                approve_as_a_browser(&logins[0], &callback).await;
            }
            stderr.push(line);
        }
        true
    })
    .await;
    let ended_by_itself = matches!(read, Ok(true));
    if !ended_by_itself {
        let _ = child.start_kill();
    }
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("mcpscope exits")
        .unwrap();
    let out = Out {
        code: status.code().unwrap_or(-1),
        stdout: collect_stdout.await.unwrap(),
        stderr,
        trace: if trace.exists() {
            read_trace(&trace)
        } else {
            vec![]
        },
        logins,
    };
    assert!(
        ended_by_itself,
        "mcpscope asked for a second login (or did not end within {DEADLINE:?}) instead of ending:\n{}",
        out.dump()
    );
    out
}

/// The text of a `tools/call` result.
fn tool_text(out: &Out) -> String {
    out.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {}", out.dump()))
        .to_owned()
}

const WHOAMI: [&str; 6] = [
    "--method",
    "tools/call",
    "--tool-name",
    "whoami",
    "--format",
    "json",
];

/// A login through the loopback callback and a tool call, then a second run on the stored token.
async fn login_then_reuse(peers: &Peers, script: &str, name: &str) {
    let server = peers.serve(script, "http").await;
    let url = format!("{}/mcp", server.base);
    let dir = Scratch::new(name);
    let store = dir.path("");

    let first = mcpscope(&store, &url, &WHOAMI, true).await;
    assert_eq!(first.code, 0, "{}", first.dump());
    assert_eq!(first.logins.len(), 1, "{}", first.dump());
    let who = tool_text(&first);
    assert!(
        who.starts_with("client ") && who.contains("mcp:read"),
        "{who}"
    );
    assert_eq!(
        first.oauth_requests("dynamic client registration").len(),
        1,
        "{}",
        first.dump()
    );
    // The code is redeemed on the first try: Basic, and the client named in the body too.
    let token = first.oauth_requests("token request");
    assert_eq!(token.len(), 1, "{}", first.dump());
    assert!(
        header(token[0], "authorization").is_some_and(|h| h.starts_with("Basic ")),
        "{}",
        token[0]
    );
    let form = String::from_utf8(body(token[0])).unwrap();
    assert!(form.contains("client_id="), "{form}");
    assert!(!form.contains("client_secret="), "one method only: {form}");

    // Again, stored credentials only: no login, the token from the store on the first request.
    let second = mcpscope(
        &store,
        &url,
        &[&WHOAMI[..], &["--stored-auth-only"]].concat(),
        false,
    )
    .await;
    assert_eq!(second.code, 0, "{}", second.dump());
    assert!(second.logins.is_empty(), "{}", second.dump());
    assert!(
        second.oauth_requests("authorization request").is_empty()
            && second.oauth_requests("token request").is_empty(),
        "{}",
        second.dump()
    );
    let sent = second.mcp_authorizations();
    assert!(
        sent[0].as_deref().is_some_and(|a| a.starts_with("Bearer ")),
        "the stored token goes on the first request: {sent:?}"
    );
    assert_eq!(tool_text(&second), who, "the same grant");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_login_through_the_loopback_callback_then_the_stored_token() {
    let Some(peers) = Peers::get("python_sdk_login") else {
        return;
    };
    login_then_reuse(&peers, "python/oauth_server.sh", "oauth-python-sdk").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_login_through_the_loopback_callback_then_the_stored_token() {
    let Some(peers) = Peers::get("fastmcp_login") else {
        return;
    };
    login_then_reuse(&peers, "python/oauth_fastmcp.sh", "oauth-fastmcp").await;
}

/// A client registered a moment ago and refused `invalid_client` whatever the method: one login,
/// both listed methods tried once each, then exit 3 naming the step, the methods and the
/// server's words — never a new registration and a second login.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_client_refused_by_the_python_sdk_ends_with_exit_3_instead_of_a_second_login() {
    let Some(peers) = Peers::get("python_sdk_refused") else {
        return;
    };
    let server = peers
        .serve("python/oauth_server.sh", "rotated-secret")
        .await;
    let url = format!("{}/mcp", server.base);
    let dir = Scratch::new("oauth-python-refused");
    let out = mcpscope(&dir.path(""), &url, &WHOAMI, true).await;
    assert_eq!(out.code, 3, "{}", out.dump());
    assert_eq!(out.logins.len(), 1, "{}", out.dump());
    assert_eq!(
        out.oauth_requests("dynamic client registration").len(),
        1,
        "{}",
        out.dump()
    );
    let tries = out.oauth_requests("token request");
    assert_eq!(tries.len(), 2, "{}", out.dump());
    assert!(header(tries[0], "authorization").is_some(), "{}", tries[0]);
    assert!(header(tries[1], "authorization").is_none(), "{}", tries[1]);
    assert!(
        String::from_utf8(body(tries[1]))
            .unwrap()
            .contains("client_secret="),
        "{}",
        tries[1]
    );
    let m = out.message();
    for said in [
        "token request (authorization code)",
        "client_secret_basic",
        "client_secret_post",
        // The SDK's own words for each.
        "Invalid client_secret",
        "Missing or invalid Basic authentication",
        "no second login",
    ] {
        assert!(m.contains(said), "{said:?} not in {m}");
    }
}
