//! Two hostile legacy-era (2025-11-25) fixtures for what a server asks of a client and the tasks
//! it reports: `hostile-tasks` (tasks that never end, go backwards, ask absurd poll intervals,
//! carry huge results or invented statuses, and a `tasks/list` of thousands) and
//! `hostile-interactions` (a request method nobody knows, and a thousand questions at once).
//! Each misbehaviour is one tool, so a test calls exactly the one it is about.

use super::{LEGACY_PROTOCOL_VERSION, Lines, Sink, line};
use crate::jsonrpc::{self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, initialize_result};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncRead;
use tokio::sync::oneshot;

/// The tools of `hostile-tasks`, each a task that misbehaves in one way; its `pollInterval`.
const TASK_TOOLS: &[(&str, &str, Option<u64>)] = &[
    ("never", "a task that stays `working` forever", Some(300)),
    (
        "backwards",
        "`completed` at the first tasks/get, `working` after",
        Some(300),
    ),
    (
        "poll-zero",
        "asks pollInterval 0; completes after 6 gets",
        Some(0),
    ),
    (
        "poll-huge",
        "asks pollInterval 10^12 ms; never ends",
        Some(1_000_000_000_000),
    ),
    (
        "big-result",
        "completes at once with a result of --result-bytes",
        Some(300),
    ),
    (
        "invented",
        "status `pondering`, which no revision has",
        None,
    ),
];

/// Tasks per `tasks/list` page.
const LIST_PAGE: usize = 1000;

/// What the server knows of a task it created.
struct Task {
    tool: String,
    gets: u32,
    cancelled: bool,
    /// The `progressToken` of the `tools/call` that created it: `poll-zero` reports progress on
    /// it after the answer, as 2025-11-25 asks (the token lives until the task ends).
    token: Option<Value>,
}

/// Which of the two fixtures, with its options.
#[derive(Debug, Clone, Copy)]
pub(super) enum Hostile {
    Tasks { listed: usize, result_bytes: usize },
    Interactions,
}

struct Server {
    kind: Hostile,
    out: Sink,
    tasks: HashMap<String, Task>,
    next: u64,
    /// Answers to our own requests, by id.
    waiting: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>,
}

/// Serve until stdin closes.
pub(super) async fn serve<R: AsyncRead + Unpin>(
    kind: Hostile,
    mut lines: Lines<R>,
    out: Sink,
) -> i32 {
    let mut server = Server {
        kind,
        out,
        tasks: HashMap::new(),
        next: 0,
        waiting: Default::default(),
    };
    while let Some(bytes) = lines.next().await {
        let r = match jsonrpc::classify(bytes) {
            Incoming::Request { id, method, params } => {
                server.on_request(id, &method, params).await
            }
            Incoming::Other => {
                server.on_answer(bytes);
                Ok(())
            }
            _ => Ok(()),
        };
        if r.is_err() {
            return 1;
        }
    }
    0
}

impl Server {
    async fn on_request(&mut self, id: Value, method: &str, params: Value) -> io::Result<()> {
        let answer = match (method, self.kind) {
            ("initialize", _) => jsonrpc::result(&id, self.initialize_result()),
            ("ping", _) => jsonrpc::result(&id, json!({})),
            ("tools/list", _) => jsonrpc::result(&id, json!({"tools": self.tools()})),
            ("tools/call", Hostile::Interactions) => return self.ask(id, params),
            ("tools/call", Hostile::Tasks { .. }) => self.create(&id, &params),
            ("tasks/get", Hostile::Tasks { .. }) => {
                self.progress(&params).await?;
                self.get(&id, &params)
            }
            ("tasks/result", Hostile::Tasks { result_bytes, .. }) => {
                self.result(&id, &params, result_bytes)
            }
            ("tasks/cancel", Hostile::Tasks { .. }) => self.cancel(&id, &params),
            ("tasks/list", Hostile::Tasks { listed, .. }) => list(&id, &params, listed),
            _ => jsonrpc::error(&id, METHOD_NOT_FOUND, "Method not found", None),
        };
        self.out.send(&answer).await
    }

    fn initialize_result(&self) -> Value {
        let caps = match self.kind {
            Hostile::Tasks { .. } => json!({"tools": {}, "tasks": {"list": {}, "cancel": {},
                "requests": {"tools": {"call": {}}}}}),
            Hostile::Interactions => json!({"tools": {}}),
        };
        let name = match self.kind {
            Hostile::Tasks { .. } => "mcpscope-testkit-hostile-tasks",
            Hostile::Interactions => "mcpscope-testkit-hostile-interactions",
        };
        initialize_result(LEGACY_PROTOCOL_VERSION, caps, name)
    }

    fn tools(&self) -> Vec<Value> {
        let schema = json!({"type": "object", "properties": {}});
        match self.kind {
            Hostile::Tasks { .. } => TASK_TOOLS
                .iter()
                .map(|(name, about, _)| {
                    json!({"name": name, "description": about,
                    "inputSchema": schema, "execution": {"taskSupport": "optional"}})
                })
                .collect(),
            Hostile::Interactions => vec![
                json!({"name": "unknown-request", "inputSchema": schema,
                    "description": "Sends the client `x-vendor/frobnicate`, a request no client knows, and reports its answer."}),
                json!({"name": "questions", "description": "Asks `count` (default 1000) form elicitations at once and reports how they were answered.",
                    "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}}),
            ],
        }
    }

    /// `tools/call` of a task tool: a task, created at once (with or without `params.task`).
    fn create(&mut self, id: &Value, params: &Value) -> Value {
        let tool = params.get("name").and_then(Value::as_str).unwrap_or("");
        let Some((_, _, poll)) = TASK_TOOLS.iter().find(|t| t.0 == tool) else {
            return jsonrpc::error(id, INVALID_PARAMS, &format!("no tool {tool:?}"), None);
        };
        self.next += 1;
        let task_id = format!("{tool}-{}", self.next);
        self.tasks.insert(
            task_id.clone(),
            Task {
                tool: tool.to_string(),
                gets: 0,
                cancelled: false,
                token: params.pointer("/_meta/progressToken").cloned(),
            },
        );
        let mut task = task_json(
            &task_id,
            if tool == "invented" {
                "pondering"
            } else {
                "working"
            },
        );
        if let Some(p) = poll {
            task["pollInterval"] = json!(p);
        }
        jsonrpc::result(id, json!({"task": task}))
    }

    /// Before each `tasks/get` of a working `poll-zero` task: `notifications/progress` on its
    /// creating request's token, `gets` of the six gets it takes.
    async fn progress(&self, params: &Value) -> io::Result<()> {
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let Some(t) = self.tasks.get(task_id) else {
            return Ok(());
        };
        let Some(token) = t
            .token
            .as_ref()
            .filter(|_| t.tool == "poll-zero" && !t.cancelled)
        else {
            return Ok(());
        };
        let n = (t.gets + 1).min(6);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": token, "progress": n, "total": 6, "message": format!("get {n} of 6")}});
        self.out.send(&note).await
    }

    /// `tasks/get`: each tool's misbehaviour.
    fn get(&mut self, id: &Value, params: &Value) -> Value {
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let Some(t) = self.tasks.get_mut(task_id) else {
            return jsonrpc::error(
                id,
                INVALID_PARAMS,
                "Failed to retrieve task: Task not found",
                None,
            );
        };
        t.gets += 1;
        let (status, poll): (&str, Option<u64>) = match t.tool.as_str() {
            _ if t.cancelled => ("cancelled", None),
            "backwards" if t.gets == 1 => ("completed", Some(300)),
            "backwards" => ("working", Some(300)),
            "poll-zero" if t.gets >= 6 => ("completed", Some(0)),
            "poll-zero" => ("working", Some(0)),
            "poll-huge" => ("working", Some(1_000_000_000_000)),
            "big-result" => ("completed", Some(300)),
            "invented" => ("pondering", None),
            _ => ("working", Some(300)),
        };
        let mut task = task_json(task_id, status);
        task["statusMessage"] = json!(format!("tasks/get number {}", t.gets));
        if let Some(p) = poll {
            task["pollInterval"] = json!(p);
        }
        jsonrpc::result(id, task)
    }

    /// `tasks/result`: `big-result`'s is `result_bytes` of text; the others a line.
    fn result(&self, id: &Value, params: &Value, result_bytes: usize) -> Value {
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        match self.tasks.get(task_id) {
            None => jsonrpc::error(
                id,
                INVALID_PARAMS,
                "Failed to retrieve task: Task not found",
                None,
            ),
            Some(t) if t.tool == "big-result" => {
                jsonrpc::result(id, jsonrpc::text_content(&"x".repeat(result_bytes)))
            }
            Some(t) => jsonrpc::result(id, jsonrpc::text_content(&format!("result of {}", t.tool))),
        }
    }

    /// `tasks/cancel`: cancelled (the `never` task too: it never ends on its own).
    fn cancel(&mut self, id: &Value, params: &Value) -> Value {
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        match self.tasks.get_mut(task_id) {
            None => jsonrpc::error(
                id,
                INVALID_PARAMS,
                "Failed to cancel task: Task not found",
                None,
            ),
            Some(t) => {
                t.cancelled = true;
                jsonrpc::result(id, task_json(task_id, "cancelled"))
            }
        }
    }

    /// A response to one of our own requests: to the tool call waiting for it.
    fn on_answer(&self, bytes: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        let key = v.get("id").map(Value::to_string).unwrap_or_default();
        if let Some(tx) = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key)
        {
            let _ = tx.send(v);
        }
    }

    /// `tools/call` of `hostile-interactions`: the questions go out at once; the call answers
    /// when every one is answered (in a task of its own, so the loop keeps reading answers).
    fn ask(&mut self, id: Value, params: Value) -> io::Result<()> {
        let tool = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let requests: Vec<(String, Value)> = match tool.as_str() {
            "unknown-request" => vec![("x-vendor/frobnicate".into(), json!({"level": 11}))],
            "questions" => {
                let n = params
                    .pointer("/arguments/count")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000);
                (0..n)
                    .map(|i| {
                        let schema = json!({"type": "object", "properties": {"answer": {"type": "string", "title": format!("Answer {i}")}}});
                        ("elicitation/create".to_string(), json!({"message": format!("Question {i}"), "requestedSchema": schema}))
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut answers = Vec::new();
        let mut bytes = Vec::new();
        for (method, p) in requests {
            self.next += 1;
            let rid = json!(format!("ask-{}", self.next));
            let (tx, rx) = oneshot::channel();
            self.waiting
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(rid.to_string(), tx);
            answers.push(rx);
            bytes.extend(line(
                &json!({"jsonrpc": "2.0", "id": rid, "method": method, "params": p}),
            ));
        }
        let out = self.out.clone();
        tokio::spawn(async move {
            // All at once, in one write: "a thousand questions at once".
            if out.write(&bytes).await.is_err() {
                return;
            }
            let mut tally: Vec<String> = Vec::new();
            for rx in answers {
                let v = rx.await.unwrap_or(Value::Null);
                tally.push(match (v.get("result"), v.pointer("/error/code")) {
                    (Some(r), _) => r
                        .get("action")
                        .and_then(Value::as_str)
                        .unwrap_or("result")
                        .to_string(),
                    (_, Some(code)) => format!("error {code}"),
                    _ => "nothing".to_string(),
                });
            }
            let text = summary(&tool, &tally);
            let _ = out
                .send(&jsonrpc::result(&id, jsonrpc::text_content(&text)))
                .await;
        });
        Ok(())
    }
}

/// `unknown-request: error -32601`, or `questions: 1000 answered: decline 50, accept 950`.
fn summary(tool: &str, tally: &[String]) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for t in tally {
        match counts.iter_mut().find(|c| &c.0 == t) {
            Some(c) => c.1 += 1,
            None => counts.push((t.clone(), 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
    format!("{tool}: {} answered: {}", tally.len(), parts.join(", "))
}

/// A `Task` object.
fn task_json(task_id: &str, status: &str) -> Value {
    json!({"taskId": task_id, "status": status, "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": null})
}

/// `tasks/list`: `listed` tasks the server "has" (`listed-00000`…), a page at a time, their
/// statuses cycling through the spec's five and one invented.
fn list(id: &Value, params: &Value, listed: usize) -> Value {
    const STATUSES: [&str; 6] = [
        "working",
        "input_required",
        "completed",
        "failed",
        "cancelled",
        "on-vacation",
    ];
    let start = params
        .get("cursor")
        .and_then(Value::as_str)
        .and_then(|c| c.strip_prefix("from-"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let end = (start + LIST_PAGE).min(listed);
    let tasks: Vec<Value> = (start..end)
        .map(|i| task_json(&format!("listed-{i:05}"), STATUSES[i % STATUSES.len()]))
        .collect();
    let mut result = json!({"tasks": tasks});
    if end < listed {
        result["nextCursor"] = json!(format!("from-{end}"));
    }
    jsonrpc::result(id, result)
}
