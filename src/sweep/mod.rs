//! Hyperparameter sweeps: many runs of one method that differ in a few
//! hyperparameters (or corpus options), trained, evaluated and ranked by a
//! metric, with unpromising runs stopped early.
//!
//! - [`spec`]: the declaration (grid, ranges, metric, pruning), checked
//!   against the one schema of the method and of the corpus options;
//! - [`mod@expand`]: from the declaration to the list of runs;
//! - [`prune`]: asynchronous successive halving, deterministic in the order
//!   of the runs;
//! - [`mod@run`]: trains the runs as engine jobs, sharing the corpus and the
//!   co-occurrence counts between them;
//! - [`table`]: the results as a table and as CSV;
//! - [`chart`]: a metric against a swept value as a PNG or SVG image.
//!
//! The runs of a sweep are ordinary session runs (named by what they set,
//! tagged with the sweep), so every screen and `replay` read them as any
//! other run; the session keeps the declaration beside them
//! ([`crate::session::SweepRecord`]).

pub mod chart;
pub mod expand;
pub mod prune;
pub mod run;
pub mod spec;
pub mod table;

pub use expand::{expand, Trial};
pub use run::{run, Outcome, Plan, Status, Summary, Update};
pub use spec::{Metric, Prune, SweepSpec};
