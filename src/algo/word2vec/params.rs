//! `sgns`'s and `cbow`'s hyperparameters, declared once, and the settings a
//! run reads from them.

use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};
use crate::train::parallel;

/// The schema entries both methods share; `lr` differs in its default.
const fn schema(lr: f64) -> [ParamSpec; 9] {
    [
        ParamSpec::int("dim", 1, 10_000, 100, "vector dimension (word2vec -size)"),
        ParamSpec::int("window", 1, 100, 5, "maximal context words on each side; each centre uses a uniform 1..window"),
        ParamSpec::int("negative", 1, 100, 5, "negative samples per example, drawn from unigram^0.75"),
        ParamSpec::float("sample", 0.0, 1.0, 1e-3, "subsampling threshold t for frequent words (0 = off)"),
        ParamSpec::int("epochs", 1, 1000, 5, "passes over the corpus (word2vec -iter)"),
        ParamSpec::float("lr", 1e-6, 1.0, lr, "initial learning rate (alpha), decays linearly; set mid-run it becomes the current rate").live(),
        ParamSpec::float("min_lr", 0.0, 1.0, 1e-4, "floor of the decayed learning rate, as a fraction of lr"),
        ParamSpec::choice("sigmoid", SigmoidChoice::NAMES, "table", "sigmoid by word2vec's 1000-cell table on [-6, 6], or exact"),
        parallel::schedule("hogwild"),
    ]
}

/// How SGNS batches its updates: word2vec.c's one example per (context,
/// centre) pair, or one per window with shared negatives ([`worker`]).
/// `window` is the default: on text8-head it took 0.21x gensim's CPU seconds
/// on an idle machine with every score within 0.01 of gensim's
/// (docs/benchmarks.md); `pair` stays as word2vec.c's exact updates.
/// Sessions written before SGNS had `batch` trained pair by pair, and
/// replay so ([`ParamSpec::absent`]).
const BATCH: ParamSpec = ParamSpec::choice(
    "batch",
    Batch::NAMES,
    "window",
    "pair: each (context, centre) pair draws its own negatives (word2vec.c); window: a centre's contexts share one draw, updated as one small dense product (pWord2Vec)",
)
.absent(
    "pair",
    "the session predates SGNS's batch option: it trained as batch=pair",
);

/// How CBOW batches its updates: word2vec.c's example, whose target rows
/// are scored and stepped one after another, or one centre's targets drawn
/// one centre ahead and all scored before any is stepped ([`worker`]).
/// `example` is the default: on an idle machine it took 0.35x gensim's CPU
/// seconds against `window`'s 0.37x (under load `window` was cheaper, 0.32x
/// against 0.35x; docs/benchmarks.md). Sessions written before CBOW had
/// `batch` trained as `example`, and replay so ([`ParamSpec::absent`]:
/// declared although it is the default, so a later default keeps them).
const CBOW_BATCH: ParamSpec = ParamSpec::choice(
    "batch",
    CbowBatch::NAMES,
    "example",
    "example: the centre and each negative scored and updated in turn (word2vec.c); window: the centre's targets drawn one centre ahead and all scored before any is stepped",
)
.absent(
    "example",
    "the session predates CBOW's batch option: it trained as batch=example",
);

/// The shared entries with `batch` before `schedule`.
const fn with_batch(shared: [ParamSpec; 9], batch: ParamSpec) -> [ParamSpec; 10] {
    let [dim, window, negative, sample, epochs, lr, min_lr, sigmoid, schedule] = shared;
    [
        dim, window, negative, sample, epochs, lr, min_lr, sigmoid, batch, schedule,
    ]
}

/// SGNS hyperparameters (word2vec defaults, lr 0.025).
pub static SGNS_SCHEMA: &[ParamSpec] = &with_batch(schema(0.025), BATCH);

/// CBOW hyperparameters (word2vec defaults, lr 0.05).
pub static CBOW_SCHEMA: &[ParamSpec] = &with_batch(schema(0.05), CBOW_BATCH);

/// Hyperparameters, read once from the validated [`Params`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Vector dimension.
    pub dim: usize,
    /// Maximal window on each side.
    pub window: usize,
    /// Negatives per example.
    pub negative: usize,
    /// Subsampling threshold `t` (0 = off).
    pub sample: f64,
    /// Passes over the corpus.
    pub epochs: usize,
    /// Initial learning rate.
    pub lr: f64,
    /// Floor of the decayed rate, as a fraction of `lr`.
    pub min_lr: f64,
    /// σ by word2vec's table (`true`) or exactly.
    pub table: bool,
    /// `batch=window`: SGNS's one update per window with shared negatives
    /// instead of one per (context, centre) pair; CBOW's targets drawn one
    /// centre ahead and scored in one pass instead of one by one.
    pub window_batch: bool,
    /// How threads share the updates.
    pub schedule: parallel::Schedule,
}

impl Settings {
    /// Reads the settings from parameters of [`SGNS_SCHEMA`] or
    /// [`CBOW_SCHEMA`] (the same names; they differ in `lr` and in the
    /// choices of `batch`).
    pub fn from_params(p: &Params) -> Self {
        if p.schema() == CBOW_SCHEMA {
            return Cbow::from_params(p).settings();
        }
        let v = Sgns::from_params(p);
        let cbow = Cbow {
            dim: v.dim,
            window: v.window,
            negative: v.negative,
            sample: v.sample,
            epochs: v.epochs,
            lr: v.lr,
            min_lr: v.min_lr,
            sigmoid: v.sigmoid,
            // SGNS's `pair`, like CBOW's `example`, is word2vec.c's order.
            batch: match v.batch {
                Batch::Pair => CbowBatch::Example,
                Batch::Window => CbowBatch::Window,
            },
            schedule: v.schedule,
        };
        cbow.settings()
    }
}

/// How the sigmoid is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SigmoidChoice {
    Table,
    Exact,
}
choice_names!(SigmoidChoice {
    Table = "table",
    Exact = "exact",
});

/// How SGNS batches its updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Batch {
    Pair,
    Window,
}
choice_names!(Batch {
    Pair = "pair",
    Window = "window",
});

/// How CBOW batches its updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CbowBatch {
    Example,
    Window,
}
choice_names!(CbowBatch {
    Example = "example",
    Window = "window",
});

bind_params! {
    /// The values of [`SGNS_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Sgns for SGNS_SCHEMA {
        dim: usize,
        window: usize,
        negative: usize,
        sample: f64,
        epochs: usize,
        lr: f64,
        min_lr: f64,
        sigmoid: SigmoidChoice,
        batch: Batch,
        schedule: parallel::Schedule,
    }
}

bind_params! {
    /// The values of [`CBOW_SCHEMA`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Cbow for CBOW_SCHEMA {
        dim: usize,
        window: usize,
        negative: usize,
        sample: f64,
        epochs: usize,
        lr: f64,
        min_lr: f64,
        sigmoid: SigmoidChoice,
        batch: CbowBatch,
        schedule: parallel::Schedule,
    }
}

impl Cbow {
    /// The settings of these values.
    fn settings(self) -> Settings {
        Settings {
            dim: self.dim,
            window: self.window,
            negative: self.negative,
            sample: self.sample,
            epochs: self.epochs,
            lr: self.lr,
            min_lr: self.min_lr,
            table: self.sigmoid == SigmoidChoice::Table,
            window_batch: self.batch == CbowBatch::Window,
            schedule: self.schedule,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Params;

    #[test]
    fn defaults_are_word2vecs() {
        let s = Settings::from_params(&Params::defaults(SGNS_SCHEMA));
        assert_eq!((s.dim, s.window, s.negative, s.epochs), (100, 5, 5, 5));
        assert_eq!(
            (s.sample, s.lr, s.min_lr, s.table),
            (1e-3, 0.025, 1e-4, true)
        );
        assert!(s.window_batch, "pWord2Vec's window batches by default");
        let c = Settings::from_params(&Params::defaults(CBOW_SCHEMA));
        assert_eq!(c.lr, 0.05);
        assert!(!c.window_batch, "CBOW keeps word2vec.c's order by default");
        let mut p = Params::defaults(CBOW_SCHEMA);
        p.set(
            "cbow",
            "batch",
            &crate::schema::Value::Choice("window".into()),
        )
        .unwrap();
        assert!(Settings::from_params(&p).window_batch);
        let mut p = Params::defaults(SGNS_SCHEMA);
        p.set(
            "sgns",
            "batch",
            &crate::schema::Value::Choice("pair".into()),
        )
        .unwrap();
        assert!(!Settings::from_params(&p).window_batch);
    }

    /// A session without `batch` was written before the option, when CBOW
    /// trained word2vec.c's order and SGNS pair by pair; only `batch` has
    /// such a value.
    #[test]
    fn sessions_without_batch_meant_word2vec_c() {
        let batch = |schema: &[ParamSpec]| {
            let with: Vec<&str> = schema
                .iter()
                .filter(|s| s.absent.is_some())
                .map(|s| s.name)
                .collect();
            assert_eq!(with, ["batch"]);
            schema
                .iter()
                .find(|s| s.name == "batch")
                .unwrap()
                .when_absent()
                .to_string()
        };
        assert_eq!(batch(CBOW_SCHEMA), "example");
        assert_eq!(batch(SGNS_SCHEMA), "pair");
    }

    #[test]
    fn only_lr_is_live() {
        let live: Vec<&str> = SGNS_SCHEMA
            .iter()
            .filter(|p| p.live)
            .map(|p| p.name)
            .collect();
        assert_eq!(live, ["lr"]);
    }
}
