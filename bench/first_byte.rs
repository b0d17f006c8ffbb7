//! The start-up timer of `bench/startup.py`, with no interpreter in the way of the clock.
//!
//! exec → first byte: for each run, bind a loopback listener that never answers, spawn the
//! client with `{url}` in its arguments replaced by the listener's URL, and take the time from
//! just before the spawn to the arrival of the first byte of its first connection; then kill the
//! client. With `--exit`: the time from just before the spawn to the client's exit (it must exit
//! 0; its output goes to /dev/null), for a whole one-shot run against a real server. Prints one
//! line per run, in microseconds.
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
fn to_exit(program: &str, args: &[String]) -> Duration {
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
    took
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
    let run = if exit { to_exit } else { once };
    run(&program, &args); // warm-up: page cache, dynamic loader
    for _ in 0..runs {
        println!("{}", run(&program, &args).as_micros());
    }
}
