//! The backend in the real world (issue 7): one Content-Type rule for every write, duplicate
//! guarded headers refused, wrong tokens slowed after a few, no open redirect from the launch URL,
//! every error in the documented JSON shape, and catalog edits that keep what a text editor
//! changed meanwhile. Real HTTP to a real listener; duplicate headers over a raw socket, since an
//! HTTP client would merge or refuse them.

use crate::support::{Options, TempDir, start};
use mcpscope_server::{FREE_GUESSES, TOKEN_HEADER};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Send `head` (request line and headers, without the blank line) as is and return the status
/// and the body.
async fn raw(port: u16, head: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    s.write_all(format!("{head}\r\nconnection: close\r\n\r\n").as_bytes())
        .await
        .expect("write");
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut out))
        .await
        .expect("the backend answers within 30 s")
        .expect("read");
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test]
async fn every_write_with_a_body_must_be_json() {
    let dir = TempDir::new("content-type");
    let marker = dir.path().join("spawned");
    let evil = json!({"command": "sh", "args": ["-c", format!("touch {}", marker.display())]});
    let b = start(dir.path(), vec![("evil".into(), evil)], Options::default()).await;
    let auth = format!("Bearer {}", b.token);
    // What a cross-origin HTML form can send without a preflight.
    let forms = [
        ("/api/servers/evil/connect", "text/plain", "{}"),
        (
            "/api/servers/evil/connect",
            "application/x-www-form-urlencoded",
            "a=b",
        ),
        (
            "/api/servers/evil/connect",
            "multipart/form-data; boundary=x",
            "--x--",
        ),
        ("/api/servers/evil/disconnect", "text/plain", ""),
        ("/api/history/1/pin", "text/plain", "{\"label\": \"x\"}"),
        ("/api/servers/evil/auth", "text/plain", "{}"),
    ];
    for (path, content_type, body) in forms {
        let r = b
            .send(
                b.http
                    .post(b.url(path))
                    .header(TOKEN_HEADER, &auth)
                    .header("content-type", content_type)
                    .body(body),
            )
            .await;
        assert_eq!(r.status, 415, "{path} with {content_type}: {}", r.text);
        assert_eq!(r.body["error"]["code"], "usage", "{}", r.text);
    }
    // A body without any Content-Type (a Blob with no type) is refused too.
    let r = b
        .send(
            b.http
                .post(b.url("/api/servers/evil/connect"))
                .header(TOKEN_HEADER, &auth)
                .body("{}"),
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.text);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!marker.exists(), "a refused connect spawned the server");

    // Positive controls: no body at all, and JSON with a charset, both connect.
    let r = b
        .send(
            b.http
                .post(b.url("/api/servers/evil/disconnect"))
                .header(TOKEN_HEADER, &auth),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = b
        .send(
            b.http
                .post(b.url("/api/servers/evil/connect"))
                .header(TOKEN_HEADER, &auth)
                .header("content-type", "application/json; charset=utf-8")
                .body("{}"),
        )
        .await;
    assert_ne!(r.status, 415, "{}", r.text);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !marker.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        marker.exists(),
        "a JSON connect spawns the catalog's server"
    );
    b.stop().await;
}

#[tokio::test]
async fn a_second_guarded_header_is_refused() {
    let dir = TempDir::new("duplicates");
    let b = start(dir.path(), vec![], Options::default()).await;
    let host = format!("127.0.0.1:{}", b.port);
    let auth = format!("{TOKEN_HEADER}: Bearer {}", b.token);
    let origin = format!("origin: http://{host}");
    let get = format!("GET /api/servers HTTP/1.1\r\nhost: {host}");
    let (ok, body) = raw(b.port, &format!("{get}\r\n{auth}\r\n{origin}")).await;
    assert_eq!(ok, 200, "the control passes: {body}");
    let doubles = [
        ("Host", format!("{get}\r\nhost: evil.example\r\n{auth}")),
        (
            "Origin",
            format!("{get}\r\n{auth}\r\n{origin}\r\norigin: http://evil.example"),
        ),
        (
            "Sec-Fetch-Site",
            format!("{get}\r\n{auth}\r\nsec-fetch-site: same-origin\r\nsec-fetch-site: cross-site"),
        ),
        (
            TOKEN_HEADER,
            format!("{get}\r\n{auth}\r\n{TOKEN_HEADER}: Bearer guess"),
        ),
    ];
    for (what, head) in doubles {
        let (status, body) = raw(b.port, &head).await;
        assert_eq!(status, 400, "two {what} headers: {body}");
        let v: Value = serde_json::from_str(&body).unwrap_or_default();
        assert_eq!(v["error"]["code"], "usage", "two {what} headers: {body}");
    }
    b.stop().await;
}

#[tokio::test]
async fn wrong_tokens_are_slowed_after_a_few_and_the_right_one_never() {
    let dir = TempDir::new("guesses");
    let b = start(dir.path(), vec![], Options::default()).await;
    let guess = |n: u32| {
        b.http
            .get(b.url("/api/servers"))
            .header(TOKEN_HEADER, format!("Bearer guess-{n}"))
    };
    for n in 0..FREE_GUESSES {
        let r = b.send(guess(n)).await;
        assert_eq!(r.status, 401, "guess {n} is answered at once: {}", r.text);
    }
    let r = b.send(guess(FREE_GUESSES)).await;
    assert_eq!(r.status, 429, "{}", r.text);
    assert_eq!(r.headers["retry-after"], "1");
    assert_eq!(r.body["error"]["code"], "unauthorized", "{}", r.text);
    // The launch URL is a guess too (it answers 303 to the right token).
    let r = b.send(b.http.get(b.url("/?token=guess"))).await;
    assert_eq!(r.status, 429, "{}", r.text);
    // No token is not a guess, and the right token still passes, header or cookie.
    let r = b.send(b.http.get(b.url("/api/servers"))).await;
    assert_eq!(r.status, 401, "{}", r.text);
    assert_eq!(b.get("/api/servers").await.status, 200);
    let r = b
        .send(b.http.get(b.url(&format!("/?token={}", b.token))))
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    b.stop().await;
}

#[tokio::test]
async fn the_launch_url_redirects_only_to_our_own_pages() {
    let dir = TempDir::new("redirect");
    let b = start(dir.path(), vec![], Options::default()).await;
    let r = b
        .send(
            b.http
                .get(b.url(&format!("//evil.example/?token={}&tab=x", b.token))),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    assert_eq!(r.headers["location"], "/evil.example/?tab=x");
    let (status, _) = raw(
        b.port,
        &format!(
            "GET /\\evil.example/?token={} HTTP/1.1\r\nhost: 127.0.0.1:{}",
            b.token, b.port
        ),
    )
    .await;
    // A backslash is not a valid path character: refused, or redirected to our own path.
    assert!(status == 400 || status == 303, "{status}");
    b.stop().await;
}

#[tokio::test]
async fn bad_parameters_and_oversized_bodies_answer_the_json_error_shape() {
    let dir = TempDir::new("json-errors");
    let b = start(dir.path(), vec![], Options::default()).await;
    for path in [
        "/api/history/abc",
        "/api/history?limit=many",
        "/api/servers/x/frames?after=-1",
        "/api/servers/x/frames/first/body",
        "/api/events?lastEventId=later",
    ] {
        let r = b.get(path).await;
        assert_eq!(r.status, 400, "{path}: {}", r.text);
        assert_eq!(r.body["error"]["code"], "usage", "{path}: {}", r.text);
    }
    let big = format!("{{\"protocolEra\": \"{}\"}}", "x".repeat(3 << 20));
    let r = b
        .send(
            b.http
                .post(b.url("/api/servers/x/connect"))
                .header(TOKEN_HEADER, format!("Bearer {}", b.token))
                .header("content-type", "application/json")
                .body(big),
        )
        .await;
    assert_eq!(r.status, 413, "{}", &r.text[..r.text.len().min(300)]);
    assert_eq!(r.body["error"]["code"], "usage", "{}", r.text);
    b.stop().await;
}

#[tokio::test]
async fn a_catalog_edit_keeps_what_a_text_editor_changed_meanwhile() {
    let dir = TempDir::new("catalog-reread");
    let file = dir.path().join("mcp.json");
    std::fs::write(&file, r#"{"mcpServers": {"a": {"command": "a"}}}"#).unwrap();
    let b = start(
        dir.path(),
        vec![],
        Options {
            catalog_file: Some(file.clone()),
            ..Default::default()
        },
    )
    .await;
    // The user adds "b" in an editor while the web UI runs.
    std::fs::write(
        &file,
        r#"{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}"#,
    )
    .unwrap();
    b.ok(
        "/api/servers",
        json!({"name": "c", "entry": {"command": "c"}}),
    )
    .await;
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let names: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["a", "b", "c"], "{doc}");
    let listed = b.get("/api/servers").await;
    assert_eq!(listed.body["servers"][1]["name"], "b", "{}", listed.text);

    // Half-saved in the editor: the edit is refused and the file left as the editor wrote it.
    std::fs::write(&file, r#"{"mcpServers": {"a": "#).unwrap();
    let r = b
        .post(
            "/api/servers",
            json!({"name": "d", "entry": {"command": "d"}}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(r.body["error"]["code"], "conflict");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        r#"{"mcpServers": {"a": "#
    );
    b.stop().await;
}
