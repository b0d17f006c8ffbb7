//! What a view does with tasks, each through the one call path (a history entry per request):
//! run a tool as a task, list a server's tasks, get one, get its result, cancel it; and read
//! what the inspector knows without touching the wire.

use super::shape::{TaskDetail, TaskSupport, TasksPage, Tracked};
use super::{MAX_POLL, MIN_POLL, poll};
use crate::error::{Error, Result};
use crate::request::Call;
use crate::state::Inspector;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long `tasks/result` may block (legacy: it answers when the task ends).
const RESULT_TIMEOUT: Duration = Duration::from_secs(60);
/// How many followed-but-unlisted tasks a refresh re-reads with `tasks/get` where the server
/// has no `tasks/list` (the newest first).
const REFRESH_AT_MOST: usize = 100;

/// A view's request to run a tool as a task.
#[derive(Debug, Clone, Default)]
pub struct RunTask {
    /// The tool's name.
    pub tool: String,
    /// Its arguments.
    pub arguments: Value,
    /// Legacy `params.task.ttl` (ms); the extension has none (the server chooses).
    pub ttl_ms: Option<u64>,
    /// The view's request id (to cancel the `tools/call` itself).
    pub request_id: Option<String>,
}

/// What running a tool as a task gave.
#[derive(Debug)]
pub struct TaskRun {
    /// The history entry of the `tools/call`.
    pub history_id: i64,
    /// The `tools/call` result: a task (then `task` is its detail) or, when the server chose
    /// to answer at once (modern), the tool's result.
    pub result: Result<Value>,
    /// The task it created, as the inspector now knows it.
    pub task: Option<TaskDetail>,
}

impl Inspector {
    /// What `server`'s connection can do with tasks (all false when not connected).
    pub fn task_support(&self, server: &str) -> TaskSupport {
        let slot = self.slots().get(server).cloned();
        slot.and_then(|s| {
            let st = s.st();
            st.info
                .as_ref()
                .map(|i| TaskSupport::of(i.era, &i.capabilities))
        })
        .unwrap_or_default()
    }

    /// The tasks the inspector knows of on `server`, from memory (no request). With `since`
    /// equal to the current version: `unchanged`, without the tasks.
    pub fn tasks(&self, server: &str, since: Option<u64>) -> TasksPage {
        self.tasks_page(server, since, false)
    }

    /// What changed on `server` after version `since` (a view that heard a `tasks` event):
    /// only the tasks changed since then (`delta`), or, when `since` is not a version this
    /// registry has had (a newer one: the backend restarted), every task.
    pub fn tasks_changed(&self, server: &str, since: u64) -> TasksPage {
        self.tasks_page(server, Some(since), true)
    }

    fn tasks_page(&self, server: &str, since: Option<u64>, delta: bool) -> TasksPage {
        let generation = poll::connected(self, server).map(|c| c.1);
        let all = self.tasks.lock();
        let st = all.get(server);
        let version = st.map_or(0, |s| s.version);
        let unchanged = since == Some(version);
        let forgot = st.map_or(0, |s| s.forgot);
        let after = match since {
            // A delta cannot say which tasks were dismissed after `v`: read them all.
            Some(v) if delta && v < version && v >= forgot => Some(v),
            _ => None,
        };
        let tasks = match (st, unchanged) {
            (Some(s), false) => s
                .order
                .iter()
                .filter_map(|id| s.tasks.get(id))
                .filter(|t| after.is_none_or(|v| t.changed > v))
                .map(|t| t.detail_view(generation))
                .collect(),
            _ => Vec::new(),
        };
        TasksPage {
            server: server.to_string(),
            support: self.task_support(server),
            version,
            unchanged,
            delta: after.is_some(),
            tasks,
            omitted: st.map_or(0, |s| s.omitted),
            min_poll_ms: MIN_POLL.as_millis() as u64,
            max_poll_ms: MAX_POLL.as_millis() as u64,
        }
    }

    /// One task as the inspector knows it (no request); `not_found` when it knows none.
    pub fn task(&self, server: &str, id: &str) -> Result<TaskDetail> {
        let generation = poll::connected(self, server).map(|c| c.1);
        self.tasks
            .get(server, id)
            .map(|t| t.detail(t.generation != generation))
            .ok_or_else(|| {
                Error::not_found(format!(
                    "no task {id:?} known on {server:?}; list the tasks, or Get it by id"
                ))
            })
    }

    /// Forget ended tasks of `server` (no request): those named, or every ended one (`None`).
    /// A task not yet ended is kept. The page after it, whole.
    pub fn dismiss_tasks(&self, server: &str, ids: Option<&[String]>) -> TasksPage {
        self.tasks.dismiss(server, ids);
        self.tasks(server, None)
    }

    /// The whole result of a task as JSON text (for a download).
    pub fn task_result_text(&self, server: &str, id: &str) -> Result<String> {
        let t = self.tasks.get(server, id);
        match t.and_then(|t| t.result.or(t.error)) {
            Some(v) => Ok(serde_json::to_string_pretty(&v).unwrap_or_default()),
            None => Err(Error::not_found(format!(
                "task {id:?} on {server:?} has no result yet"
            ))),
        }
    }

    /// Run `run.tool` as a task: legacy `tools/call` with `params.task` (`{ttl}`); modern, where
    /// the server decides, an ordinary `tools/call` (the tasks extension is declared on every
    /// request). A task in the answer is followed ([`super::learn`]).
    pub async fn run_task(self: &Arc<Self>, server: &str, run: RunTask) -> Result<TaskRun> {
        let support = self.task_support(server);
        let mut params = json!({"name": run.tool, "arguments": run.arguments});
        if support.era.as_deref() == Some("legacy") {
            let mut task = Map::new();
            if let Some(ttl) = run.ttl_ms {
                task.insert("ttl".into(), json!(ttl));
            }
            params["task"] = Value::Object(task);
        }
        let out = self
            .call(
                server,
                Call {
                    method: "tools/call".into(),
                    params: Some(params),
                    request_id: run.request_id,
                    // A legacy task reports progress on this token until it ends.
                    progress: true,
                    ..Call::default()
                },
            )
            .await?;
        let task = out
            .result
            .as_ref()
            .ok()
            .and_then(super::created_task)
            .and_then(|(id, _)| self.task(server, id).ok());
        Ok(TaskRun {
            history_id: out.history_id,
            result: out.result,
            task,
        })
    }

    /// `tasks/list` (every page) where the server has it; elsewhere `tasks/get` of the tasks
    /// this inspector follows or followed (the newest [`REFRESH_AT_MOST`] not yet ended).
    pub async fn list_tasks(self: &Arc<Self>, server: &str) -> Result<TasksPage> {
        let support = self.task_support(server);
        if support.era.is_none() {
            return Err(not_connected(server));
        }
        if support.list {
            let out = self
                .call(
                    server,
                    Call {
                        method: "tasks/list".into(),
                        params: Some(json!({})),
                        pages: Some("tasks".into()),
                        ..Call::default()
                    },
                )
                .await?;
            let listed = out.result?;
            self.merge_listed(server, &listed);
        } else {
            for id in self.unended(server) {
                // One that fails says so in its own row; the others are still refreshed.
                let _ = self.get_task(server, &id).await;
            }
        }
        Ok(self.tasks(server, None))
    }

    /// Keep every task of a `tasks/list` answer (those beyond the bound are counted).
    fn merge_listed(&self, server: &str, listed: &Value) {
        let generation = poll::connected(self, server).map(|c| c.1);
        let tasks = listed.get("tasks").and_then(Value::as_array);
        for t in tasks.into_iter().flatten() {
            let Some(id) = t.get("taskId").and_then(Value::as_str) else {
                continue;
            };
            if self.tasks.dismissed(server, id) {
                continue;
            }
            self.tasks.update(server, id, |x| {
                x.merge(t);
                x.generation = generation;
            });
        }
    }

    /// The newest tasks of `server` not known to have ended.
    fn unended(&self, server: &str) -> Vec<String> {
        let all = self.tasks.lock();
        let Some(s) = all.get(server) else {
            return Vec::new();
        };
        s.order
            .iter()
            .rev()
            .filter(|id| s.tasks.get(*id).is_some_and(|t| !t.view.terminal))
            .take(REFRESH_AT_MOST)
            .cloned()
            .collect()
    }

    /// `tasks/get` of `id` (any id: one typed by hand too). A task not yet ended is followed.
    pub async fn get_task(self: &Arc<Self>, server: &str, id: &str) -> Result<TaskDetail> {
        let task = self.task_call(server, "tasks/get", id, None).await?;
        self.tasks.undismiss(server, id);
        let generation = poll::connected(self, server).map(|c| c.1);
        self.tasks.update(server, id, |t| {
            if t.view.source == "listed" && t.raw.is_null() {
                t.view.source = "fetched";
            }
            t.merge(&task);
            t.generation = generation;
        });
        poll::follow(self, server, id);
        self.task(server, id)
    }

    /// The task's result: legacy `tasks/result` (it answers when the task ends, within
    /// [`RESULT_TIMEOUT`]); modern `tasks/get`, whose answer carries it once the task ended.
    pub async fn task_result(self: &Arc<Self>, server: &str, id: &str) -> Result<TaskDetail> {
        match self.task_support(server).era.as_deref() {
            Some("legacy") => {
                let r = self
                    .task_call(server, "tasks/result", id, Some(RESULT_TIMEOUT))
                    .await;
                self.keep_result(server, id, r)?;
                self.task(server, id)
            }
            Some(_) => self.get_task(server, id).await,
            None => Err(not_connected(server)),
        }
    }

    /// `tasks/cancel`; legacy answers with the task, modern with nothing (a `tasks/get` then
    /// says where it stands).
    pub async fn cancel_task(self: &Arc<Self>, server: &str, id: &str) -> Result<TaskDetail> {
        let answer = self.task_call(server, "tasks/cancel", id, None).await?;
        if answer.get("status").is_some() {
            self.tasks.update(server, id, |t| t.merge(&answer));
            return self.task(server, id);
        }
        self.get_task(server, id).await
    }

    /// A `tasks/*` request about `id`, with a history entry.
    async fn task_call(
        self: &Arc<Self>,
        server: &str,
        method: &str,
        id: &str,
        timeout: Option<Duration>,
    ) -> Result<Value> {
        let out = self
            .call(
                server,
                Call {
                    method: method.into(),
                    params: Some(json!({"taskId": id})),
                    timeout: timeout.map(Some),
                    ..Call::default()
                },
            )
            .await?;
        out.result
    }

    /// Keep what `tasks/result` answered: the result, or the error in its place.
    fn keep_result(&self, server: &str, id: &str, r: Result<Value>) -> Result<()> {
        let known = self.tasks.get(server, id).is_some();
        match r {
            Ok(v) => {
                self.tasks.update(server, id, |t| t.set_result(v));
                Ok(())
            }
            // A JSON-RPC error is the task's outcome (a failed or cancelled task).
            Err(e) if known && e.code == mcpscope_proto::error_code::ErrorCode::RpcError => {
                self.tasks.update(server, id, |t| {
                    t.view.has_error = true;
                    t.error = Some(e.body());
                });
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// Legacy: the poller saw the task end; fetch its result (errors are kept as the outcome).
pub(crate) async fn fetch_result(app: &Arc<Inspector>, server: &str, id: &str) {
    let r = app
        .task_call(server, "tasks/result", id, Some(RESULT_TIMEOUT))
        .await;
    if let Err(e) = app.keep_result(server, id, r) {
        app.tasks.update(server, id, |t| {
            t.view
                .problems
                .push(format!("tasks/result failed: {}", e.message));
        });
    }
}

fn not_connected(server: &str) -> Error {
    Error::not_found(format!(
        "server {server:?} is not connected; connect it first"
    ))
}

impl Tracked {
    /// The list row, `stale` when heard of on another connection than `generation`.
    fn detail_view(&self, generation: Option<u64>) -> super::TaskView {
        let mut v = self.view.clone();
        v.stale = self.generation != generation;
        v
    }
}
