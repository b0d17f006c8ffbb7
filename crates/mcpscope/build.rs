//! Link the `mcpscope` executable position-dependent (`-no-pie`) on Linux, for the one-shot
//! CLI's start-up.
//!
//! A position-independent executable of this size carries ~46,000 relative relocations (vtables,
//! panic locations, static tables of sqlite, aws-lc, h2 …) spread over ~800 KB of data; the
//! dynamic loader writes every one of them at each start, so each of those ~200 pages is
//! copied on write before `main` runs. In the VMs this project is measured on that took
//! 1.4 ms of a 3.7 ms exec → first byte (0.6 ms without it; `bench/startup.py`, see
//! bench/RESULTS.md). Linked at a fixed address the pointers are resolved by the linker and
//! those pages are read from the file only when touched.
//!
//! The cost is that the executable image itself is not randomised (ASLR still moves the stack,
//! the heap, mmap regions and the shared libraries), as with Go's default builds. The code is
//! still compiled position-independent, so every dependency, aws-lc's C and assembly
//! included, links as before. Delete this file to go back to a PIE.
//!
//! Only the `[[bin]]` is affected (`rustc-link-arg-bins`): test binaries and the library keep
//! the default. The released binary (`cargo ship`, .cargo/config.toml) is moreover linked
//! statically, with no dynamic loader at all.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
