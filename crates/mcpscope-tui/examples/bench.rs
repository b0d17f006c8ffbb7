//! The terminal UI's speed and size with a big server, in process: 10,000 tools (the answer to
//! the Tools tab's `tools/list`) and 100,000 frames (`frame` events of the core's bus) fed
//! through the real reducer, then each tab drawn at 200×60 into ratatui's `TestBackend` many
//! times (median, p99), a key put through `update` + draw (input-to-screen), and the process's
//! RSS. `bench/tui.py` runs it (release) beside the start-up of the real binary in a pty and
//! writes the numbers into `bench/RESULTS-tui.md`.
//!
//! ```text
//! cargo run --release -p mcpscope-tui --example bench -- [--tools N] [--frames N] [--iters N]
//! ```
//!
//! The data is synthetic but shaped as the core sends it (`docs/web-api.md`: `FrameView`, a
//! `tools/list` result). Effects the tabs ask for are answered by [`answer`]: extend it when a
//! tab asks for something new (it prints what it left unanswered, so a bench that measured an
//! empty tab says so).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_tui::msg::{CoreEvent, Done, Effect, Msg};
use mcpscope_tui::state::AppState;
use mcpscope_tui::update::update;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The fixed clock of the run (µs since the epoch): the data's times are around it.
const NOW_US: u64 = 1_780_000_000_000_000;

/// The bench's knobs.
struct Args {
    tools: usize,
    frames: usize,
    iters: usize,
    size: (u16, u16),
}

fn args() -> Args {
    let mut a = Args {
        tools: 10_000,
        frames: 100_000,
        iters: 300,
        size: (200, 60),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        let n = || pair.get(1).and_then(|v| v.parse().ok()).expect("a number");
        match pair[0].as_str() {
            "--tools" => a.tools = n(),
            "--frames" => a.frames = n(),
            "--iters" => a.iters = n(),
            other => panic!("unknown argument {other} (want --tools, --frames, --iters)"),
        }
    }
    a
}

/// The demo's server card, connected in the modern era.
fn card() -> Value {
    json!({
        "name": "big", "entry": {"command": "big-server"}, "transport": "stdio",
        "target": "big-server", "status": "connected", "latencyMs": 2,
        "era": "modern", "protocolVersion": "2026-07-28",
    })
}

/// Tool `i`: a name, a description, a small object schema and annotations.
fn tool(i: usize) -> Value {
    json!({
        "name": format!("tool_{i:05}"),
        "title": format!("Tool number {i}"),
        "description": format!("Does thing {i}: reads the input, checks it against the schema and answers with a short text. Long enough to be cut at narrow widths."),
        "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "mode": {"type": "string", "enum": ["fast", "full"]}
        }, "required": ["query"]},
        "annotations": {"readOnlyHint": i.is_multiple_of(2), "destructiveHint": i.is_multiple_of(7)}
    })
}

/// Frame `seq` of `server`: requests out, responses and notifications in, as a `FrameView`.
fn frame(server: &str, seq: u64) -> Value {
    let (direction, message, method, text) = match seq % 3 {
        0 => (
            "out",
            "request",
            Some("tools/call"),
            format!(
                r#"{{"jsonrpc":"2.0","id":{seq},"method":"tools/call","params":{{"name":"tool_{:05}","arguments":{{"query":"q{seq}"}}}}}}"#,
                seq % 10_000
            ),
        ),
        1 => (
            "in",
            "notification",
            Some("notifications/message"),
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"line {seq} of the flood"}}}}"#
            ),
        ),
        _ => (
            "in",
            "response",
            None,
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"answer {seq}"}}]}}}}"#,
                seq - 2
            ),
        ),
    };
    json!({
        "seq": seq, "server": server, "timeUs": NOW_US - 200_000_000 + seq * 1_000,
        "direction": direction, "kind": if direction == "out" { "stdin-line" } else { "stdout-line" },
        "source": "jsonrpc", "meta": {}, "text": text, "base64": null, "size": text.len(),
        "truncated": false, "message": message, "method": method,
        "id": if message == "notification" { Value::Null } else { json!(seq) },
        "durationMs": if message == "response" { json!(3) } else { Value::Null },
        "lint": null, "headers": null, "historyId": seq / 3,
    })
}

/// History entry `id` as `Inspector::history` pages it (`HistoryEntry`).
fn history_entry(id: i64) -> Value {
    json!({
        "id": id, "server": "big", "method": "tools/call",
        "params": {"name": format!("tool_{:05}", id % 10_000), "arguments": {"query": "q"}},
        "status": if id.rem_euclid(5) == 0 { "error" } else { "ok" },
        "result": {"content": [{"type": "text", "text": format!("answer {id}")}]},
        "error": null, "startedAt": "2026-06-01T00:00:00Z",
        "startedAtUs": NOW_US - id as u64 * 1_000_000, "durationMs": 3.5, "pinned": id.rem_euclid(50) == 0,
        "label": null, "era": "modern", "parentId": null, "requestId": null, "truncated": false,
        "resultSize": 64,
    })
}

/// What the synthetic core answers to `e`: a `tools/list` gets every tool; a history page gets
/// `limit` entries (100,000 in all); server info a modern card; frames asked for (paging back)
/// get none older. What it answered goes into `asked`; the rest is left unanswered and counted.
fn answer(e: &Effect, tools: &[Value], asked: &mut Vec<String>) -> Option<Msg> {
    let (route, result) = match e {
        Effect::Call { route, call } if call.method == "tools/list" => (
            route.clone(),
            json!({"historyId": 1, "result": {"tools": tools}}),
        ),
        Effect::History { route, query } => {
            let top = query.before.unwrap_or(100_001) - 1;
            let entries: Vec<Value> = (0..query.limit.max(1) as i64)
                .map(|i| top - i)
                .filter(|id| *id > 0)
                .map(history_entry)
                .collect();
            let next = entries.last().and_then(|e| e["id"].as_i64());
            (
                route.clone(),
                json!({"entries": entries, "nextBefore": next}),
            )
        }
        Effect::ServerInfo { route } => (
            route.clone(),
            json!({"era": "modern", "protocolVersion": "2026-07-28",
                   "serverInfo": {"name": "big-server", "version": "1.0.0"},
                   "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                   "instructions": "A big synthetic server."}),
        ),
        Effect::Frames { route, .. } => (route.clone(), json!({"frames": []})),
        other => {
            let what: String = match other {
                Effect::Call { call, .. } => format!("call {}", call.method),
                _ => format!("{other:?}").chars().take(40).collect(),
            };
            asked.push(format!("unanswered: {what}"));
            return None;
        }
    };
    asked.push(format!(
        "{}/{}",
        route.tab.map_or("app", |t| t.title()),
        route.tag
    ));
    Some(Msg::Done(Done {
        route,
        result: Ok(result),
        was_call: matches!(e, Effect::Call { .. }),
    }))
}

/// Apply `msg`, answering whatever it asks (and what the answers ask) from the synthetic core.
fn feed(s: &mut AppState, msg: Msg, tools: &[Value], unanswered: &mut Vec<String>) {
    let mut queue = vec![msg];
    while let Some(m) = queue.pop() {
        for e in update(s, m, NOW_US) {
            queue.extend(answer(&e, tools, unanswered));
        }
    }
}

fn key(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Median and 99th percentile of `xs`.
fn stats(xs: &mut [Duration]) -> (Duration, Duration) {
    xs.sort();
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// The process's resident set and its peak, in MiB (Linux; 0 elsewhere).
fn rss_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// Draw `s` `iters` times; (median, p99).
fn bench_draw(t: &mut Terminal<TestBackend>, s: &AppState, iters: usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t0 = Instant::now();
        t.draw(|f| mcpscope_tui::render::render(s, f))
            .expect("draw");
        times.push(t0.elapsed());
    }
    stats(&mut times)
}

/// Put `keys` (in turn, round and round) through update + draw `iters` times; (median, p99).
fn bench_keys(
    t: &mut Terminal<TestBackend>,
    s: &mut AppState,
    keys: &[KeyCode],
    iters: usize,
    tools: &[Value],
    unanswered: &mut Vec<String>,
) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(iters);
    for i in 0..iters {
        let t0 = Instant::now();
        feed(s, key(keys[i % keys.len()]), tools, unanswered);
        t.draw(|f| mcpscope_tui::render::render(s, f))
            .expect("draw");
        times.push(t0.elapsed());
    }
    stats(&mut times)
}

fn main() {
    let a = args();
    let (rss0, _) = rss_mib();
    let tools: Vec<Value> = (0..a.tools).map(tool).collect();
    let mut unanswered = Vec::new();
    let mut s = AppState::new(&[card()], a.size, true);
    s.focus = mcpscope_tui::state::Focus::Tab;
    // Open Tools: its list comes back from the synthetic core.
    let t0 = Instant::now();
    feed(&mut s, key(KeyCode::Char('t')), &tools, &mut unanswered);
    let tools_in = t0.elapsed();
    let (rss_tools, _) = rss_mib();
    let t0 = Instant::now();
    for seq in 1..=a.frames as u64 {
        let m = Msg::Core(CoreEvent {
            name: "frame".into(),
            data: frame("big", seq),
        });
        feed(&mut s, m, &tools, &mut unanswered);
    }
    let frames_in = t0.elapsed();
    drop(tools);
    let tools: Vec<Value> = Vec::new();
    let (rss, peak) = rss_mib();
    let mut t = Terminal::new(TestBackend::new(a.size.0, a.size.1)).expect("terminal");
    println!(
        "# mcpscope-tui bench: {} tools, {} frames, {}x{}, {} iterations",
        a.tools, a.frames, a.size.0, a.size.1, a.iters
    );
    println!(
        "ingest: tools/list answer applied in {} ms; {} frame events in {} ms",
        ms(tools_in),
        a.frames,
        ms(frames_in)
    );
    println!(
        "rss: {rss:.1} MiB (peak {peak:.1} MiB; {rss0:.1} MiB before the data, {rss_tools:.1} MiB \
         after the tools, which include the bench's own copy of them)"
    );
    println!("| screen | draw median | draw p99 | key→drawn median | key→drawn p99 | keys |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let screens: [(&str, char, &[KeyCode]); 4] = [
        (
            "Tools (10,000 tools)",
            't',
            &[KeyCode::Down, KeyCode::Down, KeyCode::Up],
        ),
        (
            "Protocol (100,000 frames)",
            'p',
            &[KeyCode::Up, KeyCode::Up, KeyCode::Down],
        ),
        ("History", 'h', &[KeyCode::Down, KeyCode::Up]),
        ("Info", 'i', &[KeyCode::Down, KeyCode::Up]),
    ];
    for (name, letter, keys) in screens {
        feed(&mut s, key(KeyCode::Char(letter)), &tools, &mut unanswered);
        let (dm, dp) = bench_draw(&mut t, &s, a.iters);
        let (km, kp) = bench_keys(&mut t, &mut s, keys, a.iters, &tools, &mut unanswered);
        println!(
            "| {name} | {} ms | {} ms | {} ms | {} ms | {} |",
            ms(dm),
            ms(dp),
            ms(km),
            ms(kp),
            keys.iter()
                .map(|k| format!("{k}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    // The help over the biggest list, and the server list with focus on it.
    feed(&mut s, key(KeyCode::Char('t')), &tools, &mut unanswered);
    feed(&mut s, key(KeyCode::Char('?')), &tools, &mut unanswered);
    let (dm, dp) = bench_draw(&mut t, &s, a.iters);
    println!(
        "| `?` help over Tools | {} ms | {} ms | | | |",
        ms(dm),
        ms(dp)
    );
    let (rss, peak2) = rss_mib();
    println!(
        "rss after drawing: {rss:.1} MiB (peak {:.1} MiB)",
        peak.max(peak2)
    );
    unanswered.sort();
    unanswered.dedup();
    // Which tabs asked for data (a tab that asked for nothing was drawn empty).
    println!("effects of the tabs (tab/tag): {}", unanswered.join(", "));
}
