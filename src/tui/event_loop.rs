//! The terminal loop: one UI thread owns the [`App`]; it waits on an input
//! thread (blocking on `crossterm::event::read`), the runtime's answers and
//! a 50 ms tick, drains everything pending, and redraws only when something
//! changed: at once after a key, otherwise at most every [`FRAME`], so a
//! flood of progress messages cannot starve the keys.
//!
//! The terminal is restored on quit, on error, on panic (ratatui's hook,
//! extended) and on SIGINT, SIGTERM and SIGHUP (the binary's handler), all
//! by [`give_back_terminal`]: every mode turned on at start (raw mode, the
//! alternate screen, mouse reporting, bracketed paste, the hidden cursor) is
//! turned off, so the shell is usable after any exit. Panics on worker
//! threads are not printed over the screen: they are shown on the status
//! line and printed after exit.
//!
//! A paste arrives whole (bracketed paste, one [`Msg::Paste`]), not as one
//! key per character that keymaps would act on. crossterm reads the terminal
//! with `poll` (its `use-dev-tty` source): its default edge-triggered reader
//! returned after the first kilobyte of a burst and left the rest unread
//! until the next key press, which stalled large pastes.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, select, tick};
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event as TermEvent, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::LeaveAlternateScreen;
use ratatui::DefaultTerminal;

use super::app::{App, AppOptions};
use super::msg::Msg;
use super::runtime::Runtime;
use super::ui;
use super::update::update;

/// Shortest time between two frames (~30 fps).
pub const FRAME: Duration = Duration::from_millis(33);
/// The clock.
pub const TICK: Duration = Duration::from_millis(50);
/// Set (to anything), the interface thread panics at the first key: a way to
/// check by hand that a panic leaves the terminal usable.
pub const TEST_PANIC_ENV: &str = "WORDBENCH_TUI_TEST_PANIC";

static WORKER_PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Runs the workbench in the terminal until the user quits. With `trace`,
/// each key's latency (from the key event to the end of the frame that
/// shows its effect) is appended to that file in microseconds.
pub fn run(options: AppOptions, trace: Option<PathBuf>) -> io::Result<()> {
    run_with(options, trace, Vec::new())
}

/// [`run`], carrying out `actions` (e.g. opening pre-trained vectors given
/// on the command line) right after start.
pub fn run_with(
    options: AppOptions,
    trace: Option<PathBuf>,
    actions: Vec<super::Action>,
) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    HOLDS_TERMINAL.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = take_terminal_modes(&mut io::stdout());
    install_panic_hook();
    let result = run_loop(&mut terminal, options, trace, actions);
    give_back_terminal();
    let _ = std::panic::take_hook();
    if let Ok(panics) = WORKER_PANICS.lock() {
        for p in panics.iter() {
            eprintln!("wordbench: a background thread panicked: {p}");
        }
    }
    result
}

/// Turns on what the workbench uses besides raw mode and the alternate
/// screen (which ratatui turns on): mouse reporting and bracketed paste.
fn take_terminal_modes(out: &mut impl Write) -> io::Result<()> {
    execute!(out, EnableMouseCapture, EnableBracketedPaste)
}

/// Turns off every mode the workbench turned on, raw mode aside: bracketed
/// paste, mouse reporting, the hidden cursor and the alternate screen.
fn release_terminal_modes(out: &mut impl Write) -> io::Result<()> {
    execute!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        Show,
        LeaveAlternateScreen
    )
}

/// Gives the terminal back as the shell had it: every mode off, raw mode
/// too. Called on quit, on panic and by the binary's signal handler
/// (SIGINT, SIGTERM, SIGHUP), which exits without running destructors.
pub fn give_back_terminal() {
    let _ = release_terminal_modes(&mut io::stdout());
    ratatui::restore();
    HOLDS_TERMINAL.store(false, std::sync::atomic::Ordering::SeqCst);
}

/// True while the workbench has the terminal in raw mode.
static HOLDS_TERMINAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the workbench has the terminal (raw mode, alternate screen), so a
/// signal handler knows to give it back before exiting.
pub fn holds_terminal() -> bool {
    HOLDS_TERMINAL.load(std::sync::atomic::Ordering::SeqCst)
}

fn install_panic_hook() {
    let ui_thread = std::thread::current().id();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            let _ = release_terminal_modes(&mut io::stdout());
            previous(info);
        } else if let Ok(mut p) = WORKER_PANICS.lock() {
            let name = std::thread::current()
                .name()
                .unwrap_or("worker")
                .to_string();
            p.push(format!("{name}: {info}"));
        }
    }));
}

fn run_loop(
    terminal: &mut DefaultTerminal,
    options: AppOptions,
    trace: Option<PathBuf>,
    actions: Vec<super::Action>,
) -> io::Result<()> {
    let mut app = App::new(&options);
    let mut runtime = Runtime::new();
    let (input_tx, input_rx) = bounded::<(Instant, TermEvent)>(256);
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || {
            while let Ok(e) = event::read() {
                if input_tx.send((Instant::now(), e)).is_err() {
                    break;
                }
            }
        })?;
    let mut trace = match trace {
        Some(p) => Some(io::BufWriter::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)?,
        )),
        None => None,
    };
    let ticker = tick(TICK);
    if let Ok(size) = terminal.size() {
        app.width = size.width;
        app.height = size.height;
    }
    runtime.execute_all(super::update::startup(&mut app));
    for action in actions {
        runtime.execute_all(super::update::act(&mut app, action));
    }
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut keys: Vec<Instant> = Vec::new();
    // A key's frame is drawn at once; only other changes wait for the frame cap.
    let mut urgent = false;
    let mut panics_seen = 0;
    let test_panic = std::env::var_os(TEST_PANIC_ENV).is_some();
    loop {
        if dirty && (urgent || last_draw.elapsed() >= FRAME) {
            terminal.draw(|f| ui::draw(f, &app))?;
            last_draw = Instant::now();
            dirty = false;
            urgent = false;
            if let Some(t) = trace.as_mut() {
                for k in keys.drain(..) {
                    writeln!(t, "{}", last_draw.duration_since(k).as_micros())?;
                }
                t.flush()?;
            }
            keys.clear();
        }
        let wait = if dirty {
            FRAME.saturating_sub(last_draw.elapsed())
        } else {
            Duration::from_secs(3600)
        };
        let mut msgs: Vec<(Option<Instant>, Msg)> = Vec::new();
        select! {
            recv(input_rx) -> m => match m {
                Ok((at, e)) => msgs.extend(input(at, e)),
                Err(_) => break,
            },
            recv(runtime.receiver()) -> m => {
                if let Ok(m) = m {
                    msgs.push((None, m));
                }
            },
            recv(ticker) -> _ => {
                msgs.push((None, Msg::Tick));
                // Spinners move while something loads, and a training
                // run's clock every frame (even inside a long step).
                dirty |= app.corpus.loading.is_some()
                    || app.runs.iter().any(|r| r.status.is_active());
                let panics = WORKER_PANICS.lock().map_or(0, |p| p.len());
                if panics > panics_seen {
                    let last = WORKER_PANICS.lock().ok().and_then(|p| p.last().cloned());
                    panics_seen = panics;
                    msgs.push((None, Msg::WorkerPanicked(last.unwrap_or_default())));
                }
            },
            default(wait) => {},
        }
        while let Ok((at, e)) = input_rx.try_recv() {
            msgs.extend(input(at, e));
        }
        while let Ok(m) = runtime.receiver().try_recv() {
            msgs.push((None, m));
        }
        for (at, msg) in msgs {
            let visible = !matches!(msg, Msg::Tick);
            if let Some(at) = at {
                assert!(
                    !test_panic,
                    "{TEST_PANIC_ENV} is set: a test panic at the first key"
                );
                keys.push(at);
                urgent = true;
            }
            let effects = update(&mut app, msg);
            dirty |= visible || !effects.is_empty();
            if runtime.execute_all(effects) {
                app.quit = true;
            }
        }
        if app.quit {
            break;
        }
    }
    runtime.shutdown();
    Ok(())
}

/// A terminal event as a message (mouse moves are dropped: they change nothing).
fn input(at: Instant, e: TermEvent) -> Option<(Option<Instant>, Msg)> {
    match e {
        TermEvent::Key(k) if k.kind != KeyEventKind::Release => Some((Some(at), Msg::Key(k))),
        TermEvent::Mouse(m)
            if !matches!(m.kind, MouseEventKind::Moved | MouseEventKind::Drag(_)) =>
        {
            Some((None, Msg::Mouse(m)))
        }
        TermEvent::Resize(width, height) => Some((None, Msg::Resize(width, height))),
        TermEvent::Paste(text) => Some((Some(at), Msg::Paste(text))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode the workbench turns on (its own, and ratatui's alternate
    /// screen and hidden cursor) is turned off by what every exit path runs.
    #[test]
    fn giving_the_terminal_back_undoes_every_mode_taken() {
        let (mut on, mut off) = (Vec::new(), Vec::new());
        take_terminal_modes(&mut on).unwrap();
        release_terminal_modes(&mut off).unwrap();
        let (on, off) = (
            String::from_utf8(on).unwrap(),
            String::from_utf8(off).unwrap(),
        );
        // Private modes are set with `CSI ? n h` and reset with `CSI ? n l`.
        let set: Vec<&str> = on
            .split("\x1b[?")
            .filter_map(|s| s.split_once('h').map(|(n, _)| n))
            .collect();
        assert!(set.len() >= 2, "mouse and paste: {on:?}");
        for mode in set.iter().chain(&["1049", "25"]) {
            for n in mode.split(';') {
                assert!(
                    off.contains(&format!("\x1b[?{n}l"))
                        || (n == "25" && off.contains("\x1b[?25h")),
                    "mode {n} is not reset: {off:?}"
                );
            }
        }
        assert!(
            off.contains("\x1b[?25h"),
            "the cursor is shown again: {off:?}"
        );
    }
}
