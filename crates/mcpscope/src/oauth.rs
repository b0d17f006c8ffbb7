//! The CLI's OAuth and secret-store wiring: turn the OAuth flags into an
//! [`OAuthProvider`] for the HTTP transports, and report for `--method initialize` which secret
//! store is active (and why) and what the authorization established.

use crate::args::AuthArgs;
use crate::resolve::{Resolved, UsageError};
use crate::secret_store::secret_config;
use mcpscope_auth::{AuthConfig, LoginMode, OAuthProvider};
use mcpscope_store::LazySecretStore;
use mcpscope_transport::Target;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The OAuth provider of one CLI run, and the secret store behind it.
pub struct OAuthSetup {
    /// Goes into `TransportOptions::auth`; `None` for stdio targets and when the user set
    /// `Authorization` with `--header`.
    pub provider: Option<Arc<OAuthProvider>>,
    /// The secret store (opened on first use).
    pub store: Arc<LazySecretStore>,
}

/// The longest any single OAuth HTTP request may take.
const OAUTH_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Read the OAuth flags for the resolved target. Mistakes (a non-loopback `--callback-url`, OAuth
/// flags on a stdio server, an unknown `MCPSCOPE_SECRET_STORE`) are usage errors.
pub fn setup(args: &AuthArgs, resolved: &Resolved) -> Result<OAuthSetup, UsageError> {
    let target = &resolved.target;
    mcpscope_auth::validate_callback_url(&args.callback_url).map_err(|e| UsageError(e.into()))?;
    let config = secret_config().map_err(|e| UsageError(e.to_string()))?;
    let store = Arc::new(LazySecretStore::new(config));
    let (url, headers) = match target {
        Target::Http { url, headers } | Target::Sse { url, headers } => (url, headers),
        Target::Stdio { .. } => {
            let given = [
                (args.client_id.is_some(), "--client-id"),
                (args.client_metadata_url.is_some(), "--client-metadata-url"),
                (args.use_stored_auth, "--use-stored-auth"),
                (args.stored_auth_only, "--stored-auth-only"),
                (args.relogin, "--relogin"),
                (args.print_auth_url, "--print-auth-url"),
                (args.headless_auth, "--headless-auth"),
            ];
            if let Some((_, flag)) = given.iter().find(|(g, _)| *g) {
                return Err(UsageError(format!(
                    "{flag} applies to HTTP servers (OAuth); a stdio server takes its credentials from its environment (-e KEY=VALUE)"
                )));
            }
            return Ok(OAuthSetup {
                provider: None,
                store,
            });
        }
    };
    if headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
    {
        // The user brought their own credentials: OAuth stays out of the way.
        return Ok(OAuthSetup {
            provider: None,
            store,
        });
    }
    if let Some(u) = &args.client_metadata_url {
        let ok = url::Url::parse(u).is_ok_and(|p| p.scheme() == "https" && p.path().len() > 1);
        if !ok {
            return Err(UsageError(format!(
                "--client-metadata-url {u:?} must be an https URL with a path (it is the client id)"
            )));
        }
    }
    let mut cfg = AuthConfig::new(url);
    // Each OAuth request is bounded like an MCP request (the engine's own timers pause while
    // the flow runs), but never unbounded: a silent authorization server is named, not waited on.
    cfg.http_timeout = resolved
        .options
        .request_timeout
        .unwrap_or(OAUTH_HTTP_TIMEOUT)
        .min(OAUTH_HTTP_TIMEOUT);
    cfg.profile = args.auth_profile.clone();
    cfg.client_id = args.client_id.clone();
    cfg.client_secret = args.client_secret.clone();
    cfg.client_metadata_url = args.client_metadata_url.clone();
    cfg.callback_url = args.callback_url.clone();
    cfg.use_stored_first = args.use_stored_auth || args.stored_auth_only;
    cfg.relogin = args.relogin;
    cfg.revoke = !args.no_revoke;
    cfg.login = if args.stored_auth_only {
        LoginMode::Never
    } else if args.headless_auth {
        LoginMode::Headless
    } else if args.print_auth_url {
        LoginMode::PrintUrl
    } else {
        LoginMode::Browser
    };
    let provider = OAuthProvider::new(cfg, store.clone()).map_err(|e| UsageError(e.into()))?;
    Ok(OAuthSetup {
        provider: Some(Arc::new(provider)),
        store,
    })
}

impl OAuthSetup {
    /// The provider as the transports take it.
    pub fn auth_provider(&self) -> Option<Arc<dyn mcpscope_transport::AuthProvider>> {
        self.provider
            .clone()
            .map(|p| p as Arc<dyn mcpscope_transport::AuthProvider>)
    }

    /// `secretStore` (which store, where, why — or why it cannot be opened) and `auth` (what the
    /// authorization established, when there was one) for the `initialize` document.
    pub fn initialize_extra(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let store = match self.store.get() {
            Ok(s) => serde_json::to_value(s.info()).unwrap_or_default(),
            Err(e) => json!({"error": e.to_string()}),
        };
        m.insert("secretStore".into(), store);
        if let Some(summary) = self.provider.as_ref().and_then(|p| p.summary()) {
            m.insert(
                "auth".into(),
                serde_json::to_value(summary).unwrap_or_default(),
            );
        }
        m
    }
}

/// `--list-stored-auth`: what the secret store holds (never a token), and which store it is.
pub async fn stored_auth() -> Result<serde_json::Value, String> {
    let config = secret_config().map_err(|e| e.to_string())?;
    let store = Arc::new(LazySecretStore::new(config));
    let info = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || {
            store
                .get()
                .map(|s| serde_json::to_value(s.info()).unwrap_or_default())
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?
    };
    let grants = mcpscope_auth::stored_grants(&store).await?;
    Ok(serde_json::json!({"storedAuth": grants, "secretStore": info}))
}
