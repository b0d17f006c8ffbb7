//! exec → first byte, timed without an interpreter in the way: for each run, bind a loopback
//! listener that never answers, spawn the client with `{url}` in its arguments replaced by the
//! listener's URL, and take the time from just before the spawn to the arrival of the first
//! byte of its first connection; then kill the client. Prints one line per run, in
//! microseconds. Used by `bench/startup.py`.
//!
//! Build: `rustc --edition 2024 -O bench/first_byte.rs -o target/release/first-byte`.
//! Run: `first-byte RUNS PROGRAM ARG… ` (one ARG may contain `{url}`).

use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn once(program: &str, args: &[String]) -> Duration {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let (tx, rx) = mpsc::channel();
    // The listener waits on its own thread, so the arrival is stamped as it happens, not when
    // the spawning thread gets round to it.
    std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().expect("accept");
        let mut byte = [0u8; 1];
        let _ = sock.read(&mut byte);
        let _ = tx.send(Instant::now());
    });
    let args: Vec<String> = args.iter().map(|a| a.replace("{url}", &url)).collect();
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

fn main() {
    let mut argv = std::env::args().skip(1);
    let runs: usize = argv
        .next()
        .and_then(|r| r.parse().ok())
        .expect("usage: first-byte RUNS PROGRAM ARG…");
    let program = argv.next().expect("a program");
    let args: Vec<String> = argv.collect();
    once(&program, &args); // warm-up: page cache, dynamic loader
    for _ in 0..runs {
        println!("{}", once(&program, &args).as_micros());
    }
}
