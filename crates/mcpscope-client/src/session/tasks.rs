//! Waiting for a task (modern `io.modelcontextprotocol/tasks` or legacy 2025-11-25 core tasks)
//! to reach a terminal status, answering its `inputRequests` on the way.

use super::Session;
use crate::error::ClientError;
use mcpscope_proto::era::{Era, META_RELATED_TASK as RELATED_TASK};
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};
use std::time::Duration;

impl Session {
    /// Wait for a task to finish and return the final result.
    ///
    /// Modern (`io.modelcontextprotocol/tasks`): poll `tasks/get` (honouring `pollIntervalMs`),
    /// answer `inputRequests` with `tasks/update`, and return the `DetailedTask` at a terminal
    /// status. Legacy (2025-11-25 core tasks): poll `tasks/get` (honouring `pollInterval`) until
    /// terminal, then fetch the payload with `tasks/result`.
    pub async fn await_task(&self, task_id: &str) -> Result<Value, ClientError> {
        let mut answered: Vec<String> = Vec::new();
        let mut round = 0;
        loop {
            let task = self
                .request(Method::TasksGet.name(), Some(json!({"taskId": task_id})))
                .await?;
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            match (self.era(), status.as_str()) {
                (Era::Modern, "completed" | "failed" | "cancelled") => return Ok(task),
                (Era::Legacy, "completed" | "failed" | "cancelled") => {
                    return self
                        .request(Method::TasksResult.name(), Some(json!({"taskId": task_id})))
                        .await;
                }
                (Era::Modern, "input_required")
                    if self
                        .answer_task_inputs(task_id, &task, &mut answered, &mut round)
                        .await? =>
                {
                    continue;
                }
                _ => {}
            }
            let interval = task
                .get("pollIntervalMs")
                .or_else(|| task.get("pollInterval"))
                .and_then(Value::as_u64)
                .unwrap_or(500)
                .clamp(50, 10_000);
            tokio::time::sleep(Duration::from_millis(interval)).await;
        }
    }

    /// Modern: answer the `inputRequests` of a `tasks/get` result whose keys are not yet in
    /// `answered` through the responder, and send the answers with `tasks/update`. False when
    /// there was nothing new to answer. Each question's params carry
    /// `_meta["io.modelcontextprotocol/related-task"]` (added when the server left it out), so a
    /// view can show it with its task.
    pub async fn answer_task_inputs(
        &self,
        task_id: &str,
        task: &Value,
        answered: &mut Vec<String>,
        round: &mut usize,
    ) -> Result<bool, ClientError> {
        // Keys are unique for the task's lifetime: answer each once.
        let pending: Map<String, Value> = task
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| !answered.contains(k))
                    .map(|(k, v)| (k.clone(), tagged(v.clone(), task_id)))
                    .collect()
            })
            .unwrap_or_default();
        if pending.is_empty() {
            return Ok(false);
        }
        *round += 1;
        let responses = self
            .fulfil(
                Method::TasksGet.name(),
                *round,
                Some(&Value::Object(pending)),
            )
            .await?;
        answered.extend(responses.keys().cloned());
        self.request(
            Method::TasksUpdate.name(),
            Some(json!({"taskId": task_id, "inputResponses": responses})),
        )
        .await?;
        Ok(true)
    }
}

/// An input request with `params._meta[RELATED_TASK]` set (kept when the server sent one).
fn tagged(mut request: Value, task_id: &str) -> Value {
    if let Some(r) = request.as_object_mut() {
        let params = r.entry("params").or_insert_with(|| json!({}));
        if let Some(p) = params.as_object_mut() {
            let meta = p.entry("_meta").or_insert_with(|| json!({}));
            if let Some(m) = meta.as_object_mut() {
                m.entry(RELATED_TASK)
                    .or_insert_with(|| json!({"taskId": task_id}));
            }
        }
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_request_is_tied_to_its_task_unless_the_server_did_so() {
        let r = tagged(json!({"method": "elicitation/create", "params": {}}), "t1");
        assert_eq!(r["params"]["_meta"][RELATED_TASK], json!({"taskId": "t1"}));
        let theirs = json!({"method": "x", "params": {"_meta": {RELATED_TASK: {"taskId": "t0"}}}});
        assert_eq!(
            tagged(theirs, "t1")["params"]["_meta"][RELATED_TASK]["taskId"],
            "t0"
        );
        // Not an object: left as it is (the responder shows it as what it is).
        assert_eq!(tagged(json!(3), "t1"), json!(3));
    }
}
