//! The terminal workbench (ratatui + crossterm): corpus, training with live
//! charts, runs, neighbours, evaluation and projection, on one screen each.
//!
//! The design follows the ratatui apps that stay responsive under load
//! (gitui, bottom, yazi):
//!
//! - [`app`] holds all state and one function, [`update`], from a [`Msg`]
//!   (key, worker answer, tick) to state changes and [`Effect`]s. It never
//!   blocks, so it is tested without a terminal.
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

pub mod action;
pub mod app;
pub mod corpus;
pub mod driver;
pub mod evaluate;
pub mod event_loop;
pub mod form;
pub mod input;
pub mod keymap;
pub mod msg;
pub mod neighbors;
pub mod project_worker;
pub mod projection;
pub mod run;
pub mod runs;
pub mod runtime;
pub mod session;
pub mod train;
pub mod ui;

pub use action::{Action, Screen, Slot};
pub use app::{update, App, AppOptions};
pub use driver::Driver;
pub use event_loop::run;
pub use msg::{Effect, Msg};
pub use runtime::Runtime;
