//! The flood bound of app frames: a view reports every `postMessage` of an app, and an app that
//! loops on `size-changed` or floods messages must not flood the traffic window, SQLite and every
//! view's event stream with it. At most [`PER_SECOND`] frames per server in each one-second
//! window; the excess is counted, and said in one frame when the next one passes.

use std::time::{Duration, Instant};

/// App frames recorded per server per second; the rest are counted, not kept.
pub const PER_SECOND: u32 = 200;

/// One server's window.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    started: Option<Instant>,
    passed: u32,
    dropped: u64,
}

/// What the gate says of one frame.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Record it; first say how many were dropped since the last one recorded (when any).
    Yes { dropped_before: u64 },
    /// Over the bound: counted only.
    No,
}

impl Gate {
    /// Whether a frame arriving `now` is recorded.
    pub(crate) fn pass(&mut self, now: Instant) -> Pass {
        let fresh = self
            .started
            .is_none_or(|t| now.saturating_duration_since(t) >= Duration::from_secs(1));
        if fresh {
            self.started = Some(now);
            self.passed = 0;
        }
        if self.passed >= PER_SECOND {
            self.dropped += 1;
            return Pass::No;
        }
        self.passed += 1;
        Pass::Yes {
            dropped_before: std::mem::take(&mut self.dropped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excess_is_counted_and_said_once_the_next_window_opens() {
        let mut g = Gate::default();
        let t = Instant::now();
        for _ in 0..PER_SECOND {
            assert_eq!(g.pass(t), Pass::Yes { dropped_before: 0 });
        }
        for _ in 0..50 {
            assert_eq!(g.pass(t + Duration::from_millis(500)), Pass::No);
        }
        let later = t + Duration::from_millis(1001);
        assert_eq!(g.pass(later), Pass::Yes { dropped_before: 50 });
        assert_eq!(g.pass(later), Pass::Yes { dropped_before: 0 });
    }
}
