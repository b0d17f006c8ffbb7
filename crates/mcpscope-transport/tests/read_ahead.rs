//! Read-ahead credit over Streamable HTTP: an SSE response that floods events stops being read
//! once `READ_AHEAD` events wait unhandled, and resumes as credit comes back — so a server that
//! floods a slow consumer (the web UI under load) fills its TCP window, not our memory.

use mcpscope_proto::RequestId;
use mcpscope_transport::{
    Connection, FrameKind, Outgoing, READ_AHEAD, Target, TransportEvent, TransportOptions,
};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const EVENTS: usize = 3 * READ_AHEAD;

/// One HTTP/1.1 exchange: read the request, answer with an SSE stream of `EVENTS`
/// notifications, then close.
async fn flooding_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        // Headers, then the body its Content-Length announces.
        loop {
            let n = sock.read(&mut buf).await.unwrap();
            request.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
            if let Some(end) = text.find("\r\n\r\n") {
                let length: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if request.len() >= end + 4 + length {
                    break;
                }
            }
        }
        sock.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        )
        .await
        .unwrap();
        for i in 0..EVENTS {
            let ev = format!(
                "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":{i}}}}}\n\n"
            );
            if sock.write_all(ev.as_bytes()).await.is_err() {
                return;
            }
        }
        let _ = sock.shutdown().await;
    });
    format!("http://{addr}/mcp")
}

/// SSE events received until `want` have arrived (within 60 s, however loaded the machine),
/// then any more that arrive within `quiet` of each other.
async fn drain(events: &mut mcpscope_transport::Events, want: usize, quiet: Duration) -> usize {
    let mut n = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let wait = if n < want {
            deadline.saturating_duration_since(tokio::time::Instant::now())
        } else {
            quiet
        };
        match tokio::time::timeout(wait, events.recv()).await {
            Ok(Some(ev)) => {
                if matches!(&ev, TransportEvent::Frame(f) if f.kind == FrameKind::SseEvent) {
                    n += 1;
                }
            }
            _ => return n,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sse_flood_waits_for_credit() {
    let url = flooding_server().await;
    let target = Target::Http {
        url,
        headers: vec![],
    };
    let (conn, mut events) = Connection::open(&target, &TransportOptions::default())
        .await
        .unwrap();
    conn.send(Outgoing {
        body: bytes::Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood"}}"#,
        ),
        id: Some(RequestId::Number(1)),
        headers: vec![],
    })
    .await
    .unwrap();
    // Nobody gives credit back: the reader stops at READ_AHEAD events.
    let first = drain(&mut events, READ_AHEAD, Duration::from_millis(1000)).await;
    assert_eq!(first, READ_AHEAD, "events read with no credit returned");
    // Credit back for everything: the rest of the stream, intact.
    conn.read_credit().add_permits(EVENTS);
    let rest = drain(&mut events, EVENTS - first, Duration::from_millis(200)).await;
    assert_eq!(first + rest, EVENTS);
}
