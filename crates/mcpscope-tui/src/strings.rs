//! The words of the terminal UI that are not a tab's own: one place to read and change them.

/// Shown when the catalog is empty.
pub const NO_SERVERS: &str = "No servers. Add one to the catalog (mcp.json in the data directory, or --config FILE), or run `mcpscope --tui COMMAND` for one server.";

/// The last line of the help.
pub const MOUSE_HELP: &str = "The mouse works too: click a server or a tab, scroll a list.";

/// Shown in a tab of a server that is not connected.
pub const NOT_CONNECTED: &str = "Not connected. Press c to connect.";

/// The quit question while `running` calls are in flight (the count is read as it is drawn:
/// the calls that made us ask may have finished meanwhile).
pub fn quit_question(running: usize) -> String {
    if running == 0 {
        return "The calls that were running have finished. Quit?".to_string();
    }
    format!(
        "{running} call{} still running. Quit anyway? (they are cancelled)",
        if running == 1 { " is" } else { "s are" }
    )
}

/// `!` with no question waiting.
pub const NO_QUESTIONS: &str = "No server is waiting for an answer.";

/// A question closed because the call that asked it was cancelled.
pub const CANCELLED_WITH_CALL: &str = "question cancelled with its call";

/// A URL elicitation's flow finished: the server sent `notifications/elicitation/complete`.
pub const URL_FLOW_COMPLETE: &str = "the server says the URL flow is complete";

/// The engine's advice names the command line's flag (`--protocol-era`); in the terminal UI
/// the era key does that, so a connection error says to press it instead.
pub fn era_advice_for_tui(message: &str) -> String {
    message
        .replace(
            "try --protocol-era legacy or auto",
            "press e for another era (2025-11-25, or auto)",
        )
        .replace(
            "rerun with --protocol-era modern or a larger --probe-timeout",
            "press e for 2026-07-28",
        )
}
