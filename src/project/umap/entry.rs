//! UMAP in the projection registry ([`crate::project::registry`]): the
//! Projection screen and `wordbench project --method umap` run it as they
//! run t-SNE, with its epochs as steps and a stop honoured after each.

use std::cell::RefCell;

use crate::project::registry::{cancelled, Input, Laid, Progress, Projection, Tick};
use crate::train::Params;
use crate::Result;

use super::{umap_noted, Settings, SCHEMA};

/// UMAP's registry entry.
pub const UMAP: Projection = Projection {
    name: "umap",
    help: "UMAP: the fuzzy kNN graph laid out by SGD with negative sampling (McInnes et al. 2018)",
    schema: SCHEMA,
    loss: None,
    step: "UMAP epoch",
    animates: false,
    default_dims: 2,
    max_dims: 2,
    run,
};

/// Lays `input` out, reporting each SGD epoch and stopping when told.
fn run(input: Input<'_>, params: &Params, progress: &mut dyn Progress) -> Result<Laid> {
    let settings = Settings::from_params(params, input.seed)?;
    let description = settings.describe(input.vectors.nrows());
    // The epoch callback and the note callback both report to `progress`.
    let sink = RefCell::new(progress);
    let mut on_epoch = |epoch: usize, epochs: usize| {
        let mut p = sink.borrow_mut();
        p.tick(Tick {
            step: epoch as u64,
            total: epochs as u64,
            loss: f64::NAN,
            phase: None,
        });
        !p.stopped()
    };
    let mut note = |line: String| sink.borrow_mut().note(line);
    let laid = umap_noted(input.vectors.view(), &settings, &mut on_epoch, &mut note)?;
    let coords = laid.ok_or_else(cancelled)?;
    Ok(Laid {
        coords: coords.mapv(f64::from),
        description,
        axes: None,
        sphere: false,
    })
}
