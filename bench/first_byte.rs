//! The start-up timer of `bench/startup.py`, with no interpreter in the way of the clock.
//!
//! exec → first byte: for each run, bind a loopback listener that never answers, spawn the
//! client with `{url}` in its arguments replaced by the listener's URL, and take the time from
//! just before the spawn to the arrival of the first byte of its first connection; then kill the
//! client. With `--exit`: the time from just before the spawn to the client's exit (it must exit
//! 0; its output goes to /dev/null), for a whole one-shot run against a real server. Prints one
//! line per run, in microseconds; with `--exit` the line also has the client's CPU time (user +
//! system, microseconds) and its minor page faults, from `getrusage(RUSAGE_CHILDREN)` — on a shared
//! machine they move far less with other people's load than the wall clock does.
//!
//! Build: `rustc --edition 2024 -O bench/first_byte.rs -o target/release/first-byte`.
//! Run: `first-byte [--exit] RUNS PROGRAM ARG… ` (for the first byte, one ARG may contain `{url}`,
//! the listener as `http://127.0.0.1:PORT/mcp`, or `{localhost_url}`, the same by name).

use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn once(program: &str, args: &[String]) -> Duration {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let by_name = format!("http://localhost:{port}/mcp");
    let (tx, rx) = mpsc::channel();
    // The listener waits on its own thread, so the arrival is stamped as it happens, not when
    // the spawning thread gets round to it.
    std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().expect("accept");
        let mut byte = [0u8; 1];
        let _ = sock.read(&mut byte);
        let _ = tx.send(Instant::now());
    });
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("{url}", &url)
                .replace("{localhost_url}", &by_name)
        })
        .collect();
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let arrived = rx.recv_timeout(Duration::from_secs(10));
    let _ = child.kill();
    let _ = child.wait();
    arrived.expect("no byte arrived within 10 s") - start
}

/// Spawn to exit of one run; panics unless the client exits 0.
/// `struct rusage` of Linux on 64-bit targets (two `timeval`s, then fourteen `long`s).
#[repr(C)]
#[derive(Default)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    longs: [i64; 14],
}

unsafe extern "C" {
    fn getrusage(who: i32, usage: *mut Rusage) -> i32;
}

/// CPU microseconds (user + system) and minor faults of every child waited for so far.
fn children_usage() -> (i64, i64) {
    const RUSAGE_CHILDREN: i32 = -1;
    let mut u = Rusage::default();
    // SAFETY: `u` is a valid, writable `struct rusage` for the duration of the call.
    assert_eq!(
        unsafe { getrusage(RUSAGE_CHILDREN, &mut u) },
        0,
        "getrusage"
    );
    let us = |t: [i64; 2]| t[0] * 1_000_000 + t[1];
    (us(u.utime) + us(u.stime), u.longs[4]) // longs[4]: ru_minflt
}

/// Spawn to exit of one run, then the run's CPU time and minor faults; panics unless the client
/// exits 0.
fn to_exit(program: &str, args: &[String]) -> (Duration, i64, i64) {
    let (cpu_before, faults_before) = children_usage();
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    let took = start.elapsed();
    assert!(status.success(), "{program} exited with {status}");
    let (cpu, faults) = children_usage();
    (took, cpu - cpu_before, faults - faults_before)
}

fn main() {
    let mut argv = std::env::args().skip(1).peekable();
    let exit = argv.next_if(|a| a == "--exit").is_some();
    let runs: usize = argv
        .next()
        .and_then(|r| r.parse().ok())
        .expect("usage: first-byte [--exit] RUNS PROGRAM ARG…");
    let program = argv.next().expect("a program");
    let args: Vec<String> = argv.collect();
    // One warm-up run first: page cache, dynamic loader.
    if exit {
        to_exit(&program, &args);
        for _ in 0..runs {
            let (took, cpu, faults) = to_exit(&program, &args);
            println!("{} {cpu} {faults}", took.as_micros());
        }
    } else {
        once(&program, &args);
        for _ in 0..runs {
            println!("{}", once(&program, &args).as_micros());
        }
    }
}
