//! What the engine's tests share: a testkit server as a [`Target`], and an observer that keeps
//! what a view would have seen (every frame, every warning), to assert on afterwards.

use mcpscope_client::{Observer, Recorded, SessionEvent};
use mcpscope_proto::{Direction, FrameKind};
use mcpscope_testkit::StdioMode;
use mcpscope_transport::Target;
use serde_json::Value;
use std::sync::Mutex;

/// The testkit binary running `mode` over stdio.
pub(crate) fn testkit(mode: &StdioMode) -> Target {
    let bin = mcpscope_testkit::bin_path().expect("build the mcpscope-testkit binary");
    Target::Stdio {
        command: bin.display().to_string(),
        args: mode.args(),
        env: vec![],
        cwd: None,
    }
}

/// One frame as recorded: its direction, kind and bytes.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) direction: Direction,
    pub(crate) kind: FrameKind,
    pub(crate) body: Vec<u8>,
}

impl Seen {
    /// The body as JSON, when it is.
    pub(crate) fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Keeps every frame and every warning, in order.
#[derive(Debug, Default)]
pub(crate) struct Keep {
    pub(crate) frames: Mutex<Vec<Seen>>,
    pub(crate) warnings: Mutex<Vec<String>>,
}

impl Keep {
    /// The frames seen so far.
    pub(crate) fn frames(&self) -> Vec<Seen> {
        self.frames.lock().expect("frames lock").clone()
    }

    /// The warnings seen so far.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.warnings.lock().expect("warnings lock").clone()
    }

    /// Every frame and warning, for a failing assertion's message.
    pub(crate) fn dump(&self) -> String {
        let mut out = String::new();
        for f in self.frames() {
            out.push_str(&format!("{:?} {:?} {}\n", f.direction, f.kind, f.text()));
        }
        for w in self.warnings() {
            out.push_str(&format!("warning: {w}\n"));
        }
        out
    }
}

impl Observer for Keep {
    fn on_frame(&self, rec: &Recorded<'_>) {
        self.frames.lock().expect("frames lock").push(Seen {
            direction: rec.frame.direction,
            kind: rec.frame.kind,
            body: rec.frame.body.to_vec(),
        });
    }

    fn on_event(&self, event: SessionEvent) {
        if let SessionEvent::Warning { message, .. } = &event {
            self.warnings
                .lock()
                .expect("warnings lock")
                .push(message.clone());
        }
    }
}
