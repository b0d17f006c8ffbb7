//! Sealed session ids (rule `session-owner`, `docs/gateway.md` "Sessions"): the relay keeps no
//! state per session, so any replica holding the same key serves any user's session, and a
//! session id is usable only by the user it was handed to, on the gateway that opened it.
//!
//! A gateway's `Mcp-Session-Id` never reaches the browser as it came. The relay hands out
//! `base64url(id) "." base64url(HMAC-SHA256(key, label, gateway, user, id))` (no padding; each
//! field length-prefixed, so no two triples hash the same bytes) and, on each request, checks the
//! MAC in constant time and sends the gateway its own id back. Another user's id, another
//! gateway's, an altered one, or one sealed under a key this process does not hold (a restart
//! without `MCPSCOPE_GATEWAY_SESSION_KEY`, a key rotated out) all fail the same check: the relay
//! cannot tell them apart and answers each as an expired session (404), which any MCP client
//! answers by starting a new one.
//!
//! The id inside is readable by its own user (it was before: the browser saw it as it came);
//! what the MAC adds is that nobody can use it through the relay but that user, and the
//! NetworkPolicy keeps browsers away from the gateway itself. Ids are never logged, and never in
//! a message.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;

/// The longest gateway session id relayed (bytes). The spec bounds none; a gateway's is a UUID
/// or a JWT-like token, far shorter. Past it the answer is refused (rule `session-id`).
pub const MAX_SESSION_ID: usize = 1024;

/// The shortest key accepted (bytes): HMAC-SHA256's own output length, so the key is no weaker
/// than the MAC.
pub const MIN_KEY: usize = 32;

/// The variables the key is read from (`settings.rs`).
pub const KEY_VAR: &str = "MCPSCOPE_GATEWAY_SESSION_KEY";
/// The same, as a file (a mounted Secret).
pub const KEY_FILE_VAR: &str = "MCPSCOPE_GATEWAY_SESSION_KEY_FILE";

/// Base64url of the MAC: 32 bytes, unpadded.
const TAG_CHARS: usize = 43;

/// The longest sealed id: the longest id's base64url, the dot and the tag. Anything longer is
/// not one of ours, and is refused before any decoding.
pub const MAX_SEALED: usize = (MAX_SESSION_ID * 4).div_ceil(3) + 1 + TAG_CHARS;

/// Domain separation: a MAC of this relay's session ids, format 1, and nothing else.
const LABEL: &[u8] = b"mcpscope gateway session id v1";

type HmacSha256 = Hmac<Sha256>;

/// One session key (its bytes as the variable or file gave them). Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey(Vec<u8>);

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionKey({} bytes)", self.0.len())
    }
}

/// The keys from the text of `MCPSCOPE_GATEWAY_SESSION_KEY` (or its file): one or more,
/// separated by commas or newlines, surrounding white space ignored; the first seals, every one
/// is accepted (rotation). `from` names the variable or file in the error, which never quotes a
/// key.
pub fn parse_keys(text: &str, from: &str) -> Result<Vec<SessionKey>, String> {
    let keys: Vec<&str> = text
        .split([',', '\n'])
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect();
    if keys.is_empty() {
        return Err(format!(
            "{from} holds no key; make one with `openssl rand -hex 32`"
        ));
    }
    for (i, k) in keys.iter().enumerate() {
        if k.len() < MIN_KEY {
            return Err(format!(
                "{from}: key {} of {} is {} bytes long; a session key is at least {MIN_KEY} bytes: make one with `openssl rand -hex 32`",
                i + 1,
                keys.len(),
                k.len()
            ));
        }
    }
    Ok(keys
        .into_iter()
        .map(|k| SessionKey(k.as_bytes().to_vec()))
        .collect())
}

/// Why a gateway's session id is not relayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadId {
    /// Empty, or a byte outside visible ASCII (0x21–0x7E, the spec's rule).
    NotVisibleAscii,
    /// Over [`MAX_SESSION_ID`] bytes.
    TooLong,
}

/// Seals and unseals session ids under the keys.
pub struct Sealer {
    /// The first seals; all are tried when unsealing. Never empty.
    keys: Vec<SessionKey>,
    /// The keys were made here (no variable): sessions end with the process.
    ephemeral: bool,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("keys", &self.keys.len())
            .field("ephemeral", &self.ephemeral)
            .finish()
    }
}

impl Sealer {
    /// A sealer with the administrator's keys, or — none given — a random key of this process.
    pub fn new(keys: Vec<SessionKey>) -> Sealer {
        if keys.is_empty() {
            let mut k = [0u8; 32];
            // Not `rand`: see random_bytes (the image has no /dev/urandom).
            mcpscope_server::random_bytes(&mut k);
            return Sealer {
                keys: vec![SessionKey(k.to_vec())],
                ephemeral: true,
            };
        }
        Sealer {
            keys,
            ephemeral: false,
        }
    }

    /// What the start-up log says about sessions.
    pub fn describe(&self) -> String {
        if self.ephemeral {
            format!(
                "{KEY_VAR} is not set: session ids are sealed with a key made by this process, so a legacy session does not survive a restart and another replica refuses it (the page reconnects); give every replica the same key (`openssl rand -hex 32`) to run more than one"
            )
        } else if self.keys.len() == 1 {
            "session ids are sealed with the session key; every replica with the same key accepts them".into()
        } else {
            format!(
                "session ids are sealed with the first of {} session keys and accepted under any of them",
                self.keys.len()
            )
        }
    }

    /// The id the browser gets for the gateway's `id`, bound to `gateway` and `user`.
    pub fn seal(&self, gateway: &str, user: &str, id: &[u8]) -> Result<String, BadId> {
        check_id(id)?;
        let tag = mac(&self.keys[0], gateway, user, id)
            .finalize()
            .into_bytes();
        Ok(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(id),
            URL_SAFE_NO_PAD.encode(tag)
        ))
    }

    /// The gateway's own id inside `sealed`, when this relay sealed it for `user` on `gateway`
    /// under one of its keys; `None` for anything else.
    pub fn unseal(&self, gateway: &str, user: &str, sealed: &[u8]) -> Option<String> {
        if sealed.len() > MAX_SEALED {
            return None;
        }
        let text = std::str::from_utf8(sealed).ok()?;
        let (id, tag) = text.split_once('.')?;
        let id = URL_SAFE_NO_PAD.decode(id).ok()?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        // `verify_slice` compares in constant time, and refuses a tag of another length.
        let verified = self
            .keys
            .iter()
            .any(|k| mac(k, gateway, user, &id).verify_slice(&tag).is_ok());
        if !verified || check_id(&id).is_err() {
            return None;
        }
        String::from_utf8(id).ok()
    }
}

/// The MAC over the label and the three fields, each length-prefixed.
fn mac(key: &SessionKey, gateway: &str, user: &str, id: &[u8]) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(&key.0).expect("HMAC takes a key of any length");
    for field in [LABEL, gateway.as_bytes(), user.as_bytes(), id] {
        m.update(&(field.len() as u64).to_be_bytes());
        m.update(field);
    }
    m
}

/// A session id as the spec allows one: visible ASCII, here at most [`MAX_SESSION_ID`] bytes.
pub fn check_id(id: &[u8]) -> Result<(), BadId> {
    if id.len() > MAX_SESSION_ID {
        return Err(BadId::TooLong);
    }
    if id.is_empty() || !id.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(BadId::NotVisibleAscii);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> Vec<SessionKey> {
        parse_keys(&c.to_string().repeat(64), "test").unwrap()
    }

    #[test]
    fn a_sealed_id_opens_only_for_its_user_and_gateway_under_a_key_held() {
        let s = Sealer::new(key('a'));
        let sealed = s.seal("g", "ada", b"sess-1").unwrap();
        assert!(sealed.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        assert_eq!(s.unseal("g", "ada", sealed.as_bytes()).unwrap(), "sess-1");
        assert_eq!(s.seal("g", "ada", b"sess-1").unwrap(), sealed, "stable");
        assert_eq!(s.unseal("g", "bob", sealed.as_bytes()), None);
        assert_eq!(s.unseal("h", "ada", sealed.as_bytes()), None);
        assert_eq!(s.unseal("g", "ada", b"sess-1"), None, "a raw id");
        // The fields cannot slide into each other.
        let odd = s.seal("g", "a", b"xsess").unwrap();
        assert_eq!(s.unseal("ga", "", odd.as_bytes()), None);
        // Another key refuses it; a rotation that still holds the old key accepts it.
        assert_eq!(
            Sealer::new(key('b')).unseal("g", "ada", sealed.as_bytes()),
            None
        );
        let mut rotated = key('b');
        rotated.extend(key('a'));
        let rotated = Sealer::new(rotated);
        assert_eq!(
            rotated.unseal("g", "ada", sealed.as_bytes()).unwrap(),
            "sess-1"
        );
        assert_ne!(rotated.seal("g", "ada", b"sess-1").unwrap(), sealed);
        // Two processes without a key do not share one.
        let (p, q) = (Sealer::new(vec![]), Sealer::new(vec![]));
        let sealed = p.seal("g", "ada", b"sess-1").unwrap();
        assert_eq!(q.unseal("g", "ada", sealed.as_bytes()), None);
    }

    #[test]
    fn a_tampered_or_oversized_seal_is_refused() {
        let s = Sealer::new(key('a'));
        let sealed = s.seal("g", "ada", b"sess-1").unwrap();
        let (id, tag) = sealed.split_once('.').unwrap();
        let other_id = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(b"sess-2"));
        assert_eq!(s.unseal("g", "ada", other_id.as_bytes()), None);
        let mut bad_tag = tag.to_string().into_bytes();
        bad_tag[5] = if bad_tag[5] == b'A' { b'B' } else { b'A' };
        let bad = format!("{id}.{}", String::from_utf8(bad_tag).unwrap());
        assert_eq!(s.unseal("g", "ada", bad.as_bytes()), None);
        let short = format!("{id}.{}", &tag[..20]);
        assert_eq!(s.unseal("g", "ada", short.as_bytes()), None);
        for junk in ["", ".", "a.b.c", "%%%.%%%", "\u{e9}.x"] {
            assert_eq!(s.unseal("g", "ada", junk.as_bytes()), None, "{junk}");
        }
        let longest = s.seal("g", "ada", &[b'x'; MAX_SESSION_ID]).unwrap();
        assert_eq!(longest.len(), MAX_SEALED);
        assert!(s.unseal("g", "ada", longest.as_bytes()).is_some());
        assert_eq!(s.unseal("g", "ada", format!("{longest}=").as_bytes()), None);
        assert_eq!(
            s.seal("g", "ada", &[b'x'; MAX_SESSION_ID + 1]),
            Err(BadId::TooLong)
        );
        assert_eq!(s.seal("g", "ada", b"a b"), Err(BadId::NotVisibleAscii));
        assert_eq!(s.seal("g", "ada", b""), Err(BadId::NotVisibleAscii));
    }

    #[test]
    fn keys_are_long_enough_and_never_shown() {
        let e = parse_keys("short", KEY_VAR).unwrap_err();
        assert!(
            e.contains(KEY_VAR) && e.contains("openssl rand -hex 32") && !e.contains("short"),
            "{e}"
        );
        assert!(parse_keys(" , \n", KEY_VAR).is_err());
        let two = parse_keys(&format!("{}, {}\n", "a".repeat(32), "b".repeat(40)), "x").unwrap();
        assert_eq!(two.len(), 2);
        let shown = format!("{:?} {:?}", two, Sealer::new(two.clone()));
        assert!(
            !shown.contains("aaaa") && !shown.contains("bbbb"),
            "{shown}"
        );
    }
}
