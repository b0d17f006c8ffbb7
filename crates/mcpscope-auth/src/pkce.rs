//! PKCE (RFC 7636, S256 only: MCP forbids `plain`) and the `state` value.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// A code verifier and its S256 challenge.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// The secret sent on the token request.
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`, sent on the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair: 32 random bytes give a 43-character verifier (the minimum RFC 7636 allows,
    /// with 256 bits of entropy).
    pub fn new() -> Pkce {
        let verifier = random_token(32);
        let challenge = s256(&verifier);
        Pkce {
            verifier,
            challenge,
        }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Pkce::new()
    }
}

/// `BASE64URL(SHA256(verifier))` without padding.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes as unpadded base64url (state values, verifiers).
pub fn random_token(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::fill(&mut b[..]);
    URL_SAFE_NO_PAD.encode(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_long_enough_and_differ() {
        let a = Pkce::new();
        let b = Pkce::new();
        assert_eq!(a.verifier.len(), 43);
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.challenge, s256(&a.verifier));
    }
}
