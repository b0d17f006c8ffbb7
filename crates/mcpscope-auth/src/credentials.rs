//! What the flow keeps between runs, in the secret store: per profile, server and authorization
//! server (issuer), the client registration and the tokens.
//!
//! Keying by issuer is the MCP rule (credentials are bound to the authorization server that
//! issued them; a new one means a new registration). Keying by profile keeps two identities for
//! one server apart — the official Inspector's known defect #2549 is profiles overwriting each
//! other's tokens.

use crate::error::AuthError;
use mcpscope_store::LazySecretStore;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How the client identified itself to the authorization server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientSource {
    /// `--client-id` (and `--client-secret`).
    PreRegistered,
    /// `--client-metadata-url`: the URL is the client id.
    ClientIdMetadataDocument,
    /// RFC 7591 dynamic registration.
    DynamicRegistration,
}

impl ClientSource {
    /// As shown to users.
    pub fn label(self) -> &'static str {
        match self {
            ClientSource::PreRegistered => "pre-registered",
            ClientSource::ClientIdMetadataDocument => "client ID metadata document",
            ClientSource::DynamicRegistration => "dynamic client registration",
        }
    }
}

/// A client identity at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientRegistration {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`, chosen from what the server supports.
    pub token_endpoint_auth_method: String,
    /// How it was obtained.
    pub source: ClientSource,
    /// The redirect URI it was registered with.
    pub redirect_uri: String,
    /// Unix seconds.
    pub registered_at: u64,
}

/// A grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: String,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (unix seconds), if the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (the server's `scope`, else what was requested).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The scopes requested for this grant (the base of a step-up's union).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_scope: Option<String>,
    /// The authorization server (its credentials key: issuer, or origin without metadata).
    pub issuer: String,
    /// The `resource` it was requested for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Unix seconds.
    pub obtained_at: u64,
    /// The client the grant was issued to, and how it authenticated: a revocation (RFC 7009)
    /// must authenticate the same way, possibly long after, before discovery has run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_auth_method: Option<String>,
    /// The authorization server's `revocation_endpoint`, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
}

impl Tokens {
    /// Expired, or about to: within 30 s, or within a quarter of its lifetime for short-lived
    /// tokens (a request sent now would arrive with a dead token; a 10-second token must still
    /// be usable for a while).
    pub fn expired(&self) -> bool {
        self.expires_at.is_some_and(|t| {
            let margin = (t.saturating_sub(self.obtained_at) / 4).min(30);
            t <= now() + margin
        })
    }

    /// The grant described for a person — scope, expiry, whether it can be refreshed, the
    /// client — never a token.
    pub fn description(&self) -> GrantDescription {
        GrantDescription {
            scope: self.scope.clone(),
            expires_at: self.expires_at,
            expired: self.expired(),
            obtained_at: self.obtained_at,
            refresh_token: self.refresh_token.is_some(),
            client_id: self.client_id.clone(),
        }
    }

    /// The `Authorization` header value.
    pub fn header(&self) -> String {
        format!("Bearer {}", self.access_token)
    }
}

/// A stored grant described for a person ([`Tokens::description`]): never a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct GrantDescription {
    /// The scopes granted.
    pub scope: Option<String>,
    /// When the access token expires (Unix seconds), if the server said.
    pub expires_at: Option<u64>,
    /// Expired, or about to (`Tokens::expired`).
    pub expired: bool,
    /// When it was obtained (Unix seconds).
    pub obtained_at: u64,
    /// A refresh token is stored.
    pub refresh_token: bool,
    /// The client it was issued to.
    pub client_id: Option<String>,
}

/// One stored record: the client and the tokens at one authorization server.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// A dynamic registration (pre-registered and CIMD identities come from flags).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRegistration>,
    /// The grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// Which authorization server the latest tokens for a server came from (so stored tokens can be
/// sent before discovery says where to look).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Index {
    issuer: Option<String>,
}

/// The key of the list of every (profile, server) with stored credentials: keyrings cannot be
/// enumerated, so `--list-stored-auth` reads this.
const DIRECTORY_KEY: &str = "mcpscope-oauth-directory";

/// A secret store failure (or its blocking task's), in the store's words.
fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::Store(e.to_string())
}

async fn directory(store: &Arc<LazySecretStore>) -> Result<Vec<(String, String)>, AuthError> {
    let store = store.clone();
    let text = tokio::task::spawn_blocking(move || store.get()?.get(DIRECTORY_KEY))
        .await
        .map_err(store_error)?
        .map_err(store_error)?;
    match text {
        Some(t) => serde_json::from_str(&t).map_err(|e| {
            AuthError::Store(format!(
                "the list of stored credentials does not parse ({e})"
            ))
        }),
        None => Ok(Vec::new()),
    }
}

/// What is stored for one profile and server, described without any token or secret
/// (`--list-stored-auth`).
pub async fn stored_grants(
    store: &Arc<LazySecretStore>,
) -> Result<Vec<serde_json::Value>, AuthError> {
    let mut out = Vec::new();
    for (profile, server) in directory(store).await? {
        let creds = CredentialStore::new(store.clone(), &profile, &server);
        let Some((issuer, record)) = creds.latest().await? else {
            continue;
        };
        out.push(serde_json::json!({
            "profile": profile,
            "server": server,
            "issuer": issuer,
            "tokens": record.tokens.as_ref().map(Tokens::description),
            "registeredClient": record.client.as_ref().map(|c| c.client_id.clone()),
        }));
    }
    Ok(out)
}

/// Unix seconds, now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Credentials of one profile for one server, in a secret store.
#[derive(Clone)]
pub struct CredentialStore {
    store: Arc<LazySecretStore>,
    profile: String,
    server: String,
}

impl CredentialStore {
    /// Credentials of `profile` for the MCP server at `server_url`.
    pub fn new(store: Arc<LazySecretStore>, profile: &str, server_url: &str) -> CredentialStore {
        CredentialStore {
            store,
            profile: profile.to_string(),
            server: server_url.to_string(),
        }
    }

    /// The key of the record for `issuer`: a JSON array, so no profile, URL or issuer can be
    /// made to collide with another by the characters it contains.
    pub fn record_key(&self, issuer: &str) -> String {
        format!(
            "mcpscope-oauth {}",
            serde_json::json!([self.profile, self.server, issuer])
        )
    }

    fn index_key(&self) -> String {
        format!(
            "mcpscope-oauth-index {}",
            serde_json::json!([self.profile, self.server])
        )
    }

    async fn get(&self, key: String) -> Result<Option<String>, AuthError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.get()?.get(&key))
            .await
            .map_err(store_error)?
            .map_err(store_error)
    }

    async fn set(&self, key: String, value: Option<String>) -> Result<(), AuthError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || {
            let s = store.get()?;
            match value {
                Some(v) => s.set(&key, &v),
                None => s.delete(&key),
            }
        })
        .await
        .map_err(store_error)?
        .map_err(store_error)
    }

    /// The record for `issuer` (empty when there is none).
    pub async fn load(&self, issuer: &str) -> Result<Record, AuthError> {
        match self.get(self.record_key(issuer)).await? {
            Some(text) => serde_json::from_str(&text).map_err(|e| {
                AuthError::Store(format!(
                    "the stored credentials for {issuer} do not parse ({e})"
                ))
            }),
            None => Ok(Record::default()),
        }
    }

    /// Replace the record for `issuer` (an empty record is deleted).
    pub async fn save(&self, issuer: &str, record: &Record) -> Result<(), AuthError> {
        let value = (record.client.is_some() || record.tokens.is_some())
            .then(|| serde_json::to_string(record).expect("serializable record"));
        self.set(self.record_key(issuer), value).await
    }

    /// Remember that the latest tokens came from `issuer` (and that this profile and server
    /// have credentials at all, for [`stored_grants`]).
    pub async fn set_last_issuer(&self, issuer: &str) -> Result<(), AuthError> {
        let v = serde_json::to_string(&Index {
            issuer: Some(issuer.to_string()),
        })
        .expect("serializable index");
        self.set(self.index_key(), Some(v)).await?;
        // One read-modify-write at a time in this process (two servers' logins ending together
        // in the web UI must not drop each other's entry).
        static DIRECTORY_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        let _one_at_a_time = DIRECTORY_LOCK.lock().await;
        let mut directory = directory(&self.store).await?;
        let entry = (self.profile.clone(), self.server.clone());
        if !directory.contains(&entry) {
            directory.push(entry);
            let v = serde_json::to_string(&directory).expect("serializable directory");
            self.set(DIRECTORY_KEY.into(), Some(v)).await?;
        }
        Ok(())
    }

    /// The record of the authorization server the latest tokens came from, with its issuer.
    pub async fn latest(&self) -> Result<Option<(String, Record)>, AuthError> {
        match self.last_issuer().await? {
            Some(issuer) => {
                let record = self.load(&issuer).await?;
                Ok(Some((issuer, record)))
            }
            None => Ok(None),
        }
    }

    /// The authorization server the latest tokens came from.
    pub async fn last_issuer(&self) -> Result<Option<String>, AuthError> {
        Ok(match self.get(self.index_key()).await? {
            Some(t) => serde_json::from_str::<Index>(&t)
                .ok()
                .and_then(|i| i.issuer),
            None => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(lifetime: u64, age: u64) -> Tokens {
        Tokens {
            access_token: "a".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            expires_at: Some(now() - age + lifetime),
            scope: None,
            requested_scope: None,
            issuer: "i".into(),
            resource: None,
            obtained_at: now() - age,
            client_id: None,
            client_auth_method: None,
            revocation_endpoint: None,
        }
    }

    #[test]
    fn expiry_keeps_a_margin_that_short_tokens_can_afford() {
        assert!(!tokens(3600, 0).expired());
        assert!(tokens(3600, 3580).expired(), "within 30 s of the end");
        assert!(!tokens(10, 0).expired(), "a 10 s token is usable at first");
        assert!(tokens(10, 8).expired());
        assert!(tokens(60, 61).expired());
    }
}
