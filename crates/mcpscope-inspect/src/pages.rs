//! Which pages of a paginated list a view asks for, and the key of the list's items.
//!
//! A list method (`tools/list`, `resources/templates/list`, …) answers one page with a
//! `nextCursor` when there are more. A view asks for the first page, the page after a cursor it
//! was given, or every page merged under the result's list key (`tools`, `resourceTemplates`) —
//! the key comes from the protocol's method table (`mcpscope_proto::method`), so a view never
//! spells a method's result shape itself.

use crate::request::Call;
use mcpscope_proto::method::Method;
use serde_json::{Map, Value, json};

/// The pages of a list a view wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pages {
    /// The first page only, with its `nextCursor` for the view to follow.
    First,
    /// Only the page after this cursor (a `nextCursor` from an earlier page).
    After(String),
    /// Every page, their items merged under `key` — by default the method's [`list_key`].
    All {
        /// The result's array to merge; `None`: the method's own.
        key: Option<String>,
    },
}

/// The key of `method`'s result array: the method table's (`tools/list` → `tools`,
/// `resources/templates/list` → `resourceTemplates`); for a method MCP does not define as a
/// list (an extension's `widgets/list`), the first segment of its name (`widgets`).
///
/// ```
/// use mcpscope_inspect::list_key;
/// assert_eq!(list_key("resources/templates/list"), "resourceTemplates");
/// assert_eq!(list_key("widgets/list"), "widgets");
/// ```
pub fn list_key(method: &str) -> String {
    match Method::from_name(method).and_then(Method::list_key) {
        Some(key) => key.to_string(),
        None => method.split('/').next().unwrap_or(method).to_string(),
    }
}

impl Call {
    /// This call as a request for `pages` of its list: the cursor goes into `params.cursor`
    /// (kept beside the other params); every page sets [`Call::pages`] to the key to merge.
    ///
    /// ```
    /// use mcpscope_inspect::{Call, Pages};
    /// let c = Call { method: "tools/list".into(), ..Default::default() };
    /// assert_eq!(c.clone().with_pages(Pages::All { key: None }).pages.as_deref(), Some("tools"));
    /// let next = c.with_pages(Pages::After("p2".into()));
    /// assert_eq!(next.params, Some(serde_json::json!({"cursor": "p2"})));
    /// assert_eq!(next.pages, None);
    /// ```
    pub fn with_pages(mut self, pages: Pages) -> Call {
        match pages {
            Pages::First => {}
            Pages::After(cursor) => {
                let mut p = match self.params.take() {
                    Some(Value::Object(m)) => m,
                    _ => Map::new(),
                };
                p.insert("cursor".into(), json!(cursor));
                self.params = Some(Value::Object(p));
            }
            Pages::All { key } => {
                self.pages = Some(key.unwrap_or_else(|| list_key(&self.method)));
            }
        }
        self
    }
}
