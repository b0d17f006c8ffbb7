//! [`AuthError`]: why an OAuth flow failed, by the step that failed.
//!
//! Each variant carries the message a person reads (what happened, why, what to do next); the
//! variant says which step of the flow it came from, so a view can group or react (the flow itself
//! retries registration once on [`AuthError::InvalidClient`]). `Display` is the message alone,
//! exactly as the flow has always worded it.

/// Why an OAuth step failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The configuration is unusable (a callback URL that is not loopback, …).
    #[error("{0}")]
    Config(String),
    /// The secret store could not be read or written, or what it holds does not parse.
    #[error("{0}")]
    Store(String),
    /// Protected resource or authorization server metadata: not found, not matching, or
    /// refused for what it says (another resource, another issuer, no PKCE S256).
    #[error("{0}")]
    Discovery(String),
    /// Identifying the client: dynamic registration, a Client ID Metadata Document.
    #[error("{0}")]
    Registration(String),
    /// The authorization request and its response: the login, the callback, `state`, `iss`.
    #[error("{0}")]
    Authorization(String),
    /// The token request (an authorization code or a refresh) failed or was refused.
    #[error("{0}")]
    Token(String),
    /// The authorization server no longer knows the client (revoked, deleted, secret rotated): a
    /// stored registration is dropped and registration runs again, once.
    #[error("{0}")]
    InvalidClient(String),
    /// A login is needed and `--stored-auth-only` forbids it.
    #[error("{0}")]
    LoginForbidden(String),
    /// The server's challenge cannot be answered by authorizing again (a 403 that asks for no
    /// scope, step-ups exhausted, a fresh token refused twice, nothing known to re-authorize with).
    #[error("{0}")]
    Challenge(String),
}

impl AuthError {
    /// The step that failed, as the flow's messages name it.
    pub fn step(&self) -> &'static str {
        match self {
            AuthError::Config(_) => "configuration",
            AuthError::Store(_) => "secret store",
            AuthError::Discovery(_) => "discovery",
            AuthError::Registration(_) => "client registration",
            AuthError::Authorization(_) => "authorization",
            AuthError::Token(_) | AuthError::InvalidClient(_) => "token request",
            AuthError::LoginForbidden(_) => "login",
            AuthError::Challenge(_) => "challenge",
        }
    }

    /// The message, owned.
    pub fn into_message(self) -> String {
        match self {
            AuthError::Config(m)
            | AuthError::Store(m)
            | AuthError::Discovery(m)
            | AuthError::Registration(m)
            | AuthError::Authorization(m)
            | AuthError::Token(m)
            | AuthError::InvalidClient(m)
            | AuthError::LoginForbidden(m)
            | AuthError::Challenge(m) => m,
        }
    }
}

/// For views whose errors are still messages (the transports' `AuthProvider` hook, a login
/// handler): the message alone, as `Display` gives it.
impl From<AuthError> for String {
    fn from(e: AuthError) -> String {
        e.into_message()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::AuthServer;

    #[test]
    fn each_refusal_names_its_step_and_keeps_its_words() {
        let e = crate::validate_callback_url("https://example.com/cb").unwrap_err();
        assert!(matches!(e, AuthError::Config(_)), "{e:?}");
        assert_eq!(e.step(), "configuration");
        assert!(
            e.to_string()
                .starts_with("--callback-url https://example.com/cb must be http://")
        );

        let server = AuthServer {
            issuer: None,
            key: "https://as.example".into(),
            metadata_url: None,
            authorization_endpoint: String::new(),
            token_endpoint: String::new(),
            registration_endpoint: None,
            revocation_endpoint: None,
            scopes_supported: None,
            code_challenge_methods: Some(vec!["plain".into()]),
            token_endpoint_auth_methods: None,
            iss_parameter_supported: false,
            client_id_metadata_document_supported: false,
        };
        let e = server.check_pkce().unwrap_err();
        assert!(matches!(e, AuthError::Discovery(_)), "{e:?}");
        assert_eq!(String::from(e.clone()), e.to_string());
        assert!(e.to_string().contains("but not S256"), "{e}");
    }
}
