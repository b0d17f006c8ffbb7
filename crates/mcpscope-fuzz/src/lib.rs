//! mcpscope-fuzz: the one round runner of mcpscope's property/fuzz harnesses (those of
//! `mcpscope-proto`'s `tests/fuzz/` and `mcpscope-transport`'s `src/fuzz.rs`).
//!
//! A harness is a `proptest` strategy and a property. `cargo test` runs it with a small case
//! count (CI on 2 loaded cores); `bench/fuzz.py` runs the same code for an hour in release. The
//! environment says which:
//!
//! - `MCPSCOPE_FUZZ_CASES`: cases a round (default: the harness's own small count);
//! - `MCPSCOPE_FUZZ_SECONDS`: run rounds until that many seconds have passed;
//! - `MCPSCOPE_FUZZ_SEED`: replay the one round with that seed (hex), printing each case to
//!   stderr before it runs, so the input of a hang is the last one printed;
//! - `MCPSCOPE_FUZZ_HANG_SECONDS`: how long one case may run before it is called a hang
//!   (default 30× its time bound, at least 60 s).
//!
//! Any of the first three turns on the per-case time bound, which is never checked in a plain
//! `cargo test`. The bound is on the CPU time of the thread running the case, not the wall clock:
//! a loaded machine is not a slow parser (the first hour-long run failed on a 300-byte message
//! that took 65 ms of wall time at a load average of 9 on 2 cores, and 12 ms on replay). The
//! slowest case in the summary line is CPU time too. A hang is caught in every mode: a
//! watchdog thread ends the process, naming the harness and the seed to replay, because a case
//! that never returns would otherwise hold CI until its own timeout with no word of what hung.
//!
//! Each harness prints one line, `fuzz NAME: N cases in S s, slowest X ms (bound B ms)`, which
//! `bench/fuzz.py` collects into `bench/RESULTS-fuzz.md`.
//!
//! This is a crate of its own, not a module of `mcpscope-testkit`, because the testkit's servers
//! bring axum and tokio into any test build that uses it, and `mcpscope-proto` has no I/O; this
//! crate depends on `proptest` alone and on no mcpscope crate, so no types are duplicated.
//!
//! ```
//! use proptest::prelude::*;
//! use std::time::Duration;
//!
//! mcpscope_fuzz::run(
//!     "reverse_twice",
//!     100,
//!     Duration::from_millis(50),
//!     prop::collection::vec(any::<u8>(), 0..64),
//!     |v| {
//!         let mut w = v.clone();
//!         w.reverse();
//!         w.reverse();
//!         prop_assert_eq!(w, v);
//!         Ok(())
//!     },
//! );
//! ```

use nix::time::{ClockId, clock_gettime};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the environment asks of a run (see the crate docs).
#[derive(Debug, Clone, Copy)]
struct Budget {
    cases: u32,
    seconds: Option<u64>,
    replay: Option<u64>,
    hang_after: Duration,
    check_time: bool,
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

fn env_seed() -> Option<u64> {
    let s = std::env::var("MCPSCOPE_FUZZ_SEED").ok()?;
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

impl Budget {
    fn from_env(default_cases: u32, per_case: Duration) -> Budget {
        let cases = env_u64("MCPSCOPE_FUZZ_CASES");
        let seconds = env_u64("MCPSCOPE_FUZZ_SECONDS");
        let replay = env_seed();
        let hang_after = env_u64("MCPSCOPE_FUZZ_HANG_SECONDS").map_or_else(
            || (per_case * 30).max(Duration::from_secs(60)),
            Duration::from_secs,
        );
        Budget {
            cases: cases.map_or(default_cases, |n| n.min(u32::MAX as u64) as u32),
            // A replay is one round.
            seconds: seconds.filter(|_| replay.is_none()),
            replay,
            hang_after,
            check_time: cases.is_some() || seconds.is_some() || replay.is_some(),
        }
    }
}

/// Whether the long budget (and with it the per-case time bound) is set: a harness may use it
/// to skip work only worth doing in the long run.
///
/// ```
/// let cases = if mcpscope_fuzz::long() { 100_000 } else { 100 };
/// # assert!(cases > 0);
/// ```
pub fn long() -> bool {
    Budget::from_env(1, Duration::ZERO).check_time
}

/// Run `test` on cases from `strategy`: `default_cases` of them, or the budget the environment
/// sets. A case that takes more than `per_case` of its thread's CPU time fails under the long
/// budget; a case that runs past the hang limit (wall clock) ends the process in any mode. Prints the summary line for `bench/fuzz.py`.
///
/// Panics (fails the test) on the first failing case, after proptest has shrunk it, with the
/// shrunk input and the seed that replays the round.
pub fn run<S: Strategy>(
    name: &str,
    default_cases: u32,
    per_case: Duration,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let budget = Budget::from_env(default_cases, per_case);
    let watchdog = Watchdog::start(name, budget);
    let start = Instant::now();
    let ran = Cell::new(0u64);
    let slowest = Cell::new(Duration::ZERO);
    loop {
        let seed = budget.replay.unwrap_or_else(fresh_seed);
        watchdog.round(seed);
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: budget.cases,
                // No regression files written into the source tree; a failure prints its input.
                failure_persistence: None,
                ..Config::default()
            },
            rng(seed),
        );
        let outcome = runner.run(&strategy, |v| {
            if budget.replay.is_some() {
                print_case(name, ran.get() + 1, &v);
            }
            watchdog.case_starts();
            let t = CaseClock::start();
            let result = test(v);
            let took = t.elapsed();
            watchdog.case_ends();
            ran.set(ran.get() + 1);
            slowest.set(slowest.get().max(took));
            result?;
            if budget.check_time && took > per_case {
                return Err(TestCaseError::fail(format!(
                    "one case took {took:?}, over the bound of {per_case:?}"
                )));
            }
            Ok(())
        });
        if let Err(e) = outcome {
            panic!(
                "fuzz {name}: {e}\n(replay the round: MCPSCOPE_FUZZ_SEED={seed:016x} \
                 MCPSCOPE_FUZZ_CASES={})",
                budget.cases
            );
        }
        match budget.seconds {
            Some(s) if start.elapsed() < Duration::from_secs(s) => continue,
            _ => break,
        }
    }
    watchdog.stop();
    println!(
        "fuzz {name}: {} cases in {:.1} s, slowest {:.1} ms (bound {} ms)",
        ran.get(),
        start.elapsed().as_secs_f64(),
        slowest.get().as_secs_f64() * 1e3,
        per_case.as_millis()
    );
}

/// How long a case took: the CPU time of its thread (what the code under test spent, however
/// many other processes share the cores), or the wall clock where that clock is not available.
struct CaseClock {
    wall: Instant,
    cpu: Option<Duration>,
}

/// CPU time consumed by the calling thread.
fn thread_cpu() -> Option<Duration> {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .ok()
        .map(Duration::from)
}

impl CaseClock {
    fn start() -> CaseClock {
        CaseClock {
            wall: Instant::now(),
            cpu: thread_cpu(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        }
    }
}

/// A seed no earlier round used: std seeds its hash keys randomly per process and changes them
/// with every `RandomState`.
fn fresh_seed() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u8(0);
    h.finish()
}

/// The round's generator: ChaCha (proptest's default) keyed by the 64-bit seed.
fn rng(seed: u64) -> TestRng {
    let key: Vec<u8> = std::iter::repeat_n(seed.to_le_bytes(), 4)
        .flatten()
        .collect();
    TestRng::from_seed(RngAlgorithm::ChaCha, &key)
}

/// Write to the process's stderr directly: the test harness captures `eprintln!`, and a
/// watchdog's `exit` would drop what it captured.
fn to_stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

fn print_case(name: &str, number: u64, case: &impl std::fmt::Debug) {
    to_stderr(&format!("fuzz {name}: case {number}: {case:?}\n"));
}

/// The thread that calls a case that does not return a hang. Shared with it: when the running
/// case started (ms since `epoch`, plus one; 0 between cases), the round's seed, the case count.
struct Watchdog {
    epoch: Instant,
    started: Arc<AtomicU64>,
    seed: Arc<AtomicU64>,
    cases: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    fn start(name: &str, budget: Budget) -> Watchdog {
        let mut w = Watchdog {
            epoch: Instant::now(),
            started: Arc::default(),
            seed: Arc::default(),
            cases: Arc::default(),
            done: Arc::default(),
            thread: None,
        };
        let (epoch, started, seed, cases, done) = (
            w.epoch,
            w.started.clone(),
            w.seed.clone(),
            w.cases.clone(),
            w.done.clone(),
        );
        let name = name.to_string();
        w.thread = Some(std::thread::spawn(move || {
            let tick = Duration::from_millis(100).min(budget.hang_after / 4);
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(tick);
                let at = started.load(Ordering::Relaxed);
                if at == 0 {
                    continue;
                }
                let running = epoch
                    .elapsed()
                    .saturating_sub(Duration::from_millis(at - 1));
                if running > budget.hang_after && !done.load(Ordering::Relaxed) {
                    let seed = seed.load(Ordering::Relaxed);
                    to_stderr(&format!(
                        "fuzz {name}: case {} has run for {:.1} s, over the hang limit of {:.0} s: \
                         a hang. Replay its round with MCPSCOPE_FUZZ_SEED={seed:016x} \
                         MCPSCOPE_FUZZ_CASES={} (each case is printed before it runs; the last \
                         one printed is the hang)\n",
                        cases.load(Ordering::Relaxed),
                        running.as_secs_f64(),
                        budget.hang_after.as_secs_f64(),
                        budget.cases,
                    ));
                    std::process::exit(101);
                }
            }
        }));
        w
    }

    fn round(&self, seed: u64) {
        self.seed.store(seed, Ordering::Relaxed);
        self.cases.store(0, Ordering::Relaxed);
    }

    fn case_starts(&self) {
        self.cases.fetch_add(1, Ordering::Relaxed);
        let ms = self.epoch.elapsed().as_millis() as u64;
        self.started.store(ms + 1, Ordering::Relaxed);
    }

    fn case_ends(&self) {
        self.started.store(0, Ordering::Relaxed);
    }

    fn stop(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watchdog {
    /// A panicking round (a failed property) leaves without `stop`: end the thread too.
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests;
