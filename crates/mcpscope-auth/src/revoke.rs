//! Token revocation (RFC 7009) when tokens are given up: `--relogin` and the web UI's Forget.
//!
//! Deleting a token from our store does not make it useless to whoever copied it; revoking it
//! does. The refresh token goes first (an authorization server SHOULD then invalidate the access
//! tokens of the same grant), then the access token, each with its `token_type_hint` and the
//! client authenticated the way it was at the token endpoint. A failure is recorded and reported
//! but never stops the forgetting: the person asked for the tokens to be gone from here.

use crate::credentials::Tokens;
use crate::recorder::{Recorder, Request, form};
use crate::token::authenticate;

/// Revoke `tokens` at their authorization server's `revocation_endpoint`. `secret` is the
/// client's secret when it is a confidential client. Returns what could not be revoked, for the
/// person to see (empty: everything was, or there was nothing to do).
pub(crate) async fn revoke(
    rec: &Recorder<'_>,
    tokens: &Tokens,
    secret: Option<&str>,
) -> Vec<String> {
    let Some(endpoint) = tokens.revocation_endpoint.as_deref() else {
        rec.step(format!(
            "{} has no revocation_endpoint (RFC 7009): the tokens are forgotten here but stay valid there until they expire",
            tokens.issuer
        ));
        return Vec::new();
    };
    let Some(client_id) = tokens.client_id.as_deref() else {
        rec.step(
            "the stored grant predates revocation support (no client recorded with it): not revoked",
        );
        return Vec::new();
    };
    let method = tokens.client_auth_method.as_deref().unwrap_or("none");
    if method != "none" && secret.is_none() {
        let note = format!(
            "the tokens could not be revoked at {endpoint}: client {client_id} authenticates with {method} and its secret is not known here (pass --client-secret)"
        );
        rec.step(note.clone());
        return vec![note];
    }
    let revocation = Revocation {
        rec,
        endpoint,
        client_id,
        secret,
        method,
    };
    let mut failed = Vec::new();
    let mut refresh_revoked = false;
    let mut each: Vec<(&str, &str)> = Vec::new();
    if let Some(r) = tokens.refresh_token.as_deref() {
        each.push(("refresh_token", r));
    }
    each.push(("access_token", &tokens.access_token));
    for (hint, token) in each {
        match revocation.one(hint, token, refresh_revoked).await {
            Ok(()) => refresh_revoked |= hint == "refresh_token",
            Err(p) => failed.push(format!(
                "the {} could not be revoked at {endpoint} ({p})",
                hint.replace('_', " ")
            )),
        }
    }
    if failed.is_empty() {
        rec.step(format!("tokens revoked at {endpoint}"));
    } else {
        for f in &failed {
            rec.step(f.clone());
        }
    }
    failed
}

/// Where and as whom the tokens are revoked.
struct Revocation<'a> {
    rec: &'a Recorder<'a>,
    endpoint: &'a str,
    client_id: &'a str,
    secret: Option<&'a str>,
    /// The client's authentication method at the token endpoint.
    method: &'a str,
}

impl Revocation<'_> {
    /// Revoke one token (`hint`: `refresh_token` or `access_token`); `Err` says why it was not,
    /// in the server's words. `refresh_revoked`: the grant's refresh token already was.
    async fn one(&self, hint: &str, token: &str, refresh_revoked: bool) -> Result<(), String> {
        let mut pairs = vec![("token", token), ("token_type_hint", hint)];
        let headers = authenticate(&mut pairs, self.client_id, self.secret, self.method);
        let step = format!("revocation of the {} (RFC 7009)", hint.replace('_', " "));
        let a = self
            .rec
            .send(Request {
                step: &step,
                method: "POST",
                url: self.endpoint,
                headers,
                body: Some(form(&pairs)),
            })
            .await?;
        // RFC 7009 §2.2: 200 whether or not the token was still valid (some servers say 204).
        if a.ok() {
            return Ok(());
        }
        let error = a.oauth_error();
        // §2.2.1: a server that cannot revoke access tokens on their own; revoking the
        // refresh token already invalidated the grant's access tokens (§2.1 SHOULD).
        if refresh_revoked
            && error
                .as_ref()
                .is_some_and(|(e, _)| e == "unsupported_token_type")
        {
            self.rec
                .step("the server revokes refresh tokens only; the access token went with it");
            return Ok(());
        }
        Err(match error {
            Some((error, description)) => format!(
                "HTTP {}, {error}{}",
                a.status,
                description.map(|d| format!(": {d}")).unwrap_or_default()
            ),
            None => format!("HTTP {}", a.status),
        })
    }
}
