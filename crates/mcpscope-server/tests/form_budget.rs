//! `POST /api/form` with the schema a hostile (or careless) server can send: 170 bytes whose one
//! definition refers to itself three times. Expanded without a budget it grew to ~3 GB in 10 s
//! and the backend aborted; now it answers with the recursion cut, and the backend stays up.
//!
//! The backend runs in this process, so a runaway expansion would run on one of its worker
//! threads where no test can stop it. A watchdog thread samples this process's RSS and ends the
//! process with a clear message when it grows past `RSS_GROWTH_LIMIT`, rather than letting the
//! machine run out of memory.

use crate::support::{Options, TempDir, start};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The issue's schema, byte for byte.
const FAN_OUT: &str = r##"{"$defs":{"d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"}}}},"$ref":"#/$defs/d"}"##;

/// How much the process may grow while the backend builds the form (a bounded form is a few
/// kilobytes; the unbounded expansion passed this within a second).
const RSS_GROWTH_LIMIT: u64 = 512 << 20;

/// Generous: the answer takes milliseconds; this only turns a hang into a failure.
const DEADLINE: Duration = Duration::from_secs(120);

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Samples RSS every 20 ms; past `limit` it prints why and exits the test process.
struct Watchdog {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
}

impl Watchdog {
    fn start(limit: u64) -> Watchdog {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(rss_bytes()));
        let (s, p) = (stop.clone(), peak.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let rss = rss_bytes();
                p.fetch_max(rss, Ordering::Relaxed);
                if rss > limit {
                    // Straight to the file descriptor: the test harness captures `eprintln!`
                    // (also from this thread) and would lose it when the process exits.
                    let _ = writeln!(
                        std::io::stderr(),
                        "form_budget: RSS {} MiB passed {} MiB while POST /api/form ran: the \
                         schema → form model expands without a bound; exiting before the machine \
                         runs out of memory",
                        rss >> 20,
                        limit >> 20
                    );
                    std::process::exit(101);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Watchdog { stop, peak }
    }

    fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.peak.load(Ordering::Relaxed)
    }
}

fn reason(field: &Value) -> &str {
    assert_eq!(field["kind"]["type"], "json", "{field}");
    field["kind"]["reason"].as_str().unwrap_or_default()
}

// Multi-threaded: the form is built inside the handler, and the deadline must still fire if it
// never returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recursive_fan_out_schema_answers_with_a_cut_and_the_backend_stays_up() {
    let dir = TempDir::new("form-budget");
    let b = start(dir.path(), vec![], Options::default()).await;
    let schema: Value = serde_json::from_str(FAN_OUT).unwrap();
    let before = rss_bytes();
    let dog = Watchdog::start(before + RSS_GROWTH_LIMIT);

    let r = tokio::time::timeout(DEADLINE, b.post("/api/form", json!({"schema": schema})))
        .await
        .expect("POST /api/form answers");
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["kind"]["type"], "object", "{}", r.text);
    let fields = r.body["kind"]["fields"].as_array().expect("fields");
    let keys: Vec<&str> = fields.iter().filter_map(|f| f["key"].as_str()).collect();
    assert_eq!(keys, ["a", "b", "c"]);
    for f in fields {
        assert!(reason(f).starts_with("recursive: #/$defs/d"), "{f}");
    }
    assert!(r.text.len() < 2_000, "{} bytes: {}", r.text.len(), r.text);

    // The validator gets the same schema when the user sends the form.
    let v = tokio::time::timeout(
        DEADLINE,
        b.post(
            "/api/validate",
            json!({"schema": schema, "value": {"a": {"b": {"c": 5}}}}),
        ),
    )
    .await
    .expect("POST /api/validate answers");
    assert_eq!(v.status, 200, "{}", v.text);
    let errors = v.body["errors"].as_array().expect("errors");
    assert!(errors.iter().any(|e| e["path"] == "/a/b/c"), "{}", v.text);

    // Still up: the next tool's form is drawn.
    let next = b
        .ok(
            "/api/form",
            json!({"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}),
        )
        .await;
    assert_eq!(next["kind"]["fields"][0]["kind"]["type"], "number");
    let peak = dog.finish();
    assert!(
        peak < before + RSS_GROWTH_LIMIT,
        "RSS grew from {} MiB to {} MiB",
        before >> 20,
        peak >> 20
    );
    b.stop().await;
}
