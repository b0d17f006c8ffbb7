//! A message sent outside the session, on a connection of its own: what a check needs when the
//! session's engine would not send it — an `initialize` asking a version no one speaks, a request
//! whose headers disagree with its body. The frames go to the era's recorder, numbered by the
//! same counter as the session's, so the evidence reads as one run.

use crate::run::Cx;
use crate::verdict::Evidence;
use bytes::Bytes;
use mcpscope_proto::{Direction, RequestId};
use mcpscope_transport::{Connection, Outgoing, TransportEvent};
use serde_json::Value;
use std::time::Duration;

/// How long a probe waits for its answer: four times what the era's own connect took, plus 5 s,
/// within 10–30 s. A probe's connection starts the server afresh (a process, for stdio), and a
/// Python server's start under load has taken 10 s, which a fixed wait took for silence.
fn probe_wait(connected_in: Duration) -> Duration {
    (connected_in * 4 + Duration::from_secs(5))
        .clamp(Duration::from_secs(10), Duration::from_secs(30))
}

/// What a probe got back.
pub(crate) struct Probed {
    /// The JSON-RPC message that answered the probe's id, if one did.
    pub(crate) message: Option<Value>,
    /// The HTTP status of the answer (HTTP only).
    pub(crate) status: Option<u16>,
    /// The frames of the exchange.
    pub(crate) evidence: Vec<Evidence>,
    /// Why there was no answer, when there was none.
    pub(crate) failure: Option<String>,
}

/// Send `body` (a request with `id`) on a new connection with these HTTP `headers` (ignored on
/// stdio), wait for its answer, close.
pub(crate) async fn exchange(cx: &Cx, body: &Value, headers: Vec<(String, String)>) -> Probed {
    let mark = cx.rec.mark();
    let mut probed = Probed {
        message: None,
        status: None,
        evidence: Vec::new(),
        failure: None,
    };
    let (conn, mut events) =
        match Connection::open(&cx.opts.target, &cx.opts.client.transport).await {
            Ok(c) => c,
            Err(e) => {
                probed.failure = Some(format!("could not open a second connection: {e}"));
                return probed;
            }
        };
    let id = body.get("id").and_then(RequestId::from_value);
    let out = Outgoing {
        body: Bytes::from(body.to_string()),
        id: id.clone(),
        headers,
    };
    if let Err(e) = conn.send(out).await {
        probed.failure = Some(format!("sending failed: {e}"));
    }
    let limit = probe_wait(cx.connected_in);
    let wait = tokio::time::timeout(limit, async {
        while let Some(event) = events.recv().await {
            match event {
                TransportEvent::Frame(mut frame) => {
                    frame.seq = cx.next_frame();
                    cx.rec.keep(&frame);
                    if frame.direction != Direction::In {
                        continue;
                    }
                    if frame.meta.status.is_some() {
                        probed.status = frame.meta.status;
                    }
                    let Ok(msg) = serde_json::from_slice::<Value>(&frame.body) else {
                        continue;
                    };
                    if msg.get("id") == body.get("id") && msg.get("method").is_none() {
                        probed.message = Some(msg);
                        return;
                    }
                }
                TransportEvent::Failed { error, .. } => {
                    probed.failure = Some(error.to_string());
                    return;
                }
                TransportEvent::Closed { reason } => {
                    probed.failure = Some(format!("the connection closed: {reason}"));
                    return;
                }
            }
        }
    })
    .await;
    if wait.is_err() && probed.message.is_none() {
        probed.failure = Some(format!("no answer within {} s", limit.as_secs()));
    }
    // A probe's server has nothing left to say to us: a stdio one that lingers after stdin closes
    // (server-everything waits on its roots/list timer) would hold the run for the whole grace.
    conn.hurry_close("the check's probe is done");
    conn.close().await;
    probed.evidence = cx.rec.since(mark, 4);
    probed
}

#[cfg(test)]
mod tests {
    use super::probe_wait;
    use std::time::Duration;

    #[test]
    fn a_probe_waits_longer_for_a_server_slow_to_start_within_bounds() {
        assert_eq!(
            probe_wait(Duration::from_millis(50)),
            Duration::from_secs(10)
        );
        assert_eq!(probe_wait(Duration::from_secs(3)), Duration::from_secs(17));
        assert_eq!(probe_wait(Duration::from_secs(60)), Duration::from_secs(30));
    }
}
