//! A real terminal for `mcpscope --tui`: tmux. Each [`Tui`] is its own tmux server (its own
//! socket in its own temp directory, no user config) holding one detached session of a fixed
//! size, running the built `mcpscope --tui …` under `sh` with its own `MCPSCOPE_DATA_DIR`. Keys go
//! in with `send-keys`; the screen comes back with `capture-pane -p`. Tests wait for what the
//! screen must show by polling until a predicate holds; the deadline only bounds a failure (it is
//! never what a test asserts on), and a failure prints the last screen and the TUI's log.
//!
//! The shell around the TUI prints `[mcpscope exited N]` and the terminal's line-discipline flags
//! after it ends, so a test sees that quitting gives the terminal back (main screen, cooked mode,
//! echo, cursor shown, mouse reporting off) rather than only that the process went away.
//!
//! Without tmux the tests say so and pass, except in CI (`CI` set), where they fail: CI installs
//! tmux (scripts/test.sh), so a missing one is a broken machine, not a reason to test nothing.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The binary under test.
pub(crate) const MCPSCOPE: &str = env!("CARGO_BIN_EXE_mcpscope");

/// What the shell prints when the TUI has ended (followed by its exit code and `]`).
pub(crate) const EXITED: &str = "[mcpscope exited ";

/// How long a wait may take before the test fails. Generous: CI machines are slow and busy;
/// a passing wait returns as soon as the screen shows what it waits for.
fn deadline() -> Duration {
    let secs = std::env::var("MCPSCOPE_TUI_WAIT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45);
    Duration::from_secs(secs)
}

/// How often the screen is captured while waiting.
const POLL: Duration = Duration::from_millis(40);

/// tmux, if installed (`MCPSCOPE_TMUX` overrides the search of `PATH`).
fn find_tmux() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MCPSCOPE_TMUX") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("tmux"))
        .find(|p| p.is_file())
}

/// How to start the TUI.
#[derive(Debug, Clone)]
pub(crate) struct Start {
    /// The terminal's size (columns, rows).
    pub(crate) size: (u16, u16),
    /// The arguments after `mcpscope` (`--tui` is added first).
    pub(crate) args: Vec<String>,
    /// Set `NO_COLOR=1`.
    pub(crate) no_color: bool,
    /// More environment for the TUI.
    pub(crate) env: Vec<(String, String)>,
    /// `BROWSER` is a script recording each URL it is asked to open ([`Tui::opened_urls`]).
    pub(crate) recording_browser: bool,
    /// Files written into the TUI's working directory before it starts: (name, text).
    pub(crate) files: Vec<(String, String)>,
}

impl Start {
    /// `mcpscope --tui ARGS` at 120×35 in colour.
    pub(crate) fn new(args: &[&str]) -> Start {
        Start {
            size: (120, 35),
            args: args.iter().map(|a| (*a).to_string()).collect(),
            no_color: false,
            env: Vec::new(),
            recording_browser: false,
            files: Vec::new(),
        }
    }

    /// With a file `name` holding `text` in the TUI's working directory (its own temporary
    /// one, where the files it saves land too): an argument may name it (`--config mcp.json`).
    pub(crate) fn file(mut self, name: &str, text: &str) -> Start {
        self.files.push((name.to_string(), text.to_string()));
        self
    }

    /// With `name=value` in the TUI's environment.
    pub(crate) fn env(mut self, name: &str, value: &str) -> Start {
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    /// With a `BROWSER` that opens nothing and records the URLs instead (webbrowser, which
    /// the TUI opens a login with, runs `$BROWSER URL` first): no real browser is launched in
    /// CI, and the test plays the person at the browser with what was recorded.
    pub(crate) fn recording_browser(mut self) -> Start {
        self.recording_browser = true;
        self
    }

    /// At `columns`×`rows` instead.
    pub(crate) fn size(mut self, columns: u16, rows: u16) -> Start {
        self.size = (columns, rows);
        self
    }

    /// With `NO_COLOR=1`.
    pub(crate) fn no_color(mut self) -> Start {
        self.no_color = true;
        self
    }
}

/// `mcpscope --tui` in a tmux session of its own; the tmux server is killed and its directory
/// removed on drop.
pub(crate) struct Tui {
    tmux: PathBuf,
    dir: PathBuf,
    test: String,
}

impl Tui {
    /// Start `mcpscope --tui …` for the test named `test`; `None` (after saying why) when tmux is
    /// not installed outside CI.
    pub(crate) fn start(test: &str, how: Start) -> Option<Tui> {
        let Some(tmux) = find_tmux() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test}: tmux is not installed, and CI is set: the terminal UI's end-to-end tests \
                 need it (scripts/test.sh installs it with apt-get; or set MCPSCOPE_TMUX)"
            );
            eprintln!("{test}: skipped, tmux is not installed (apt-get install tmux)");
            return None;
        };
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-tui-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).expect("temp dir");
        let tui = Tui {
            tmux,
            dir,
            test: test.to_string(),
        };
        tui.launch(&how);
        Some(tui)
    }

    fn launch(&self, how: &Start) {
        // After the TUI: its exit code and whether the terminal is back in cooked mode with
        // echo; then wait (the session ends when its command does, and the test still looks).
        let script = format!(
            "\"$@\"; echo \"{EXITED}$?]\"; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo; exec sleep 86400"
        );
        let (w, h) = how.size;
        for (name, text) in &how.files {
            std::fs::write(self.dir.join(name), text).expect("write a file for the TUI");
        }
        let data = self.data_dir().display().to_string();
        let mut env: Vec<String> = how.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if how.recording_browser {
            env.push(format!("BROWSER={}", self.browser_script().display()));
        }
        let mut args: Vec<String> = vec![
            "new-session".into(),
            "-d".into(),
            "-s".into(),
            "tui".into(),
            "-c".into(),
            self.dir.display().to_string(),
            "-x".into(),
            w.to_string(),
            "-y".into(),
            h.to_string(),
            "-e".into(),
            format!("MCPSCOPE_DATA_DIR={data}"),
            "-e".into(),
            format!("NO_COLOR={}", if how.no_color { "1" } else { "" }),
        ];
        for e in env {
            args.extend(["-e".to_string(), e]);
        }
        args.extend([
            "env".into(),
            "-u".into(),
            if how.no_color {
                "MCPSCOPE_UNSET"
            } else {
                "NO_COLOR"
            }
            .into(),
            "sh".into(),
            "-c".into(),
            script,
            "sh".into(),
            MCPSCOPE.into(),
            "--tui".into(),
        ]);
        args.extend(how.args.iter().cloned());
        self.tmux_ok(&args);
        // No status line, no delay after Escape, and the size stays what the test says.
        for opt in [
            ["status", "off"],
            ["escape-time", "0"],
            ["window-size", "manual"],
        ] {
            self.tmux_ok(&["set-option", "-g", opt[0], opt[1]]);
        }
    }

    /// The `BROWSER` of [`Start::recording_browser`]: appends its URL to `browser-urls.txt`.
    fn browser_script(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let script = self.dir.join("browser.sh");
        let log = self.dir.join("browser-urls.txt");
        let text = format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", log.display());
        std::fs::write(&script, text).expect("write the browser script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .expect("make the browser script executable");
        script
    }

    /// The URLs the TUI asked the recording browser to open, in order.
    pub(crate) fn opened_urls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("browser-urls.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Wait until the recording browser was asked to open `n` URLs; the `n`th.
    pub(crate) fn wait_opened(&self, n: usize) -> String {
        let until = Instant::now() + deadline();
        loop {
            if let Some(u) = self.opened_urls().get(n - 1) {
                return u.clone();
            }
            if Instant::now() > until {
                panic!(
                    "{}: the browser was never asked to open URL number {n} within {:?} (asked: {:?}). The last screen:\n{}\n{}",
                    self.test,
                    deadline(),
                    self.opened_urls(),
                    framed(&self.screen()),
                    self.log()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// The TUI's working directory (where `w` saves, and [`Start::file`]'s files are).
    pub(crate) fn workdir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The TUI's data directory (`MCPSCOPE_DATA_DIR`).
    pub(crate) fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn tmux(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> Output {
        Command::new(&self.tmux)
            .arg("-f")
            .arg("/dev/null")
            .arg("-S")
            .arg(self.dir.join("tmux.sock"))
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn tmux_ok(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> String {
        let out = self.tmux(args);
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        assert!(
            out.status.success(),
            "{}: tmux {shown:?} failed: {}",
            self.test,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Press keys, each one by itself: tmux key names (`Enter`, `Escape`, `Up`, `BTab`, `C-c`)
    /// or single characters. Wait for what a key does before pressing the next when the next
    /// could be read with it (Escape then a letter is Alt-letter to a terminal).
    pub(crate) fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux_ok(&["send-keys", "-t", "tui", k]);
        }
    }

    /// Type `text` literally.
    pub(crate) fn type_text(&self, text: &str) {
        self.tmux_ok(&["send-keys", "-t", "tui", "-l", text]);
    }

    /// Click the left button at 0-based (`column`, `row`), as an xterm SGR mouse report (what
    /// the TUI asked the terminal for).
    pub(crate) fn click(&self, column: u16, row: u16) {
        let (x, y) = (column + 1, row + 1);
        self.type_text(&format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"));
    }

    /// Scroll the wheel at 0-based (`column`, `row`), `down` or up.
    pub(crate) fn wheel(&self, column: u16, row: u16, down: bool) {
        let b = if down { 65 } else { 64 };
        self.type_text(&format!("\x1b[<{b};{};{}M", column + 1, row + 1));
    }

    /// The screen now, as text (one line per row, trailing spaces cut by tmux).
    pub(crate) fn screen(&self) -> String {
        self.tmux_ok(&["capture-pane", "-p", "-t", "tui"])
    }

    /// The screen now with its colours and attributes (SGR escapes).
    pub(crate) fn screen_ansi(&self) -> String {
        self.tmux_ok(&["capture-pane", "-p", "-e", "-t", "tui"])
    }

    /// A tmux format of the pane (`#{alternate_on}`, `#{cursor_flag}`, …).
    pub(crate) fn pane(&self, format: &str) -> String {
        self.tmux_ok(&["display-message", "-p", "-t", "tui", format])
            .trim()
            .to_string()
    }

    /// Make the terminal `columns`×`rows`.
    pub(crate) fn resize(&self, columns: u16, rows: u16) {
        self.tmux_ok(&[
            "resize-window",
            "-t",
            "tui",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
        ]);
    }

    /// Wait until the screen satisfies `ok` (described by `what` in the failure); the screen.
    pub(crate) fn wait(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + deadline();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > until {
                panic!(
                    "{}: the screen never showed {what} within {:?}. The last screen:\n{}\n{}\n{}",
                    self.test,
                    deadline(),
                    framed(&screen),
                    self.log(),
                    self.stacks()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// Wait until the screen contains every one of `texts`; the screen.
    pub(crate) fn wait_for(&self, texts: &[&str]) -> String {
        self.wait(&format!("{texts:?}"), |s| {
            texts.iter().all(|t| s.contains(t))
        })
    }

    /// Wait until the screen no longer contains `text`; the screen.
    pub(crate) fn wait_gone(&self, text: &str) -> String {
        self.wait(&format!("{text:?} gone"), |s| !s.contains(text))
    }

    /// Press `q` once no call runs (the header's `⟳ N running` gone: with one running, `q`
    /// asks first) and wait for the TUI to end; asserts it exited 0 and gave the terminal back.
    pub(crate) fn quit(&self) {
        self.wait("no call running (the header)", |s| {
            !s.lines().next().unwrap_or_default().contains(" running")
        });
        self.keys(&["q"]);
        self.assert_exited_cleanly();
    }

    /// Wait for the TUI to end, then assert it exited 0 and the terminal is as it was: the main
    /// screen (not the TUI's), cooked mode with echo, the cursor shown, no mouse reporting.
    pub(crate) fn assert_exited_cleanly(&self) {
        let screen = self.wait("the TUI's exit", |s| {
            s.lines().any(|l| l.starts_with(EXITED) && l.ends_with(']')) && s.contains("icanon")
        });
        assert!(
            screen.contains(&format!("{EXITED}0]")),
            "{}: mcpscope --tui did not exit 0:\n{}\n{}",
            self.test,
            framed(&screen),
            self.log()
        );
        let modes = screen
            .lines()
            .find(|l| l.contains("icanon"))
            .unwrap_or_default();
        let words: Vec<&str> = modes.split_whitespace().collect();
        assert!(
            words.contains(&"icanon") && words.contains(&"echo"),
            "{}: the terminal was left in raw mode (stty: {modes})",
            self.test
        );
        assert!(
            !screen.contains("Servers ("),
            "{}: the TUI's picture is still on the screen after it ended:\n{}",
            self.test,
            framed(&screen)
        );
        let flags = self.pane("#{alternate_on} #{mouse_any_flag} #{cursor_flag}");
        assert_eq!(
            flags, "0 0 1",
            "{}: after the TUI ended the terminal should be on the main screen (alternate_on 0), \
             without mouse reporting (mouse_any_flag 0), with the cursor shown (cursor_flag 1)",
            self.test
        );
    }

    /// Where every thread of the TUI is (gdb's backtraces, when gdb is installed), for a
    /// failure message: a screen that never changes may be a TUI stuck, not a TUI that
    /// ignored a key.
    pub(crate) fn stacks(&self) -> String {
        let pane = self.pane("#{pane_pid}");
        let children = std::fs::read_to_string(format!("/proc/{pane}/task/{pane}/children"));
        let Some(pid) = children
            .ok()
            .and_then(|c| c.split_whitespace().next().map(String::from))
        else {
            return format!("stacks: no process under the pane's shell (pid {pane})");
        };
        // Bytes typed but not yet read by the TUI (FIONREAD on its terminal, which does not
        // consume them): a key that waits there was sent but never woke the TUI.
        let unread = Command::new("python3")
            .args([
                "-c",
                "import fcntl,os,struct,sys,termios;fd=os.open(sys.argv[1],os.O_RDONLY|os.O_NONBLOCK|os.O_NOCTTY);print(struct.unpack('i',fcntl.ioctl(fd,termios.FIONREAD,b'\\0'*4))[0])",
                &format!("/proc/{pid}/fd/0"),
            ])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let out = Command::new("gdb")
            .args(["-p", &pid, "-batch", "-nx", "-ex", "thread apply all bt 12"])
            .output();
        match out {
            Ok(o) => {
                let text = String::from_utf8_lossy(&o.stdout);
                let frames: String = text
                    .lines()
                    .filter(|l| l.starts_with('#') || l.starts_with("Thread"))
                    .map(|l| format!("{}\n", l.chars().take(160).collect::<String>()))
                    .collect();
                format!(
                    "unread input bytes on the TUI's terminal: {unread}\nstacks of pid {pid}:\n{}",
                    tail(&frames, 12_000)
                )
            }
            Err(e) => format!("stacks: gdb did not run ({e})"),
        }
    }

    /// The TUI's own log (`tui.log` in its data directory), for a failure message.
    pub(crate) fn log(&self) -> String {
        match std::fs::read_to_string(self.data_dir().join("tui.log")) {
            Ok(s) if !s.is_empty() => format!("tui.log:\n{}", tail(&s, 4000)),
            _ => "tui.log: empty".to_string(),
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        // Killing the server closes the pane, which hangs up on the TUI (SIGHUP): it ends with
        // its servers. Then the directory goes.
        let _ = self.tmux(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The last `max` bytes of `s` (at a character boundary).
fn tail(s: &str, max: usize) -> &str {
    let mut at = s.len().saturating_sub(max);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// A screen between rules, so its edges show in a failure message.
pub(crate) fn framed(screen: &str) -> String {
    format!("---- screen ----\n{screen}---- end ----")
}

/// The SGR parameters of every escape `ESC [ … m` in `ansi`.
pub(crate) fn sgr_params(ansi: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = ansi;
    while let Some(at) = rest.find("\x1b[") {
        rest = &rest[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with('m') {
            out.extend(
                rest[..end]
                    .split([';', ':'])
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
        rest = &rest[end..];
    }
    out
}

/// True when an SGR parameter list sets a colour (foreground or background, 8/16/256/RGB).
/// 39 and 49 (the default colours) are not colours.
pub(crate) fn sets_colour(params: &[u32]) -> bool {
    params
        .iter()
        .any(|p| matches!(p, 30..=38 | 40..=48 | 90..=97 | 100..=107))
}

/// A free loopback port (for a `--callback-url`).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}
