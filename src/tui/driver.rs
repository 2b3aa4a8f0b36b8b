//! Drives the workbench without a terminal: user-level actions go through
//! [`update`] and their effects run on a real [`Runtime`], exactly as in the
//! event loop. End-to-end tests and recorded journals use it.

use std::time::{Duration, Instant};

use super::action::Action;
use super::app::{App, AppOptions};
use super::msg::Msg;
use super::runtime::Runtime;
use super::update::update;

/// An app and its runtime.
pub struct Driver {
    /// The state.
    pub app: App,
    runtime: Runtime,
}

impl Driver {
    /// A driver with the app started (corpus or session loading).
    pub fn start(options: &AppOptions) -> Driver {
        let mut app = App::new(options);
        let mut runtime = Runtime::new();
        runtime.execute_all(super::update::startup(&mut app));
        Driver { app, runtime }
    }

    /// Sends one message and runs its effects.
    pub fn send(&mut self, msg: Msg) {
        let effects = update(&mut self.app, msg);
        self.runtime.execute_all(effects);
    }

    /// Performs an action.
    pub fn act(&mut self, action: Action) {
        self.send(Msg::Action(action));
    }

    /// Handles answers (and ticks every 50 ms) until `done` holds; false on timeout.
    pub fn wait_until(&mut self, timeout: Duration, done: impl Fn(&App) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut next_tick = Instant::now();
        while !done(&self.app) {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            if now >= next_tick {
                self.send(Msg::Tick);
                next_tick = now + Duration::from_millis(50);
            }
            let wait = next_tick.min(deadline).saturating_duration_since(now);
            if let Ok(msg) = self.runtime.receiver().recv_timeout(wait) {
                self.send(msg);
            }
        }
        true
    }

    /// Replays a journal of user-level actions, letting each settle for
    /// `settle` (for the background work it starts).
    pub fn replay(&mut self, journal: &[Action], settle: Duration) {
        for a in journal {
            self.act(a.clone());
            self.wait_until(settle, |_| false);
        }
    }
}
