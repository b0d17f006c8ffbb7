//! Where mcpscope keeps its files, per platform, without a dependency for it.

use std::path::PathBuf;

/// The directory for mcpscope's files: `MCPSCOPE_DATA_DIR` when set; else `$XDG_DATA_HOME/mcpscope`
/// or `~/.local/share/mcpscope` (Linux and other Unix), `~/Library/Application Support/mcpscope`
/// (macOS), `%APPDATA%\mcpscope` (Windows). `None` when no home directory is known.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = non_empty("MCPSCOPE_DATA_DIR") {
        return Some(PathBuf::from(d));
    }
    if cfg!(windows) {
        return non_empty("APPDATA").map(|a| PathBuf::from(a).join("mcpscope"));
    }
    let home = std::env::home_dir()?;
    if cfg!(target_os = "macos") {
        return Some(home.join("Library/Application Support/mcpscope"));
    }
    // XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
    if let Some(x) = non_empty("XDG_DATA_HOME").map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join("mcpscope"));
    }
    Some(home.join(".local/share/mcpscope"))
}

fn non_empty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.is_empty())
}
