//! The history as views read and change it: entries (searched, exported, one in detail with
//! its children and frames), pins, and saved requests. Every change a view makes is published
//! (`history` events), so the other views follow.

use crate::error::{Error, Result};
use crate::events::Event;
use crate::request::RESULT_CAP;
use crate::state::Inspector;
use crate::traffic::blocking;
use crate::views;
use mcpscope_store::HistoryQuery;
use serde_json::{Value, json};

/// A page of history entries, newest first.
#[derive(Debug, Clone)]
pub struct HistoryPage {
    /// `HistoryEntry` views.
    pub entries: Vec<Value>,
    /// The `before` of the next (older) page, when this one was full.
    pub next_before: Option<i64>,
}

impl Inspector {
    /// The entries `q` selects, newest first, results cut to [`RESULT_CAP`].
    pub async fn history(&self, q: HistoryQuery) -> Result<HistoryPage> {
        let limit = q.limit;
        let entries = blocking(&self.store, move |st| st.query(&q, RESULT_CAP)).await?;
        let next_before = (entries.len() == limit)
            .then(|| entries.last().map(|e| e.id))
            .flatten();
        Ok(HistoryPage {
            entries: entries
                .iter()
                .map(|e| views::history_entry(e).to_value())
                .collect(),
            next_before,
        })
    }

    /// The export document: `{exportedAt, entries}` with whole results.
    pub async fn export_history(&self, q: HistoryQuery) -> Result<Value> {
        let entries = blocking(&self.store, move |st| st.query(&q, usize::MAX)).await?;
        Ok(json!({
            "exportedAt": crate::time::rfc3339(mcpscope_proto::now_us()),
            "entries": entries.iter().map(views::history_entry).collect::<Vec<_>>(),
        }))
    }

    /// One entry with its `children` and `frames`.
    pub async fn history_entry(&self, id: i64) -> Result<Value> {
        let found = blocking(&self.store, move |st| {
            Ok(match st.get(id, RESULT_CAP)? {
                Some(e) => {
                    let children = st.children(id)?;
                    Some(views::history_detail(&e, &children).to_value())
                }
                None => None,
            })
        })
        .await?;
        found.ok_or_else(|| Error::not_found(format!("no history entry {id}")))
    }

    /// The whole result of an entry, as JSON text.
    pub async fn history_result(&self, id: i64) -> Result<String> {
        blocking(&self.store, move |st| st.result(id))
            .await?
            .ok_or_else(|| Error::not_found(format!("history entry {id} has no result")))
    }

    /// Check the `structuredContent` of entry `id`'s result against `schema` (the tool's
    /// `outputSchema`) where the result already is, so a view never posts a large result back:
    /// `{errors}`, or `{errors: [], unusable}` when the schema cannot be used.
    pub async fn check_output(&self, id: i64, schema: Value) -> Result<Value> {
        let text = self.history_result(id).await?;
        let result: Value = serde_json::from_str(&text)
            .map_err(|e| Error::internal(format!("history entry {id}'s result: {e}")))?;
        let Some(structured) = result.get("structuredContent") else {
            let missing = "structuredContent is missing, though the tool declares an outputSchema";
            return Ok(json!({"errors": [{"path": "", "message": missing}]}));
        };
        let structured = structured.clone();
        // A costly schema over a large value takes a while: off the async threads.
        let checked = tokio::task::spawn_blocking(move || {
            mcpscope_proto::form::validate(&schema, &structured)
        })
        .await
        .map_err(|e| Error::internal(format!("output check: {e}")))?;
        Ok(match checked {
            Ok(errors) => json!({"errors": errors}),
            Err(reason) => json!({"errors": [], "unusable": reason}),
        })
    }

    /// Pin an entry (kept past retention), with an optional label.
    pub async fn pin(&self, id: i64, label: Option<String>) -> Result<Value> {
        let label = label.filter(|l| !l.trim().is_empty());
        let e = blocking(&self.store, move |st| st.pin(id, label.as_deref()))
            .await?
            .ok_or_else(|| Error::not_found(format!("no history entry {id}")))?;
        let v = views::history_entry(&e);
        let out = v.to_value();
        self.events.publish(Event::History(v));
        Ok(out)
    }

    /// Unpin an entry.
    pub async fn unpin(&self, id: i64) -> Result<Value> {
        let e = blocking(&self.store, move |st| st.unpin(id))
            .await?
            .ok_or_else(|| Error::not_found(format!("no history entry {id}")))?;
        let v = views::history_entry(&e);
        let out = v.to_value();
        self.events.publish(Event::History(v));
        Ok(out)
    }

    /// Delete the unpinned entries (of one server, or all); how many went.
    pub async fn clear_history(&self, server: Option<String>) -> Result<usize> {
        let server = server.filter(|s| !s.is_empty());
        blocking(&self.store, move |st| st.clear(server.as_deref())).await
    }

    /// Every saved request (`SavedRequest` views).
    pub async fn saved(&self) -> Result<Vec<Value>> {
        let list = blocking(&self.store, |st| st.saved()).await?;
        Ok(list.iter().map(views::saved).collect())
    }

    /// Save a request under a name.
    pub async fn save(
        &self,
        name: String,
        server: String,
        method: String,
        params: Value,
    ) -> Result<Value> {
        if name.trim().is_empty() || method.trim().is_empty() {
            return Err(Error::usage("a saved request needs a name and a method"));
        }
        let params = (!params.is_null()).then(|| params.to_string());
        let r = blocking(&self.store, move |st| {
            st.save(
                &name,
                &server,
                &method,
                params.as_deref(),
                mcpscope_proto::now_us(),
            )
        })
        .await?;
        Ok(views::saved(&r))
    }

    /// Delete a saved request.
    pub async fn delete_saved(&self, id: i64) -> Result<()> {
        if blocking(&self.store, move |st| st.delete_saved(id)).await? {
            Ok(())
        } else {
            Err(Error::not_found(format!("no saved request {id}")))
        }
    }
}
