//! UMAP in the projection registry ([`crate::project::registry`]): the
//! Projection screen and `wordbench project --method umap` run it as they
//! run t-SNE, with its epochs as steps, the layout shown as it forms and a
//! stop honoured after each epoch.

use std::cell::RefCell;

use crate::project::projection::{cancelled, Input, Laid, Progress, Projection, Tick};
use crate::schema::Params;
use crate::Result;

use super::{umap_watched, Settings, SCHEMA};

/// UMAP's registry entry.
pub const UMAP: Projection = Projection {
    name: "umap",
    help: "UMAP: the fuzzy kNN graph laid out by SGD with negative sampling (McInnes et al. 2018)",
    schema: SCHEMA,
    loss: None,
    step: "UMAP epoch",
    animates: true,
    default_dims: 2,
    max_dims: 3,
    run,
};

/// Lays `input` out, reporting each SGD epoch and stopping when told.
fn run(input: Input<'_>, params: &Params, progress: &mut dyn Progress) -> Result<Laid> {
    let settings = Settings {
        dims: input.dims,
        ..Settings::from_params(params, input.seed)?
    };
    let description = settings.describe(input.vectors.nrows());
    // The epoch callback and the note callback both report to `progress`.
    let sink = RefCell::new(progress);
    let mut on_epoch = |epoch: usize, epochs: usize, layout: &dyn Fn() -> Vec<[f64; 2]>| {
        let mut p = sink.borrow_mut();
        p.tick(Tick {
            step: epoch as u64,
            total: epochs as u64,
            loss: f64::NAN,
            phase: None,
        });
        if epoch < epochs && p.wants_preview() {
            p.preview(&layout(), &description);
        }
        !p.stopped()
    };
    let mut note = |line: String| sink.borrow_mut().note(line);
    let laid = umap_watched(input.vectors.view(), &settings, &mut on_epoch, &mut note)?;
    let coords = laid.ok_or_else(cancelled)?;
    Ok(Laid {
        coords: coords.mapv(f64::from),
        description,
        axes: None,
        sphere: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes every preview it is offered and counts the ticks.
    #[derive(Default)]
    struct Watching {
        ticks: u64,
        previews: Vec<usize>,
    }

    impl Progress for Watching {
        fn tick(&mut self, _: Tick) {
            self.ticks += 1;
        }
        fn preview(&mut self, coords: &[[f64; 2]], description: &str) {
            assert!(description.starts_with("UMAP"), "{description}");
            assert!(coords.iter().flatten().all(|v| v.is_finite()));
            self.previews.push(coords.len());
        }
        fn wants_preview(&self) -> bool {
            true
        }
    }

    #[test]
    fn the_layout_is_previewed_as_it_forms_and_ends_as_previewed() {
        let x = crate::project::testdata::gaussian_blobs(30, 4, 2, 3);
        let words: Vec<String> = (0..x.nrows()).map(|i| format!("w{i}")).collect();
        let params = Params::parse(SCHEMA, "umap", [("n_epochs", "40")]).unwrap();
        let input = |seed| Input {
            vectors: x.clone(),
            words: &words,
            dims: 2,
            seed,
        };
        // One thread: the SGD is sequential, so two runs can be compared.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let mut watching = Watching::default();
        let laid = one
            .install(|| (UMAP.run)(input(5), &params, &mut watching))
            .unwrap();
        assert_eq!(watching.ticks, 40);
        assert_eq!(
            watching.previews,
            vec![x.nrows(); 39],
            "every epoch but the last"
        );
        // A sink that takes no previews gets the same layout.
        let silent =
            one.install(|| (UMAP.run)(input(5), &params, &mut crate::project::projection::Silent));
        assert_eq!(silent.unwrap().coords, laid.coords);
    }
}
