//! The terminal UI's OAuth callback: a tiny loopback HTTP listener on `--callback-url` (default
//! `http://127.0.0.1:6276/oauth/callback`) that hands the authorization response to the core
//! ([`Inspector::deliver_callback`]: only a `state` a login waits for is taken) and answers the
//! browser with a small page.
//!
//! It listens only while a login waits (an `auth` event with a `pending` login, until none is
//! pending), so the TUI does not hold the port against a `mcpscope --cli` login in another
//! terminal. When the port cannot be had, the login's server gets a `warning` event saying so
//! (the Auth tab shows it); the TUI goes on.

use mcpscope_inspect::events::WarningEvent;
use mcpscope_inspect::{Delivery, Event, Inspector};
use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The most of a request read (its line and headers; a callback has no body).
const MAX_REQUEST: usize = 16 * 1024;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Events read per wake-up.
const EVENTS_PER_READ: usize = 1_000;

/// Where to listen: the address and the path of the callback URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The loopback address and port.
    pub addr: SocketAddr,
    /// The callback's path (`/oauth/callback`).
    pub path: String,
}

impl Endpoint {
    /// The endpoint of `callback_url` (`localhost` is 127.0.0.1).
    pub fn of(callback_url: &str) -> Result<Endpoint, String> {
        let u = url::Url::parse(callback_url)
            .map_err(|e| format!("the callback URL {callback_url:?} is not a URL: {e}"))?;
        let ip = match u.host() {
            Some(url::Host::Ipv4(a)) => IpAddr::V4(a),
            Some(url::Host::Ipv6(a)) => IpAddr::V6(a),
            _ => IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        let port = u.port_or_known_default().unwrap_or(80);
        Ok(Endpoint {
            addr: SocketAddr::new(ip, port),
            path: u.path().to_string(),
        })
    }
}

/// A listener accepting callbacks until dropped.
pub struct Listener {
    accept: JoinHandle<()>,
    /// Where it listens (the port is the one bound, also when 0 was asked for).
    pub addr: SocketAddr,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Listen on `at` now, handing each callback to `inspector`.
pub async fn listen(inspector: Arc<Inspector>, at: &Endpoint) -> std::io::Result<Listener> {
    let listener = TcpListener::bind(at.addr).await?;
    let addr = listener.local_addr()?;
    let path = at.path.clone();
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (i, path) = (inspector.clone(), path.clone());
            tokio::spawn(async move {
                let _ = tokio::time::timeout(READ_TIMEOUT, serve(stream, &i, &path)).await;
            });
        }
    });
    Ok(Listener { accept, addr })
}

/// Follow the core's `auth` events for as long as the bus is open: listen while a login waits.
pub fn follow(inspector: Arc<Inspector>, callback_url: String) -> JoinHandle<()> {
    // Subscribed before the task starts: a login begun right after this call is not missed.
    let bus = inspector.events().clone();
    let mut latest = bus.subscribe();
    let mut next = bus.last_id() + 1;
    tokio::spawn(async move {
        let at = match Endpoint::of(&callback_url) {
            Ok(at) => at,
            Err(_) => return, // the CLI checked it; nothing to listen on
        };
        let mut waiting: BTreeSet<String> = BTreeSet::new();
        let mut listener: Option<Listener> = None;
        while latest.changed().await.is_ok() && !bus.is_closed() {
            let (events, _lost) = bus.since(next, EVENTS_PER_READ);
            if events.len() == EVENTS_PER_READ {
                latest.mark_changed();
            }
            for e in &events {
                next = e.id + 1;
                if e.name != "auth" {
                    continue;
                }
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&e.data) else {
                    continue;
                };
                let server = v["server"].as_str().unwrap_or("").to_string();
                if v["pending"].is_object() {
                    waiting.insert(server.clone());
                    if listener.is_none() {
                        listener = bind(&inspector, &at, &server, &callback_url).await;
                    }
                } else {
                    waiting.remove(&server);
                }
            }
            if waiting.is_empty() {
                listener = None; // frees the port; answers being written finish on their own
            }
        }
    })
}

async fn bind(
    inspector: &Arc<Inspector>,
    at: &Endpoint,
    server: &str,
    callback_url: &str,
) -> Option<Listener> {
    match listen(inspector.clone(), at).await {
        Ok(l) => Some(l),
        Err(e) => {
            inspector.events().publish(Event::Warning(WarningEvent {
                server: server.to_string(),
                message: format!(
                    "login callback: cannot listen on {} for {callback_url} ({e}): another program (another mcpscope waiting for a login?) has the port. Finish the login there, or restart with --callback-url and another loopback port.",
                    at.addr
                ),
                frame_seq: None,
            }));
            None
        }
    }
}

/// One connection: read the request head, answer it, close.
async fn serve(mut stream: TcpStream, inspector: &Inspector, path: &str) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() >= MAX_REQUEST {
            return respond(
                &mut stream,
                431,
                "Request too large",
                "The request is too large.",
            )
            .await;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf);
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let (method, target) = (first.next().unwrap_or(""), first.next().unwrap_or(""));
    let (p, query) = target.split_once('?').unwrap_or((target, ""));
    if method != "GET" || p != path {
        return respond(
            &mut stream,
            404,
            "Not found",
            "This is mcpscope's login callback; nothing else is here.",
        )
        .await;
    }
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let (status, title, text) = match inspector.deliver_callback(query, headers) {
        Delivery::Delivered { server } => (
            200,
            "Authorization received",
            format!(
                "mcpscope received the authorization response for {}. You can close this tab and return to the terminal.",
                html_escape(&server)
            ),
        ),
        Delivery::Gone => (
            410,
            "Login no longer waited for",
            "mcpscope stopped waiting for this login (it timed out or was cancelled). Start it again from mcpscope (Auth tab, u).".to_string(),
        ),
        Delivery::Unknown => (
            400,
            "Authorization response refused",
            "This authorization response does not belong to a login mcpscope is waiting for (its state is unknown or was already used). Nothing was done with it.".to_string(),
        ),
    };
    respond(&mut stream, status, title, &text).await
}

fn html_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A small HTML page; a success closes itself when the browser lets it.
async fn respond(
    stream: &mut TcpStream,
    status: u16,
    title: &str,
    text: &str,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        410 => "Gone",
        _ => "Request Header Fields Too Large",
    };
    let close = if status == 200 {
        "<script>setTimeout(function(){window.close()},1500)</script>"
    } else {
        ""
    };
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title} · mcpscope</title>\
         <style>body{{font:15px system-ui,sans-serif;max-width:36em;margin:3em auto;color:#222}}</style></head>\
         <body><h1 id=title>{title}</h1><p id=message>{text}</p>{close}</body></html>"
    );
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncache-control: no-store\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_of_a_callback_url() {
        let e = Endpoint::of("http://127.0.0.1:6276/oauth/callback").expect("url");
        assert_eq!(e.addr, "127.0.0.1:6276".parse().expect("addr"));
        assert_eq!(e.path, "/oauth/callback");
        let e = Endpoint::of("http://localhost:7000/cb").expect("url");
        assert_eq!(e.addr.port(), 7000);
        assert!(e.addr.ip().is_loopback());
        assert!(Endpoint::of("not a url").is_err());
    }

    /// GET `target` from `addr`; the status line and the body.
    async fn get(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        s.write_all(request.as_bytes()).await.expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).await.expect("read");
        out
    }

    #[tokio::test]
    async fn only_a_waited_for_state_on_the_callback_path_is_taken() {
        let dir = std::env::temp_dir().join(format!("mcpscope-cb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let store = mcpscope_store::HistoryStore::open(
            &dir.join("history.sqlite"),
            mcpscope_store::Retention::default(),
        )
        .expect("store");
        let i = Inspector::new(
            mcpscope_inspect::Catalog::in_memory(Vec::new()),
            store,
            mcpscope_inspect::Options::default(),
        );
        let at = Endpoint::of("http://127.0.0.1:0/oauth/callback").expect("url");
        let l = listen(i.clone(), &at).await.expect("listen");
        let r = get(
            l.addr,
            "GET /oauth/callback?code=c&state=nobody HTTP/1.1\r\nHost: x\r\n\r\n",
        )
        .await;
        assert!(r.starts_with("HTTP/1.1 400"), "{r}");
        assert!(r.contains("refused"));
        let r = get(l.addr, "GET /elsewhere HTTP/1.1\r\n\r\n").await;
        assert!(r.starts_with("HTTP/1.1 404"), "{r}");
        let r = get(l.addr, "POST /oauth/callback?state=x HTTP/1.1\r\n\r\n").await;
        assert!(r.starts_with("HTTP/1.1 404"), "{r}");
        // Exactly the bound, so nothing is left unread (a close with unread bytes resets).
        let huge = format!("GET /oauth/callback?{}", "a".repeat(MAX_REQUEST - 20));
        let r = get(l.addr, &huge).await;
        assert!(r.starts_with("HTTP/1.1 431"), "{}", &r[..r.len().min(80)]);
        let addr = l.addr;
        drop(l);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            TcpStream::connect(addr).await.is_err(),
            "dropped: the port is free"
        );
        i.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A temp directory and an inspector over `servers` with its history and tokens in it.
    fn inspector_in(
        name: &str,
        servers: Vec<(String, serde_json::Value)>,
        callback: &str,
    ) -> (std::path::PathBuf, Arc<Inspector>) {
        let dir = std::env::temp_dir().join(format!("mcpscope-cb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let store = mcpscope_store::HistoryStore::open(
            &dir.join("history.sqlite"),
            mcpscope_store::Retention::default(),
        )
        .expect("store");
        let entries = servers
            .into_iter()
            .map(|(n, e)| {
                let e: mcpscope_inspect::CatalogEntry = serde_json::from_value(e).expect("entry");
                (n, e.normalized())
            })
            .collect();
        let options = mcpscope_inspect::Options {
            ping_interval: None,
            callback_url: callback.to_string(),
            secrets: Some(mcpscope_store::SecretStoreConfig::file(
                dir.join("secrets.enc"),
                None,
            )),
            ..mcpscope_inspect::Options::default()
        };
        let i = Inspector::new(
            mcpscope_inspect::Catalog::in_memory(entries),
            store,
            options,
        );
        (dir, i)
    }

    /// The status and `location` of a GET of `url`, as a browser that does not follow redirects.
    async fn browse(url: &str) -> (u16, Option<String>, String) {
        let u = url::Url::parse(url).expect("url");
        let target = match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        };
        let addr = (
            u.host_str().unwrap_or("127.0.0.1"),
            u.port_or_known_default().unwrap_or(80),
        );
        let mut s = TcpStream::connect(addr).await.expect("connect");
        let req = format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            addr.0
        );
        s.write_all(req.as_bytes()).await.expect("write");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).await.expect("read");
        let text = String::from_utf8_lossy(&raw).to_string();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let location = text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("location")
                .then(|| v.trim().to_string())
        });
        (status, location, text)
    }

    /// Against the testkit's OAuth server: a connection refused with 401 starts a login, the
    /// listener opens for it, the browser's redirect lands on it, the login ends authorized and
    /// the port is given back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_login_comes_back_through_the_listener() {
        use mcpscope_testkit::{OAuthFixture, OAuthOptions};
        let f = OAuthFixture::spawn(OAuthOptions::default())
            .await
            .expect("fixture");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let callback = format!("http://127.0.0.1:{port}/oauth/callback");
        let (dir, i) = inspector_in(
            "login",
            vec![("remote".into(), serde_json::json!({"url": f.mcp_url()}))],
            &callback,
        );
        let follower = follow(i.clone(), callback.clone());
        let connecting = {
            let i = i.clone();
            tokio::spawn(async move { i.connect("remote", None).await })
        };
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                if let Ok(v) = i.auth_view("remote").await
                    && let Some(u) = v
                        .pointer("/pending/url")
                        .and_then(serde_json::Value::as_str)
                {
                    return u.to_string();
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("a login waits");
        let (status, back, _) = browse(&url).await;
        assert_eq!(status / 100, 3, "the fixture approves at once");
        let back = back.expect("redirected to the callback");
        assert!(back.starts_with(&callback), "{back}");
        let (status, _, page) = browse(&back).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Authorization received"), "{page}");
        let connected = tokio::time::timeout(Duration::from_secs(30), connecting)
            .await
            .expect("connects in time")
            .expect("task");
        assert!(connected.is_ok(), "{connected:?}");
        let v = i.auth_view("remote").await.expect("auth view");
        assert_eq!(v["state"], "authorized", "{v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            TcpStream::connect(("127.0.0.1", port)).await.is_err(),
            "no login waits: the port is free again"
        );
        follower.abort();
        i.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}
