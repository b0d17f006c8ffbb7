//! Which of our requests caused which question. An interaction names the history entry of its
//! cause (`historyId`); a call the TUI sends carries a request id of its own (what `x` cancels).
//! The core publishes each request's entry as `pending` with both before anything is sent, so
//! the link is kept here from those `history` events, and forgotten when the entry finishes.
//! When a call is cancelled, the questions it caused are dismissed with it (as the web's Tools
//! screen does): a legacy server's `elicitation/create` would otherwise wait for its deadline
//! with nobody left to want the answer.

use serde_json::Value;
use std::collections::BTreeMap;

/// Requests in flight kept at most (oldest forgotten first): a bound, not a limit a user meets.
const MAX_PENDING: usize = 4_096;

/// History entry id → (server, request id), for requests still pending.
#[derive(Debug, Default, Clone)]
pub struct Causes {
    pending: BTreeMap<i64, (String, String)>,
}

impl Causes {
    /// A `history` event: a pending entry with a request id is remembered; any other state of
    /// it forgets it.
    pub fn history(&mut self, entry: &Value) {
        let Some(id) = entry.get("id").and_then(Value::as_i64) else {
            return;
        };
        let request = entry.get("requestId").and_then(Value::as_str);
        let pending = entry.get("status").and_then(Value::as_str) == Some("pending");
        match request.filter(|r| pending && !r.is_empty()) {
            Some(r) => {
                let server = crate::tabs::text(entry, "server").to_string();
                self.pending.insert(id, (server, r.to_string()));
                while self.pending.len() > MAX_PENDING {
                    self.pending.pop_first();
                }
            }
            None => {
                self.pending.remove(&id);
            }
        }
    }

    /// The request id of the call that caused `interaction`, when it is one of ours in flight.
    pub fn request_of(&self, interaction: &Value) -> Option<&str> {
        let h = interaction.get("historyId").and_then(Value::as_i64)?;
        let (server, request) = self.pending.get(&h)?;
        (server == crate::tabs::text(interaction, "server")).then_some(request.as_str())
    }

    /// The ids of the questions in `queue` that `request_id` caused.
    pub fn questions_of(&self, request_id: &str, queue: &[Value]) -> Vec<u64> {
        queue
            .iter()
            .filter(|q| self.request_of(q) == Some(request_id))
            .filter_map(|q| q.get("id").and_then(Value::as_u64))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pending_entry_links_its_questions_until_it_finishes() {
        let mut c = Causes::default();
        let entry = |status: &str| json!({"id": 7, "server": "demo", "status": status, "requestId": "tui-tools-1"});
        c.history(&entry("pending"));
        let queue = [
            json!({"id": 1, "server": "demo", "historyId": 7}),
            json!({"id": 2, "server": "demo", "historyId": 8}),
            json!({"id": 3, "server": "other", "historyId": 7}),
        ];
        assert_eq!(c.questions_of("tui-tools-1", &queue), vec![1]);
        assert_eq!(c.questions_of("tui-tools-2", &queue), Vec::<u64>::new());
        c.history(&entry("cancelled"));
        assert_eq!(c.questions_of("tui-tools-1", &queue), Vec::<u64>::new());
    }

    #[test]
    fn the_link_is_bounded() {
        let mut c = Causes::default();
        for id in 0..(MAX_PENDING as i64 + 10) {
            c.history(&json!({"id": id, "server": "s", "status": "pending", "requestId": "r"}));
        }
        assert_eq!(c.pending.len(), MAX_PENDING);
        assert!(!c.pending.contains_key(&0));
    }
}
