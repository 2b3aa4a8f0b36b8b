//! PCA in the projection registry: the first two or three principal
//! components ([`crate::geometry::pca`]), titled with the variance they hold.

use crate::geometry::pca::{pca, PcaSolver};
use crate::project::projection as registry;
use crate::schema::Params;
use crate::Result;

/// PCA's entry in the projection registry ([`crate::project::registry`]):
/// no options of its own, 2 or 3 components, nothing to report while it runs.
pub const PCA: registry::Projection = registry::Projection {
    name: "pca",
    help: "Principal components: the largest variance",
    schema: &[],
    loss: None,
    step: "step",
    animates: false,
    default_dims: 2,
    max_dims: 3,
    run: lay_out,
};

/// The first `input.dims` components, titled with the variance they hold
/// and the solver that found them.
fn lay_out(
    input: registry::Input<'_>,
    _: &Params,
    _: &mut dyn registry::Progress,
) -> Result<registry::Laid> {
    let p = pca(
        input.vectors.view(),
        input.dims,
        PcaSolver::Auto,
        input.seed,
    )?;
    let share = |k: usize| format!("PC{} ({:.1}%)", k + 1, 100.0 * p.explained[k]);
    let solver = match p.solver {
        PcaSolver::Randomized => "randomized",
        _ => "exact",
    };
    Ok(registry::Laid {
        description: format!(
            "PCA ({solver}): {} and {} of the variance",
            share(0),
            share(1)
        ),
        axes: Some((share(0), share(1))),
        coords: p.coords,
        sphere: false,
    })
}
