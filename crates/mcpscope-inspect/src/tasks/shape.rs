//! What the inspector keeps of a task ([`Tracked`]) and what a view gets ([`TaskView`] in the
//! list, [`TaskDetail`] for one): both eras' `Task` read into one shape, leniently — a field of
//! the wrong type is noted in `problems`, a status outside the spec's five kept as sent.

use super::INLINE_RESULT;
use serde::Serialize;
#[cfg(test)]
use serde_json::json;
use serde_json::{Map, Value};
use ts_rs::TS;

/// The statuses of both revisions' `TaskStatus`.
const STATUSES: &[&str] = &[
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];
/// The statuses after which a task never changes.
const TERMINAL: &[&str] = &["completed", "failed", "cancelled"];

/// Whether `status` is one after which a task never changes.
pub(crate) fn is_terminal(status: &str) -> bool {
    TERMINAL.contains(&status)
}

/// How the inspector follows a task.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "TaskPolling")]
pub struct Polling {
    /// `polling`, `done` (terminal, result fetched), `stopped` (see `reason`), or `idle` (a
    /// task a list reported: refreshed when asked, not followed).
    #[ts(type = "'polling' | 'done' | 'stopped' | 'idle'")]
    pub state: &'static str,
    /// The interval in use (the server's, bounded), while polling.
    pub every_ms: Option<u64>,
    /// Why the interval differs from the server's, or why polling stopped.
    pub reason: Option<String>,
    /// `tasks/get` polls sent so far.
    pub polls: u64,
}

/// A task's last progress notification.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskProgress {
    /// `progress`.
    pub progress: f64,
    /// `total`, if given.
    pub total: Option<f64>,
    /// `message`, if given.
    pub message: Option<String>,
}

/// One task as a list shows it.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    /// `taskId`.
    pub task_id: String,
    /// As the server sent it (`""` when it sent none).
    pub status: String,
    /// One of the spec's five statuses; false: the server invented it.
    pub known_status: bool,
    /// `completed`, `failed` or `cancelled`: it will not change again.
    pub terminal: bool,
    /// `statusMessage`.
    pub status_message: Option<String>,
    /// `createdAt` (ISO 8601, as sent).
    pub created_at: Option<String>,
    /// `lastUpdatedAt`.
    pub last_updated_at: Option<String>,
    /// `ttl` (legacy) or `ttlMs` (modern) as sent: a number of ms, null (unlimited), or absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ttl_ms: Option<Value>,
    /// `pollInterval` (legacy) or `pollIntervalMs` (modern) as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub poll_interval_ms: Option<Value>,
    /// How the inspector follows it.
    pub polling: Polling,
    /// `created` (by a `tools/call` of this inspector), `listed` (`tasks/list`), `fetched`
    /// (`tasks/get` of an id typed by hand).
    #[ts(type = "'created' | 'listed' | 'fetched'")]
    pub source: &'static str,
    /// The tool whose call created it.
    pub tool: Option<String>,
    /// The history entry of that call, and the view's request id for it (its progress).
    pub history_id: Option<i64>,
    /// The view's request id of that call.
    pub request_id: Option<String>,
    /// The result (or error) is here; its size as JSON text.
    pub has_result: bool,
    /// A failed task's error is here.
    pub has_error: bool,
    /// The result's size as JSON text.
    pub result_bytes: Option<usize>,
    /// Modern `input_required`: the keys of the questions outstanding.
    pub input_requests: Vec<String>,
    /// The last `notifications/progress` of a legacy task (the token of the request that
    /// created it stays in use until it ends); the 2026-07-28 extension has no task progress.
    pub progress: Option<TaskProgress>,
    /// When the inspector last heard of it (µs since the epoch).
    pub updated_us: u64,
    /// Heard of on an earlier connection: no longer followed.
    pub stale: bool,
    /// What was wrong with what the server sent.
    pub problems: Vec<String>,
}

/// What the inspector keeps of a task.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tracked {
    pub view: TaskView,
    /// The last task object as sent (without its result or error, kept apart).
    pub raw: Value,
    pub result: Option<Value>,
    pub error: Option<Value>,
    /// The connection it was heard of on.
    pub generation: Option<u64>,
    /// A poller follows it now.
    pub followed: bool,
    /// The registry's version after its last change (a delta read sends it when newer).
    pub changed: u64,
    /// The server said another status after a terminal one (which never changes): what it
    /// said, kept in `problems` from then on; such a task is not followed again.
    pub went_back: Option<String>,
}

fn string(task: &Map<String, Value>, key: &str, problems: &mut Vec<String>) -> Option<String> {
    match task.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(format!("{key} is not a string: {other}"));
            Some(other.to_string())
        }
    }
}

impl Tracked {
    pub(crate) fn new(id: &str) -> Tracked {
        Tracked {
            view: TaskView {
                task_id: id.to_string(),
                source: "listed",
                polling: Polling {
                    state: "idle",
                    ..Polling::default()
                },
                ..TaskView::default()
            },
            ..Tracked::default()
        }
    }

    /// Read a `Task` (either era's field names) into the view; a modern `DetailedTask`'s
    /// `result` / `error` are kept apart.
    pub(crate) fn merge(&mut self, task: &Value) {
        let Some(obj) = task.as_object() else {
            self.view.problems = vec![format!("the task is not an object: {task}")];
            return;
        };
        let mut problems = Vec::new();
        let v = &mut self.view;
        let ended = v.terminal.then(|| v.status.clone());
        v.status = string(obj, "status", &mut problems).unwrap_or_default();
        if !obj.contains_key("status") {
            problems.push("status is missing".into());
        }
        if let Some(old) = ended.filter(|old| *old != v.status)
            && self.went_back.is_none()
        {
            self.went_back = Some(format!(
                "the status went from {old:?} back to {:?}: a task that ended never changes \
                 (not followed again)",
                v.status
            ));
        }
        problems.extend(self.went_back.clone());
        v.known_status = STATUSES.contains(&v.status.as_str());
        v.terminal = is_terminal(&v.status);
        v.status_message = string(obj, "statusMessage", &mut problems);
        v.created_at = string(obj, "createdAt", &mut problems);
        v.last_updated_at = string(obj, "lastUpdatedAt", &mut problems);
        if let Some(t) = obj.get("ttlMs").or_else(|| obj.get("ttl")) {
            v.ttl_ms = Some(t.clone());
        }
        if let Some(p) = obj
            .get("pollIntervalMs")
            .or_else(|| obj.get("pollInterval"))
        {
            v.poll_interval_ms = Some(p.clone());
        }
        v.input_requests = obj
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        v.updated_us = mcpscope_proto::now_us();
        v.problems = problems;
        let mut raw = obj.clone();
        if let Some(r) = raw.remove("result") {
            self.set_result(r);
        }
        if let Some(e) = raw.remove("error") {
            self.view.has_error = true;
            self.error = Some(e);
        }
        self.raw = Value::Object(raw);
    }

    /// Keep the task's result (legacy `tasks/result`, modern `tasks/get` of a completed task).
    pub(crate) fn set_result(&mut self, result: Value) {
        self.view.result_bytes = Some(serde_json::to_string(&result).map_or(0, |s| s.len()));
        self.view.has_result = true;
        self.result = Some(result);
    }

    /// The task for one view: the result inline when small, else a preview.
    pub(crate) fn detail(&self, stale: bool) -> TaskDetail {
        let mut view = self.view.clone();
        view.stale = stale;
        let (result, result_preview) = match (&self.result, view.result_bytes) {
            (Some(r), Some(n)) if n > INLINE_RESULT => {
                let text = serde_json::to_string(r).unwrap_or_default();
                (None, Some(cut(&text, INLINE_RESULT).to_string()))
            }
            (r, _) => (r.clone(), None),
        };
        TaskDetail {
            task: view,
            raw: self.raw.clone(),
            result,
            result_preview,
            error: self.error.clone(),
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One task with what it produced, for its detail pane.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskDetail {
    /// The list row.
    pub task: TaskView,
    /// The task object as the server last sent it (without result and error).
    pub raw: Value,
    /// The result, when it is at most [`INLINE_RESULT`] bytes of JSON.
    pub result: Option<Value>,
    /// Its first [`INLINE_RESULT`] bytes as JSON text, when it is larger (`resultBytes` says how
    /// large; the whole is `GET …/tasks/{id}/result`).
    pub result_preview: Option<String>,
    /// A failed task's JSON-RPC error (modern `error`; legacy: what `tasks/result` answered).
    pub error: Option<Value>,
}

/// What a server's connection can do with tasks, from its capabilities.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskSupport {
    /// `legacy` or `modern`; None when not connected.
    #[ts(type = "'legacy' | 'modern' | null")]
    pub era: Option<String>,
    /// The server declares tasks (legacy `capabilities.tasks`, modern the extension).
    pub tasks: bool,
    /// `tasks/list` exists (legacy `tasks.list`; the extension has none).
    pub list: bool,
    /// `tasks/cancel` exists (legacy `tasks.cancel`; always in the extension).
    pub cancel: bool,
    /// A `tools/call` can be asked to run as a task (legacy `tasks.requests.tools.call`); on
    /// modern the server decides per call.
    pub tool_call: bool,
    /// A request TTL can be asked for (legacy `params.task.ttl`; the extension has none).
    pub ttl: bool,
}

impl TaskSupport {
    /// From the era and the server's capabilities.
    pub(crate) fn of(era: mcpscope_proto::era::Era, caps: &Value) -> TaskSupport {
        use mcpscope_proto::era::{Era, TASKS_EXTENSION};
        match era {
            Era::Legacy => {
                let t = caps.get("tasks").filter(|t| t.is_object());
                let has = |p: &str| t.and_then(|t| t.pointer(p)).is_some();
                TaskSupport {
                    era: Some("legacy".into()),
                    tasks: t.is_some(),
                    list: has("/list"),
                    cancel: has("/cancel"),
                    tool_call: has("/requests/tools/call"),
                    ttl: true,
                }
            }
            Era::Modern => {
                let ext = caps.pointer(&format!(
                    "/extensions/{}",
                    TASKS_EXTENSION.replace('/', "~1")
                ));
                TaskSupport {
                    era: Some("modern".into()),
                    tasks: ext.is_some(),
                    list: false,
                    cancel: ext.is_some(),
                    tool_call: ext.is_some(),
                    ttl: false,
                }
            }
        }
    }
}

/// A server's tasks for a list view.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TasksPage {
    /// The server.
    pub server: String,
    /// What its connection can do with tasks.
    pub support: TaskSupport,
    /// Changes with every change; `?since=` it answers `unchanged: true` without the tasks.
    pub version: u64,
    /// `since` was the current version: `tasks` is empty.
    pub unchanged: bool,
    /// `tasks` holds only the tasks changed after `since` (a `changed=true` read after a
    /// `tasks` event); false: every task.
    pub delta: bool,
    /// Oldest first (the order the inspector heard of them).
    pub tasks: Vec<TaskView>,
    /// Tasks the server reported beyond what is kept.
    pub omitted: u64,
    /// The bounds on polling, for the screen to say.
    pub min_poll_ms: u64,
    /// See `min_poll_ms`.
    pub max_poll_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_eras_fields_are_read_and_an_invented_status_is_kept() {
        let mut t = Tracked::new("a");
        t.merge(
            &json!({"taskId": "a", "status": "working", "ttl": null, "pollInterval": 500,
                        "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "x"}),
        );
        assert_eq!(t.view.ttl_ms, Some(Value::Null));
        assert_eq!(t.view.poll_interval_ms, Some(json!(500)));
        assert!(t.view.known_status && !t.view.terminal);
        t.merge(&json!({"taskId": "a", "status": "pondering", "ttlMs": 60000}));
        assert_eq!(t.view.status, "pondering");
        assert!(!t.view.known_status && !t.view.terminal);
        t.merge(&json!({"taskId": "a", "status": 3}));
        assert_eq!(
            t.view.problems,
            vec!["status is not a string: 3".to_string()]
        );
    }

    #[test]
    fn a_status_after_a_terminal_one_is_named_and_stays_named() {
        let mut t = Tracked::new("a");
        t.merge(&json!({"taskId": "a", "status": "completed"}));
        assert!(t.view.problems.is_empty() && t.went_back.is_none());
        t.merge(&json!({"taskId": "a", "status": "working"}));
        assert_eq!(t.view.status, "working");
        assert!(t.view.problems[0].contains("from \"completed\" back to \"working\""));
        t.merge(&json!({"taskId": "a", "status": "completed"}));
        assert_eq!(t.view.problems.len(), 1, "{:?}", t.view.problems);
    }

    #[test]
    fn a_modern_result_is_kept_apart_and_a_big_one_previewed() {
        let mut t = Tracked::new("a");
        let big = "x".repeat(INLINE_RESULT + 10);
        t.merge(&json!({"taskId": "a", "status": "completed", "result": {"content": [{"type": "text", "text": big}]}}));
        assert!(t.raw.get("result").is_none());
        let d = t.detail(false);
        assert!(d.result.is_none());
        assert_eq!(
            d.result_preview.as_ref().map(String::len),
            Some(INLINE_RESULT)
        );
        assert!(d.task.result_bytes.unwrap() > INLINE_RESULT);
    }

    #[test]
    fn support_follows_the_capabilities() {
        use mcpscope_proto::era::Era;
        let legacy = TaskSupport::of(
            Era::Legacy,
            &json!({"tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}),
        );
        assert!(legacy.tasks && legacy.list && !legacy.cancel && legacy.tool_call);
        let modern = TaskSupport::of(
            Era::Modern,
            &json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        );
        assert!(modern.tasks && !modern.list && modern.cancel);
        assert!(!TaskSupport::of(Era::Modern, &json!({})).tasks);
    }
}
