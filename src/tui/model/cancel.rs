//! Stopping background work whose answer nobody waits for any more.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Stops work on another thread: the worker looks at it at its own
/// boundaries (t-SNE iterations, pieces of a corpus) and gives up. The
/// workbench cancels a projection when a new one is asked for or its run is
/// deleted, and a corpus load when another load replaces it, so that
/// superseded work does not keep a core busy to the end for an answer that
/// is dropped.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Asks the worker to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for library calls that take one.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}
