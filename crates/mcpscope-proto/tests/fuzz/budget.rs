//! How long each harness runs, and the runner that counts and times its cases.
//!
//! `cargo test` runs every harness with a small default case count (all of them together well
//! under a minute in a debug build on 2 cores). The long budget of `bench/fuzz.sh` uses the same
//! code with more: `MCPSCOPE_FUZZ_CASES` overrides the case count of each round,
//! `MCPSCOPE_FUZZ_SECONDS` runs rounds until that many seconds have passed, and either one also
//! turns on the per-case time bound (never checked in CI: a loaded machine is not a slow parser).

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::cell::Cell;
use std::time::{Duration, Instant};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Whether the long budget is set (and with it the per-case time bound).
pub(crate) fn long() -> bool {
    env_u64("MCPSCOPE_FUZZ_CASES").is_some() || env_u64("MCPSCOPE_FUZZ_SECONDS").is_some()
}

/// Run `test` on cases from `strategy`: `default_cases` of them, or the long budget. A case that
/// takes longer than `per_case` fails when the long budget is set. Prints one line with the
/// count, the time and the slowest case, which `bench/fuzz.sh` collects.
pub(crate) fn run<S: Strategy>(
    name: &str,
    default_cases: u32,
    per_case: Duration,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let cases = env_u64("MCPSCOPE_FUZZ_CASES").map_or(default_cases, |n| n as u32);
    let seconds = env_u64("MCPSCOPE_FUZZ_SECONDS");
    let check_time = long();
    let start = Instant::now();
    let ran = Cell::new(0u64);
    let slowest = Cell::new(Duration::ZERO);
    loop {
        let config = Config {
            cases,
            // No regression files written into the source tree; a failure prints its input.
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let outcome = runner.run(&strategy, |v| {
            let t = Instant::now();
            test(v)?;
            let took = t.elapsed();
            ran.set(ran.get() + 1);
            slowest.set(slowest.get().max(took));
            if check_time && took > per_case {
                return Err(TestCaseError::fail(format!(
                    "one case took {took:?}, over the bound of {per_case:?}"
                )));
            }
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("fuzz {name}: {e}");
        }
        match seconds {
            Some(s) if start.elapsed() < Duration::from_secs(s) => continue,
            _ => break,
        }
    }
    println!(
        "fuzz {name}: {} cases in {:.1} s, slowest {:.1} ms (bound {} ms)",
        ran.get(),
        start.elapsed().as_secs_f64(),
        slowest.get().as_secs_f64() * 1e3,
        per_case.as_millis()
    );
}
