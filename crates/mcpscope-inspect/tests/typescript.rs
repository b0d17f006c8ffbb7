//! The SPA's generated event types (`web/src/generated/events.ts`) are what the Rust types
//! generate today: CI fails when someone changes an event and not the committed file (or edits
//! the file by hand). `MCPSCOPE_WRITE_TYPES=1` rewrites it instead of failing.

use std::path::PathBuf;

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/src/generated/events.ts")
}

#[test]
fn the_committed_typescript_is_a_regeneration() {
    let fresh = mcpscope_inspect::events::typescript();
    let path = committed();
    if std::env::var_os("MCPSCOPE_WRITE_TYPES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != fresh {
        // Written beside the target dir, so the difference can be read (`diff` the two files).
        let out = std::env::temp_dir().join("mcpscope-events.ts");
        std::fs::write(&out, &fresh).unwrap();
        panic!(
            "{} differs from a regeneration ({}): run `MCPSCOPE_WRITE_TYPES=1 cargo test -p \
             mcpscope-inspect --test tests typescript::` and commit it with the SPA changes",
            path.display(),
            out.display()
        );
    }
}
