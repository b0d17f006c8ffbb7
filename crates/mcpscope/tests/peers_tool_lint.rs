//! The tool quality lint (`mcpscope_proto::tool_lint`, the web UI's badges) over the tools of
//! three servers not built by us — `@modelcontextprotocol/server-everything`, `-filesystem` and
//! `-memory`, all on the TypeScript SDK — listed over stdio by the CLI. Their definitions are the
//! ones most clients see first: the lint must find no spec error in them (a false error there is
//! a red badge on a good server), and what it warns about is printed for the reader.

use crate::demo_harness::cli;
use crate::peers_support::{EVERYTHING, Peers};
use mcpscope_proto::era::Era;
use mcpscope_proto::lint::Linter;
use mcpscope_proto::tool_lint::{Severity, lint_list_result};

const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem/dist/index.js";
const MEMORY: &str = "@modelcontextprotocol/server-memory/dist/index.js";

#[tokio::test]
async fn the_npm_servers_tools_have_no_spec_errors() {
    let Some(peers) = Peers::get("the_npm_servers_tools_have_no_spec_errors") else {
        return;
    };
    let dir = std::env::temp_dir().display().to_string();
    let memory = format!("{dir}/mcpscope-lint-memory-{}.jsonl", std::process::id());
    let servers = [
        (
            "server-everything",
            peers.node_stdio(EVERYTHING, &[], &["stdio"]),
        ),
        (
            "server-filesystem",
            peers.node_stdio(FILESYSTEM, &[], &[&dir]),
        ),
        (
            "server-memory",
            peers.node_stdio(MEMORY, &[("MEMORY_FILE_PATH", &memory)], &[]),
        ),
    ];
    let linter = Linter::new();
    for (label, server) in servers {
        let mut args: Vec<String> = ["--method", "tools/list", "--format", "json"]
            .map(String::from)
            .to_vec();
        args.extend(server);
        let run = cli(label, &args).await;
        run.expect_exit(0);
        let result = run.result();
        let tools = result["tools"].as_array().map_or(0, Vec::len);
        assert!(tools > 0, "{label} listed no tools: {}", run.dump());
        let lint = lint_list_result(&linter, Era::Legacy, &result);
        let errors: Vec<_> = (lint.findings.iter())
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{label}: {errors:#?}");
        assert!(lint.incomplete.is_none(), "{label}: {:?}", lint.incomplete);
        eprintln!("{label}: {tools} tools, {} warnings", lint.warnings);
        for f in &lint.findings {
            eprintln!("  {} {}: {} ({})", f.tool, f.code, f.message, f.pointer);
        }
    }
    let _ = std::fs::remove_file(&memory);
}
