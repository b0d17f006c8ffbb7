//! The work of the `research` tool: about two seconds, cancellable. One function for the three
//! ways it runs: synchronously, as a modern task (`server`), and as a 2025-11-25 task
//! ([`crate::legacy_tasks`]).

use std::time::Duration;

use rmcp::{
    model::{CallToolResult, ContentBlock},
    task_manager::TaskExit,
};

/// How long `research` pretends to work.
const RESEARCH_TIME: Duration = Duration::from_secs(2);

/// Does the research; shared by the synchronous path and both task flavours.
pub(crate) async fn research(
    topic: &str,
    cancelled: impl Future<Output = ()>,
) -> Result<CallToolResult, TaskExit> {
    tokio::select! {
        () = tokio::time::sleep(RESEARCH_TIME) => Ok(CallToolResult::success(vec![ContentBlock::text(
            format!(
                "Research on {topic}: 1) it is well documented; 2) people disagree about the details; \
                 3) more research is needed."
            ),
        )])),
        () = cancelled => Err(TaskExit::Cancelled),
    }
}
