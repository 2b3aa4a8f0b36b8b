//! The training methods, one module per method, and the registry the CLI, the
//! TUI and session files look methods up in.

pub mod dsnmf;
pub mod glove;
pub mod kubwe;
pub mod manifold;
pub mod mpnnlm;
pub mod psdvec;
pub mod senses;
pub mod spectral;
pub mod ube;
pub mod word2vec;

use crate::train::Method;
use crate::{Error, Result};

/// Every method wordbench can train, in menu order.
pub fn methods() -> &'static [&'static Method] {
    METHODS
}

/// Looks a method up by its `--algo` name.
pub fn find(name: &str) -> Result<&'static Method> {
    METHODS
        .iter()
        .copied()
        .find(|m| m.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
            Error::param(
                "algo",
                format!("'{name}' (expected one of: {})", names.join(", ")),
            )
        })
}

static METHODS: &[&Method] = &[
    &word2vec::SGNS,
    &word2vec::CBOW,
    &glove::GLOVE,
    &kubwe::KUBWE,
    &kubwe::KUBWE_FAST,
    &spectral::SVD,
    &spectral::EIGENWORD,
    &spectral::SVD_NS,
    &dsnmf::DSNMF,
    &manifold::ISOMAP,
    &manifold::LLE,
    &manifold::LAPLACIAN,
    &psdvec::PSDVEC,
    &senses::SENSES,
    &mpnnlm::MPNNLM,
    &ube::UBE,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpnnlm_recordings_from_before_its_schedule_raced() {
        // MPNNLM ran Hogwild only before it had a schedule: a recording
        // without one is bit for bit on one thread only.
        use crate::train::parallel::recorded_bit_for_bit;
        let schema = mpnnlm::SCHEMA;
        assert!(!recorded_bit_for_bit(schema, None, 2));
        assert!(recorded_bit_for_bit(schema, None, 1));
        assert!(recorded_bit_for_bit(schema, Some("deterministic"), 2));
    }

    /// Hyperparameter names are keys of `--set`, session files and TUI forms:
    /// one spelling everywhere, snake_case, unique within a method.
    #[test]
    fn hyperparameter_names_are_snake_case_and_unique() {
        for m in methods() {
            let mut names: Vec<&str> = m.schema.iter().map(|p| p.name).collect();
            for n in &names {
                let ok = n.starts_with(|c: char| c.is_ascii_lowercase())
                    && n.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                assert!(ok, "{}: `{n}` is not snake_case", m.name);
            }
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), m.schema.len(), "{}: duplicate names", m.name);
        }
    }
}
