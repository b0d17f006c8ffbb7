//! The attacks of CVE-2025-49596's class, sent as real HTTP requests to a real listener: each is
//! refused with the right status, and the stdio server they aim at is never spawned. A positive
//! control at the end proves the marker would have appeared.

use crate::support::{Options, TempDir, start};
use mcpscope_server::TOKEN_HEADER;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn attacks_are_refused_and_nothing_is_spawned() {
    let dir = TempDir::new("attacks");
    let marker = dir.path().join("spawned");
    let evil = json!({"command": "sh", "args": ["-c", format!("touch {}", marker.display())]});
    let b = start(dir.path(), vec![("evil".into(), evil)], Options::default()).await;
    let connect = b.url("/api/servers/evil/connect");
    let good = format!("Bearer {}", b.token);
    let host = format!("127.0.0.1:{}", b.port);

    let attacks: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        ("no token", b.http.post(&connect), 401),
        (
            "wrong token",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, "Bearer not-the-token"),
            401,
        ),
        (
            "wrong cookie",
            b.http
                .post(&connect)
                .header("cookie", "mcpscope_token=guess"),
            401,
        ),
        (
            "foreign Origin with the token",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("origin", "http://evil.example"),
            403,
        ),
        (
            "another port of localhost as Origin",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("origin", "http://localhost:3000"),
            403,
        ),
        (
            "Origin null (sandboxed iframe, file://)",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("origin", "null"),
            403,
        ),
        (
            "rebinding Host with the token",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("host", format!("evil.example:{}", b.port)),
            403,
        ),
        (
            "Sec-Fetch-Site: cross-site with the token",
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("sec-fetch-site", "cross-site"),
            403,
        ),
        (
            "a launch from a query string",
            b.http.get(b.url("/api/servers/evil/connect?command=sh")),
            401,
        ),
        (
            "the token in a query string of an API call",
            b.http.post(format!("{connect}?token={}", b.token)),
            401,
        ),
    ];
    for (what, rb, want) in attacks {
        let r = b.send(rb).await;
        assert_eq!(r.status, want, "{what}: {}", r.text);
        let code = r.body["error"]["code"].as_str().unwrap_or("");
        assert_eq!(
            code,
            if want == 401 {
                "unauthorized"
            } else {
                "forbidden"
            },
            "{what}: {}",
            r.text
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!marker.exists(), "{what}: the server was spawned");
    }
    // The page itself is guarded too: a rebinding page cannot even read the HTML.
    let r = b
        .send(
            b.http
                .get(b.url("/"))
                .header("host", format!("evil.example:{}", b.port)),
        )
        .await;
    assert_eq!(r.status, 403);
    // Our own page, with the token and our own Origin, may (positive control: the check above
    // could have failed).
    let r = b
        .send(
            b.http
                .post(&connect)
                .header(TOKEN_HEADER, &good)
                .header("origin", format!("http://{host}"))
                .header("sec-fetch-site", "same-origin"),
        )
        .await;
    assert_ne!(r.status, 401, "{}", r.text);
    assert_ne!(r.status, 403, "{}", r.text);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !marker.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        marker.exists(),
        "an authenticated connect spawns the catalog's server"
    );
    b.stop().await;
}

#[tokio::test]
async fn the_launch_url_trades_the_token_for_a_cookie_and_never_hands_it_out() {
    let dir = TempDir::new("launch");
    let b = start(dir.path(), vec![], Options::default()).await;
    let r = b
        .send(b.http.get(b.url(&format!("/?token={}", b.token))))
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        r.headers["location"], "/",
        "the token leaves the address bar"
    );
    let cookie = r.headers["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with(&format!("mcpscope_token={};", b.token)),
        "{cookie}"
    );
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let with_cookie = b
        .send(
            b.http
                .get(b.url("/api/servers"))
                .header("cookie", format!("mcpscope_token={}", b.token)),
        )
        .await;
    assert_eq!(with_cookie.status, 200, "{}", with_cookie.text);

    let page = b.send(b.http.get(b.url("/"))).await;
    assert_eq!(page.status, 200);
    assert!(
        !page.text.contains(&b.token),
        "GET / must never hand out the token"
    );
    assert!(page.headers.get("set-cookie").is_none());
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    let route = b.send(b.http.get(b.url("/history"))).await;
    assert_eq!(route.status, 200, "client-side routes get the page");
    for file in ["/app.js", "/index.css", "/favicon.svg"] {
        let r = b.send(b.http.get(b.url(file))).await;
        assert_eq!(r.status, 200, "{file}");
    }
    // The gateway mode's page shares the build's folder, not the web UI: no gateways here.
    for file in ["/gateway.html", "/gateway.js", "/gateway.css"] {
        let r = b.send(b.http.get(b.url(file))).await;
        assert_eq!(r.status, 404, "{file}: {}", r.text);
        assert!(!r.text.contains("<html"), "{file}: {}", r.text);
    }

    let wrong = b.send(b.http.get(b.url("/?token=guess"))).await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.headers.get("set-cookie").is_none());

    let api404 = b.get("/api/no/such/route").await;
    assert_eq!(api404.status, 404);
    assert_eq!(
        api404.body["error"]["code"], "not_found",
        "/api never falls back to HTML"
    );
    b.stop().await;
}

#[tokio::test]
async fn omitting_auth_on_purpose_opens_the_api_but_keeps_host_and_origin_checks() {
    let dir = TempDir::new("omit");
    let b = start(
        dir.path(),
        vec![],
        Options {
            token: None,
            ..Default::default()
        },
    )
    .await;
    let r = b.send(b.http.get(b.url("/api/servers"))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = b
        .send(
            b.http
                .get(b.url("/api/servers"))
                .header("origin", "http://evil.example"),
        )
        .await;
    assert_eq!(r.status, 403);
    b.stop().await;
}
