//! The context window: how far to look, in which direction, and how much a
//! pair at distance `d` weighs.
//!
//! GloVe and KUBWE count a symmetric window with harmonic weights `1/d`;
//! PSDVec counts directional bigrams (the `L` words *before* a word),
//! unweighted. One [`Window`] value describes both.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::schema::choice_names;
use crate::{Error, Result};

/// The longest window accepted (pairs are keyed with 8 bits of distance).
pub const MAX_WINDOW: usize = 255;

/// Which neighbours of a word count as its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum WindowKind {
    /// A pair at distance `d <= L` adds to both `X[i][j]` and `X[j][i]`.
    #[default]
    Symmetric,
    /// Directional: `X[i][j]` counts word `i` occurring within `L` words
    /// *before* word `j` (PSDVec's bigrams; the transpose is "right-only").
    LeftOnly,
}

/// How a pair at distance `d` is weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Weighting {
    /// Every pair in the window adds 1.
    #[default]
    Uniform,
    /// A pair at distance `d` adds `1/d` (GloVe's `cooccur`).
    Harmonic,
}

choice_names!(Weighting {
    Uniform = "uniform",
    Harmonic = "harmonic",
});

/// A co-occurrence window: size `L`, direction and distance weighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// Largest distance counted, `1..=`[`MAX_WINDOW`].
    pub size: usize,
    /// Symmetric or left-only.
    pub kind: WindowKind,
    /// Uniform or harmonic weights.
    pub weighting: Weighting,
}

impl Default for Window {
    /// Symmetric, uniform, `L = 5`.
    fn default() -> Self {
        Window {
            size: 5,
            kind: WindowKind::Symmetric,
            weighting: Weighting::Uniform,
        }
    }
}

impl Window {
    /// A symmetric window of `size` with the given weighting.
    pub fn symmetric(size: usize, weighting: Weighting) -> Self {
        Window {
            size,
            kind: WindowKind::Symmetric,
            weighting,
        }
    }

    /// A left-only window of `size` with the given weighting.
    pub fn left_only(size: usize, weighting: Weighting) -> Self {
        Window {
            size,
            kind: WindowKind::LeftOnly,
            weighting,
        }
    }

    /// Checks that the size is in `1..=MAX_WINDOW`.
    pub fn validate(&self) -> Result<()> {
        if self.size == 0 || self.size > MAX_WINDOW {
            return Err(Error::param(
                "window",
                format!("{} (expected 1 to {MAX_WINDOW})", self.size),
            ));
        }
        Ok(())
    }

    /// The weight of a pair at distance `d`, for `d` in `0..=size`
    /// (index 0 is unused and holds 0).
    pub fn weights(&self) -> Vec<f64> {
        (0..=self.size)
            .map(|d| match (d, self.weighting) {
                (0, _) => 0.0,
                (_, Weighting::Uniform) => 1.0,
                (_, Weighting::Harmonic) => 1.0 / d as f64,
            })
            .collect()
    }
}

impl FromStr for WindowKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "symmetric" | "sym" => Ok(WindowKind::Symmetric),
            "left" | "left-only" => Ok(WindowKind::LeftOnly),
            _ => Err(Error::param(
                "window-kind",
                format!("{s:?} (expected symmetric or left)"),
            )),
        }
    }
}

impl FromStr for Weighting {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "uniform" | "flat" => Ok(Weighting::Uniform),
            "harmonic" | "1/d" => Ok(Weighting::Harmonic),
            _ => Err(Error::param(
                "weighting",
                format!("{s:?} (expected uniform or harmonic)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_by_distance() {
        let w = Window::symmetric(3, Weighting::Harmonic).weights();
        assert_eq!(w, vec![0.0, 1.0, 0.5, 1.0 / 3.0]);
        let w = Window::left_only(2, Weighting::Uniform).weights();
        assert_eq!(w, vec![0.0, 1.0, 1.0]);
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Window::symmetric(0, Weighting::Uniform).validate().is_err());
        assert!(Window::symmetric(256, Weighting::Uniform)
            .validate()
            .is_err());
        assert!(Window::symmetric(255, Weighting::Uniform)
            .validate()
            .is_ok());
    }

    #[test]
    fn parses_names() {
        assert_eq!("left".parse::<WindowKind>().unwrap(), WindowKind::LeftOnly);
        assert_eq!(
            "harmonic".parse::<Weighting>().unwrap(),
            Weighting::Harmonic
        );
        assert!("both".parse::<WindowKind>().is_err());
    }
}
