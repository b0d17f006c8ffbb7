//! `mcpscope check TARGET`: the command line of the checker (`mcpscope-check`). The target is
//! read exactly as `--cli` reads one (the shared connection and OAuth flags, `resolve`); this
//! file adds the run's own flags, writes the reports and turns the verdict into the exit code:
//! 0 nothing failed, 6 a check failed (or a stale baseline), 3 authorization required,
//! 4 unreachable, 1 usage.

use crate::args::{AuthArgs, ConnectArgs, FormatArg};
use crate::cli::Failure;
use crate::resolve::{UsageError, resolve_connect};
use crate::say;
use clap::Parser;
use mcpscope_check::baseline::Baseline;
use mcpscope_check::catalog::CHECKS;
use mcpscope_check::{Options, RunError, report};
use mcpscope_proto::era::{Era, EraPreference};
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_transport::Target;
use std::io::IsTerminal;
use std::time::Duration;

/// `mcpscope check` arguments.
#[derive(Debug, Parser)]
#[command(
    name = "mcpscope check",
    about = "Check an MCP server against the spec: every era it offers, every check that applies, a verdict for CI",
    after_help = EXAMPLES
)]
pub struct CheckArgs {
    /// The server and how to reach it (as `--cli`).
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// OAuth for an HTTP server (as `--cli`).
    #[command(flatten)]
    pub auth: AuthArgs,
    /// Judge one revision's requirements only: 2025-11-25 or 2026-07-28 (default: every era the
    /// server offers; `--protocol-era legacy|modern` does the same).
    #[arg(long, value_name = "REVISION")]
    pub requirements: Option<String>,
    /// Call every tool that needs no arguments to check its outputSchema (by default only tools
    /// annotated readOnlyHint are called).
    #[arg(long)]
    pub call_tools: bool,
    /// The whole run's bound, in seconds: checks not reached by then are skipped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,
    /// Output on stdout: text (for a person) or json (one document).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// Also write JUnit XML to this file (one testcase per check and era).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<String>,
    /// Expected failures: a YAML list of check ids (`id` or `id@REVISION`). Listed failures do
    /// not fail the run; a listed check that passes does (stale baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<String>,
    /// Warnings fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// Log in to a protected HTTP server when no stored credentials work (a browser, or
    /// --headless-auth / --print-auth-url). Without it the check never waits on a login: a
    /// server that needs one exits 3.
    #[arg(long)]
    pub login: bool,
    /// Print every check (id, level, revision, spec source) and exit.
    #[arg(long)]
    pub list: bool,
    /// Nothing on stderr but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

const EXAMPLES: &str = "Examples:
  mcpscope check --demo
  mcpscope check node server.js --junit check.xml
  mcpscope check https://example.com/mcp --requirements 2026-07-28 --format json
  mcpscope check --config mcp.json --server github --baseline expected-failures.yaml --strict

Exit codes: 0 no check failed · 6 a check failed, or the baseline is stale · 3 authorization
required · 4 unreachable · 1 usage. docs/checks.md lists every check and its spec sentence.";

/// Run `mcpscope check`; returns the exit code.
pub async fn run(args: CheckArgs) -> i32 {
    if args.list {
        print_list();
        return 0;
    }
    match run_inner(args).await {
        Ok(code) => code,
        Err(f) => {
            say::line(&format!("error: {}", f.message));
            say::json_line(&f.json_line());
            f.exit()
        }
    }
}

fn print_list() {
    for d in CHECKS {
        let applies = serde_json::to_value(d.applies).unwrap_or_default();
        println!(
            "{:<32} {:<7} {:<12} {:<7} {}",
            d.id,
            d.level.name(),
            d.area.name(),
            applies.as_str().unwrap_or_default(),
            d.source
        );
    }
}

async fn run_inner(mut args: CheckArgs) -> Result<i32, Failure> {
    let baseline = read_baseline(args.baseline.as_deref())?;
    let only = only_era(&args)?;
    let resolved = resolve_connect(&args.connect, None)?;
    if !wants_login(&args) && !matches!(resolved.target, Target::Stdio { .. }) {
        // A CI job has no one to log in: stored credentials or a --header, else exit 3 at once
        // (a browser login would wait until --timeout and end as "unreachable").
        args.auth.stored_auth_only = true;
    }
    let oauth = crate::oauth::setup(&args.auth, &resolved)?;
    let mut client = resolved.options;
    client.transport.auth = oauth.auth_provider();
    let opts = Options {
        target: resolved.target,
        client,
        only,
        call_tools: args.call_tools,
        timeout: Duration::from_secs(args.timeout.max(1)),
        reproduce: reproduce_prefix(&args.connect),
    };
    if !args.quiet && std::io::stderr().is_terminal() {
        say::line(&format!("checking {} …", resolved.label));
    }
    let mut report = mcpscope_check::run(opts).await.map_err(|e| match e {
        RunError::AuthRequired(m) => Failure::new(ErrorCode::AuthRequired, format!("{m} (give --header \"Authorization: Bearer …\", or add --login: the tokens are stored for the next run)")),
        RunError::Unreachable(m) => Failure::new(ErrorCode::Unreachable, m),
    })?;
    let stale = baseline.apply(&mut report.verdicts);
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&report, args.strict)).map_err(|e| {
            Failure::new(
                ErrorCode::Usage,
                format!("cannot write --junit {path}: {e}"),
            )
        })?;
    }
    match args.format {
        FormatArg::Json => println!("{}", report::json(&report, &stale)),
        FormatArg::Text => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            print!("{}", report::text(&report, color, &stale));
        }
    }
    if let Some(why) = &report.auth_required {
        // Only the authorization checks ran (reported above): exit 3 as every command does.
        return Err(Failure::new(
            ErrorCode::AuthRequired,
            format!("{why} ({})", report::CREDENTIALS_HINT),
        ));
    }
    Ok(report::exit_code(&report, args.strict, &stale))
}

/// Whether the flags ask for a login: `--login`, or a flag that only means something with one.
fn wants_login(args: &CheckArgs) -> bool {
    args.login || args.auth.relogin || args.auth.headless_auth || args.auth.print_auth_url
}

fn read_baseline(path: Option<&str>) -> Result<Baseline, Failure> {
    let Some(path) = path else {
        return Ok(Baseline::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read --baseline {path}: {e}")))?;
    Baseline::parse(&text).map_err(|e| UsageError(format!("--baseline {path}: {e}")).into())
}

/// `--requirements` or `--protocol-era`: one era, or every era the server offers.
fn only_era(args: &CheckArgs) -> Result<Option<Era>, UsageError> {
    if let Some(r) = &args.requirements {
        return match r.as_str() {
            "2025-11-25" | "legacy" => Ok(Some(Era::Legacy)),
            "2026-07-28" | "modern" => Ok(Some(Era::Modern)),
            other => Err(UsageError(format!(
                "--requirements {other:?}: the revisions are 2025-11-25 and 2026-07-28"
            ))),
        };
    }
    match args
        .connect
        .protocol_era
        .as_deref()
        .map(str::parse::<EraPreference>)
    {
        None | Some(Ok(EraPreference::Auto)) => Ok(None),
        Some(Ok(EraPreference::Legacy)) => Ok(Some(Era::Legacy)),
        Some(Ok(EraPreference::Modern)) => Ok(Some(Era::Modern)),
        Some(Err(e)) => Err(UsageError(e)),
    }
}

/// `mcpscope --cli` with the flags that name this target, for each verdict's reproduce command.
/// Secret-named headers and environment values are left out (the command is printed in CI logs).
fn reproduce_prefix(c: &ConnectArgs) -> String {
    let mut parts = vec!["mcpscope".to_string(), "--cli".to_string()];
    if c.demo {
        parts.push("--demo".into());
    }
    if let Some(config) = &c.config {
        parts.extend(["--config".into(), quote(config)]);
    }
    if let Some(server) = &c.server {
        parts.extend(["--server".into(), quote(server)]);
    }
    if let Some(url) = &c.server_url {
        parts.extend(["--server-url".into(), quote(url)]);
    }
    for h in &c.headers {
        let name = h.split(':').next().unwrap_or_default().trim();
        if !mcpscope_proto::redact::is_secret_header(name) {
            parts.extend(["--header".into(), quote(h)]);
        }
    }
    parts.extend(c.target.iter().map(|t| quote(t)));
    if !c.server_args.is_empty() {
        parts.push("--".into());
        parts.extend(c.server_args.iter().map(|t| quote(t)));
    }
    parts.join(" ")
}

/// `s` as one shell word.
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
