//! Tasks, both forms: the 2025-11-25 core `tasks/*` (legacy) and the 2026-07-28
//! `io.modelcontextprotocol/tasks` extension (modern), as the Tasks screen shows them.
//!
//! The inspector remembers every task a `tools/call` of any view created ([`learn`], called by
//! the one call path in `conn.rs`), and every task a `tasks/list` or `tasks/get` told it of, per
//! server, in a [`Registry`]. A task it created is followed by a poller (`poll.rs`) at the
//! server's `pollInterval` / `pollIntervalMs`, bounded to [`MIN_POLL`]..[`MAX_POLL`], each
//! `tasks/get` within [`POLL_TIMEOUT`]; when the task ends, its result is fetched (legacy
//! `tasks/result`; modern: inlined in `tasks/get`). Views read the registry (cheap, no wire) with
//! a version number, so polling the view does not poll the server; they act through `ops.rs`
//! (list, get, result, cancel, run a tool as a task), each with a history entry.
//!
//! Every change is pushed as one `tasks` event ([`TasksEvent`]: the server and its new version),
//! coalesced to at most one per server every [`PUSH_EVERY`] — a `tasks/list` of 10,000 tasks is
//! one event, not 10,000, so it cannot flush the event ring. A view that hears it reads only what
//! changed since the version it holds (`Inspector::tasks_changed`).
//!
//! What a server sends is kept as sent: an invented status is shown as is (`knownStatus:
//! false`), a `ttl` of null is "unlimited", a huge result is kept whole for download and sent
//! to a view only up to [`INLINE_RESULT`] bytes.

mod ops;
mod poll;
mod shape;

pub use ops::{RunTask, TaskRun};
pub use shape::{Polling, TaskDetail, TaskProgress, TaskSupport, TaskView, TasksPage};

use crate::events::{Event, EventBus};
use crate::state::Inspector;
use serde::Serialize;
use serde_json::Value;
use shape::Tracked;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use ts_rs::TS;

/// Never poll faster than this, whatever the server asks (a `pollInterval` of 0 included).
pub const MIN_POLL: Duration = Duration::from_millis(250);
/// Never wait longer than this between polls (a `pollInterval` of 10^12 ms would mean never).
pub const MAX_POLL: Duration = Duration::from_secs(30);
/// The poll interval when the server names none.
pub const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// A `tasks/get` unanswered this long counts as a failed poll (a server that stopped answering).
pub const POLL_TIMEOUT: Duration = Duration::from_secs(10);
/// Failed polls in a row after which the poller stops and says why.
pub const POLL_FAILURES: u32 = 3;
/// How long a task is followed at most (a status the server invented never ends).
pub const MAX_FOLLOW: Duration = Duration::from_secs(3600);
/// Tasks kept per server; beyond this (a server listing more) they are counted, not kept.
pub const MAX_TASKS: usize = 50_000;
/// A result larger than this (as JSON text) is sent to a view as a preview of this many bytes;
/// the whole of it is a download.
pub const INLINE_RESULT: usize = crate::request::RESULT_CAP;

/// At most one `tasks` event per server this often (changes in between are one event).
pub const PUSH_EVERY: Duration = Duration::from_millis(100);

/// `tasks`: a server's tasks changed; read what changed since the version you hold.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TasksEvent {
    /// The server.
    pub server: String,
    /// Its tasks' version now (`TasksPage::version`).
    pub version: u64,
}

/// The tasks of every server, by server name, and where their changes are pushed.
pub(crate) struct Registry {
    servers: Arc<Mutex<HashMap<String, ServerTasks>>>,
    bus: Option<Arc<EventBus>>,
    /// Servers whose `tasks` event is due (a timer runs for each).
    due: Arc<Mutex<HashSet<String>>>,
}

impl Default for Registry {
    /// A registry that pushes nothing (unit tests).
    fn default() -> Self {
        Registry {
            servers: Default::default(),
            bus: None,
            due: Default::default(),
        }
    }
}

/// One server's tasks, in the order the inspector first heard of them.
#[derive(Default)]
pub(crate) struct ServerTasks {
    /// Bumped by every change, so a view asks "anything new since N?".
    pub version: u64,
    pub order: Vec<String>,
    pub tasks: HashMap<String, Tracked>,
    /// Tasks a server reported beyond [`MAX_TASKS`].
    pub omitted: u64,
    /// The version at which tasks were last dismissed: a delta from before it cannot say
    /// what went, so a view holding an older version reads everything.
    pub forgot: u64,
    /// Ended tasks the user dismissed (at most [`MAX_TASKS`]): a `tasks/list` does not bring
    /// them back; a Get by id does.
    pub dismissed: HashSet<String>,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Registry {
    /// A registry whose changes are pushed on `bus` as `tasks` events.
    pub(crate) fn new(bus: Arc<EventBus>) -> Registry {
        Registry {
            bus: Some(bus),
            ..Registry::default()
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, ServerTasks>> {
        locked(&self.servers)
    }

    /// `server`'s tasks changed: its `tasks` event goes out within [`PUSH_EVERY`], once for
    /// every change until then. Outside a runtime (nothing to time it) it goes out at once.
    fn push(&self, server: &str) {
        let Some(bus) = self.bus.clone() else { return };
        if !locked(&self.due).insert(server.to_string()) {
            return;
        }
        let (servers, due, server) = (self.servers.clone(), self.due.clone(), server.to_string());
        let publish = move || {
            locked(&due).remove(&server);
            let version = locked(&servers).get(&server).map_or(0, |s| s.version);
            bus.publish(Event::Tasks(TasksEvent { server, version }));
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(async move {
                    tokio::time::sleep(PUSH_EVERY).await;
                    publish();
                });
            }
            Err(_) => publish(),
        }
    }

    /// Change `server`'s task `id` (created when absent, unless the server is full) and bump the
    /// version. False when the task is not kept (over [`MAX_TASKS`]).
    pub(crate) fn update(&self, server: &str, id: &str, change: impl FnOnce(&mut Tracked)) -> bool {
        let mut all = self.lock();
        let st = all.entry(server.to_string()).or_default();
        if !st.tasks.contains_key(id) {
            if st.order.len() >= MAX_TASKS {
                st.omitted += 1;
                st.version += 1;
                drop(all);
                self.push(server);
                return false;
            }
            st.order.push(id.to_string());
            st.tasks.insert(id.to_string(), Tracked::new(id));
        }
        st.version += 1;
        let version = st.version;
        if let Some(t) = st.tasks.get_mut(id) {
            change(t);
            t.changed = version;
        }
        drop(all);
        self.push(server);
        true
    }

    /// Forget `server`'s ended tasks named in `ids`, or every ended one when `ids` is None (the
    /// Tasks screen's Dismiss and Clear History). A task not yet ended is kept: it is still
    /// followed, and dismissing it would hide work in progress. How many were forgotten.
    pub(crate) fn dismiss(&self, server: &str, ids: Option<&[String]>) -> usize {
        let mut all = self.lock();
        let Some(st) = all.get_mut(server) else {
            return 0;
        };
        let ended =
            |t: &Tracked, id: &String| t.view.terminal && ids.is_none_or(|ids| ids.contains(id));
        let gone: Vec<String> = st
            .order
            .iter()
            .filter(|id| st.tasks.get(*id).is_some_and(|t| ended(t, id)))
            .cloned()
            .collect();
        if gone.is_empty() {
            return 0;
        }
        for id in &gone {
            st.tasks.remove(id);
            if st.dismissed.len() < MAX_TASKS {
                st.dismissed.insert(id.clone());
            }
        }
        st.order.retain(|id| st.tasks.contains_key(id));
        st.version += 1;
        st.forgot = st.version;
        drop(all);
        self.push(server);
        gone.len()
    }

    /// Whether the user dismissed `server`'s task `id`.
    pub(crate) fn dismissed(&self, server: &str, id: &str) -> bool {
        self.lock()
            .get(server)
            .is_some_and(|s| s.dismissed.contains(id))
    }

    /// `id` was asked for by hand: it may be listed again.
    pub(crate) fn undismiss(&self, server: &str, id: &str) {
        if let Some(s) = self.lock().get_mut(server) {
            s.dismissed.remove(id);
        }
    }

    /// A copy of `server`'s task `id`.
    pub(crate) fn get(&self, server: &str, id: &str) -> Option<Tracked> {
        self.lock()
            .get(server)
            .and_then(|s| s.tasks.get(id).cloned())
    }
}

/// The id of the task a `tools/call` result created, if it did: modern `resultType: "task"`
/// with `taskId`; legacy `{task: {taskId}}`.
pub(crate) fn created_task(result: &Value) -> Option<(&str, &Value)> {
    if mcpscope_proto::era::result_type(result) == "task" {
        return result
            .get("taskId")
            .and_then(Value::as_str)
            .map(|id| (id, result));
    }
    let task = result.get("task")?;
    task.get("taskId")
        .and_then(Value::as_str)
        .map(|id| (id, task))
}

/// A `tools/call` of any view ended: when its result is a task, remember it and follow it.
pub(crate) fn learn(
    app: &Arc<Inspector>,
    server: &str,
    call: &crate::request::Call,
    request_id: &str,
    history_id: i64,
    result: &Result<Value, crate::Error>,
) {
    if call.method != "tools/call" {
        return;
    }
    let Ok(result) = result else { return };
    let Some((id, task)) = created_task(result) else {
        return;
    };
    let tool = call
        .params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let generation = app.slots().get(server).map(|s| s.st().generation);
    app.tasks.update(server, id, |t| {
        t.merge(task);
        t.view.source = "created";
        t.view.tool = tool;
        t.view.history_id = Some(history_id);
        t.view.request_id = Some(request_id.to_string());
        t.generation = generation;
    });
    poll::follow(app, server, id);
}

/// A legacy task's progress notification (after its request was answered with the task): kept
/// on the task, so the Tasks screen draws its bar. A task the inspector does not know is not
/// created for it (a server's progress cannot invent tasks).
pub(crate) fn progressed(app: &Inspector, server: &str, id: &str, progress: TaskProgress) {
    if app.tasks.get(server, id).is_some() {
        app.tasks
            .update(server, id, |t| t.view.progress = Some(progress));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_created_task_is_found_in_each_era_s_shape() {
        let modern = json!({"resultType": "task", "taskId": "m1", "status": "working"});
        assert_eq!(created_task(&modern).map(|t| t.0), Some("m1"));
        let legacy = json!({"task": {"taskId": "l1", "status": "working"}});
        assert_eq!(created_task(&legacy).map(|t| t.0), Some("l1"));
        assert_eq!(created_task(&json!({"content": []})), None);
        // A task without a string id is not a task we can follow.
        assert_eq!(created_task(&json!({"task": {"taskId": 7}})), None);
    }

    #[test]
    fn a_server_reporting_more_tasks_than_kept_is_counted() {
        let r = Registry::default();
        for i in 0..MAX_TASKS + 3 {
            r.update("s", &format!("t{i}"), |_| {});
        }
        let all = r.lock();
        assert_eq!(all["s"].order.len(), MAX_TASKS);
        assert_eq!(all["s"].omitted, 3);
    }

    #[test]
    fn dismissing_forgets_only_ended_tasks_and_a_list_does_not_bring_them_back() {
        let r = Registry::default();
        r.update("s", "done", |t| {
            t.merge(&serde_json::json!({"status": "completed"}))
        });
        r.update("s", "gone", |t| {
            t.merge(&serde_json::json!({"status": "cancelled"}))
        });
        r.update("s", "busy", |t| {
            t.merge(&serde_json::json!({"status": "working"}))
        });
        assert_eq!(r.dismiss("s", Some(&["done".into(), "busy".into()])), 1);
        assert!(r.get("s", "done").is_none() && r.get("s", "busy").is_some());
        assert!(r.dismissed("s", "done"));
        assert_eq!(r.dismiss("s", None), 1, "clear history: every ended one");
        let all = r.lock();
        assert_eq!(all["s"].order, ["busy"]);
        assert_eq!(all["s"].forgot, all["s"].version);
    }

    #[tokio::test]
    async fn a_burst_of_changes_is_one_tasks_event_per_server() {
        let bus = Arc::new(EventBus::new());
        let r = Registry::new(bus.clone());
        for i in 0..10_000 {
            r.update("a", &format!("t{i}"), |_| {});
        }
        r.update("b", "x", |_| {});
        assert_eq!(bus.last_id(), 0, "nothing before {PUSH_EVERY:?}");
        tokio::time::sleep(PUSH_EVERY * 3).await;
        let (events, _) = bus.since(1, 100);
        let mut bodies: Vec<String> = events.iter().map(|e| e.data.clone()).collect();
        bodies.sort();
        assert_eq!(
            bodies,
            [
                r#"{"server":"a","version":10000}"#,
                r#"{"server":"b","version":1}"#
            ]
        );
        // A later change is pushed again.
        r.update("a", "t0", |_| {});
        tokio::time::sleep(PUSH_EVERY * 3).await;
        let (events, _) = bus.since(3, 100);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].name, "tasks");
    }
}
