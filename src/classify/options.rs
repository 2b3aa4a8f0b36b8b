//! The classification options, declared once like a method's
//! hyperparameters: `wordbench classify`'s flags are generated from
//! [`OPTIONS`], and a workbench form can be built from the same list.

use super::protocol::Method;
use crate::train::{DefaultValue, Kind, ParamSpec, Params};

/// The owner name of these options in error messages.
pub const OWNER: &str = "classify";

/// The classification options.
pub static OPTIONS: &[ParamSpec] = &[
    ParamSpec {
        name: "method",
        kind: Kind::Choice(&["both", "mnb", "mnb-fm"]),
        default: DefaultValue::Choice("both"),
        help: "classifier: add-one naive Bayes, naive Bayes with feature marginals, or both side by side",
        live: false,
    },
    ParamSpec {
        name: "top",
        kind: Kind::Int { min: 1, max: 1000 },
        default: DefaultValue::Int(10),
        help: "tasks: the N labels with the most training documents (one-vs-rest each, or the classes of --multiclass)",
        live: false,
    },
    ParamSpec {
        name: "resamples",
        kind: Kind::Int { min: 1, max: 1000 },
        default: DefaultValue::Int(5),
        help: "seeded draws of the labelled set per size; scores are averaged over them",
        live: false,
    },
    ParamSpec {
        name: "seed",
        kind: Kind::Int { min: 0, max: i64::MAX },
        default: DefaultValue::Int(1),
        help: "seed of the first draw (draw r uses seed + r)",
        live: false,
    },
    ParamSpec {
        name: "multiclass",
        kind: Kind::Bool,
        default: DefaultValue::Bool(false),
        help: "one task over the top labels instead of one binary task per label",
        live: false,
    },
    ParamSpec {
        name: "keep_stop_words",
        kind: Kind::Bool,
        default: DefaultValue::Bool(false),
        help: "keep function words (the paper drops them)",
        live: false,
    },
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
}

impl Settings {
    /// The settings of checked values (the schema has validated them).
    pub fn from_params(p: &Params) -> Self {
        Settings {
            methods: match p.choice("method") {
                "mnb" => vec![Method::Mnb],
                "mnb-fm" => vec![Method::MnbFm],
                _ => vec![Method::Mnb, Method::MnbFm],
            },
            top: p.usize("top"),
            resamples: p.usize("resamples"),
            seed: p.usize("seed") as u64,
            multiclass: p.bool("multiclass"),
            stop_words: !p.bool("keep_stop_words"),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_params(&Params::defaults(OPTIONS))
    }
}
