//! Performing effects: each [`Effect`] the reducer returns becomes a call on the inspector core,
//! run on its own task so the screen never waits on a server; its answer comes back as
//! [`Msg::Done`]. Terminal-side effects (the clipboard, the browser) are the loop's.

use crate::msg::{Done, Effect, Failure, Msg, Route};
use mcpscope_inspect::{FramePage, Inspector};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// Start `effect` against `inspector`; its answer goes to `tx`. `Copy`, `OpenUrl` and `Quit` are
/// not for here (the loop keeps them) and are ignored.
pub fn perform(inspector: &Arc<Inspector>, effect: Effect, tx: &UnboundedSender<Msg>) {
    let i = inspector.clone();
    let tx = tx.clone();
    match effect {
        Effect::Cancel { request_id } => {
            i.cancel(&request_id);
        }
        Effect::Answer { id, answer } => {
            // A question that closed meanwhile (its deadline, a disconnect) is not an error the
            // user can act on: its `interactionClosed` event says what happened.
            let _ = i.answer_interaction(id, answer);
        }
        Effect::AnswerWithProfile { id } => {
            let _ = i.answer_with_profile(id);
        }
        Effect::Copy(_)
        | Effect::OpenUrl(_)
        | Effect::Quit
        | Effect::Goto { .. }
        | Effect::Toast { .. }
        | Effect::ShowPager(_) => {}
        other => {
            tokio::spawn(async move {
                let (route, was_call, result) = run(&i, other).await;
                let _ = tx.send(Msg::Done(Done {
                    route,
                    result: result.map_err(|e| Failure::of(&e)),
                    was_call,
                }));
            });
        }
    }
}

/// Run one effect that answers; its route, whether it was a call, and the answer.
async fn run(i: &Arc<Inspector>, effect: Effect) -> (Route, bool, mcpscope_inspect::Result<Value>) {
    match effect {
        Effect::Connect { route, era } => {
            let r = i.connect(&route.server, era).await;
            (route, false, r)
        }
        Effect::Disconnect { route } => {
            let r = i.disconnect(&route.server).await.map(|()| Value::Null);
            (route, false, r)
        }
        Effect::SetEra { route, era } => {
            let r = i.set_protocol_era(&route.server, &era).await;
            (route, false, r)
        }
        Effect::ServerInfo { route } => {
            let r = i.server_info(&route.server);
            (route, false, r)
        }
        Effect::Call { route, call } => {
            let out = i.call(&route.server, call).await;
            (route, true, out.map(call_value))
        }
        Effect::SetLogLevel { route, level } => {
            let r = i.set_log_level(&route.server, &level).await;
            (route, false, r)
        }
        Effect::FrameBody { route, seq } => {
            let r = i.frame_body(&route.server, seq).await.map(|b| {
                json!({
                    "seq": seq,
                    "json": b.json,
                    "text": String::from_utf8_lossy(&b.bytes),
                    "size": b.bytes.len(),
                })
            });
            (route, false, r)
        }
        Effect::Frames {
            route,
            before,
            limit,
        } => {
            let q = FramePage {
                before,
                limit: Some(limit),
                ..Default::default()
            };
            let r = i.frames(&route.server, q).await.map(|frames| {
                Value::Array(
                    frames
                        .iter()
                        .filter_map(|f| serde_json::from_str(f).ok())
                        .collect(),
                )
            });
            (route, false, r)
        }
        Effect::History { route, query } => {
            let r = i
                .history(query)
                .await
                .map(|p| json!({"entries": p.entries, "nextBefore": p.next_before}));
            (route, false, r)
        }
        Effect::HistoryEntry { route, id } => {
            let r = i.history_entry(id).await;
            (route, false, r)
        }
        Effect::Pin { route, id, pin } => {
            let r = match pin {
                Some(label) => i.pin(id, Some(label).filter(|l| !l.is_empty())).await,
                None => i.unpin(id).await,
            };
            (route, false, r)
        }
        Effect::Run { route, job } => {
            let r = (job.0)(i.clone()).await;
            (route, false, r)
        }
        Effect::SaveFile { route, path, bytes } => {
            let n = bytes.len();
            let p = path.clone();
            let r = tokio::task::spawn_blocking(move || std::fs::write(&p, &bytes))
                .await
                .map_err(|e| mcpscope_inspect::Error::internal(e.to_string()))
                .and_then(|w| {
                    w.map_err(|e| {
                        mcpscope_inspect::Error::usage(format!("cannot write {path}: {e}"))
                    })
                })
                .map(|()| json!({"path": path, "bytes": n}));
            (route, false, r)
        }
        Effect::Cancel { .. }
        | Effect::Answer { .. }
        | Effect::AnswerWithProfile { .. }
        | Effect::Copy(_)
        | Effect::OpenUrl(_)
        | Effect::Quit
        | Effect::Goto { .. }
        | Effect::Toast { .. }
        | Effect::ShowPager(_) => unreachable_effect(),
    }
}

/// The effects `perform` keeps for itself never reach `run`.
fn unreachable_effect() -> (Route, bool, mcpscope_inspect::Result<Value>) {
    (
        Route::app("", "none"),
        false,
        Err(mcpscope_inspect::Error::internal("effect run twice")),
    )
}

/// A call's outcome as the web API answers `POST /api/servers/:name/request`:
/// `{historyId, result}` or `{historyId, error}`, with `lint` and `pagination` when present.
pub fn call_value(out: mcpscope_inspect::CallOutcome) -> Value {
    let mut v = json!({"historyId": out.history_id});
    match out.result {
        Ok(r) => v["result"] = r,
        Err(e) => v["error"] = e.body(),
    }
    if let Some(l) = out.tool_lint {
        v["lint"] = serde_json::to_value(l).unwrap_or(Value::Null);
    }
    if let Some(p) = out.pagination {
        v["pagination"] = p;
    }
    if let Some(x) = out.excluded_tools {
        v["excludedTools"] = json!(x);
    }
    v
}
