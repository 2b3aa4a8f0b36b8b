//! The projection worker: selects the words, runs PCA or t-SNE, and writes
//! exports. It is the only place that talks to the projection library, so
//! the screen stays independent of how layouts are computed.

use super::projection::{ProjectionJob, ProjectionResult};

/// Whether projections can be computed in this build.
pub const AVAILABLE: bool = false;

/// Runs a projection job; `progress` receives t-SNE's KL as it goes.
pub fn run(job: ProjectionJob, _progress: &dyn Fn(ProjectionResult)) -> ProjectionResult {
    const NOTE: &str = "projection not available yet";
    match job {
        ProjectionJob::Compute { request, .. } => ProjectionResult::Done {
            request,
            result: Err(NOTE.into()),
        },
        ProjectionJob::Export { path, .. } => ProjectionResult::Exported {
            path,
            result: Err(NOTE.into()),
        },
    }
}
