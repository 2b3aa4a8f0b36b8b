//! The eigensolver's hyperparameters, declared once for every method that
//! runs it (the spectral family, the graph methods, PSDVec...), so the same
//! name means the same thing with the same range everywhere.

use crate::schema::ParamSpec;

/// Vectors per Lanczos block: one pass over the matrix serves them all.
pub const BLOCK: ParamSpec = ParamSpec::int(
    "block",
    1,
    64,
    8,
    "vectors per Lanczos block (one pass over the matrix serves them all)",
);

/// Krylov basis size before a restart; `automatic` says what 0 stands for
/// in the calling method.
pub const fn basis(automatic: &'static str) -> ParamSpec {
    ParamSpec::int("basis", 0, 100_000, 0, automatic)
}
