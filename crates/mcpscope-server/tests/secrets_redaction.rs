//! Secret values (`{"secret": …}` in a catalog entry, kept in the secret store) never reach what
//! the backend shows or stores: not `/frames` (headers or bodies), not the history, not
//! `history.sqlite` or its WAL, not the export — even when the server echoes them back. Deleting
//! the server removes them from the secret store.

use crate::support::{Backend, Options, TempDir, demo, start};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const HEADER_SECRET: &str = "sk-live-XYZ-header-7f3a";
const ENV_SECRET: &str = "sk-live-XYZ-env-91c2";

/// Poll `path` until `ok` holds (up to 60 s: the machine may be loaded).
async fn eventually(b: &Backend, path: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = b.get(path).await;
        if ok(&r.body) {
            return r.body;
        }
        assert!(
            Instant::now() < deadline,
            "GET {path} never matched: {}",
            r.text
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The raw bytes of the history database and its WAL, concatenated.
fn raw_history(dir: &Path) -> Vec<u8> {
    let mut all = Vec::new();
    for f in ["history.sqlite", "history.sqlite-wal"] {
        if let Ok(b) = std::fs::read(dir.join(f)) {
            all.extend(b);
        }
    }
    all
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Every frame of `server`, rendered as the view gets them, plus every body in full.
async fn every_frame_text(b: &Backend, server: &str) -> String {
    let frames = b
        .get(&format!("/api/servers/{server}/frames?after=0&limit=10000"))
        .await;
    let mut text = frames.text.clone();
    for f in frames.body["frames"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let seq = f["seq"].as_u64().expect("seq");
        text.push_str(
            &b.get(&format!("/api/servers/{server}/frames/{seq}/body"))
                .await
                .text,
        );
    }
    text
}

#[tokio::test]
async fn secret_header_and_env_values_are_redacted_everywhere_and_deleted_with_the_server() {
    let dir = TempDir::new("secrets-redaction");
    let d = demo().await;
    let testkit = mcpscope_testkit::bin_path().expect("testkit binary");
    let b = start(dir.path(), vec![], Options::default()).await;

    // An HTTP server with a secret header, and a stdio server with a secret env value that it
    // prints on stderr as it starts (a server echoing what it was given).
    b.ok(
        "/api/servers",
        json!({"name": "http", "entry": {"type": "http", "url": d.url, "protocolEra": "legacy",
               "headers": {"X-Api-Key": {"secret": HEADER_SECRET}}}}),
    )
    .await;
    let mut args = vec![
        "-c".to_string(),
        "echo \"starting with API_KEY=$API_KEY\" >&2; exec \"$0\" \"$@\"".to_string(),
        testkit.to_string_lossy().into_owned(),
    ];
    args.extend(mcpscope_testkit::StdioMode::SlowStart { delay_ms: 0 }.args());
    b.ok(
        "/api/servers",
        json!({"name": "stdio", "entry": {"type": "stdio", "command": "sh", "args": args,
               "protocolEra": "legacy", "env": {"API_KEY": {"secret": ENV_SECRET}}}}),
    )
    .await;
    let servers = b.get("/api/servers").await.text;
    assert!(
        !servers.contains(HEADER_SECRET) && !servers.contains(ENV_SECRET),
        "{servers}"
    );

    b.ok("/api/servers/http/connect", json!({})).await;
    b.ok("/api/servers/stdio/connect", json!({})).await;
    // The servers echo the secrets back: the demo in a tool result, the testkit on stderr and
    // in its echo tool's result.
    let echoed = b
        .ok(
            "/api/servers/http/request",
            json!({"method": "tools/call",
                   "params": {"name": "echo", "arguments": {"message": format!("canary-http {HEADER_SECRET}")}}}),
        )
        .await;
    let stdio_echo = b
        .ok(
            "/api/servers/stdio/request",
            json!({"method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": format!("canary-stdio {ENV_SECRET}")}}}),
        )
        .await;
    for (reply, secret) in [(&echoed, HEADER_SECRET), (&stdio_echo, ENV_SECRET)] {
        let text = reply.to_string();
        assert!(!text.contains(secret), "{text}");
        assert!(text.contains("«secret "), "{text}");
    }

    // The frames: the header as sent, the bodies, the stderr line.
    eventually(&b, "/api/servers/stdio/frames?after=0&limit=10000", |v| {
        v.to_string().contains("starting with API_KEY=")
    })
    .await;
    let http_frames = every_frame_text(&b, "http").await;
    let stdio_frames = every_frame_text(&b, "stdio").await;
    for (text, secret) in [(&http_frames, HEADER_SECRET), (&stdio_frames, ENV_SECRET)] {
        assert!(!text.contains(secret), "a frame shows the secret: {text}");
    }
    assert!(
        http_frames.contains("«secret X-Api-Key»"),
        "the header is shown as redacted: {http_frames}"
    );
    assert!(
        stdio_frames.contains("starting with API_KEY=«secret API_KEY»"),
        "{stdio_frames}"
    );

    // The history and its export.
    let history = b.get("/api/history").await.text;
    let export = b.get("/api/history/export").await.text;
    for text in [&history, &export] {
        assert!(
            text.contains("canary-http") && text.contains("canary-stdio"),
            "{text}"
        );
        assert!(
            !text.contains(HEADER_SECRET) && !text.contains(ENV_SECRET),
            "{text}"
        );
    }

    // SQLite, raw, while the backend runs (the WAL holds the newest pages): once the frames are
    // written (the canaries are there), the secrets are not.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let raw = raw_history(dir.path());
        if contains(&raw, "starting with API_KEY=") && contains(&raw, "canary-http") {
            assert!(!contains(&raw, HEADER_SECRET) && !contains(&raw, ENV_SECRET));
            break;
        }
        assert!(Instant::now() < deadline, "the frames never reached SQLite");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // After a checkpoint, the database file itself.
    let db = dir.path().join("history.sqlite");
    let conn = rusqlite::Connection::open(&db).expect("open the history");
    let busy: i64 = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
        .expect("checkpoint");
    assert_eq!(busy, 0, "the checkpoint was blocked");
    drop(conn);
    let raw = std::fs::read(&db).expect("history file");
    assert!(contains(&raw, "canary-http") && contains(&raw, "starting with API_KEY="));
    assert!(!contains(&raw, HEADER_SECRET) && !contains(&raw, ENV_SECRET));

    // Deleting the servers deletes their secrets from the secret store.
    let catalog = b.get("/api/servers").await.body;
    let keys: Vec<String> = catalog
        .to_string()
        .split("catalog-value/")
        .skip(1)
        .map(|rest| format!("catalog-value/{}", rest.split('"').next().unwrap_or("")))
        .collect();
    assert_eq!(keys.len(), 2, "{catalog}");
    let store_config =
        mcpscope_store::SecretStoreConfig::file(dir.path().join("secrets.enc"), None);
    {
        let store = mcpscope_store::open_secret_store(&store_config).expect("secret store");
        for k in &keys {
            assert!(store.get(k).expect("read").is_some(), "{k} is stored");
        }
    }
    for name in ["http", "stdio"] {
        let r = b.delete(&format!("/api/servers/{name}")).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let store = mcpscope_store::open_secret_store(&store_config).expect("secret store");
    for k in &keys {
        assert!(
            store.get(k).expect("read").is_none(),
            "{k} outlives its server"
        );
    }

    b.stop().await;
}

/// Issue 24: the web UI kept only credential-named headers (`Authorization`, `Cookie`) secret
/// when given as plain values — `X-Api-Key: sk-…` in a hand-written mcp.json or typed in the
/// form's plain headers went to `/frames`, the history and SQLite in clear — while the CLI's
/// `--trace` redacts every secret-named header. One rule now (`redact::is_secret_header`): the
/// plain `X-Api-Key`'s value is a secret of the connection everywhere, even echoed back, and a
/// header that names no secret (`X-Request-Id`) is shown as sent.
#[tokio::test]
async fn a_plain_secret_named_header_is_redacted_as_the_cli_does() {
    const PLAIN_KEY: &str = "sk-plain-header-4c1d";
    const VISIBLE: &str = "req-visible-77";
    let dir = TempDir::new("secret-named-header");
    let d = demo().await;
    let b = start(dir.path(), vec![], Options::default()).await;
    b.ok(
        "/api/servers",
        json!({"name": "http", "entry": {"type": "http", "url": d.url, "protocolEra": "legacy",
               "headers": {"X-Api-Key": PLAIN_KEY, "X-Request-Id": VISIBLE}}}),
    )
    .await;
    b.ok("/api/servers/http/connect", json!({})).await;
    let echoed = b
        .ok(
            "/api/servers/http/request",
            json!({"method": "tools/call",
                   "params": {"name": "echo", "arguments": {"message": format!("canary {PLAIN_KEY}")}}}),
        )
        .await
        .to_string();
    assert!(!echoed.contains(PLAIN_KEY), "{echoed}");
    assert!(echoed.contains("«secret X-Api-Key»"), "{echoed}");
    let frames = every_frame_text(&b, "http").await;
    assert!(
        !frames.contains(PLAIN_KEY),
        "a frame shows the key: {frames}"
    );
    assert!(frames.contains("«secret X-Api-Key»"), "{frames}");
    assert!(
        frames.contains(VISIBLE),
        "X-Request-Id is no secret: {frames}"
    );
    let history = b.get("/api/history/export").await.text;
    assert!(history.contains("canary") && !history.contains(PLAIN_KEY));
    b.stop().await;
}
