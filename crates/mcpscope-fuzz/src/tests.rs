//! The runner driven as `cargo test` and `bench/fuzz.py` drive it: each case here runs this
//! test binary again on one of the `child_*` harnesses below with the environment set, and
//! reads what it printed and how it exited. (The budget comes from the environment, which a
//! test cannot change for itself without racing the others.)

use super::run;
use proptest::prelude::*;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Set for the child runs only, so `cargo test -- --include-ignored` does not run a hang.
const CHILD: &str = "MCPSCOPE_FUZZ_TEST_CHILD";

fn child(test: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args([
        "--ignored",
        "--exact",
        test,
        "--nocapture",
        "--test-threads",
        "1",
    ]);
    for var in [
        "MCPSCOPE_FUZZ_CASES",
        "MCPSCOPE_FUZZ_SECONDS",
        "MCPSCOPE_FUZZ_SEED",
        "MCPSCOPE_FUZZ_HANG_SECONDS",
    ] {
        cmd.env_remove(var);
    }
    cmd.env(CHILD, "1").envs(env.iter().copied());
    cmd.output().expect("run the test binary")
}

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

#[test]
#[ignore = "run by the tests above it, in a child process"]
fn child_passes() {
    if is_child() {
        run(
            "passes",
            40,
            Duration::from_millis(500),
            any::<u32>(),
            |_| Ok(()),
        );
    }
}

static CALLS: AtomicU32 = AtomicU32::new(0);

#[test]
#[ignore = "run by the tests above it, in a child process"]
fn child_hangs_on_the_seventh_case() {
    if is_child() {
        run(
            "hangs",
            40,
            Duration::from_millis(500),
            any::<u32>(),
            |_| {
                if CALLS.fetch_add(1, Ordering::Relaxed) + 1 == 7 {
                    loop {
                        std::thread::sleep(Duration::from_secs(1));
                    }
                }
                Ok(())
            },
        );
    }
}

#[test]
#[ignore = "run by the tests above it, in a child process"]
fn child_is_slow_when_large() {
    if is_child() {
        run("slow", 200, Duration::from_millis(20), 0u32..1000, |n| {
            if n >= 500 {
                // Busy for 60 ms of this thread's CPU time.
                let start = super::thread_cpu().expect("thread CPU clock");
                while super::thread_cpu().expect("thread CPU clock") - start
                    < Duration::from_millis(60)
                {
                    std::hint::spin_loop();
                }
            } else if n >= 250 {
                // Waiting, as a case preempted on a loaded machine does: not slow.
                std::thread::sleep(Duration::from_millis(60));
            }
            Ok(())
        });
    }
}

#[test]
#[ignore = "run by the tests above it, in a child process"]
fn child_fails_from_ten_up() {
    if is_child() {
        run("fails", 200, Duration::from_secs(1), 0u32..1000, |n| {
            prop_assert!(n < 10);
            Ok(())
        });
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_summary_line_counts_the_default_cases_or_the_budget() {
    let (out, _) = text(&child("tests::child_passes", &[]));
    assert!(
        out.contains("fuzz passes: 40 cases in ") && out.contains("(bound 500 ms)"),
        "{out}"
    );
    let (out, _) = text(&child(
        "tests::child_passes",
        &[("MCPSCOPE_FUZZ_CASES", "7")],
    ));
    assert!(out.contains("fuzz passes: 7 cases in "), "{out}");
    // Rounds of 5 until a second has passed: many rounds.
    let t = Instant::now();
    let o = child(
        "tests::child_passes",
        &[("MCPSCOPE_FUZZ_CASES", "5"), ("MCPSCOPE_FUZZ_SECONDS", "1")],
    );
    let (out, _) = text(&o);
    assert!(t.elapsed() >= Duration::from_secs(1), "{out}");
    let n: u64 = out
        .split("fuzz passes: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line in {out}"));
    assert!(n > 5 && n.is_multiple_of(5), "{n} cases");
}

#[test]
fn a_hang_ends_the_run_with_the_seed_that_replays_it() {
    let o = child(
        "tests::child_hangs_on_the_seventh_case",
        &[("MCPSCOPE_FUZZ_HANG_SECONDS", "1")],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(101), "{out}{err}");
    assert!(err.contains("fuzz hangs: case 7 has run for"), "{err}");
    assert!(!out.contains("fuzz hangs: 40 cases"), "{out}");
    let seed = err
        .split("MCPSCOPE_FUZZ_SEED=")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("no seed in {err}"))
        .to_string();
    // The replay prints every case before running it and hangs at the same one.
    let replay = |seed: &str| {
        let o = child(
            "tests::child_hangs_on_the_seventh_case",
            &[
                ("MCPSCOPE_FUZZ_HANG_SECONDS", "1"),
                ("MCPSCOPE_FUZZ_SEED", seed),
            ],
        );
        assert_eq!(o.status.code(), Some(101));
        text(&o).1
    };
    let first = replay(&seed);
    assert!(
        first.contains("fuzz hangs: case 7: ") && !first.contains("case 8: "),
        "{first}"
    );
    assert!(
        first.contains(&format!("MCPSCOPE_FUZZ_SEED={seed}")),
        "{first}"
    );
    let cases = |err: &str| -> Vec<String> {
        err.lines()
            .filter(|l| l.starts_with("fuzz hangs: case ") && !l.contains("has run"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        cases(&first),
        cases(&replay(&seed)),
        "replay not deterministic"
    );
}

#[test]
fn a_busy_case_fails_only_under_the_long_budget_and_a_waiting_one_never() {
    let o = child("tests::child_is_slow_when_large", &[]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = child(
        "tests::child_is_slow_when_large",
        &[("MCPSCOPE_FUZZ_CASES", "200")],
    );
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}");
    // Shrunk to the smallest input that is busy, not one that only waits.
    let all = format!("{out}{err}");
    assert!(all.contains("over the bound of 20ms"), "{all}");
    assert!(all.contains("minimal failing input: 500\n"), "{all}");
}

#[test]
fn a_failing_property_is_shrunk_and_names_its_seed() {
    let o = child("tests::child_fails_from_ten_up", &[]);
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}");
    let all = format!("{out}{err}");
    assert!(all.contains("minimal failing input: 10"), "{all}");
    assert!(all.contains("MCPSCOPE_FUZZ_SEED="), "{all}");
}
