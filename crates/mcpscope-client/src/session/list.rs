//! Pagination, its one owner: every page of a list method merged, and never a silent stop — a
//! repeated cursor and the page bound are named in the [`Listing`] for the caller to show.

use super::{RequestOptions, Session};
use crate::error::ClientError;
use serde::Serialize;
use serde_json::{Map, Value};

/// How many pages [`Session::list_all`] fetches at most before it stops with
/// [`ListStop::PageLimit`]: a server that hands out fresh cursors forever must not keep a
/// one-shot client listing forever.
pub const MAX_LIST_PAGES: usize = 1_000;

/// Every page of a list, merged: what [`Session::list_all`] returns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// The last page, with every page's items under the list key and no `nextCursor`.
    pub result: Value,
    /// How many pages were fetched.
    pub pages: usize,
    /// Why the walk stopped before the server said the list had ended; `None` when it did.
    /// The items of every page fetched are in `result` either way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<ListStop>,
}

/// Why [`Session::list_all`] stopped while the server still offered a `nextCursor`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "reason",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ListStop {
    /// Page `page` handed out `cursor`, which page `first_page` had handed out already:
    /// following it would fetch the same pages again, forever.
    RepeatedCursor {
        /// The repeated cursor, as the server sent it.
        cursor: Value,
        /// The page (1-based) that repeated it.
        page: usize,
        /// The page that first handed it out.
        first_page: usize,
    },
    /// [`MAX_LIST_PAGES`] pages were fetched and the last still had a `nextCursor`.
    PageLimit {
        /// Pages fetched.
        pages: usize,
        /// The cursor not followed.
        next_cursor: Value,
    },
}

impl std::fmt::Display for ListStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListStop::RepeatedCursor {
                cursor,
                page,
                first_page,
            } => write!(
                f,
                "the server repeated cursor {cursor} on page {page} (page {first_page} had handed it out already): following it would loop, so the list stops with the items of those {page} pages"
            ),
            ListStop::PageLimit { pages, next_cursor } => write!(
                f,
                "the server still offered a nextCursor ({next_cursor}) after {pages} pages, the limit: the list stops with the items of those pages, the rest was not fetched"
            ),
        }
    }
}

impl Session {
    /// Fetch every page of a list method (`tools/list`, `resources/list`, …) and merge the
    /// pages' arrays under `key` (`tools`, `resources`, …). The one owner of pagination: every
    /// view lists through it.
    ///
    /// An empty-string cursor is a valid cursor (only its absence ends the list). The walk never
    /// stops silently: a cursor the server hands back a second time, or more than
    /// [`MAX_LIST_PAGES`] pages, ends it with the items gathered so far kept and the reason in
    /// [`Listing::stop`] for the caller to show. A failed page fails the whole list.
    ///
    /// ```no_run
    /// # async fn f(session: mcpscope_client::Session) -> Result<(), mcpscope_client::ClientError> {
    /// let listing = session.list_all("tools/list", "tools", None).await?;
    /// if let Some(stop) = &listing.stop {
    ///     eprintln!("warning: tools/list: {stop}");
    /// }
    /// println!("{} tools in {} pages", listing.result["tools"].as_array().map_or(0, Vec::len), listing.pages);
    /// # Ok(()) }
    /// ```
    pub async fn list_all(
        &self,
        method: &str,
        key: &str,
        params: Option<Value>,
    ) -> Result<Listing, ClientError> {
        self.list_all_with(method, key, params, &RequestOptions::default())
            .await
    }

    /// [`Session::list_all`] with per-request options, applied to every page: pass one
    /// [`RequestControl`] to cancel the whole walk or follow its wire ids.
    pub async fn list_all_with(
        &self,
        method: &str,
        key: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Listing, ClientError> {
        let mut cursor: Option<Value> = None;
        let mut items: Vec<Value> = Vec::new();
        // Each cursor handed out so far, with the page that handed it out.
        let mut seen: Vec<(Value, usize)> = Vec::new();
        let mut pages = 0usize;
        let (mut last, stop) = loop {
            let mut p = match params.clone() {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            if let Some(c) = &cursor {
                p.insert("cursor".into(), c.clone());
            }
            let mut page = self
                .request_with(method, Some(Value::Object(p)), opts)
                .await?;
            pages += 1;
            if let Some(Value::Array(a)) = page.get_mut(key).map(std::mem::take) {
                items.extend(a);
            }
            let Some(next) = page.get("nextCursor").filter(|c| !c.is_null()).cloned() else {
                break (page, None);
            };
            if let Some((_, first_page)) = seen.iter().find(|(c, _)| *c == next) {
                let stop = ListStop::RepeatedCursor {
                    cursor: next,
                    page: pages,
                    first_page: *first_page,
                };
                break (page, Some(stop));
            }
            if pages >= MAX_LIST_PAGES {
                let stop = ListStop::PageLimit {
                    pages,
                    next_cursor: next,
                };
                break (page, Some(stop));
            }
            seen.push((next.clone(), pages));
            cursor = Some(next);
        };
        if let Some(o) = last.as_object_mut() {
            o.insert(key.to_string(), Value::Array(items));
            o.remove("nextCursor");
        }
        Ok(Listing {
            result: last,
            pages,
            stop,
        })
    }
}
