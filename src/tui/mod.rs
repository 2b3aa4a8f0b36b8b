//! The terminal workbench (ratatui + crossterm): corpus, training with live
//! charts, runs, neighbours, evaluation, projection and text classification,
//! on one screen each.
//!
//! The design follows the ratatui apps that stay responsive under load
//! (gitui, bottom, yazi):
//!
//! - The layers, each importing only those above it: [`action`], [`msg`] and
//!   the widgets' state ([`input`], [`form`], [`run`](mod@run)); each screen's state
//!   ([`model`]); the whole state ([`app`]); the handlers ([`update`](mod@update)), with
//!   one function, [`update()`], from a [`Msg`] (key, worker answer, tick) to
//!   state changes and [`Effect`]s. Handlers never call each other: they
//!   queue an [`Action`] on the app, which `update` routes next. Nothing
//!   there blocks, so it is tested without a terminal.
//! - [`runtime`] runs effects on plain threads (the work is CPU-bound; no
//!   async) and sends answers back on a bounded channel; training uses the
//!   engine's [`Job`](crate::train::Job) with a rayon pool that leaves a core
//!   to the interface by default.
//! - [`event_loop`] owns the terminal: it waits on input, answers and a tick
//!   with crossbeam's `select!`, and redraws only on change, at most ~30 times
//!   a second.
//! - [`ui`] renders the state, one module per screen; [`keymap`] maps keys
//!   to [`Action`]s and also generates the help overlay and key hints.
//! - Forms come from hyperparameter schemas ([`form`]), so a method added to
//!   the registry gets its Train form with no UI code.
//!
//! # Adding a screen
//!
//! 1. List it in [`Screen`] (variant, [`Screen::ALL`], title): its digit and
//!    function key, its tab and its lines in help follow from the list.
//! 2. Its state in `model/<name>.rs` (a struct with `Default` or `new`, and
//!    the pure functions on it), held by a field of [`App`].
//! 3. Its handlers in `update/<name>.rs`: `navigate(app, action)` for the
//!    keys of the screen, plus one function per user-level [`Action`] it
//!    adds; route them in `update/mod.rs` (`route`). A handler that should
//!    lead to another screen's work queues an action
//!    ([`App::user_action`], [`App::follow_up`]) instead of calling it.
//! 4. Its keys in [`keymap`] (context `Ctx::Screen`), and its drawing in
//!    `ui/<name>.rs`, called from [`ui`]'s screen match.
//! 5. A snapshot test in `tests/it/tui_snapshots.rs` at 120x40 and 80x24.

pub mod action;
pub mod app;
pub mod clock;
pub mod driver;
pub mod event_loop;
pub mod form;
pub mod input;
pub mod keymap;
pub mod model;
pub mod msg;
pub mod project_worker;
pub mod run;
pub mod runtime;
pub mod ui;
pub mod update;

pub use action::{Action, Screen, Slot};
pub use app::{App, AppOptions};
pub use driver::Driver;
pub use event_loop::{run, run_with};
pub use msg::{Effect, Msg};
pub use runtime::Runtime;
pub use update::{act, startup, update};
