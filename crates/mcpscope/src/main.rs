//! The `mcpscope` executable: everything lives in the library (`lib.rs`).

fn main() {
    let code = mcpscope::run(std::env::args().collect());
    std::process::exit(code);
}
