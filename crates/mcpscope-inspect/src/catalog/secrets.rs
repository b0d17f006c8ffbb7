//! Secret values of catalog entries — stdio `env` values and HTTP `headers` — kept in the secret
//! store (keyring or the encrypted file), never in the catalog file.
//!
//! A client writes a secret as `{"secret": "value"}`; before the catalog is written, `seal`
//! stores the value under a fresh key and leaves `{"secretRef": "catalog-value/…"}` in its place.
//! [`resolve`] puts the values back, in memory only, for a connection — the one place a
//! `secretRef` is read, for the web UI's connections (`unseal`, off the async threads) and for the
//! CLI's `--config mcp.json --server …` alike. A `{"secret"}` value still in a file (written by
//! hand) is used as it is, and counted a secret all the same. Keys are random, so a renamed server
//! keeps its secrets.

use super::entry::CatalogEntry;
use crate::error::{Error, Result};
use crate::state::Inspector;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_store::{LazySecretStore, SecretStore};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// `{"secret": value}`: a value to move into the secret store.
pub(crate) const SECRET: &str = "secret";
/// `{"secretRef": key}`: a value that lives in the secret store.
pub(crate) const SECRET_REF: &str = "secretRef";

/// The secret-store key of a `{"secretRef": …}` value.
fn reference(v: &Value) -> Option<&str> {
    v.as_object()
        .filter(|o| o.len() == 1)?
        .get(SECRET_REF)?
        .as_str()
}

/// The value of a `{"secret": …}` value.
fn plain_secret(v: &Value) -> Option<String> {
    let o = v.as_object().filter(|o| o.len() == 1)?;
    match o.get(SECRET)? {
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn maps(entry: &mut CatalogEntry) -> [&mut Map<String, Value>; 2] {
    [&mut entry.env, &mut entry.headers]
}

async fn blocking<T: Send + 'static>(
    store: &Arc<LazySecretStore>,
    f: impl FnOnce(&dyn mcpscope_store::SecretStore) -> Result<T, mcpscope_store::StoreError>
    + Send
    + 'static,
) -> Result<T> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let s = store.get()?;
        f(s.as_ref())
    })
    .await
    .map_err(|e| Error::internal(format!("the secret store task failed: {e}")))?
    .map_err(|e| Error::new(ErrorCode::SecretStore, format!("the secret store: {e}")))
}

/// Move every `{"secret": …}` value of `entry` into the secret store.
pub(crate) async fn seal(app: &Inspector, mut entry: CatalogEntry) -> Result<CatalogEntry> {
    let mut fresh: Vec<(String, String)> = Vec::new();
    for m in maps(&mut entry) {
        for v in m.values_mut() {
            if let Some(secret) = plain_secret(v) {
                let key = format!("catalog-value/{}", crate::random_hex(32));
                *v = json!({ SECRET_REF: key });
                fresh.push((key, secret));
            }
        }
    }
    if !fresh.is_empty() {
        blocking(&app.secrets, move |s| {
            for (k, v) in &fresh {
                s.set(k, v)?;
            }
            Ok(())
        })
        .await?;
    }
    Ok(entry)
}

/// `entry` with its secret values (`{"secretRef": …}` from the store, `{"secret": …}` as given)
/// replaced by the values, for connecting, and the values the connection must never show or
/// store: every secret one, by the name it was given as, and the value of a header whose name
/// says it is secret (`Authorization`, `X-Api-Key`, …: `redact::is_secret_header`, the rule the
/// CLI's `--trace` keeps too) however it was given, in case a server echoes it. `open` is called once,
/// and only when the entry refers to the store; it says why the store cannot be opened.
pub fn resolve(
    entry: &CatalogEntry,
    open: &dyn Fn() -> Result<Arc<dyn SecretStore>, String>,
) -> Result<(CatalogEntry, Secrets)> {
    let mut entry = entry.clone();
    let mut secrets = Secrets::default();
    for (name, v) in &entry.headers {
        if let Some(value) = v.as_str().filter(|_| redact::is_secret_header(name)) {
            secrets.add(name, value);
        }
    }
    let mut store: Option<Arc<dyn SecretStore>> = None;
    for m in maps(&mut entry) {
        for (name, v) in m.iter_mut() {
            let value = match (reference(v), plain_secret(v)) {
                (Some(key), _) => {
                    if store.is_none() {
                        store = Some(open().map_err(|e| {
                            Error::new(
                                ErrorCode::SecretStore,
                                format!("{name} is kept in the secret store, which cannot be opened: {e}"),
                            )
                        })?);
                    }
                    let s = store.as_ref().expect("opened above");
                    stored(s.as_ref(), name, key)?
                }
                (None, Some(plain)) => plain,
                (None, None) => continue,
            };
            secrets.add(name, &value);
            *v = Value::String(value);
        }
    }
    Ok((entry, secrets))
}

/// The value `name` keeps in the store under `key`.
fn stored(store: &dyn SecretStore, name: &str, key: &str) -> Result<String> {
    match store.get(key) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(Error::usage(format!(
            "the secret value of {name:?} is not in the secret store ({key}): it was stored on another machine or under another profile, or removed; enter it again (edit the server in the web UI)"
        ))),
        Err(e) => Err(Error::new(
            ErrorCode::SecretStore,
            format!("{name}: the secret store could not be read: {e}"),
        )),
    }
}

/// [`resolve`] for a web UI connection, with the inspector's store, off the async threads.
pub(crate) async fn unseal(
    app: &Inspector,
    entry: &CatalogEntry,
) -> Result<(CatalogEntry, Secrets)> {
    let store = app.secrets.clone();
    let entry = entry.clone();
    tokio::task::spawn_blocking(move || resolve(&entry, &|| store.get().map_err(|e| e.to_string())))
        .await
        .map_err(|e| Error::internal(format!("the secret store task failed: {e}")))?
}

/// Delete the stored values `old` refers to and `new` no longer does (a server removed, or a
/// secret replaced). Failing to delete is not an error for the user: the value is unreachable.
pub(crate) async fn forget_unused(app: &Inspector, old: &CatalogEntry, new: Option<&CatalogEntry>) {
    let keep: Vec<String> = new
        .map(|n| {
            [&n.env, &n.headers]
                .iter()
                .flat_map(|m| m.values().filter_map(reference).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let gone: Vec<String> = [&old.env, &old.headers]
        .iter()
        .flat_map(|m| m.values().filter_map(reference).map(str::to_string))
        .filter(|k| !keep.contains(k))
        .collect();
    if !gone.is_empty() {
        let _ = blocking(&app.secrets, move |s| {
            for k in &gone {
                s.delete(k)?;
            }
            Ok(())
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_come_from_the_store_plain_secrets_as_given_and_both_are_secrets() {
        let entry = CatalogEntry::from_value(json!({
            "url": "http://h/mcp",
            "headers": {"X-Key": {"secretRef": "k"}, "X-Plain": {"secret": "hand-written"},
                        "Authorization": "Bearer tok", "X-Open": "seen"}
        }))
        .unwrap();
        let store = Arc::new(mcpscope_store::MemoryStore::new("test"));
        store.set("k", "from-the-store").unwrap();
        let opened = std::cell::Cell::new(0);
        let open = || {
            opened.set(opened.get() + 1);
            Ok(store.clone() as Arc<dyn SecretStore>)
        };
        let (plain, secrets) = resolve(&entry, &open).unwrap();
        assert_eq!(opened.get(), 1);
        assert_eq!(plain.headers["X-Key"], json!("from-the-store"));
        assert_eq!(plain.headers["X-Plain"], json!("hand-written"));
        let shown = secrets
            .text("from-the-store hand-written tok seen")
            .unwrap();
        assert_eq!(
            shown,
            "«secret X-Key» «secret X-Plain» «secret Authorization» seen"
        );
        // Nothing refers to the store: it is never opened.
        let none = CatalogEntry::from_value(json!({"command": "x", "env": {"A": "1"}})).unwrap();
        let never = || -> Result<Arc<dyn SecretStore>, String> { panic!("opened") };
        assert!(resolve(&none, &never).is_ok());
        let missing =
            CatalogEntry::from_value(json!({"command": "x", "env": {"A": {"secretRef": "gone"}}}))
                .unwrap();
        let err = resolve(&missing, &open).unwrap_err();
        assert!(
            err.message.contains("\"A\"") && err.message.contains("gone"),
            "{}",
            err.message
        );
    }

    #[test]
    fn the_two_shapes() {
        assert_eq!(reference(&json!({"secretRef": "k"})), Some("k"));
        assert_eq!(reference(&json!({"secretRef": "k", "x": 1})), None);
        assert_eq!(reference(&json!("k")), None);
        assert_eq!(plain_secret(&json!({"secret": "v"})).as_deref(), Some("v"));
        assert_eq!(plain_secret(&json!({"secret": 5})).as_deref(), Some("5"));
        assert_eq!(plain_secret(&json!("v")), None);
    }
}
