//! Editing the catalog as a view asks: add, change, remove and import servers.
//!
//! Each edit keeps the connections consistent with the cards (an entry that changed is
//! disconnected first, since its connection was made from the old one), moves `{"secret"}` values
//! into the secret store before the catalog is written (and forgets the ones no longer referred
//! to), and publishes a `catalog` event.

use crate::catalog::CatalogEntry;
use crate::catalog::dialect::Usable;
use crate::catalog::registry::{self, RegistryChoice};
use crate::catalog::{McpJson, McpJsonError};
use crate::error::{Error, Result};
use crate::state::Inspector;
use mcpscope_proto::error_code::ErrorCode;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// An entry a form sent that cannot be used: the error names the form's field (`field: "url"`)
/// when the URL is the problem, so the form shows it there.
fn check(name: &str, entry: &CatalogEntry) -> Result<()> {
    let Some(p) = entry.problem() else {
        return Ok(());
    };
    let e = Error::usage(format!("server {name:?}: {p}"));
    Err(match entry.url_problem() {
        Some(_) => e.with("field", "url"),
        None => e,
    })
}

impl Inspector {
    /// Add a server; returns its card. Its `{"secret"}` values go to the secret store.
    pub async fn add_server(&self, name: &str, entry: CatalogEntry) -> Result<Value> {
        let entry = entry.normalized();
        check(name, &entry)?;
        let entry = self.add_sealed(name, entry).await?;
        Ok(self.view(name, &entry))
    }

    /// Add `entry` with its secret values moved to the secret store (taken back if the add fails).
    async fn add_sealed(&self, name: &str, entry: CatalogEntry) -> Result<CatalogEntry> {
        let entry = crate::catalog::secrets::seal(self, entry).await?;
        let added = self.catalog.lock().await.add(name, entry.clone());
        if let Err(e) = added {
            crate::catalog::secrets::forget_unused(self, &entry, None).await;
            return Err(e);
        }
        self.publish_catalog().await;
        Ok(entry)
    }

    /// Replace `name`'s entry, renaming it to `new_name` when given; returns its card. A
    /// connection made from the old entry is closed.
    pub async fn update_server(
        self: &Arc<Self>,
        name: &str,
        new_name: Option<String>,
        entry: CatalogEntry,
    ) -> Result<Value> {
        let mut entry = entry.normalized();
        check(name, &entry)?;
        let new_name = new_name.unwrap_or_else(|| name.to_string());
        let old = self.catalog.lock().await.get(name).cloned();
        let Some(old_entry) = old.clone() else {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        };
        // The server form does not carry the Experimental panel's capabilities: keep them.
        if entry.client_capabilities.is_none() {
            entry.client_capabilities = old_entry.client_capabilities.clone();
        }
        // Nor the Roots editor's roots (`roots.rs`).
        if entry.roots.is_none() {
            entry.roots = old_entry.roots.clone();
        }
        let entry = crate::catalog::secrets::seal(self, entry).await?;
        // A connection made from the old entry would not match the card any more.
        let slot = self.slots().get(name).cloned();
        if (new_name != name || old.as_ref() != Some(&entry))
            && let Some(slot) = slot
        {
            crate::conn::disconnect(self, &slot).await;
            if new_name != name {
                self.slots().remove(name);
            }
        }
        self.catalog
            .lock()
            .await
            .update(name, &new_name, entry.clone())?;
        crate::catalog::secrets::forget_unused(self, &old_entry, Some(&entry)).await;
        self.publish_catalog().await;
        Ok(self.view(&new_name, &entry))
    }

    /// Remove `name` (disconnecting it first) and forget its stored secret values.
    pub async fn remove_server(self: &Arc<Self>, name: &str) -> Result<()> {
        let Some(old) = self.catalog.lock().await.get(name).cloned() else {
            return Err(Error::not_found(format!(
                "no server named {name:?} in the catalog"
            )));
        };
        let slot = self.slots().get(name).cloned();
        if let Some(slot) = slot {
            crate::conn::disconnect(self, &slot).await;
        }
        self.catalog.lock().await.remove(name)?;
        crate::catalog::secrets::forget_unused(self, &old, None).await;
        self.slots().remove(name);
        self.publish_catalog().await;
        Ok(())
    }

    /// Add the servers of a pasted `mcp.json` (any dialect); `{"added": [names], "skipped":
    /// [{name, reason}]}`. A name already in the catalog is skipped, not overwritten.
    pub async fn import_mcp_json(&self, text: &str) -> Result<Value> {
        let Usable { entries, skipped } = McpJson::parse(text)
            .map_err(|e| match e {
                McpJsonError::NotJson(e) => Error::usage(format!(
                    "the pasted text is not valid JSON ({e}); paste the whole mcp.json"
                )),
                e => Error::usage(e.to_string()),
            })?
            .usable();
        let mut added = Vec::new();
        let mut skipped: Vec<Value> = skipped
            .iter()
            .map(|(n, r)| json!({"name": n, "reason": r}))
            .collect();
        {
            let mut catalog = self.catalog.lock().await;
            for (name, entry) in entries {
                if catalog.get(&name).is_some() {
                    skipped.push(json!({"name": name, "reason": "a server with this name is already in the catalog; rename or remove it first"}));
                    continue;
                }
                match catalog.add(&name, entry) {
                    Ok(()) => added.push(name),
                    Err(e) if e.code == ErrorCode::Conflict && catalog.get(&name).is_none() => {
                        return Err(e);
                    }
                    Err(e) => skipped.push(json!({"name": name, "reason": e.message})),
                }
            }
        }
        self.publish_catalog().await;
        Ok(json!({"added": added, "skipped": skipped}))
    }

    /// Add the package or remote `choice` of a registry `server.json` as `name`, with the
    /// variables the user filled in; returns its card.
    pub async fn add_from_registry(
        &self,
        text: &str,
        choice: RegistryChoice,
        name: &str,
        values: &Map<String, Value>,
    ) -> Result<Value> {
        let entry = registry::registry_entry(text, choice, values)?;
        let entry = self.add_sealed(name, entry).await?;
        Ok(self.view(name, &entry))
    }
}
