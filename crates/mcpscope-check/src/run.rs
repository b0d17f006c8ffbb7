//! The run: connect in each era the server offers (each era its own session and recorder, the
//! two run side by side), run every check group on it, and collect the verdicts — within the
//! run's `--timeout` whatever the server does: checks not reached by then are skipped, saying so.

use crate::catalog::{Applies, CHECKS};
use crate::checks;
use crate::recorder::Recorder;
use crate::verdict::{Evidence, Outcome, Verdict};
use mcpscope_client::{
    ClientError, ClientOptions, DeclineAll, RequestOptions, ServerInfo, Session,
};
use mcpscope_proto::RpcError;
use mcpscope_proto::era::{Era, EraPreference, LEGACY_VERSION, MODERN_VERSION};
use mcpscope_proto::error_code::ErrorCode;
use mcpscope_proto::lint::Linter;
use mcpscope_transport::Target;
use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What to check and how.
#[derive(Clone)]
pub struct Options {
    /// The server.
    pub target: Target,
    /// Session options (timeouts, headers, OAuth) as the CLI resolves them; the era is set per run.
    pub client: ClientOptions,
    /// One revision's requirements only (`--requirements`, `--protocol-era`); `None`: every era
    /// the server offers.
    pub only: Option<Era>,
    /// Call every tool that needs no arguments (`--call-tools`), not only read-only ones.
    pub call_tools: bool,
    /// The whole run's bound.
    pub timeout: Duration,
    /// `mcpscope --cli` and the target's flags, for the reproduce command of each verdict.
    pub reproduce: String,
}

/// Why no check could run.
#[derive(Debug, Clone)]
pub enum RunError {
    /// The server wants credentials (exit 3).
    AuthRequired(String),
    /// It could not be reached in any era (exit 4).
    Unreachable(String),
}

/// One era's connection, as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct EraRun {
    /// `2025-11-25` or `2026-07-28`.
    pub era: &'static str,
    /// Whether the server speaks it.
    pub offered: bool,
    /// The server's name and version, or why the era is not offered.
    pub note: String,
}

/// The run's result.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Each era tried.
    pub eras: Vec<EraRun>,
    /// Every verdict, in catalogue order within each era.
    pub verdicts: Vec<Verdict>,
    /// How long the run took.
    pub elapsed_ms: u64,
    /// Whether `--timeout` ended it.
    pub timed_out: bool,
    /// The server refused every era's handshake for want of credentials: only the authorization
    /// checks ran (exit 3). Why, in the client's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_required: Option<String>,
}

/// What a check group works with: the era's session and recorder, and where verdicts go.
pub(crate) struct Cx {
    /// The era's session.
    pub(crate) session: Session,
    /// Its era.
    pub(crate) era: Era,
    /// The handshake's view of the server.
    pub(crate) info: ServerInfo,
    /// The era's observer.
    pub(crate) rec: Arc<Recorder>,
    /// The run's options.
    pub(crate) opts: Arc<Options>,
    out: Arc<Mutex<Vec<Verdict>>>,
    /// The era's frame numbers: the session's and its probes' frames share them.
    frames: Arc<AtomicU64>,
    /// How long the era's connect and handshake took: a probe on a connection of its own (a new
    /// process, for stdio) waits in proportion, so a server slow to start on a loaded machine
    /// is not taken for a silent one.
    pub(crate) connected_in: Duration,
}

/// What a request made by a check got back, with the frames of the exchange.
pub(crate) struct Asked {
    /// The result, the JSON-RPC error, or why there was no answer.
    pub(crate) answer: Result<Value, Failure>,
    /// The frames of the exchange.
    pub(crate) evidence: Vec<Evidence>,
    /// The command that makes it again.
    pub(crate) reproduce: String,
}

/// A request without a result.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server answered with a JSON-RPC error.
    Rpc(RpcError),
    /// No answer: timeout, transport failure, closed.
    Client(ClientError),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rpc(e) => write!(f, "JSON-RPC error {} {:?}", e.code, e.message),
            Failure::Client(e) => write!(f, "no answer: {e}"),
        }
    }
}

impl Cx {
    /// The revision's name.
    pub(crate) fn version(&self) -> &'static str {
        era_name(self.era)
    }

    /// The declared server capabilities.
    pub(crate) fn caps(&self) -> &Value {
        &self.info.capabilities
    }

    /// Whether capability `name` is declared.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.caps().get(name).is_some_and(|v| !v.is_null())
    }

    /// Whether the server runs over stdio.
    pub(crate) fn is_stdio(&self) -> bool {
        matches!(self.opts.target, Target::Stdio { .. })
    }

    /// The era without its session, for the checks that need none (authorization).
    pub(crate) fn bare(&self) -> checks::auth::Bare {
        checks::auth::Bare {
            era: self.era,
            rec: self.rec.clone(),
            opts: self.opts.clone(),
            out: self.out.clone(),
            frames: self.frames.clone(),
        }
    }

    /// The next frame number (for a probe's frames).
    pub(crate) fn next_frame(&self) -> u64 {
        self.frames.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Record a verdict.
    pub(crate) fn add(&self, v: Verdict) {
        self.out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(v);
    }

    /// `id` held.
    pub(crate) fn pass(&self, id: &'static str, message: impl Into<String>) {
        self.add(Verdict::new(
            id,
            self.version(),
            Outcome::Pass,
            message.into(),
        ));
    }

    /// `id` was not checked, and why.
    pub(crate) fn skip(&self, id: &'static str, why: impl Into<String>) {
        self.add(Verdict::new(
            id,
            self.version(),
            Outcome::Skipped,
            why.into(),
        ));
    }

    /// `id`'s rule was broken: fail (MUST) or warn (SHOULD), with the exchange as evidence.
    pub(crate) fn broken(
        &self,
        id: &'static str,
        message: impl Into<String>,
        asked: Option<&Asked>,
    ) {
        let mut v = Verdict::broken(id, self.version(), message.into());
        if let Some(a) = asked {
            v = v
                .with_evidence(a.evidence.clone())
                .with_reproduce(Some(a.reproduce.clone()));
        }
        self.add(v);
    }

    /// Send `method` once, as the engine builds any request of this era, and keep the exchange.
    pub(crate) async fn ask(&self, method: &str, params: Value) -> Asked {
        let mark = self.rec.mark();
        let opts = RequestOptions::default();
        let answer = match self
            .session
            .request_by_hand(method, Some(params.clone()), &opts)
            .await
        {
            Ok(x) => match x.answer {
                Some(Ok(v)) => Ok(v),
                Some(Err(e)) => Err(Failure::Rpc(e)),
                None => Err(Failure::Client(ClientError::Closed("no answer".into()))),
            },
            Err(e) => Err(Failure::Client(e)),
        };
        Asked {
            answer,
            evidence: self.rec.since(mark, 4),
            reproduce: self.reproduce(method, &params),
        }
    }

    /// The `mcpscope --cli` command that sends `method` with `params` in this era.
    pub(crate) fn reproduce(&self, method: &str, params: &Value) -> String {
        let era = match self.era {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        };
        let params = params.to_string().replace('\'', r"'\''");
        self.cli_command(&format!(
            "--protocol-era {era} --method {method} --params-json '{params}'"
        ))
    }

    /// `mcpscope --cli` with `flags`, then the target: the flags go first, because after a
    /// stdio target's `--` every word is the server's.
    pub(crate) fn cli_command(&self, flags: &str) -> String {
        let target = self
            .opts
            .reproduce
            .strip_prefix("mcpscope --cli")
            .unwrap_or(&self.opts.reproduce);
        format!("mcpscope --cli {flags}{target}")
    }
}

/// The revision name of an era.
pub fn era_name(era: Era) -> &'static str {
    match era {
        Era::Legacy => LEGACY_VERSION,
        Era::Modern => MODERN_VERSION,
    }
}

/// Run every applicable check; `progress` hears each verdict as it is made.
pub async fn run(opts: Options) -> Result<Report, RunError> {
    let started = Instant::now();
    let opts = Arc::new(opts);
    let linter = Arc::new(Linter::new());
    let out = Arc::new(Mutex::new(Vec::new()));
    let eras: Vec<Era> = match opts.only {
        Some(e) => vec![e],
        None => vec![Era::Legacy, Era::Modern],
    };
    let runs = Arc::new(Mutex::new(Vec::new()));
    let all = futures::future::join_all(
        eras.iter()
            .map(|&era| run_era(era, opts.clone(), linter.clone(), out.clone(), runs.clone())),
    );
    let timed_out = tokio::time::timeout(opts.timeout, all).await.is_err();
    let mut eras_run: Vec<EraRun> = runs
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    eras_run.sort_by_key(|r| r.era);
    let mut verdicts = std::mem::take(
        &mut *out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let offered: Vec<&EraRun> = eras_run.iter().filter(|r| r.offered).collect();
    let auth_required = match connect_failure(&eras_run) {
        RunError::AuthRequired(m) if offered.is_empty() && !verdicts.is_empty() => Some(m),
        _ => None,
    };
    if offered.is_empty() && auth_required.is_none() {
        if timed_out && eras_run.len() < eras.len() {
            return Err(RunError::Unreachable(format!(
                "the server answered the handshake in no era within the run's --timeout ({} s){}",
                opts.timeout.as_secs(),
                if eras_run.is_empty() {
                    String::new()
                } else {
                    format!("; {}", describe(&eras_run))
                }
            )));
        }
        return Err(connect_failure(&eras_run));
    }
    if timed_out {
        skip_unreached(&mut verdicts, &eras_run, opts.timeout);
    }
    sort(&mut verdicts);
    Ok(Report {
        eras: eras_run,
        verdicts,
        elapsed_ms: started.elapsed().as_millis() as u64,
        timed_out,
        auth_required,
    })
}

/// Connect in one era and run the groups; a server that does not speak the era is noted.
async fn run_era(
    era: Era,
    opts: Arc<Options>,
    linter: Arc<Linter>,
    out: Arc<Mutex<Vec<Verdict>>>,
    runs: Arc<Mutex<Vec<EraRun>>>,
) {
    let rec = Recorder::new(linter);
    let frames = Arc::new(AtomicU64::new(0));
    let mut client = opts.client.clone();
    client.frame_numbers = Some(frames.clone());
    client.era = match era {
        Era::Legacy => EraPreference::Legacy,
        Era::Modern => EraPreference::Modern,
    };
    let started = Instant::now();
    let connected = Session::connect(
        opts.target.clone(),
        client,
        Arc::new(DeclineAll),
        rec.clone(),
    )
    .await;
    let session = match connected {
        Ok(s) => s,
        Err(e) => {
            runs.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(EraRun {
                    era: era_name(era),
                    offered: false,
                    note: not_offered(&e),
                });
            if e.code() == ErrorCode::AuthRequired {
                // What a client without a token sees is checked all the same.
                let bare = checks::auth::Bare {
                    era,
                    rec,
                    opts,
                    out,
                    frames,
                };
                checks::auth::run(&bare, checks::auth::Start::Refused).await;
            }
            return;
        }
    };
    let Some(info) = session.server_info() else {
        session.close().await;
        return;
    };
    runs.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(EraRun {
            era: era_name(era),
            offered: true,
            note: server_label(&info),
        });
    let cx = Cx {
        session,
        era,
        info,
        rec,
        opts,
        out,
        frames,
        connected_in: started.elapsed(),
    };
    checks::run_all(&cx).await;
    cx.session.close().await;
    // Frames seen after the last check (the close) are judged too.
    checks::frames::judge(&cx);
}

/// `name version` of the server, as it introduced itself.
fn server_label(info: &ServerInfo) -> String {
    let s = &info.server_info;
    let name = s.get("name").and_then(Value::as_str).unwrap_or("(no name)");
    let version = s.get("version").and_then(Value::as_str).unwrap_or("");
    format!("{name} {version}").trim().to_string()
}

/// Why an era's connection failed, as a note (the auth and reachability errors are kept whole:
/// they decide the exit code when no era connects).
fn not_offered(e: &ClientError) -> String {
    let code = e.code();
    let prefix = match code {
        ErrorCode::AuthRequired => "auth_required: ",
        ErrorCode::Unreachable | ErrorCode::Timeout => "unreachable: ",
        _ => "not offered: ",
    };
    format!("{prefix}{e}")
}

fn connect_failure(runs: &[EraRun]) -> RunError {
    if let Some(r) = runs.iter().find(|r| r.note.starts_with("auth_required: ")) {
        return RunError::AuthRequired(r.note.trim_start_matches("auth_required: ").to_string());
    }
    let why = describe(runs);
    RunError::Unreachable(if why.is_empty() {
        "no era connected".into()
    } else {
        why
    })
}

/// Each era tried and what became of it.
fn describe(runs: &[EraRun]) -> String {
    runs.iter()
        .map(|r| format!("{}: {}", r.era, r.note))
        .collect::<Vec<_>>()
        .join("; ")
}

/// After a timeout: every applicable check of an offered era without a verdict is skipped.
fn skip_unreached(verdicts: &mut Vec<Verdict>, runs: &[EraRun], timeout: Duration) {
    for run in runs.iter().filter(|r| r.offered) {
        let modern = run.era == MODERN_VERSION;
        for d in CHECKS {
            let applies = match d.applies {
                Applies::Both => true,
                Applies::Legacy => !modern,
                Applies::Modern => modern,
            };
            if applies && !verdicts.iter().any(|v| v.id == d.id && v.era == run.era) {
                verdicts.push(Verdict::new(
                    d.id,
                    run.era,
                    Outcome::Skipped,
                    format!(
                        "not reached: the run's --timeout ({} s) ended first",
                        timeout.as_secs()
                    ),
                ));
            }
        }
    }
}

/// Area, then catalogue order, then era; a check's several verdicts in one era keep their order.
fn sort(verdicts: &mut [Verdict]) {
    let pos = |id: &str| CHECKS.iter().position(|d| d.id == id).unwrap_or(usize::MAX);
    // By area first: rows appended to the catalogue later still show under their area.
    let area = |id: &str| CHECKS.iter().find(|d| d.id == id).map(|d| d.area);
    verdicts.sort_by_key(|v| (area(v.id), pos(v.id), v.era));
}
