//! The one HTTP listener of mcpscope's web servers (the web UI, the MCP Apps sandbox, the gateway
//! mode): an accept loop over hyper serving an axum [`Router`], in place of `axum::serve`, which
//! bounds neither how long a client may take to send a request head nor how many connections may
//! be open. Any local process could freeze the UI with about 1,100 idle sockets (issue 24,
//! item 28): the process ran out of file descriptors and accepted nothing more.
//!
//! What [`serve_router`] bounds, and why each bound cannot cut a long response (the web UI's
//! `/api/events` stream, a relayed SSE response):
//!
//! - **The request head**: a client must send it within [`ListenOptions::header_read_timeout`]
//!   of the moment the connection waits for one — after accept, and again after each response
//!   on a kept-alive connection, so the same bound closes idle keep-alive connections. hyper's
//!   clock runs only while no request is in progress; a response being streamed is never timed.
//! - **The TLS handshake**: the same bound, from accept.
//! - **A request body**: the same bound between two of its chunks; a stalled body fails (the
//!   route answers its error) rather than holding the connection busy.
//! - **Open connections**: at most [`ListenOptions::max_connections`] (a semaphore). At the cap
//!   a new connection is still accepted, and the oldest connection with no request in progress
//!   — one that never sent a head, or a kept-alive one between requests — is closed to make
//!   room. Holding the accept would leave the UI's own connection queued behind the idle ones
//!   until they time out; closing the new one at once would refuse the UI just the same. Idle
//!   sockets cost the attacker their turn instead, and a connection doing work (a request being
//!   answered, an event stream) is never the one closed. Only when every connection is busy is
//!   the new one closed at once.
//! - **File descriptors**: if accept fails because the process has none left, the oldest idle
//!   connection is closed the same way before accept is tried again.
//!
//! Handlers can extract [`axum::extract::ConnectInfo<SocketAddr>`]: the TCP peer (the gateway
//! mode's trusted-proxy rule needs it). With [`ListenOptions::tls`] the listener speaks HTTPS
//! only (`listen/tls.rs`: the key and certificate files, reloaded when they change); plain HTTP
//! sent to it gets a 400 saying to use https, not just a closed connection.
//!
//! Shutdown (a Kubernetes rollout, Ctrl-C), when `shutdown` resolves, in three steps:
//!
//! 1. **Leaving**, for [`ListenOptions::shutdown_delay`] (0 by default): every connection is told
//!    to finish — an idle kept-alive one closes now, a busy one closes after its response, which
//!    says `Connection: close` — while the listener still accepts: a load balancer that has not
//!    yet heard the pod is going (the endpoint-propagation race) still gets its new connections
//!    answered, one request each, with `Connection: close`, so its clients reconnect elsewhere.
//! 2. **Draining**: the listener closes (a new connection is refused); requests in progress,
//!    streamed responses included, run to their end for at most
//!    [`ListenOptions::shutdown_grace`].
//! 3. **Closing**: whatever is still open then (a stream longer than the grace) is dropped.
//!
//! [`serve_router`] returns a [`Drained`] saying how it went (how many were cut). A long-lived
//! stream that should not hold the drain (the web UI's `/api/events`) is ended by its owner
//! when `shutdown` resolves (`mcpscope_server::serve` closes the event bus first).
//!
//! hyper-util's `GracefulShutdown` is not used: it tells every connection to finish at one
//! moment and only counts them, while here each connection already watches the listener's phase
//! (for eviction and the TLS handshake), connections accepted while leaving are served
//! differently from those open before, and the semaphore of the connection cap already says
//! when the last one is gone.

mod tls;

pub use tls::{TLS_CERT_ENV, TLS_KEY_ENV, TLS_RELOAD_EVERY, TlsConfig};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};

/// How a listener bounds its clients. `ListenOptions::default()` suits the single-user web UI.
#[derive(Debug, Clone)]
pub struct ListenOptions {
    /// Connections open at once; at the cap the oldest idle one makes room (see the module).
    /// The default, 512, stays well under the usual soft limit of 1,024 file descriptors, which
    /// the history database, stdio servers' pipes and outgoing connections share.
    pub max_connections: usize,
    /// How long a client may take to send a whole request head, counted from when the
    /// connection waits for one; also the TLS handshake's bound, how long a kept-alive
    /// connection may sit idle, and how long a request body may pause. Default 10 s.
    pub header_read_timeout: Duration,
    /// After `shutdown`, how long the listener still accepts (each new connection answers one
    /// request, `Connection: close`) before it closes: the time a load balancer needs to stop
    /// sending. Default 0.
    pub shutdown_delay: Duration,
    /// Once the listener has closed, how long requests in progress (streamed responses
    /// included) may take to finish before they are cut. Default 5 s.
    pub shutdown_grace: Duration,
    /// Serve HTTPS with this key and certificate ([`TlsConfig::from_env`]); `None`: plain HTTP.
    pub tls: Option<TlsConfig>,
}

impl Default for ListenOptions {
    fn default() -> ListenOptions {
        ListenOptions {
            max_connections: 512,
            header_read_timeout: Duration::from_secs(10),
            shutdown_delay: Duration::ZERO,
            shutdown_grace: Duration::from_secs(5),
            tls: None,
        }
    }
}

impl ListenOptions {
    /// `http` or `https`, as the URLs of this listener begin.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }
}

/// How long the accept waits for an evicted connection to give its place back.
const EVICTION_WAIT: Duration = Duration::from_secs(1);
/// The pause after an accept error other than a peer giving up, so a persistent one cannot spin.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(20);
/// After the grace, how long the dropped connections get to wind down.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// How a shutdown went, for the caller's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// Connections with a request in progress when the listener closed.
    pub in_progress: usize,
    /// Connections still open when the grace ran out, dropped: each was still answering (a
    /// stream longer than the grace) or had not yet sent its request.
    pub cut: usize,
    /// From `shutdown` resolving to the last connection gone.
    pub took: Duration,
}

/// Serve `router` on `listener` until `shutdown` resolves, then leave, drain and close (see the
/// module for every bound and each step of the shutdown). Errors of one connection end that
/// connection only, and accept errors are waited out, so this returns `Ok` once the shutdown is
/// done.
pub async fn serve_router(
    listener: TcpListener,
    router: Router,
    opts: ListenOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<Drained> {
    // Stopped however this future ends, dropped included (as is every connection: their
    // phase channel closes with `phase_tx`).
    let _reloader = opts
        .tls
        .clone()
        .map(|tls| AbortOnDrop(tokio::spawn(tls.watch_files())));
    let delay = opts.shutdown_delay;
    let (phase_tx, phase) = watch::channel(Phase::Serving);
    let server = Arc::new(Server::new(router, opts, phase));
    server.accept_until(&listener, shutdown).await;
    let began = tokio::time::Instant::now();
    // Leaving: everyone finishes what they are doing; newcomers get one answer each.
    phase_tx.send_replace(Phase::Draining);
    server
        .accept_until(&listener, tokio::time::sleep(delay))
        .await;
    // New connections are refused from here on.
    drop(listener);
    let (in_progress, cut) = server.drain(&phase_tx).await;
    Ok(Drained {
        in_progress,
        cut,
        took: began.elapsed(),
    })
}

/// A task that ends with its owner.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Where the listener is in its life; every connection watches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Serving,
    /// Finish what is in progress, then close (while leaving, and once the listener closed).
    Draining,
    /// Close now.
    Closing,
}

/// What every connection shares.
struct Server {
    router: Router,
    opts: ListenOptions,
    /// One permit per open connection.
    slots: Arc<Semaphore>,
    /// `opts.max_connections`, as the semaphore counts.
    cap: u32,
    open: OpenConns,
    phase: watch::Receiver<Phase>,
    http: http1::Builder,
    /// For connections accepted while leaving: one request, then `Connection: close`.
    http_once: http1::Builder,
}

impl Server {
    fn new(router: Router, opts: ListenOptions, phase: watch::Receiver<Phase>) -> Server {
        let cap = opts
            .max_connections
            .clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(opts.header_read_timeout)
            .keep_alive(true);
        let mut http_once = http.clone();
        http_once.keep_alive(false);
        Server {
            router,
            slots: Arc::new(Semaphore::new(cap)),
            cap: u32::try_from(cap).unwrap_or(u32::MAX),
            opts,
            open: OpenConns::default(),
            phase,
            http,
            http_once,
        }
    }

    /// Accept connections until `until` resolves.
    async fn accept_until(
        self: &Arc<Self>,
        listener: &TcpListener,
        until: impl Future<Output = ()>,
    ) {
        tokio::pin!(until);
        loop {
            tokio::select! {
                biased;
                () = &mut until => return,
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => self.admit(stream, peer).await,
                    Err(e) => self.accept_failed(&e).await,
                },
            }
        }
    }

    /// Give an accepted connection its task, or close it when no place can be made.
    async fn admit(self: &Arc<Self>, stream: TcpStream, peer: SocketAddr) {
        let Some(permit) = self.place().await else {
            return;
        };
        // Responses are written whole or as events; waiting to fill a segment only adds delay.
        let _ = stream.set_nodelay(true);
        let conn = self.open.add();
        let server = self.clone();
        tokio::spawn(async move {
            let _permit = permit;
            server.run(stream, peer, &conn).await;
            server.open.remove(conn.id);
        });
    }

    /// A place for one more connection: a free one, else the one the oldest idle connection
    /// gives back. `None` when every connection is busy.
    async fn place(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Some(permit);
        }
        if !self.open.evict_oldest_idle() {
            return None;
        }
        let freed = self.slots.clone().acquire_owned();
        tokio::time::timeout(EVICTION_WAIT, freed).await.ok()?.ok()
    }

    /// An accept failed: a peer that gave up before we took it is nothing; out of file
    /// descriptors, make one free by closing the oldest idle connection; then try again.
    async fn accept_failed(&self, e: &io::Error) {
        use io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
        if matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted) {
            return;
        }
        if out_of_descriptors(e) {
            self.open.evict_oldest_idle();
        }
        tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
    }

    /// One connection, from the TLS handshake (if any) to its close.
    async fn run(&self, stream: TcpStream, peer: SocketAddr, conn: &OpenConn) {
        let Some(tls) = &self.opts.tls else {
            return self.http(TokioIo::new(stream), peer, conn).await;
        };
        let mut phase = self.phase.clone();
        let stream = tokio::select! {
            done = tokio::time::timeout(self.opts.header_read_timeout, handshake(tls, stream)) => {
                match done {
                    Ok(Some(stream)) => stream,
                    // A failed or slow handshake: nothing was asked, so nothing to answer.
                    _ => return,
                }
            },
            () = conn.evict.notified() => return,
            // A handshake begun before the drain may still bring a request to answer.
            _ = phase.wait_for(|p| *p == Phase::Closing) => return,
        };
        self.http(TokioIo::new(stream), peer, conn).await;
    }

    /// HTTP/1.1 on one connection until it ends, it is evicted, or the listener closes.
    async fn http<I>(&self, io: I, peer: SocketAddr, conn: &OpenConn)
    where
        I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    {
        let stall = self.opts.header_read_timeout;
        let service = service(self.router.clone(), peer, conn.busy.clone(), stall);
        let mut phase = self.phase.clone();
        // Seen now, so `changed` below wakes for the next phase only.
        let late = match *phase.borrow_and_update() {
            Phase::Serving => false,
            Phase::Draining => true,
            Phase::Closing => return,
        };
        // Accepted while leaving: graceful_shutdown would close it before its first request
        // is read, so it is served without keep-alive instead.
        let http = if late { &self.http_once } else { &self.http };
        let served = http.serve_connection(io, service);
        tokio::pin!(served);
        let mut draining = late;
        loop {
            tokio::select! {
                _ = served.as_mut() => return,
                () = conn.evict.notified() => return,
                changed = phase.changed() => {
                    let now = *phase.borrow_and_update();
                    if changed.is_err() || now == Phase::Closing {
                        return;
                    }
                    if now == Phase::Draining && !draining {
                        // Idle: closed now; a request in progress: answered, then closed.
                        served.as_mut().graceful_shutdown();
                        draining = true;
                    }
                }
            }
        }
    }

    /// Let connections finish within the grace, then close the rest: how many had a request
    /// in progress at the start, and how many were cut at the end.
    async fn drain(&self, phase: &watch::Sender<Phase>) -> (usize, usize) {
        let in_progress = self.open.busy();
        let all = self.slots.acquire_many(self.cap);
        if tokio::time::timeout(self.opts.shutdown_grace, all)
            .await
            .is_ok()
        {
            return (in_progress, 0);
        }
        let cut = self.open_count();
        phase.send_replace(Phase::Closing);
        let _ = tokio::time::timeout(CLOSE_WAIT, self.slots.acquire_many(self.cap)).await;
        (in_progress, cut)
    }

    /// Connections open now (each holds a permit).
    fn open_count(&self) -> usize {
        (self.cap as usize).saturating_sub(self.slots.available_permits())
    }
}

/// The first byte of every TLS connection: a handshake record.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// The TLS handshake of a new connection; `None` when it fails. A client that speaks plain HTTP
/// instead (someone typed `http://`) is told to use https, as it would otherwise see only a
/// closed connection.
async fn handshake(
    tls: &TlsConfig,
    mut stream: TcpStream,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    let mut first = [0u8; 1];
    if stream.peek(&mut first).await.ok()? == 0 {
        return None;
    }
    if first[0] != TLS_HANDSHAKE_RECORD {
        use tokio::io::AsyncWriteExt;
        let _ = stream.write_all(plain_http_refusal().as_bytes()).await;
        let _ = stream.shutdown().await;
        return None;
    }
    tls.acceptor().accept(stream).await.ok()
}

/// What plain HTTP on a TLS port is told (a 400, then the connection closes).
const PLAIN_HTTP_REFUSAL: &str = "this port speaks HTTPS only: open the https:// URL instead\n";

fn plain_http_refusal() -> String {
    format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PLAIN_HTTP_REFUSAL}",
        PLAIN_HTTP_REFUSAL.len()
    )
}

/// True for EMFILE and ENFILE (24 and 23 on Linux and macOS alike): no descriptor for the
/// accepted socket. std names neither as an `ErrorKind`.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(23 | 24))
}

/// The router as hyper's service for one connection: the peer's address in each request's
/// extensions (axum's `ConnectInfo`), and the connection marked busy from the request head
/// until its response body is done or dropped.
fn service(
    router: Router,
    peer: SocketAddr,
    busy: Arc<AtomicUsize>,
    stall: Duration,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = Response<Tracked>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<Tracked>, Infallible>> + Send,
> + Clone {
    let router = TowerToHyperService::new(router);
    hyper::service::service_fn(move |req: Request<Incoming>| {
        let working = Working::start(&busy);
        let mut req = req.map(|body| Paced::new(body, stall));
        req.extensions_mut().insert(ConnectInfo(peer));
        let answer = hyper::service::Service::call(&router, req);
        async move {
            let resp = answer.await?;
            Ok(resp.map(|body| Tracked {
                body,
                _working: working,
            }))
        }
    })
}

/// A request body that fails once the client has sent nothing of it for `stall` while the route
/// waits for it: a whole head followed by a trickle would otherwise keep its connection busy —
/// out of reach of the header timeout and of eviction — for as long as the client likes. Only
/// time spent waiting on the client counts, not a route that reads slowly.
struct Paced {
    body: Incoming,
    stall: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// A wait for the client began (and `deadline` is its end).
    waiting: bool,
}

impl Paced {
    fn new(body: Incoming, stall: Duration) -> Paced {
        Paced {
            body,
            stall,
            deadline: Box::pin(tokio::time::sleep(stall)),
            waiting: false,
        }
    }
}

impl hyper::body::Body for Paced {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            self.waiting = false;
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if !self.waiting {
            self.waiting = true;
            let end = tokio::time::Instant::now() + self.stall;
            self.deadline.as_mut().reset(end);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            let stall = self.stall;
            return Poll::Ready(Some(Err(format!(
                "the request body stalled: nothing of it arrived for {stall:?}"
            )
            .into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A request in progress on a connection: counted while it lives.
struct Working(Arc<AtomicUsize>);

impl Working {
    fn start(busy: &Arc<AtomicUsize>) -> Working {
        busy.fetch_add(1, Ordering::AcqRel);
        Working(busy.clone())
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its request counted until hyper is done with it, so a streamed
/// response (an event stream) keeps its connection busy, hence never evicted.
struct Tracked {
    body: Body,
    _working: Working,
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The open connections in the order they were accepted, for eviction.
#[derive(Default)]
struct OpenConns {
    next_id: AtomicU64,
    list: Mutex<VecDeque<OpenConn>>,
}

/// One open connection as the listener sees it.
#[derive(Clone)]
struct OpenConn {
    id: u64,
    /// Requests in progress (a response being written counts).
    busy: Arc<AtomicUsize>,
    /// Told once to close the connection at once.
    evict: Arc<Notify>,
}

impl OpenConns {
    fn add(&self) -> OpenConn {
        let conn = OpenConn {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            busy: Arc::default(),
            evict: Arc::default(),
        };
        self.lock().push_back(conn.clone());
        conn
    }

    fn remove(&self, id: u64) {
        self.lock().retain(|c| c.id != id);
    }

    /// How many connections have a request in progress.
    fn busy(&self) -> usize {
        self.lock()
            .iter()
            .filter(|c| c.busy.load(Ordering::Acquire) > 0)
            .count()
    }

    /// Tell the oldest connection with no request in progress to close; false when none is
    /// idle. It leaves the list at once, so the next eviction picks another.
    fn evict_oldest_idle(&self) -> bool {
        let mut list = self.lock();
        let Some(i) = list
            .iter()
            .position(|c| c.busy.load(Ordering::Acquire) == 0)
        else {
            return false;
        };
        if let Some(conn) = list.remove(i) {
            // notify_one keeps the wake-up for a task not yet waiting on it.
            conn.evict.notify_one();
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<OpenConn>> {
        self.list
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
