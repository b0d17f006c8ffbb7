//! The tool cache: each tool's `x-mcp-header` headers (or why the tool is excluded), learned
//! from `tools/list` and refreshed before a call to a tool not yet seen, so a modern HTTP call
//! mirrors the right `Mcp-Param-*` headers.

use super::Session;
use crate::error::ClientError;
use mcpscope_proto::era::Era;
use mcpscope_proto::headers::{self};
use mcpscope_proto::method::Method;
use mcpscope_transport::Connection;
use serde_json::Value;

impl Session {
    /// Tools excluded from calls because of invalid `x-mcp-header` annotations (modern HTTP), with
    /// the reason, as of the last `tools/list`.
    pub fn excluded_tools(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .state()
            .tool_headers
            .iter()
            .filter_map(|(name, r)| r.as_ref().err().map(|e| (name.clone(), e.clone())))
            .collect();
        v.sort();
        v
    }

    /// Whether `x-mcp-header` rules apply (modern era over Streamable HTTP).
    pub fn mirrors_param_headers(&self) -> bool {
        self.era() == Era::Modern && matches!(*self.conn(), Connection::Http(_))
    }

    /// Remember each tool's `x-mcp-header` headers (or why it is excluded). Only where the rules
    /// apply: elsewhere no header is mirrored and no tool excluded, and walking every schema of a
    /// long list would be work for nothing (a one-shot `tools/list`, bench/startup.py).
    pub(super) fn learn_tools(&self, result: &Value) {
        if !self.mirrors_param_headers() {
            return;
        }
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut st = self.state();
        for t in tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = t.get("inputSchema").unwrap_or(&Value::Null);
            st.tool_headers
                .insert(name.to_string(), headers::param_headers(schema));
        }
    }

    pub(super) async fn ensure_tool_schema(
        &self,
        params: Option<&Value>,
    ) -> Result<(), ClientError> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        let known = self.state().tool_headers.get(name).cloned();
        match known {
            Some(Err(reason)) => Err(ClientError::Protocol(format!(
                "tool {name:?} is excluded: {reason}; a modern client must not call a tool whose x-mcp-header annotations are invalid"
            ))),
            Some(Ok(_)) => Ok(()),
            None => {
                // Mirror headers from the current schema rather than sending none.
                self.refresh_tools().await?;
                match self.state().tool_headers.get(name) {
                    Some(Err(reason)) => Err(ClientError::Protocol(format!(
                        "tool {name:?} is excluded: {reason}; a modern client must not call a tool whose x-mcp-header annotations are invalid"
                    ))),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Fetch every page of `tools/list` to refresh the header cache. Boxed: it is reached from
    /// inside `request_with`, which it calls again.
    pub(super) fn refresh_tools(&self) -> futures::future::BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let tools = Method::ToolsList;
            let key = tools.list_key().expect("tools/list is a list");
            let listing = self.list_all(tools.name(), key, None).await?;
            // No view asked for this list, so no view would say it was cut short.
            if let Some(stop) = listing.stop {
                self.warn(
                    format!("tools/list (refreshing the tool cache): {stop}"),
                    None,
                );
            }
            Ok(())
        })
    }
}
