//! The client's roots: the `file://` directories a server is told it may work in, configured per
//! server in the catalog entry (`roots: [{uri, name}]`, the official Inspector's key, so its
//! files work here) and answered from there.
//!
//! - [`Root`] and [`problem`]: what a root is and what is refused. The spec says a root's URI
//!   MUST be `file://` (2025-11-25 `client/roots`; the 2026-07-28 `ListRootsResult` keeps it);
//!   a server such as server-filesystem turns each into a directory it allows, so anything else
//!   (an `https:` URL, a bare path, a query or fragment, which no directory has) is refused with
//!   the reason rather than passed to a server that would misread it. Counts and lengths are
//!   bounded, so a pasted file cannot make every `roots/list` answer megabytes.
//! - [`RootsBook`]: the roots each server answers with *now*. The catalog is behind an async
//!   lock that a policy (synchronous, called as a question arrives) cannot take, so the book is a
//!   copy the inspector refreshes on every catalog change; a read-only catalog (`--config`)
//!   keeps an edit in the book for this run instead.
//! - [`ConfiguredRoots`]: the web UI's roots policy — `roots/list` (legacy) and a `roots/list`
//!   entry of a modern `input_required` round are answered at once from the book, so an edit
//!   takes effect on the next question without reconnecting.
//! - [`Inspector::set_roots`]: the edit. On a connected legacy session that declared
//!   `roots.listChanged` it sends `notifications/roots/list_changed` (the modern era has no such
//!   notification: its rounds simply ask again).

use crate::catalog::CatalogEntry;
use crate::error::{Error, Result};
use crate::interactions::{Answer, Decision, Interaction, Policy};
use crate::state::Inspector;
use mcpscope_proto::era::Era;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use ts_rs::TS;

/// At most this many roots per server.
pub const MAX_ROOTS: usize = 100;
/// At most this many bytes in a root's URI (a long path, percent-encoded).
pub const MAX_URI_BYTES: usize = 4096;
/// At most this many characters in a root's name.
pub const MAX_NAME_CHARS: usize = 200;

/// What the closed interaction says when the roots policy answered.
pub const ANSWERED_BY: &str = "answered from the configured roots";

/// One root, as `roots/list` answers it and `mcp.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A name to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
}

/// Why `roots` cannot be offered to a server, naming the first bad one; `None` when they can.
pub fn problem(roots: &[Root]) -> Option<String> {
    if roots.len() > MAX_ROOTS {
        return Some(format!(
            "{} roots; at most {MAX_ROOTS} can be configured for one server",
            roots.len()
        ));
    }
    for (i, root) in roots.iter().enumerate() {
        if let Some(p) = uri_problem(&root.uri) {
            return Some(format!("roots[{i}].uri: {p}"));
        }
        if let Some(name) = &root.name
            && (name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control))
        {
            return Some(format!(
                "roots[{i}].name: at most {MAX_NAME_CHARS} characters, no control characters"
            ));
        }
        if roots[..i].iter().any(|r| r.uri == root.uri) {
            return Some(format!(
                "roots[{i}].uri: {:?} is listed twice; a server would see the same directory twice",
                root.uri
            ));
        }
    }
    None
}

/// Why `uri` is not a root's URI, if it is not.
pub fn uri_problem(uri: &str) -> Option<String> {
    if uri.trim().is_empty() {
        return Some("a root needs a URI, e.g. file:///home/me/project".into());
    }
    if uri.len() > MAX_URI_BYTES {
        return Some(format!("longer than {MAX_URI_BYTES} bytes"));
    }
    if uri.starts_with('/') {
        return Some(format!(
            "{uri:?} is a path, not a URI; write it as \"file://{uri}\""
        ));
    }
    let parsed = match url::Url::parse(uri) {
        Ok(u) => u,
        Err(e) => return Some(format!("{uri:?} is not a URI ({e})")),
    };
    if parsed.scheme() != "file" {
        return Some(format!(
            "{uri:?} has scheme {:?}; roots must be file:// URIs (the MCP spec requires it: a root is a directory on this machine)",
            parsed.scheme()
        ));
    }
    if !uri.starts_with("file://") {
        return Some(format!(
            "{uri:?} must start with \"file://\" (e.g. file:///home/me/project)"
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Some(format!(
            "{uri:?} has a query or fragment; a directory has neither"
        ));
    }
    None
}

/// The roots each server answers with now (see the module doc for why it is a copy).
#[derive(Debug, Default)]
pub struct RootsBook {
    /// From the catalog, refreshed on every catalog change.
    configured: Mutex<HashMap<String, Vec<Root>>>,
    /// Edits a read-only catalog could not keep: for this run, over the catalog's.
    overrides: Mutex<HashMap<String, Vec<Root>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl RootsBook {
    /// An empty book.
    pub fn new() -> RootsBook {
        RootsBook::default()
    }

    /// The roots `server` answers with now.
    pub fn roots(&self, server: &str) -> Vec<Root> {
        if let Some(r) = lock(&self.overrides).get(server) {
            return r.clone();
        }
        lock(&self.configured)
            .get(server)
            .cloned()
            .unwrap_or_default()
    }

    /// Whether `server`'s roots are this run's only (a read-only catalog).
    pub fn is_override(&self, server: &str) -> bool {
        lock(&self.overrides).contains_key(server)
    }

    /// Take the catalog's roots as they are now.
    pub fn refresh(&self, servers: &[(String, CatalogEntry)]) {
        *lock(&self.configured) = servers
            .iter()
            .filter_map(|(n, e)| e.roots.clone().map(|r| (n.clone(), r)))
            .collect();
    }

    /// Keep `roots` for `server` for this run (`None`: the catalog's again).
    fn set_override(&self, server: &str, roots: Option<Vec<Root>>) {
        let mut o = lock(&self.overrides);
        match roots {
            Some(r) => o.insert(server.to_string(), r),
            None => o.remove(server),
        };
    }
}

/// The web UI's roots policy: answer at once from the server's configured roots.
#[derive(Debug, Clone)]
pub struct ConfiguredRoots {
    /// Where the roots are read at the moment of the question.
    pub book: Arc<RootsBook>,
}

impl Policy for ConfiguredRoots {
    fn decide(&self, interaction: &Interaction) -> Decision {
        let roots = self.book.roots(&interaction.server);
        Decision::Answer {
            answer: Answer::Accept(serde_json::to_value(roots).unwrap_or_else(|_| json!([]))),
            after: Duration::ZERO,
            by: ANSWERED_BY.to_string(),
        }
    }
}

impl Inspector {
    /// The roots `name` answers with now: `{roots, persisted, home, listChangedSent}` (the last
    /// only after an edit).
    pub async fn roots(&self, name: &str) -> Result<Value> {
        if self.catalog.lock().await.get(name).is_none() {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        }
        let book = &self.options.roots;
        // The home directory, so an editor can turn `~/project` into the URI a root needs.
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(|h| h.to_string_lossy().into_owned());
        Ok(json!({"roots": book.roots(name), "persisted": !book.is_override(name), "home": home}))
    }

    /// Replace `name`'s roots: saved in the catalog entry (or for this run when the catalog is
    /// read-only). A connected legacy session that declared `roots.listChanged` is sent
    /// `notifications/roots/list_changed`, so the server asks again.
    pub async fn set_roots(&self, name: &str, roots: Vec<Root>) -> Result<Value> {
        let roots: Vec<Root> = roots.into_iter().map(tidy).collect();
        if let Some(p) = problem(&roots) {
            return Err(Error::usage(format!("roots refused: {p}")));
        }
        let entry = self.catalog.lock().await.get(name).cloned();
        let Some(mut changed) = entry else {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        };
        changed.roots = (!roots.is_empty()).then(|| roots.clone());
        let saved = self.catalog.lock().await.update(name, name, changed);
        let not_saved = match saved {
            Ok(()) => {
                self.options.roots.set_override(name, None);
                self.publish_catalog().await;
                None
            }
            Err(e) => {
                self.options.roots.set_override(name, Some(roots));
                Some(e.message)
            }
        };
        let sent = self.roots_list_changed(name).await;
        let mut view = self.roots(name).await?;
        view["listChangedSent"] = json!(sent);
        // Why the edit holds for this run only (a read-only catalog, comments in the file).
        view["notSaved"] = json!(not_saved);
        Ok(view)
    }

    /// Send `notifications/roots/list_changed` on `name`'s connection if it is a legacy one
    /// that declared the capability; whether it was sent.
    async fn roots_list_changed(&self, name: &str) -> bool {
        let Some(slot) = self.slots().get(name).cloned() else {
            return false;
        };
        let session = {
            let st = slot.st();
            let declared = st.advertised.advertise(Era::Legacy)["roots"]["listChanged"] == true;
            st.session
                .clone()
                .filter(|s| declared && s.era() == Era::Legacy)
                .filter(|_| st.status == Some(crate::views::Status::Connected))
        };
        match session {
            Some(s) => s
                .notify("notifications/roots/list_changed", None)
                .await
                .is_ok(),
            None => false,
        }
    }
}

/// A root as it is kept: the URI trimmed, an empty name none.
fn tidy(mut r: Root) -> Root {
    r.uri = r.uri.trim().to_string();
    r.name = r
        .name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(uri: &str) -> Root {
        Root {
            uri: uri.into(),
            name: None,
        }
    }

    #[test]
    fn file_uris_pass_and_everything_else_is_refused_with_why() {
        assert_eq!(problem(&[root("file:///home/me/project")]), None);
        assert_eq!(problem(&[root("file://host/share")]), None);
        assert_eq!(problem(&[]), None);
        let why = |u: &str| uri_problem(u).expect(u);
        assert!(why("https://example.com/x").contains("scheme \"https\""));
        assert!(why("/home/me").contains("write it as \"file:///home/me\""));
        assert!(why("").contains("needs a URI"));
        assert!(why("project").contains("not a URI"));
        assert!(why("file:///a?x=1").contains("query or fragment"));
        assert!(why("FILE:///a").contains("must start with"));
        assert!(why(&format!("file:///{}", "a".repeat(MAX_URI_BYTES))).contains("longer"));
        let two = [root("file:///a"), root("file:///a")];
        assert!(problem(&two).unwrap().starts_with("roots[1].uri"));
        let many: Vec<Root> = (0..=MAX_ROOTS)
            .map(|i| root(&format!("file:///r{i}")))
            .collect();
        assert!(problem(&many).unwrap().contains("at most 100"));
        let bad_name = Root {
            uri: "file:///a".into(),
            name: Some("a\nb".into()),
        };
        assert!(problem(&[bad_name]).unwrap().starts_with("roots[0].name"));
    }

    #[test]
    fn the_policy_answers_from_the_book_as_it_is_at_the_question() {
        let book = Arc::new(RootsBook::new());
        let policy = ConfiguredRoots { book: book.clone() };
        let asking = Interaction {
            id: 1,
            server: "s".into(),
            history_id: None,
            kind: crate::interactions::InteractionKind::Roots,
            method: "roots/list".into(),
            payload: json!({}),
            origin: "server request 1".into(),
            round: None,
            key: None,
            round_keys: None,
            max_rounds: None,
            opened_at_us: 0,
            deadline_us: 0,
        };
        let answer = |d: Decision| match d {
            Decision::Answer { answer, by, .. } => {
                assert_eq!(by, ANSWERED_BY);
                answer
            }
            Decision::Wait => panic!("the roots policy never waits"),
        };
        assert_eq!(answer(policy.decide(&asking)), Answer::Accept(json!([])));
        let entry = CatalogEntry {
            roots: Some(vec![root("file:///p")]),
            ..Default::default()
        };
        book.refresh(&[("s".into(), entry)]);
        assert_eq!(
            answer(policy.decide(&asking)),
            Answer::Accept(json!([{"uri": "file:///p"}]))
        );
        book.set_override("s", Some(vec![]));
        assert_eq!(answer(policy.decide(&asking)), Answer::Accept(json!([])));
    }
}
