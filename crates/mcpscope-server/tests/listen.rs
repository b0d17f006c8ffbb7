//! The listener's bounds, against the real backend over real TCP: a slowloris head, an idle
//! kept-alive connection and a stalled request body are closed after the header timeout, the event stream outlives every
//! timeout, idle sockets past the connection cap make room for the UI's request while a busy
//! event stream is never the one closed. And HTTPS: the cookie is `Secure`, the https origin is
//! ours, a replaced certificate reaches new connections, a bad replacement keeps the old one.
//! Handlers see the peer (`ConnectInfo`), and a dropped listener closes its connections.

use crate::support::{Backend, Options, TempDir, start};
use mcpscope_server::{ListenOptions, TLS_RELOAD_EVERY, TlsConfig};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The header timeout these tests give the listener: short, so waiting past it is cheap.
const HEAD: Duration = Duration::from_millis(800);

fn short_timeouts() -> ListenOptions {
    ListenOptions {
        header_read_timeout: HEAD,
        ..ListenOptions::default()
    }
}

/// Read until the server closes the connection; how long that took and what it sent.
async fn until_closed(stream: &mut TcpStream, at_most: Duration) -> (Duration, String) {
    let start = Instant::now();
    let mut got = Vec::new();
    let read = tokio::time::timeout(at_most, stream.read_to_end(&mut got)).await;
    assert!(
        read.is_ok(),
        "the connection is still open after {at_most:?}; it sent {:?}",
        String::from_utf8_lossy(&got)
    );
    (start.elapsed(), String::from_utf8_lossy(&got).into_owned())
}

#[tokio::test]
async fn slowloris_heads_idle_keep_alive_and_stalled_bodies_are_closed_after_the_header_timeout() {
    let dir = TempDir::new("slowloris");
    let b = start(
        dir.path(),
        vec![],
        Options {
            listen: short_timeouts(),
            ..Options::default()
        },
    )
    .await;
    let host = format!("127.0.0.1:{}", b.port);

    // Half a head, then nothing: closed once the timeout passes, not before, not never.
    let mut slow = TcpStream::connect(&host).await.unwrap();
    let half = format!("GET /api/about HTTP/1.1\r\nHost: {host}\r\nx-mcp-remote-auth: Bear");
    slow.write_all(half.as_bytes()).await.unwrap();
    let (after, sent) = until_closed(&mut slow, HEAD * 4).await;
    assert!(
        after >= HEAD - Duration::from_millis(100),
        "closed after {after:?}"
    );
    assert!(!sent.contains("200 OK"), "{sent}");

    // A whole request on a kept-alive connection is answered, then the idle connection closes.
    let mut kept = TcpStream::connect(&host).await.unwrap();
    let request = format!(
        "GET /api/about HTTP/1.1\r\nHost: {host}\r\nx-mcp-remote-auth: Bearer {}\r\n\r\n",
        b.token
    );
    kept.write_all(request.as_bytes()).await.unwrap();
    let (after, sent) = until_closed(&mut kept, HEAD * 4).await;
    assert!(sent.starts_with("HTTP/1.1 200"), "{sent}");
    assert!(
        after >= HEAD - Duration::from_millis(100),
        "closed after {after:?}"
    );

    // A whole head, then a body that stops after a few bytes: the body read fails, the route
    // answers its error and the connection closes, instead of staying busy forever.
    let mut trickle = TcpStream::connect(&host).await.unwrap();
    let request = format!(
        "POST /api/servers HTTP/1.1\r\nHost: {host}\r\nx-mcp-remote-auth: Bearer {}\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{{\"name\": ",
        b.token
    );
    trickle.write_all(request.as_bytes()).await.unwrap();
    let (after, sent) = until_closed(&mut trickle, HEAD * 4).await;
    assert!(sent.starts_with("HTTP/1.1 4"), "{sent}");
    assert!(
        after >= HEAD - Duration::from_millis(100),
        "closed after {after:?}"
    );
    b.stop().await;
}

#[tokio::test]
async fn the_event_stream_stays_open_long_past_the_timeouts() {
    let dir = TempDir::new("sse-long");
    let b = start(
        dir.path(),
        vec![],
        Options {
            listen: short_timeouts(),
            ..Options::default()
        },
    )
    .await;
    let events = b.events(None).await;
    tokio::time::sleep(HEAD * 4).await;
    add_server(&b, "late").await;
    events
        .wait("catalog after the timeouts", |e| {
            e.name == "catalog" && e.data.to_string().contains("late")
        })
        .await;
    b.stop().await;
}

/// Add a server to the catalog: one `catalog` event on the stream.
async fn add_server(b: &Backend, name: &str) {
    let added = b
        .post(
            "/api/servers",
            json!({"name": name, "entry": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}),
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.text);
}

#[tokio::test]
async fn idle_sockets_past_the_cap_make_room_for_the_ui_and_never_take_a_busy_stream() {
    let dir = TempDir::new("cap");
    let b = start(
        dir.path(),
        vec![],
        Options {
            listen: ListenOptions {
                max_connections: 16,
                ..ListenOptions::default()
            },
            ..Options::default()
        },
    )
    .await;
    let events = b.events(None).await;
    let host = format!("127.0.0.1:{}", b.port);
    let mut idle = Vec::new();
    for i in 0..100 {
        let mut s = TcpStream::connect(&host).await.unwrap();
        if i % 2 == 0 {
            s.write_all(b"GET / HTTP/1.1\r\nHost: ").await.unwrap();
        }
        idle.push(s);
    }
    let asked = Instant::now();
    let about = tokio::time::timeout(Duration::from_secs(3), b.get("/api/about")).await;
    assert!(
        about.is_ok(),
        "the UI got no answer with 100 idle sockets open"
    );
    assert_eq!(about.unwrap().status, 200);
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "{:?}",
        asked.elapsed()
    );
    // The event stream was open before all of them and busy all along: still delivering.
    add_server(&b, "after-flood").await;
    events
        .wait("catalog after the flood", |e| {
            e.name == "catalog" && e.data.to_string().contains("after-flood")
        })
        .await;
    // The oldest idle sockets were the ones closed.
    let mut closed = 0;
    for s in &mut idle[..20] {
        let mut byte = [0u8; 1];
        if let Ok(Ok(0)) = tokio::time::timeout(Duration::from_millis(200), s.read(&mut byte)).await
        {
            closed += 1;
        }
    }
    assert_eq!(
        closed, 20,
        "the oldest idle sockets were closed to make room"
    );
    b.stop().await;
}

/// A private CA and a certificate for localhost and 127.0.0.1 signed by it, made with openssl
/// in `dir`: `ca.pem`, and `{name}.key` / `{name}.pem`.
struct Pki<'a> {
    dir: &'a Path,
}

impl Pki<'_> {
    fn new(dir: &Path) -> Pki<'_> {
        openssl(
            dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=mcpscope test CA",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
            ],
        );
        Pki { dir }
    }

    /// A fresh key and a certificate for localhost signed by the CA.
    fn issue(&self, name: &str) {
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        openssl(
            self.dir,
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=localhost",
                "-keyout",
                &key,
                "-out",
                &csr,
            ],
        );
        std::fs::write(
            self.dir.join("san.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
        )
        .unwrap();
        openssl(
            self.dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "san.ext",
                "-out",
                &pem,
            ],
        );
    }

    fn der(&self, name: &str) -> Vec<u8> {
        let out = Command::new("openssl")
            .current_dir(self.dir)
            .args(["x509", "-in", &format!("{name}.pem"), "-outform", "DER"])
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    }

    /// A client that trusts only the test CA and reports the certificate it was shown.
    fn client(&self) -> reqwest::Client {
        let ca = std::fs::read(self.dir.join("ca.pem")).unwrap();
        reqwest::Client::builder()
            .tls_certs_only(vec![reqwest::Certificate::from_pem(&ca).unwrap()])
            .tls_info(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Replace a file the way an editor or `cp` over it would not: a new file renamed into place,
/// so the poller sees another inode even within one mtime tick.
fn replace(dir: &Path, from: &str, to: &str) {
    let tmp = dir.join(format!("{to}.new"));
    std::fs::copy(dir.join(from), &tmp).unwrap();
    std::fs::rename(&tmp, dir.join(to)).unwrap();
}

/// The certificate a fresh connection is shown (a new client: no pooled connection).
async fn served_cert(pki: &Pki<'_>, b: &Backend) -> Vec<u8> {
    let r = pki
        .client()
        .get(b.url("/api/about"))
        .header("x-mcp-remote-auth", format!("Bearer {}", b.token))
        .send()
        .await
        .expect("https request");
    assert_eq!(r.status(), 200);
    let info = r
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .expect("tls info");
    info.peer_certificate().expect("a certificate").to_vec()
}

#[tokio::test]
async fn https_sets_a_secure_cookie_accepts_its_origin_and_reloads_the_certificate() {
    let dir = TempDir::new("tls");
    let pki = Pki::new(dir.path());
    pki.issue("one");
    pki.issue("two");
    replace(dir.path(), "one.key", "server.key");
    replace(dir.path(), "one.pem", "server.pem");
    let tls = TlsConfig::from_files(dir.path().join("server.key"), dir.path().join("server.pem"))
        .expect("the pair loads");
    let b = start(
        dir.path(),
        vec![],
        Options {
            listen: ListenOptions {
                tls: Some(tls),
                ..short_timeouts()
            },
            ..Options::default()
        },
    )
    .await;
    assert!(b.base.starts_with("https://localhost:"), "{}", b.base);
    let http = pki.client();

    // The launch URL's cookie is Secure; plain HTTP on the port is told to use https.
    let launch = http
        .get(b.url(&format!("/?token={}", b.token)))
        .send()
        .await
        .unwrap();
    assert_eq!(launch.status(), 303);
    let cookie = launch.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("mcpscope_token="), "{cookie}");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/api/about", b.port))
        .send()
        .await
        .expect("plain HTTP gets an answer");
    assert_eq!(plain.status(), 400);
    assert!(plain.headers().get("set-cookie").is_none());
    let said = plain.text().await.unwrap();
    assert!(said.contains("HTTPS only"), "{said}");

    // A handshake that never comes, or stops after its first byte, is bounded too.
    let host = format!("127.0.0.1:{}", b.port);
    let opened = Instant::now();
    let mut silent = TcpStream::connect(&host).await.unwrap();
    let mut stalled = TcpStream::connect(&host).await.unwrap();
    stalled.write_all(&[0x16, 0x03]).await.unwrap();
    for s in [&mut silent, &mut stalled] {
        until_closed(s, HEAD * 4).await;
        let after = opened.elapsed();
        assert!(
            after >= HEAD - Duration::from_millis(100),
            "closed after {after:?}"
        );
    }

    // Our page's origin is https://…; the http one is not ours any more.
    let with_origin = |origin: String| {
        http.get(b.url("/api/about"))
            .header("x-mcp-remote-auth", format!("Bearer {}", b.token))
            .header("origin", origin)
            .send()
    };
    let ours = with_origin(format!("https://localhost:{}", b.port))
        .await
        .unwrap();
    assert_eq!(ours.status(), 200);
    let http_origin = with_origin(format!("http://localhost:{}", b.port))
        .await
        .unwrap();
    assert_eq!(http_origin.status(), 403);

    assert_eq!(served_cert(&pki, &b).await, pki.der("one"));

    // A new pair in place: new connections get it within a few polls.
    replace(dir.path(), "two.key", "server.key");
    replace(dir.path(), "two.pem", "server.pem");
    let deadline = Instant::now() + TLS_RELOAD_EVERY * 3;
    while served_cert(&pki, &b).await != pki.der("two") {
        assert!(
            Instant::now() < deadline,
            "the new certificate was not served"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A bad replacement (a certificate that is not PEM, then a key that is not the
    // certificate's): the last good pair keeps being served.
    std::fs::write(dir.path().join("garbage.pem"), "not a certificate\n").unwrap();
    replace(dir.path(), "garbage.pem", "server.pem");
    tokio::time::sleep(TLS_RELOAD_EVERY * 2).await;
    assert_eq!(served_cert(&pki, &b).await, pki.der("two"));
    replace(dir.path(), "one.pem", "server.pem");
    tokio::time::sleep(TLS_RELOAD_EVERY * 2).await;
    assert_eq!(
        served_cert(&pki, &b).await,
        pki.der("two"),
        "key two with certificate one is no pair"
    );
    b.stop().await;
}

#[test]
fn a_missing_or_unusable_file_is_an_error_naming_it() {
    let dir = TempDir::new("tls-bad");
    let pki = Pki::new(dir.path());
    pki.issue("one");
    pki.issue("two");
    let p = |n: &str| dir.path().join(n);
    let err = |key: &str, cert: &str| {
        TlsConfig::from_files(p(key), p(cert))
            .expect_err("refused")
            .to_string()
    };
    let missing = err("nope.key", "one.pem");
    assert!(missing.contains("nope.key"), "{missing}");
    std::fs::write(p("empty.pem"), "").unwrap();
    let empty = err("one.key", "empty.pem");
    assert!(
        empty.contains("empty.pem") && empty.contains("no CERTIFICATE"),
        "{empty}"
    );
    let not_a_key = err("one.pem", "one.pem");
    assert!(
        not_a_key.contains("one.pem") && not_a_key.contains("private key"),
        "{not_a_key}"
    );
    let mismatch = err("two.key", "one.pem");
    assert!(
        mismatch.contains("two.key") && mismatch.contains("one.pem"),
        "{mismatch}"
    );
    assert!(TlsConfig::from_files(p("one.key"), p("one.pem")).is_ok());
}

/// The gateway mode's trusted-proxy rule reads the TCP peer: handlers get it as axum's
/// `ConnectInfo`. And a listener whose task is dropped closes its connections.
#[tokio::test]
async fn handlers_see_the_peer_address_and_a_dropped_listener_closes_its_connections() {
    use axum::extract::ConnectInfo;
    use std::net::SocketAddr;
    let router = axum::Router::new().route(
        "/peer",
        axum::routing::get(
            |ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { peer.to_string() },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(mcpscope_server::serve_router(
        listener,
        router,
        ListenOptions::default(),
        std::future::pending(),
    ));
    let mut s = TcpStream::connect(addr).await.unwrap();
    let me = s.local_addr().unwrap();
    s.write_all(format!("GET /peer HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut got = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut got))
        .await
        .expect("an answer")
        .unwrap();
    let answer = String::from_utf8_lossy(&got[..n]).to_string();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(&me.to_string()), "{answer} vs {me}");

    task.abort();
    let (after, _) = until_closed(&mut s, Duration::from_secs(2)).await;
    assert!(after < Duration::from_secs(1), "{after:?}");
}

/// A router for the shutdown tests: `/quick` answers at once, `/stream` sends `chunks` chunks
/// 100 ms apart (forever when `None`).
fn streaming_router(chunks: Option<u32>) -> axum::Router {
    use futures::StreamExt as _;
    let stream = move || async move {
        let ticks = futures::stream::unfold(0u32, move |n| async move {
            if chunks.is_some_and(|c| n >= c) {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            Some((format!("chunk {n}\n"), n + 1))
        });
        axum::body::Body::from_stream(ticks.map(Ok::<_, std::io::Error>))
    };
    axum::Router::new()
        .route("/quick", axum::routing::get(|| async { "ok" }))
        .route("/stream", axum::routing::get(stream))
}

/// Send a GET on a kept-alive connection.
async fn get(s: &mut TcpStream, addr: std::net::SocketAddr, path: &str) {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
}

/// Read until `want` has arrived (within 5 s); everything read.
async fn read_until(s: &mut TcpStream, want: &str) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(want) {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no {want:?} within 5 s: {:?}",
                    String::from_utf8_lossy(&got)
                )
            })
            .unwrap();
        assert!(
            n > 0,
            "closed before {want:?}: {:?}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Serve `router` with `opts`; the address, the trigger of the shutdown and the task.
async fn serve_until_told(
    router: axum::Router,
    opts: ListenOptions,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<mcpscope_server::Drained>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(mcpscope_server::serve_router(
        listener,
        router,
        opts,
        async move {
            let _ = rx.await;
        },
    ));
    (addr, tx, task)
}

/// A rollout's stop: at once an idle kept-alive connection closes; during the delay a newcomer
/// is still answered (once, `Connection: close`); after it a newcomer is refused; a stream in
/// progress runs to its end; the report says one was in progress and none was cut.
#[tokio::test]
async fn a_shutdown_leaves_then_drains_a_stream_to_its_end_and_refuses_newcomers() {
    let delay = Duration::from_millis(600);
    let opts = ListenOptions {
        shutdown_delay: delay,
        shutdown_grace: Duration::from_secs(5),
        ..ListenOptions::default()
    };
    let (addr, stop, task) = serve_until_told(streaming_router(Some(12)), opts).await;
    let mut idle = TcpStream::connect(addr).await.unwrap();
    get(&mut idle, addr, "/quick").await;
    read_until(&mut idle, "\r\n\r\nok").await;
    let mut streaming = TcpStream::connect(addr).await.unwrap();
    get(&mut streaming, addr, "/stream").await;
    read_until(&mut streaming, "chunk 0").await;

    let began = Instant::now();
    stop.send(()).unwrap();
    let (after, sent) = until_closed(&mut idle, Duration::from_millis(500)).await;
    assert!(sent.is_empty(), "{sent:?}");
    assert!(after < Duration::from_millis(300), "{after:?}");

    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut newcomer = TcpStream::connect(addr)
        .await
        .expect("still accepted during the delay");
    get(&mut newcomer, addr, "/quick").await;
    let (_, answer) = until_closed(&mut newcomer, Duration::from_secs(2)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );

    tokio::time::sleep((delay + Duration::from_millis(200)).saturating_sub(began.elapsed())).await;
    let refused = TcpStream::connect(addr).await;
    assert!(
        refused.is_err(),
        "a connection after the delay: {refused:?}"
    );

    let (_, rest) = until_closed(&mut streaming, Duration::from_secs(5)).await;
    assert!(rest.contains("chunk 11\n"), "{rest:?}");
    assert!(
        rest.ends_with("0\r\n\r\n"),
        "the stream ended properly: {rest:?}"
    );
    let drained = tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the listener returns once the stream ended")
        .unwrap()
        .unwrap();
    assert_eq!((drained.in_progress, drained.cut), (1, 0), "{drained:?}");
    assert!(drained.took < Duration::from_secs(3), "{drained:?}");
}

/// A stream longer than the grace is cut when the grace runs out, and said to be.
#[tokio::test]
async fn a_stream_longer_than_the_grace_is_cut_at_the_grace() {
    let grace = Duration::from_millis(700);
    let opts = ListenOptions {
        shutdown_grace: grace,
        ..ListenOptions::default()
    };
    let (addr, stop, task) = serve_until_told(streaming_router(None), opts).await;
    let mut streaming = TcpStream::connect(addr).await.unwrap();
    get(&mut streaming, addr, "/stream").await;
    read_until(&mut streaming, "chunk 0").await;
    stop.send(()).unwrap();
    let (after, rest) = until_closed(&mut streaming, Duration::from_secs(5)).await;
    assert!(
        after >= grace - Duration::from_millis(100) && after < grace + Duration::from_secs(2),
        "{after:?}"
    );
    assert!(
        rest.contains("chunk"),
        "it streamed during the grace: {rest:?}"
    );
    assert!(!rest.ends_with("0\r\n\r\n"), "cut, not ended: {rest:?}");
    let drained = tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the listener returns after the grace")
        .unwrap()
        .unwrap();
    assert_eq!((drained.in_progress, drained.cut), (1, 1), "{drained:?}");
}

/// The web UI's stop ends its event stream first: Ctrl-C never waits out the grace for a
/// stream that never ends.
#[tokio::test]
async fn the_web_uis_stop_ends_its_event_stream_instead_of_waiting_for_it() {
    let dir = TempDir::new("stop-events");
    let b = start(dir.path(), vec![], Options::default()).await;
    let events = b.events(None).await;
    let began = Instant::now();
    b.stop().await;
    let took = began.elapsed();
    assert!(
        took < ListenOptions::default().shutdown_grace / 2,
        "stopping took {took:?} with an event stream open"
    );
    drop(events);
}
