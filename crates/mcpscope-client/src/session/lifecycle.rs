//! A session's life: connect (transport, engine task, handshake within the connect timeout),
//! replace the connection (probe restart, HTTP+SSE fallback), settle, and close — after the
//! answers to server requests still being prepared have gone out.

use super::{ClientOptions, Session, Shared, State};
use crate::error::ClientError;
use crate::events::Observer;
use crate::responder::Responder;
use mcpscope_proto::era::{Era, EraPreference};
use mcpscope_transport::{Connection, Target};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// How long `close()` waits for answers to server requests still being prepared by the
/// responder. Long enough for any view that answers by itself (the CLI's flags); a person who
/// has not answered a dialog by the time the connection closes is not waited for.
const ANSWER_GRACE: Duration = Duration::from_secs(2);

impl Session {
    /// Connect and run the handshake the era calls for (`initialize`, `server/discover`, or the
    /// Auto probe), within the connect timeout. On failure the connection is closed.
    pub async fn connect(
        target: Target,
        opts: ClientOptions,
        responder: Arc<dyn Responder>,
        observer: Arc<dyn Observer>,
    ) -> Result<Session, ClientError> {
        let (conn, events) = Connection::open(&target, &opts.transport).await?;
        let credit = conn.read_credit();
        let frame_numbers = opts.frame_numbers.clone().unwrap_or_default();
        let era0 = match opts.era {
            EraPreference::Legacy => Era::Legacy,
            _ => Era::Modern,
        };
        let session = Session {
            shared: Arc::new(Shared {
                target: Mutex::new(target),
                conn: Mutex::new(Arc::new(conn)),
                opts,
                responder,
                observer,
                state: Mutex::new(State {
                    pending: HashMap::new(),
                    task_tokens: VecDeque::new(),
                    ended_tokens: VecDeque::new(),
                    server_requests: HashMap::new(),
                    answering: HashMap::new(),
                    era: era0,
                    version: None,
                    info: None,
                    tool_headers: HashMap::new(),
                    timed_out: HashMap::new(),
                    last_frame: std::time::Instant::now(),
                    stderr_tail: VecDeque::new(),
                    discarded: None,
                    session_lost: None,
                    late_modern: None,
                    generation: 0,
                    closed: None,
                    stage: "starting".into(),
                }),
                next_id: AtomicI64::new(1),
                seq: frame_numbers,
                closed_seen: Notify::new(),
                answered: Notify::new(),
            }),
        };
        session.spawn_engine(events, 0, credit);
        let handshake = session.handshake();
        let result = match session.shared.opts.connect_timeout {
            Some(t) => {
                let mut handshake = std::pin::pin!(handshake);
                loop {
                    match tokio::time::timeout(t, &mut handshake).await {
                        Ok(r) => break r,
                        // An authorization is in progress (a login waits on a person): the
                        // server is not the one being slow.
                        Err(_) if session.authorizing() => continue,
                        Err(_) => {
                            // Read the stage in its own statement: a guard temporary inside the
                            // struct literal would still be held when `stderr_hint` locks the
                            // state again.
                            let stage = session.state().stage.clone();
                            session.handshake_timed_out(t);
                            break Err(ClientError::ConnectTimeout {
                                stage,
                                after: t,
                                detail: session.stderr_hint(),
                            });
                        }
                    }
                }
            }
            None => handshake.await,
        };
        match result {
            Ok(()) => Ok(session),
            Err(e) => {
                session.cancel_all("connection attempt failed");
                session.close().await;
                Err(e)
            }
        }
    }

    pub(super) async fn replace_connection(&self, target: Target) -> Result<(), ClientError> {
        let old = self.conn();
        let (conn, events) = Connection::open(&target, &self.shared.opts.transport).await?;
        let credit = conn.read_credit();
        let generation = {
            let mut st = self.state();
            st.generation += 1;
            st.closed = None;
            st.generation
        };
        *self.shared.conn.lock().expect("conn lock") = Arc::new(conn);
        *self.shared.target.lock().expect("target lock") = target;
        self.spawn_engine(events, generation, credit);
        old.close().await;
        Ok(())
    }

    /// Wait until the wire has been quiet for `quiet` (at most `max`). On legacy HTTP a server
    /// may send a request's logs on the GET stream, which can arrive after the response on the
    /// POST stream; a one-shot client that closes at once would lose them.
    pub async fn settle(&self, quiet: Duration, max: Duration) {
        let deadline = std::time::Instant::now() + max;
        loop {
            let since = self.state().last_frame.elapsed();
            if since >= quiet || std::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(quiet - since).await;
        }
    }

    /// Close the connection (stdin, SIGTERM, SIGKILL for stdio; DELETE for a legacy HTTP session).
    ///
    /// Answers to server requests that the responder is still preparing are waited for first
    /// (at most 2 s), so a server that asked something just before the caller's last result —
    /// `roots/list` on `initialized`, say — gets its answer; what is still unanswered after that
    /// is named in a warning.
    pub async fn close(&self) {
        self.await_answers(ANSWER_GRACE).await;
        self.conn().close().await;
        // The connection's last events (the exit status, the final stderr lines) may still be
        // queued for the engine task. Wait until it has recorded the end of the connection, so
        // observers have seen every frame when the caller tears down. Bounded: a transport that
        // never reports its end must not hang the caller.
        let drained = async {
            loop {
                let notified = self.shared.closed_seen.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state().closed.is_some() {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), drained).await;
    }

    /// Wait until every answer to a server request has been handed to the transport, at most
    /// `grace`; then warn about each one still unanswered.
    async fn await_answers(&self, grace: Duration) {
        let all_sent = async {
            loop {
                let notified = self.shared.answered.notified();
                tokio::pin!(notified);
                // Registered before the check: an answer sent in between still wakes us.
                notified.as_mut().enable();
                if self.state().answering.is_empty() {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(grace, all_sent).await.is_ok() {
            return;
        }
        let mut left: Vec<String> = self
            .state()
            .answering
            .iter()
            .map(|(id, method)| format!("{method} (server request {id})"))
            .collect();
        left.sort();
        self.warn(
            format!(
                "closing the connection with {} still unanswered after {} ms: {}",
                if left.len() == 1 {
                    "a server request".to_string()
                } else {
                    format!("{} server requests", left.len())
                },
                grace.as_millis(),
                left.join(", ")
            ),
            None,
        );
    }
}
