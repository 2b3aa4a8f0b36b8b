//! The workbench's clock: the event loop ticks at a fixed rate, and times
//! shown on screen (a run's seconds, the autosave interval) count ticks.

/// Ticks per second (the event loop ticks every 50 ms).
pub const TICKS_PER_SECOND: u64 = 20;
