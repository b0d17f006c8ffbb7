//! Runs the demo server by hand: `cargo run -p mcpscope-demo --example demo -- [--http PORT]`.
//!
//! Without arguments it speaks MCP on stdin/stdout; with `--http PORT` it serves Streamable HTTP
//! on `http://127.0.0.1:PORT/mcp` (port 0 picks one and the line on stderr says which).

use anyhow::{Context as _, bail};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        None => mcpscope_demo::serve_stdio().await,
        Some("--http") => {
            let port = args
                .next()
                .context("--http needs a port number (0 picks a free one)")?
                .parse::<u16>()
                .context("--http needs a port number between 0 and 65535")?;
            mcpscope_demo::serve_http(port, true).await
        }
        Some("-h" | "--help") => {
            eprintln!(
                "usage: demo [--http PORT]\n  stdio by default; --http serves http://127.0.0.1:PORT/mcp"
            );
            Ok(())
        }
        Some(other) => bail!("unknown argument {other:?}; usage: demo [--http PORT]"),
    }
}
