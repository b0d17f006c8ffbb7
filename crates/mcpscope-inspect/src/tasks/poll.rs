//! Following a task: `tasks/get` at the server's poll interval (bounded), until the task ends,
//! the server forgets it, stops answering, or the connection ends — each said in the task's
//! `polling` so the screen shows why it stopped. Polls have no history entry (one every few
//! hundred milliseconds would bury the user's own requests); their frames are in the traffic.

use super::{DEFAULT_POLL, MAX_FOLLOW, MAX_POLL, MIN_POLL, POLL_FAILURES, POLL_TIMEOUT};
use crate::state::Inspector;
use crate::views::Status;
use mcpscope_client::{ClientError, RequestOptions, Session};
use mcpscope_proto::era::Era;
use serde_json::{Value, json};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// The interval to poll at for a server's `pollInterval` value, and why it differs if it does.
pub(crate) fn interval(asked: Option<&Value>) -> (Duration, Option<String>) {
    let Some(asked) = asked.filter(|v| !v.is_null()) else {
        return (DEFAULT_POLL, None);
    };
    let Some(ms) = asked.as_f64().filter(|ms| ms.is_finite()) else {
        return (
            DEFAULT_POLL,
            Some(format!(
                "the server's poll interval {asked} is not a number"
            )),
        );
    };
    let (lo, hi) = (MIN_POLL.as_millis() as f64, MAX_POLL.as_millis() as f64);
    if ms < lo {
        (
            MIN_POLL,
            Some(format!(
                "the server asks for {ms} ms; never faster than {lo} ms"
            )),
        )
    } else if ms > hi {
        (
            MAX_POLL,
            Some(format!(
                "the server asks for {ms} ms; never slower than {hi} ms"
            )),
        )
    } else {
        (Duration::from_millis(ms as u64), None)
    }
}

/// Start following `server`'s task `id`, unless it is terminal or already followed.
pub(crate) fn follow(app: &Arc<Inspector>, server: &str, id: &str) {
    let Some((session, generation)) = connected(app, server) else {
        return;
    };
    let mut start = false;
    app.tasks.update(server, id, |t| {
        if !t.followed && !t.view.terminal && t.went_back.is_none() {
            t.followed = true;
            t.generation = Some(generation);
            start = true;
        }
    });
    if start {
        let app = Arc::downgrade(app);
        tokio::spawn(run(
            app,
            server.to_string(),
            id.to_string(),
            session,
            generation,
        ));
    }
}

/// The server's session and connection number, when it is connected.
pub(crate) fn connected(app: &Inspector, server: &str) -> Option<(Session, u64)> {
    let slot = app.slots().get(server).cloned()?;
    let st = slot.st();
    match (&st.session, st.status) {
        (Some(s), Some(Status::Connected)) => Some((s.clone(), st.generation)),
        _ => None,
    }
}

/// How one poll went.
enum Step {
    /// Poll again after this long.
    Again(Duration),
    /// Stop, with why (None: the task ended and its result is in).
    Stop(Option<String>),
}

async fn run(app: Weak<Inspector>, server: String, id: String, session: Session, generation: u64) {
    let started = Instant::now();
    let mut failures = 0u32;
    let mut answered = Vec::new();
    let mut round = 0usize;
    let mut wait = first_wait(&app, &server, &id);
    loop {
        tokio::time::sleep(wait).await;
        let Some(app) = app.upgrade() else { return };
        let step = if connected(&app, &server).map(|c| c.1) != Some(generation) {
            Step::Stop(Some("the connection ended".into()))
        } else if started.elapsed() > MAX_FOLLOW {
            Step::Stop(Some(format!(
                "followed for {} min without an end; use Get to poll it by hand",
                MAX_FOLLOW.as_secs() / 60
            )))
        } else {
            let r = poll_once(&app, &server, &id, &session).await;
            match r {
                Ok(task) => {
                    failures = 0;
                    after_poll(
                        &app,
                        &server,
                        &id,
                        &session,
                        &task,
                        &mut answered,
                        &mut round,
                    )
                    .await
                }
                Err(e) => failed(&server, &id, &app, &e, &mut failures, wait),
            }
        };
        match step {
            Step::Again(d) => wait = d,
            Step::Stop(reason) => {
                app.tasks.update(&server, &id, |t| {
                    t.followed = false;
                    t.view.polling.every_ms = None;
                    t.view.polling.state = if reason.is_some() { "stopped" } else { "done" };
                    if reason.is_some() {
                        t.view.polling.reason = reason;
                    }
                });
                return;
            }
        }
    }
}

/// The first wait: the interval the task that created it asked for.
fn first_wait(app: &Weak<Inspector>, server: &str, id: &str) -> Duration {
    let Some(app) = app.upgrade() else {
        return DEFAULT_POLL;
    };
    let asked = app
        .tasks
        .get(server, id)
        .and_then(|t| t.view.poll_interval_ms);
    let (every, reason) = interval(asked.as_ref());
    app.tasks.update(server, id, |t| {
        t.view.polling.state = "polling";
        t.view.polling.every_ms = Some(every.as_millis() as u64);
        t.view.polling.reason = reason;
    });
    every
}

/// One `tasks/get`, within [`POLL_TIMEOUT`].
async fn poll_once(
    app: &Inspector,
    server: &str,
    id: &str,
    session: &Session,
) -> Result<Value, ClientError> {
    app.tasks.update(server, id, |t| t.view.polling.polls += 1);
    let opts = RequestOptions {
        timeout: Some(Some(POLL_TIMEOUT)),
        ..Default::default()
    };
    session
        .request_with("tasks/get", Some(json!({"taskId": id})), &opts)
        .await
}

/// A poll answered: keep what it said; answer modern questions; fetch a legacy result at the
/// end; else poll again at the interval it asks for now.
async fn after_poll(
    app: &Arc<Inspector>,
    server: &str,
    id: &str,
    session: &Session,
    task: &Value,
    answered: &mut Vec<String>,
    round: &mut usize,
) -> Step {
    app.tasks.update(server, id, |t| t.merge(task));
    let status = task.get("status").and_then(Value::as_str).unwrap_or("");
    if super::shape::is_terminal(status) {
        if session.era() == Era::Legacy {
            super::ops::fetch_result(app, server, id).await;
        }
        return Step::Stop(None);
    }
    if session.era() == Era::Modern && status == "input_required" {
        // The questions wait for a view (the interaction queue); the poll waits with them.
        if let Err(e) = session.answer_task_inputs(id, task, answered, round).await {
            app.tasks.update(server, id, |t| {
                t.view
                    .problems
                    .push(format!("answering the task's questions failed: {e}"));
            });
        }
    }
    let (every, reason) = interval(
        task.get("pollIntervalMs")
            .or_else(|| task.get("pollInterval")),
    );
    app.tasks.update(server, id, |t| {
        t.view.polling.state = "polling";
        t.view.polling.every_ms = Some(every.as_millis() as u64);
        t.view.polling.reason = reason;
    });
    Step::Again(every)
}

/// A poll failed: the server forgot the task (stop), or did not answer (back off, stop after
/// [`POLL_FAILURES`] in a row).
fn failed(
    server: &str,
    id: &str,
    app: &Inspector,
    e: &ClientError,
    failures: &mut u32,
    wait: Duration,
) -> Step {
    if let ClientError::Rpc { error, .. } = e
        && error.code == -32602
    {
        return Step::Stop(Some(format!(
            "the server no longer knows this task (tasks/get: {} {}): it expired or never existed",
            error.code, error.message
        )));
    }
    *failures += 1;
    if *failures >= POLL_FAILURES {
        return Step::Stop(Some(format!(
            "tasks/get failed {POLL_FAILURES} times in a row, last: {e}; use Get to try again"
        )));
    }
    let backoff = (wait * 2).min(MAX_POLL);
    app.tasks.update(server, id, |t| {
        t.view.polling.every_ms = Some(backoff.as_millis() as u64);
        t.view.polling.reason = Some(format!("tasks/get failed ({e}); backing off"));
    });
    Step::Again(backoff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_interval_is_bounded_and_the_bound_named() {
        assert_eq!(
            interval(Some(&json!(500))),
            (Duration::from_millis(500), None)
        );
        let (d, why) = interval(Some(&json!(0)));
        assert_eq!(d, MIN_POLL);
        assert!(why.unwrap().contains("never faster"));
        let (d, why) = interval(Some(&json!(1_000_000_000_000u64)));
        assert_eq!(d, MAX_POLL);
        assert!(why.unwrap().contains("never slower"));
        assert_eq!(interval(None).0, DEFAULT_POLL);
        assert_eq!(interval(Some(&json!("soon"))).0, DEFAULT_POLL);
        assert_eq!(interval(Some(&json!(-5))).0, MIN_POLL);
    }
}
