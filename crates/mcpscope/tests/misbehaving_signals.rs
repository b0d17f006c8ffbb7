//! Long-running calls watched live: the request timeout resets on progress, and Ctrl-C (SIGINT
//! to the CLI, as a terminal sends it) cancels the call on the wire, exits 130 and leaves no
//! server process behind.

use crate::misbehaving_support::{Live, body, server, spawned_pid};
use mcpscope_testkit::StdioMode;
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use serde_json::Value;
use std::time::Duration;

fn forever(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--method", "tools/call", "--tool-name", "forever"]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect();
    args.extend(server(&StdioMode::ProgressForever));
    args
}

/// The progress number of a text-mode progress line (`progress tools/call: 7 still working (7)`).
fn progress(line: &str) -> Option<u64> {
    line.strip_prefix("progress tools/call: ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// SIGINT, and check what Ctrl-C promises: exit 130, `notifications/cancelled` for the call on
/// stdin (acknowledged by the server), and no process left in the server's process group.
fn interrupt_and_check(live: Live) -> (Vec<String>, Vec<Value>) {
    kill(Pid::from_raw(live.pid()), Signal::SIGINT).expect("send SIGINT");
    let (code, stderr, trace) = live.finish();
    assert_eq!(code, 130, "stderr:\n{}", stderr.join("\n"));
    let error: Value = serde_json::from_str(stderr.last().expect("stderr")).unwrap();
    assert_eq!(error["error"]["code"], "interrupted");

    let sent = |method: &str| -> Vec<Value> {
        trace
            .iter()
            .filter(|f| f["direction"] == "out" && f["method"] == method)
            .map(|f| serde_json::from_slice(&body(f)).unwrap())
            .collect()
    };
    let call = sent("tools/call").pop().expect("the call went out");
    let cancelled = sent("notifications/cancelled");
    assert_eq!(cancelled.len(), 1, "{cancelled:#?}");
    assert_eq!(cancelled[0]["params"]["requestId"], call["id"]);
    // The server stops a cancelled call and says so on stderr; that line made it into the trace.
    let ack = format!("cancelled {}", call["id"]);
    assert!(
        trace
            .iter()
            .any(|f| f["kind"] == "stderr-line" && body(f) == ack.as_bytes()),
        "the server never acknowledged the cancellation"
    );
    // The server led its own process group; once the CLI is gone, so is every process in it.
    let pgid = Pid::from_raw(spawned_pid(&trace));
    assert_eq!(
        killpg(pgid, None),
        Err(Errno::ESRCH),
        "server process group {pgid} still has members after the CLI exited"
    );
    (stderr, trace)
}

#[test]
fn the_request_timeout_resets_on_progress() {
    // Timeout 1000 ms, progress every 200 ms: a timer that did not reset would fire long before
    // the 11th progress notification (2.2 s in).
    let mut live = Live::spawn(
        "progress-forever",
        &forever(&["--request-timeout", "1000", "--show-stderr"]),
    );
    live.wait_for_line(Duration::from_secs(20), |l| {
        progress(l).is_some_and(|n| n >= 11)
    });
    assert!(live.elapsed() > Duration::from_secs(2));
    assert!(
        live.running(),
        "the call ended although progress kept arriving"
    );
    interrupt_and_check(live);
}

#[test]
fn ctrl_c_cancels_the_call_exits_130_and_leaves_no_orphan() {
    let mut live = Live::spawn(
        "ctrl-c",
        &forever(&["--request-timeout", "0", "--show-stderr"]),
    );
    // Interrupt once the call is demonstrably running on the server.
    live.wait_for_line(Duration::from_secs(20), |l| progress(l).is_some());
    let (stderr, _) = interrupt_and_check(live);
    assert!(
        stderr
            .iter()
            .any(|l| l.starts_with("error: interrupted (Ctrl-C); cancelled 1 request")),
        "{stderr:#?}"
    );
}

/// Ctrl-C while the server has not answered the handshake yet: exit 130 at once, and the
/// server's whole process group goes with us (here a shell that never answers, with a child of
/// its own; killing only the shell would leave the child running).
#[test]
fn ctrl_c_during_the_handshake_leaves_no_orphan() {
    let mut live = Live::spawn(
        "ctrl-c-connecting",
        &[
            "--connect-timeout",
            "0",
            "--show-stderr",
            "--method",
            "tools/list",
            "--",
            "sh",
            "-c",
            "sleep 600 & echo started-a-child >&2; wait",
        ],
    );
    live.wait_for_line(Duration::from_secs(20), |l| l.contains("started-a-child"));
    kill(Pid::from_raw(live.pid()), Signal::SIGINT).expect("send SIGINT");
    let (code, stderr, trace) = live.finish();
    assert_eq!(code, 130, "stderr:\n{}", stderr.join("\n"));
    let pgid = spawned_pid(&trace);
    // SIGKILL is asynchronous; give the kernel a moment. A killed orphan stays a zombie until
    // init reaps it (in a container that can take a while), so zombies count as gone.
    let gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        running_in_group(pgid).is_empty()
    });
    let left = running_in_group(pgid);
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    assert!(
        gone,
        "server process group {pgid} still runs {left:?} after the CLI exited"
    );
}

/// The processes of group `pgid` that are not zombies, as `(pid, command)` (from `/proc`).
fn running_in_group(pgid: i32) -> Vec<(i32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after
        // the last ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(group)) = (fields.first(), fields.get(2)) else {
            continue;
        };
        if group.parse::<i32>() == Ok(pgid) && *state != "Z" {
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            found.push((pid, comm.to_string()));
        }
    }
    found
}
