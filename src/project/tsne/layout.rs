//! t-SNE in the projection registry ([`crate::project::registry`]): the
//! run stepped here rather than as an engine job, so that the layout can be
//! shown as it forms and stopped between iterations.

use crate::project::projection::{go_on, Input, Laid, Loss, Progress, Projection, Tick};
use crate::schema::Params;
use crate::train::Trainer;
use crate::words::WordIndex;
use crate::Result;

use super::{Tsne, TsneConfig, SCHEMA};

/// t-SNE's registry entry.
pub const TSNE: Projection = Projection {
    name: "tsne",
    help: "t-SNE: keeps neighbourhoods (exact, Barnes-Hut or FFT gradient)",
    schema: SCHEMA,
    loss: Some(Loss {
        short: "KL",
        title: "t-SNE KL divergence",
    }),
    step: "t-SNE iteration",
    animates: true,
    default_dims: 2,
    max_dims: 3,
    run,
};

/// Lays `input` out, reporting the iterations done and the KL divergence,
/// previewing the layout after each step but the last.
fn run(input: Input<'_>, params: &Params, progress: &mut dyn Progress) -> Result<Laid> {
    let config = TsneConfig {
        dims: input.dims,
        ..TsneConfig::from_params(params, input.seed)
    };
    let n = input.vectors.nrows();
    let total = config.schedule.total() as u64;
    let description = config.describe(n);
    let words = WordIndex::from_words(input.words.to_vec());
    let mut tsne = Tsne::prepare(words, input.vectors.view(), &config, &mut |line| {
        progress.note(line)
    })?;
    go_on(progress)?;
    let steps = tsne.total_steps();
    for step in 0..steps {
        let report = tsne.step(step)?;
        progress.tick(Tick {
            step: u64::from(report.epoch),
            total,
            loss: report.loss,
            phase: None,
        });
        go_on(progress)?;
        if step + 1 < steps {
            progress.preview(&tsne.layout(), &description);
        }
    }
    Ok(Laid {
        coords: tsne.coords(),
        description,
        axes: None,
        sphere: false,
    })
}
