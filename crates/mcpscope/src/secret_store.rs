//! The secret store as this binary opens it: configured from the environment
//! (`MCPSCOPE_SECRET_STORE`, `MCPSCOPE_SECRET_PASSPHRASE`), with the passphrase of an encrypted
//! file asked for at the terminal. Shared by the config reader ([`crate::resolve`]), the OAuth
//! wiring ([`crate::oauth`]) and the web UI ([`crate::web`]), below all three.

use mcpscope_store::SecretStoreConfig;
use std::sync::Arc;

/// The secret store as the environment says, with a terminal prompt for the passphrase of a
/// passphrase-protected file when mcpscope runs in a terminal (never in CI: there the error says
/// to set `MCPSCOPE_SECRET_PASSPHRASE`).
pub fn secret_config() -> Result<SecretStoreConfig, mcpscope_store::StoreError> {
    use std::io::IsTerminal;
    let mut config = SecretStoreConfig::from_env()?;
    if std::io::stdin().is_terminal() {
        config.prompt = Some(Arc::new(tty_passphrase));
    }
    Ok(config)
}

/// Ask on the terminal (`/dev/tty`), without echo.
fn tty_passphrase(path: &std::path::Path) -> Option<String> {
    use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
    use std::io::{BufRead, Write};
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut out = tty.try_clone().ok()?;
    // Echo goes off before the prompt appears: whatever is typed once the prompt is visible
    // (or pasted by a script that waits for it) must never reach the screen.
    let saved = tcgetattr(&tty).ok();
    if let Some(s) = &saved {
        let mut quiet = s.clone();
        quiet.local_flags.remove(LocalFlags::ECHO);
        let _ = tcsetattr(&tty, SetArg::TCSANOW, &quiet);
    }
    let prompt = write!(
        out,
        "mcpscope: passphrase for the secrets file {}: ",
        path.display()
    )
    .and_then(|()| out.flush());
    if prompt.is_err() {
        if let Some(s) = &saved {
            let _ = tcsetattr(&tty, SetArg::TCSANOW, s);
        }
        return None;
    }
    let mut line = String::new();
    let read = std::io::BufReader::new(&tty).read_line(&mut line);
    if let Some(s) = &saved {
        let _ = tcsetattr(&tty, SetArg::TCSANOW, s);
    }
    let _ = writeln!(out);
    read.ok()?;
    let p = line.trim_end_matches(['\n', '\r']).to_string();
    (!p.is_empty()).then_some(p)
}
