//! The classification options, declared once like a method's
//! hyperparameters: `wordbench classify`'s flags are generated from
//! [`OPTIONS`], and a workbench form can be built from the same list.

use super::protocol::{Draw, Method, MnbVocabulary};
use crate::schema::{bind_params, choice_names, Choice, ParamSpec, Params};

/// The owner name of these options in error messages.
pub const OWNER: &str = "classify";

/// The classification options.
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec::choice("method", Methods::NAMES, "both", "classifier: add-one naive Bayes, naive Bayes with feature marginals, or both side by side"),
    ParamSpec::int("top", 1, 1000, 10, "tasks: the N labels with the most training documents (one-vs-rest each, or the classes of --multiclass)"),
    ParamSpec::int("resamples", 1, 1000, 5, "seeded draws of the labelled set per size; scores are averaged over them"),
    ParamSpec::int("seed", 0, i64::MAX, 1, "seed of the first draw (draw r uses seed + r)"),
    ParamSpec::flag("multiclass", false, "one task over the top labels instead of one binary task per label"),
    ParamSpec::flag("keep_stop_words", false, "keep function words (the paper drops them)"),
    ParamSpec::choice("mnb_vocabulary", MnbVocabulary::NAMES, "shared", "words MNB's add-one smoothing counts: shared = the labelled and unlabelled words (MNB-FM's vocabulary), labelled = the labelled documents' words only (scikit-learn's MultinomialNB on the labelled set; unknown test words skipped)"),
    ParamSpec::choice("draw", Draw::NAMES, "shared", "labelled sets: one draw per resample serves every task, or each one-vs-rest task draws its own (the paper drew per class)"),
];

/// Typed settings built from [`OPTIONS`] values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Classifiers, in report order.
    pub methods: Vec<Method>,
    /// How many labels make the tasks.
    pub top: usize,
    /// Draws per labelled set size.
    pub resamples: usize,
    /// Seed of the first draw.
    pub seed: u64,
    /// One multi-class task instead of one-vs-rest.
    pub multiclass: bool,
    /// Drop stop words.
    pub stop_words: bool,
    /// MNB's vocabulary.
    pub mnb_vocabulary: MnbVocabulary,
    /// One labelled draw for every task or one per task.
    pub draw: Draw,
}

/// Which classifiers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Methods {
    Both,
    Mnb,
    MnbFm,
}
choice_names!(Methods {
    Both = "both",
    Mnb = "mnb",
    MnbFm = "mnb-fm",
});

choice_names!(MnbVocabulary {
    Shared = "shared",
    Labelled = "labelled",
});

choice_names!(Draw {
    Shared = "shared",
    PerTask = "per-task",
});

bind_params! {
    /// The values of [`OPTIONS`], a field per entry.
    #[derive(Debug, Clone, Copy)]
    struct Values for OPTIONS {
        method: Methods,
        top: usize,
        resamples: usize,
        seed: u64,
        multiclass: bool,
        keep_stop_words: bool,
        mnb_vocabulary: MnbVocabulary,
        draw: Draw,
    }
}

impl Settings {
    /// The settings of checked values (the schema has validated them).
    pub fn from_params(p: &Params) -> Self {
        let v = Values::from_params(p);
        Settings {
            methods: match v.method {
                Methods::Mnb => vec![Method::Mnb],
                Methods::MnbFm => vec![Method::MnbFm],
                Methods::Both => vec![Method::Mnb, Method::MnbFm],
            },
            top: v.top,
            resamples: v.resamples,
            seed: v.seed,
            multiclass: v.multiclass,
            stop_words: !v.keep_stop_words,
            mnb_vocabulary: v.mnb_vocabulary,
            draw: v.draw,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_params(&Params::defaults(OPTIONS))
    }
}
