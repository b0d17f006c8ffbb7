//! Secret values of catalog entries — stdio `env` values and HTTP `headers` — kept in the secret
//! store (keyring or the encrypted file), never in the catalog file.
//!
//! A client writes a secret as `{"secret": "value"}`; before the catalog is written, [`seal`]
//! stores the value under a fresh key and leaves `{"secretRef": "catalog-value/…"}` in its place.
//! [`unseal`] puts the values back, in memory only, for a connection. The CLI reads the same refs
//! from the same store (`mcpscope --cli --config mcp.json --server …`). Keys are random, so a
//! renamed server keeps its secrets.

use crate::catalog::CatalogEntry;
use crate::error::{Error, Result};
use crate::state::Inspector;
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::redact::{self, Secrets};
use mcpscope_store::LazySecretStore;
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

/// `entry` with its `{"secretRef": …}` values replaced by the stored values, for connecting,
/// and the values the connection must never show or store: every resolved one, and the value of
/// a credential header (`Authorization`, …) however it was given, in case a server echoes it.
pub(crate) async fn unseal(
    app: &Inspector,
    entry: &CatalogEntry,
) -> Result<(CatalogEntry, Secrets)> {
    let mut entry = entry.clone();
    let mut secrets = Secrets::default();
    for (name, v) in &entry.headers {
        if let Some(value) = v.as_str().filter(|_| redact::is_credential_header(name)) {
            secrets.add(name, value);
        }
    }
    let refs: Vec<String> = [&entry.env, &entry.headers]
        .iter()
        .flat_map(|m| m.values().filter_map(reference).map(str::to_string))
        .collect();
    if refs.is_empty() {
        return Ok((entry, secrets));
    }
    let values = blocking(&app.secrets, move |s| {
        refs.into_iter()
            .map(|k| s.get(&k).map(|v| (k, v)))
            .collect::<Result<Vec<_>, _>>()
    })
    .await?;
    for m in maps(&mut entry) {
        for (name, v) in m.iter_mut() {
            let Some(key) = reference(v).map(str::to_string) else {
                continue;
            };
            match values.iter().find(|(k, _)| *k == key) {
                Some((_, Some(value))) => {
                    secrets.add(name, value);
                    *v = Value::String(value.clone());
                }
                _ => {
                    return Err(Error::usage(format!(
                        "the secret value of {name:?} is not in the secret store ({key}); edit the server and enter it again"
                    )));
                }
            }
        }
    }
    Ok((entry, secrets))
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
    fn the_two_shapes() {
        assert_eq!(reference(&json!({"secretRef": "k"})), Some("k"));
        assert_eq!(reference(&json!({"secretRef": "k", "x": 1})), None);
        assert_eq!(reference(&json!("k")), None);
        assert_eq!(plain_secret(&json!({"secret": "v"})).as_deref(), Some("v"));
        assert_eq!(plain_secret(&json!({"secret": 5})).as_deref(), Some("5"));
        assert_eq!(plain_secret(&json!("v")), None);
    }
}
