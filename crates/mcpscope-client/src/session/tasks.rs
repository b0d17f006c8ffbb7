//! Waiting for a task (modern `io.modelcontextprotocol/tasks` or legacy 2025-11-25 core tasks)
//! to reach a terminal status, answering its `inputRequests` on the way.

use super::Session;
use crate::error::ClientError;
use mcpscope_proto::era::Era;
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
                (Era::Modern, "input_required") => {
                    // Keys are unique for the task's lifetime: answer each once.
                    let pending: Map<String, Value> = task
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .map(|m| {
                            m.iter()
                                .filter(|(k, _)| !answered.contains(k))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect()
                        })
                        .unwrap_or_default();
                    if !pending.is_empty() {
                        round += 1;
                        let responses = self
                            .fulfil(
                                Method::TasksGet.name(),
                                round,
                                Some(&Value::Object(pending)),
                            )
                            .await?;
                        answered.extend(responses.keys().cloned());
                        self.request(
                            Method::TasksUpdate.name(),
                            Some(json!({"taskId": task_id, "inputResponses": responses})),
                        )
                        .await?;
                        continue;
                    }
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
}
