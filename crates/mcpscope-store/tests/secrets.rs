//! The encrypted secrets file, tested as a user would meet it: on disk, with the wrong key, with
//! a damaged file, with two writers.

use mcpscope_store::{
    EncryptedFileStore, FileKey, SecretStore, SecretStoreConfig, StoreChoice, StoreError,
    open_secret_store,
};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let unique = format!(
            "mcpscope-store-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let dir = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn key_file_store(file: &Path, key: &Path) -> Result<EncryptedFileStore, StoreError> {
    EncryptedFileStore::open(
        file.to_path_buf(),
        FileKey::KeyFile(key.to_path_buf()),
        "test".into(),
    )
}

fn passphrase_store(file: &Path, pass: &str) -> Result<EncryptedFileStore, StoreError> {
    EncryptedFileStore::open(
        file.to_path_buf(),
        FileKey::Passphrase(Zeroizing::new(pass.to_string())),
        "test".into(),
    )
}

const TOKEN: &str = "access-token-7f3a9c-do-not-leak";

#[test]
fn the_file_holds_no_plaintext_and_cannot_be_read_without_its_key() {
    let dir = TempDir::new("nokey");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    let store = key_file_store(&file, &key).unwrap();
    store.set("oauth/default/server/tokens", TOKEN).unwrap();
    assert_eq!(
        store.get("oauth/default/server/tokens").unwrap().as_deref(),
        Some(TOKEN)
    );

    let raw = std::fs::read(&file).unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(!text.contains(TOKEN), "plaintext token on disk: {text}");
    assert!(
        !text.contains("oauth/default"),
        "plaintext key on disk: {text}"
    );
    assert!(text.contains("XChaCha20-Poly1305"), "{text}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in [&file, &key] {
            let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{} has mode {mode:o}", f.display());
        }
    }

    // Another key file (another machine, another user): refused, and says so.
    let other_key = dir.path("other.key");
    std::fs::write(&other_key, [7u8; 32]).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&other_key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let err = key_file_store(&file, &other_key).err().expect("refused");
    assert!(matches!(err, StoreError::WrongKey { .. }), "{err}");
    assert!(err.to_string().contains("another key"), "{err}");

    // The key file gone: refused, with what to do.
    std::fs::remove_file(&key).unwrap();
    let err = key_file_store(&file, &key).err().expect("refused");
    assert!(err.to_string().contains("key file is missing"), "{err}");

    // A passphrase does not open a key-file store either.
    let err = passphrase_store(&file, "guess").err().expect("refused");
    assert!(
        err.to_string().contains("unset MCPSCOPE_SECRET_PASSPHRASE"),
        "{err}"
    );
}

#[test]
fn a_key_file_readable_by_others_is_refused() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("perms");
        let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
        key_file_store(&file, &key).unwrap().set("a", "b").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = key_file_store(&file, &key).err().expect("refused");
        assert!(err.to_string().contains("chmod 600"), "{err}");
    }
}

#[test]
fn a_wrong_passphrase_is_refused() {
    let dir = TempDir::new("pass");
    let file = dir.path("secrets.enc");
    let store = passphrase_store(&file, "correct horse battery staple").unwrap();
    store.set("k", TOKEN).unwrap();
    let raw = std::fs::read_to_string(&file).unwrap();
    assert!(raw.contains("argon2id") && !raw.contains(TOKEN), "{raw}");

    let err = passphrase_store(&file, "Correct horse battery staple")
        .err()
        .expect("refused");
    assert!(matches!(err, StoreError::WrongKey { .. }), "{err}");
    assert!(err.to_string().contains("wrong passphrase"), "{err}");

    // No passphrase at all (key-file mode): the error says which variable to set.
    let err = key_file_store(&file, &dir.path("secrets.key"))
        .err()
        .expect("refused");
    assert!(
        err.to_string().contains("MCPSCOPE_SECRET_PASSPHRASE"),
        "{err}"
    );

    let again = passphrase_store(&file, "correct horse battery staple").unwrap();
    assert_eq!(again.get("k").unwrap().as_deref(), Some(TOKEN));
}

#[test]
fn a_corrupted_file_is_reported_and_not_overwritten() {
    let dir = TempDir::new("corrupt");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    let store = key_file_store(&file, &key).unwrap();
    store.set("keep", "me").unwrap();

    // Damage it in two ways: flipped ciphertext (authenticated: refused) and garbage.
    let doc = std::fs::read_to_string(&file).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let ct = v["ciphertext"].as_str().unwrap().to_string();
    let flipped = format!(
        "{}{}",
        if ct.starts_with('A') { "B" } else { "A" },
        &ct[1..]
    );
    v["ciphertext"] = flipped.into();
    std::fs::write(&file, serde_json::to_vec(&v).unwrap()).unwrap();
    let err = store.get("keep").expect_err("tampering detected");
    assert!(matches!(err, StoreError::WrongKey { .. }), "{err}");

    let garbage = b"{\"format\": \"mcpscope-secrets\", trunc";
    std::fs::write(&file, garbage).unwrap();
    let err = key_file_store(&file, &key).err().expect("reported at open");
    assert!(matches!(err, StoreError::Corrupted { .. }), "{err}");
    assert!(err.to_string().contains("left as it is"), "{err}");

    // Writing through a store opened before the damage must not replace the file.
    let err = store.set("new", "value").expect_err("write refused");
    assert!(matches!(err, StoreError::Corrupted { .. }), "{err}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        garbage,
        "the file was overwritten"
    );
    let err = store.delete("keep").expect_err("delete refused");
    assert!(matches!(err, StoreError::Corrupted { .. }), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), garbage);
}

#[test]
fn two_writers_keep_each_others_entries() {
    let dir = TempDir::new("writers");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    let a = key_file_store(&file, &key).unwrap();
    let b = key_file_store(&file, &key).unwrap();
    let threads: Vec<_> = [a, b]
        .into_iter()
        .enumerate()
        .map(|(n, s)| {
            std::thread::spawn(move || {
                for i in 0..20 {
                    s.set(&format!("writer{n}/{i}"), "x").unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let check = key_file_store(&file, &key).unwrap();
    for n in 0..2 {
        for i in 0..20 {
            assert!(
                check.get(&format!("writer{n}/{i}")).unwrap().is_some(),
                "lost writer{n}/{i}"
            );
        }
    }
    check.delete("writer0/0").unwrap();
    assert_eq!(check.get("writer0/0").unwrap(), None);
    assert!(check.get("writer1/0").unwrap().is_some());
}

#[test]
fn the_chosen_store_says_what_it_is_and_why() {
    let dir = TempDir::new("choice");
    let cfg = SecretStoreConfig::file(dir.path("s.enc"), None);
    let store = open_secret_store(&cfg).unwrap();
    let info = store.info();
    assert_eq!(info.kind, "file");
    assert!(info.summary().contains("s.enc"), "{}", info.summary());
    assert!(
        info.protection.as_deref().unwrap().contains("key file"),
        "{info:?}"
    );

    let mut memory = cfg.clone();
    memory.choice = StoreChoice::Memory;
    memory.choice_source = Some("MCPSCOPE_SECRET_STORE=memory".into());
    let store = open_secret_store(&memory).unwrap();
    assert_eq!(store.info().kind, "memory");
    assert_eq!(store.info().reason, "MCPSCOPE_SECRET_STORE=memory");
    assert!("nonsense".parse::<StoreChoice>().is_err());
}

/// Issue 24 item 28: a write killed with `kill -9` leaves its temporary file; the next write
/// (under the same lock, so no writer can be mid-write) removes it, and the older versions'
/// `secrets.tmp-PID` too.
#[test]
fn temporary_files_a_killed_writer_left_are_removed_by_the_next_write() {
    let dir = TempDir::new("stale-tmp");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    for stale in ["secrets.tmp-424242", "secrets.enc.tmp", "secrets.key.tmp"] {
        std::fs::write(dir.path(stale), b"half a write").unwrap();
    }
    std::fs::write(dir.path("notes.tmp"), b"not ours").unwrap();
    let store = key_file_store(&file, &key).unwrap();
    store.set("t", TOKEN).unwrap();
    let mut left: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["notes.tmp", "secrets.enc", "secrets.key", "secrets.lock"]
    );
}

/// Issue 24 item 28: the lock file is owner-only like the secrets and the key.
#[cfg(unix)]
#[test]
fn the_lock_file_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("lock-mode");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    key_file_store(&file, &key)
        .unwrap()
        .set("t", TOKEN)
        .unwrap();
    for name in ["secrets.lock", "secrets.enc", "secrets.key"] {
        let mode = std::fs::metadata(dir.path(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{name}");
    }
}

/// Issue 24 item 28: a full disk during the first save left a 0-byte key file that broke the
/// store until deleted by hand. Keys are now written whole or not at all; an empty one with no
/// secrets file beside it (nothing was ever encrypted with it) is replaced, while one beside a
/// secrets file is still refused, never silently swapped.
#[test]
fn an_empty_key_file_with_no_secrets_yet_is_replaced() {
    let dir = TempDir::new("empty-key");
    let (file, key) = (dir.path("secrets.enc"), dir.path("secrets.key"));
    std::fs::write(&key, b"").unwrap();
    let store = key_file_store(&file, &key).unwrap();
    store.set("t", TOKEN).unwrap();
    assert_eq!(store.get("t").unwrap().as_deref(), Some(TOKEN));
    assert_eq!(std::fs::metadata(&key).unwrap().len(), 32);
    std::fs::write(&key, b"").unwrap();
    let err = key_file_store(&file, &key).err().expect("refused");
    assert!(err.to_string().contains("0 bytes"), "{err}");
}
