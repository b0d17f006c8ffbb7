//! Server→client requests against a one-shot client: a server that asks `roots/list` on
//! `initialized` (as `@modelcontextprotocol/server-filesystem` does) while the client's own call
//! is answered at once. `close()` must wait until our answer is on the wire — and say what was
//! left unanswered when a responder never finishes, instead of hanging.

use crate::support::{Keep, testkit};
use futures::future::BoxFuture;
use mcpscope_client::{ClientOptions, Responder, ServerRequest, Session, full_capabilities};
use mcpscope_proto::era::Era;
use mcpscope_proto::{Direction, FrameKind, RpcError};
use mcpscope_testkit::StdioMode;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers `roots/list` with one root after `delay` — a view that takes a moment (a prompt, a
/// lookup), long after the call that follows the handshake has been answered.
struct SlowRoots {
    delay: Option<Duration>,
}

impl Responder for SlowRoots {
    fn capabilities(&self, era: Era) -> Value {
        full_capabilities(era)
    }

    fn respond(&self, request: ServerRequest) -> BoxFuture<'static, Result<Value, RpcError>> {
        let delay = self.delay;
        Box::pin(async move {
            match delay {
                Some(d) => tokio::time::sleep(d).await,
                // A person who never answers.
                None => std::future::pending::<()>().await,
            }
            assert_eq!(request.method, "roots/list");
            Ok(json!({"roots": [{"uri": "file:///srv/root", "name": "root"}]}))
        })
    }
}

async fn connect(delay: Option<Duration>) -> (Session, Arc<Keep>) {
    let keep = Arc::new(Keep::default());
    let session = Session::connect(
        testkit(&StdioMode::RootsOnInitialized),
        ClientOptions::default(),
        Arc::new(SlowRoots { delay }),
        keep.clone(),
    )
    .await
    .expect("connect to roots-on-initialized");
    (session, keep)
}

#[tokio::test]
async fn close_waits_until_the_answer_to_a_server_request_is_on_the_wire() {
    let (session, keep) = connect(Some(Duration::from_millis(400))).await;
    // The server asked before answering this, so the answer is still being prepared.
    session
        .request("tools/list", None)
        .await
        .expect("tools/list");
    session.close().await;

    let frames = keep.frames();
    let answer = frames
        .iter()
        .filter(|f| f.direction == Direction::Out)
        .filter_map(|f| f.json())
        .find(|m| m["id"] == "roots-1");
    assert_eq!(
        answer.map(|m| m["result"].clone()),
        Some(json!({"roots": [{"uri": "file:///srv/root", "name": "root"}]})),
        "our answer to roots/list went out\n{}",
        keep.dump()
    );
    // And the server read it before its stdin closed.
    assert!(
        frames.iter().any(|f| f.kind == FrameKind::StderrLine
            && f.text().starts_with("roots/list answered: ")
            && f.text().contains("file:///srv/root")),
        "the server got the answer\n{}",
        keep.dump()
    );
    assert!(
        !keep
            .warnings()
            .iter()
            .any(|w| w.contains("could not answer")),
        "{}",
        keep.dump()
    );
}

#[tokio::test]
async fn close_gives_up_on_an_answer_that_never_comes_and_names_it() {
    let (session, keep) = connect(None).await;
    session
        .request("tools/list", None)
        .await
        .expect("tools/list");
    // Wait until the server's request is in, so there is something unanswered to name.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !keep
        .frames()
        .iter()
        .any(|f| f.direction == Direction::In && f.text().contains("roots/list"))
    {
        assert!(Instant::now() < deadline, "no roots/list\n{}", keep.dump());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Bounded: a responder that never finishes must not hang the caller. (The bound is the
    // engine's 2 s grace plus the process shutdown; 30 s only catches a hang.)
    tokio::time::timeout(Duration::from_secs(30), session.close())
        .await
        .expect("close() returned");
    let warnings = keep.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("roots/list") && w.contains("roots-1") && w.contains("unanswered")),
        "close named what it left unanswered\n{}",
        keep.dump()
    );
    assert!(
        !keep
            .frames()
            .iter()
            .any(|f| f.direction == Direction::Out && f.text().contains("roots-1")),
        "{}",
        keep.dump()
    );
}
