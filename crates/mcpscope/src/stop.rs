//! Stopping on a signal, the same for the web UI and the gateway mode: the first SIGINT (Ctrl-C)
//! or SIGTERM (Kubernetes, systemd, `podman stop`) starts a graceful stop — the listener drains
//! (`mcpscope_server::serve_router`) —, and a second one exits at once, for a person who will
//! not wait for a slow request or an orchestrator's own deadline.
//!
//! The handlers are installed when [`Signals::catch`] is called, not when it is first awaited:
//! a signal that comes during start-up is kept for the stop, never the default action (which
//! would skip writing the history and releasing the lock).

use std::time::Duration;

/// A stop signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: an orchestrator's stop.
    Terminate,
}

impl Signal {
    /// Its usual name, for the log.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// What a person calls it: Ctrl-C for SIGINT.
    pub fn said(self) -> &'static str {
        match self {
            Signal::Interrupt => "Ctrl-C",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// The status a shell reports for a process this signal ended (128 + its number), the
    /// exit code when a second one ends us at once.
    pub fn exit_code(self) -> i32 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
        }
    }
}

/// The process's stop signals, caught from the moment this exists.
pub struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Catch SIGINT and SIGTERM from now on (a runtime must be running).
    pub fn catch() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next stop signal.
    pub async fn next(&mut self) -> Signal {
        #[cfg(unix)]
        {
            async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            if self.interrupt.is_some() || self.terminate.is_some() {
                return tokio::select! {
                    () = recv(&mut self.interrupt) => Signal::Interrupt,
                    () = recv(&mut self.terminate) => Signal::Terminate,
                };
            }
        }
        let _ = tokio::signal::ctrl_c().await;
        Signal::Interrupt
    }

    /// From now on, another stop signal ends the process at once (with 128 + its number), after
    /// one line on stderr beginning `who`.
    pub fn then_exit_at_once(mut self, who: &'static str) {
        tokio::spawn(async move {
            let again = self.next().await;
            eprintln!("{who}: {} again: quitting at once", again.name());
            std::process::exit(again.exit_code());
        });
    }
}

/// Say `line` on stderr if the process is still running `after` from now (a stop that takes
/// long enough for a person to wonder).
pub fn say_if_still_running(after: Duration, line: String) {
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        eprintln!("{line}");
    });
}
