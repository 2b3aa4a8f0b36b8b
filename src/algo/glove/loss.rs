//! GloVe's loss for one co-occurrence cell and its exact gradient, in plain
//! `f64`: the reference the hot loop ([`super::model`]) is tested against.
//!
//! For a cell `X_ij = x > 0` with word vector `w`, context vector `c` and
//! biases `b`, `b̃`, the loss is glove.c's
//!
//! ```text
//! J_ij = ½ f(x) (w·c + b + b̃ − ln x)²,   f(x) = min(1, (x / x_max)^α)
//! ```
//!
//! (the paper's `J` without the ½; glove.c reports `Σ J_ij / nnz`, so do we).

/// GloVe's weighting `f(x) = (x / x_max)^alpha`, capped at 1.
pub fn weight(x: f64, x_max: f64, alpha: f64) -> f64 {
    if x >= x_max {
        1.0
    } else {
        (x / x_max).powf(alpha)
    }
}

/// One cell's inputs: the two vectors, the two biases and the count.
#[derive(Debug, Clone, Copy)]
pub struct CellInput<'a> {
    /// Word vector `w_i`.
    pub word: &'a [f64],
    /// Context vector `c_j` (same length as `word`).
    pub context: &'a [f64],
    /// Word bias `b_i`.
    pub word_bias: f64,
    /// Context bias `b̃_j`.
    pub context_bias: f64,
    /// The co-occurrence count `X_ij > 0`.
    pub count: f64,
    /// Weighting cutoff `x_max`.
    pub x_max: f64,
    /// Weighting exponent `α`.
    pub alpha: f64,
}

/// The loss of one cell and its gradient with respect to every parameter it touches.
#[derive(Debug, Clone, PartialEq)]
pub struct CellGradient {
    /// `½ f(x) (w·c + b + b̃ − ln x)²`.
    pub loss: f64,
    /// `∂J/∂w = f(x)·diff·c`.
    pub word: Vec<f64>,
    /// `∂J/∂c = f(x)·diff·w`.
    pub context: Vec<f64>,
    /// `∂J/∂b = f(x)·diff`.
    pub word_bias: f64,
    /// `∂J/∂b̃ = f(x)·diff`.
    pub context_bias: f64,
}

/// The residual `w·c + b + b̃ − ln x`.
fn residual(cell: &CellInput<'_>) -> f64 {
    let dot: f64 = cell.word.iter().zip(cell.context).map(|(a, b)| a * b).sum();
    dot + cell.word_bias + cell.context_bias - cell.count.ln()
}

/// The loss `½ f(x) (w·c + b + b̃ − ln x)²` of one cell.
pub fn cell_loss(cell: &CellInput<'_>) -> f64 {
    let diff = residual(cell);
    0.5 * weight(cell.count, cell.x_max, cell.alpha) * diff * diff
}

/// The loss of one cell and its gradient.
pub fn cell_gradient(cell: &CellInput<'_>) -> CellGradient {
    let diff = residual(cell);
    let fdiff = weight(cell.count, cell.x_max, cell.alpha) * diff;
    CellGradient {
        loss: 0.5 * fdiff * diff,
        word: cell.context.iter().map(|c| fdiff * c).collect(),
        context: cell.word.iter().map(|w| fdiff * w).collect(),
        word_bias: fdiff,
        context_bias: fdiff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_is_capped_power() {
        assert_eq!(weight(100.0, 100.0, 0.75), 1.0);
        assert_eq!(weight(500.0, 100.0, 0.75), 1.0);
        assert!((weight(10.0, 100.0, 0.75) - 0.1f64.powf(0.75)).abs() < 1e-15);
        assert!((weight(1.0, 16.0, 0.5) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn hand_computed_cell() {
        // w·c = 1·0.5 + 2·(−1) = −1.5; diff = −1.5 + 0.25 + 0.25 − ln e² = −3;
        // f = (e²/100)^1; J = ½ f 9.
        let x = std::f64::consts::E.powi(2);
        let cell = CellInput {
            word: &[1.0, 2.0],
            context: &[0.5, -1.0],
            word_bias: 0.25,
            context_bias: 0.25,
            count: x,
            x_max: 100.0,
            alpha: 1.0,
        };
        let f = x / 100.0;
        let g = cell_gradient(&cell);
        assert!((g.loss - 4.5 * f).abs() < 1e-12);
        assert!((cell_loss(&cell) - g.loss).abs() < 1e-15);
        assert!((g.word_bias + 3.0 * f).abs() < 1e-12);
        assert!((g.word[0] + 1.5 * f).abs() < 1e-12 && (g.word[1] - 3.0 * f).abs() < 1e-12);
        assert!((g.context[0] + 3.0 * f).abs() < 1e-12 && (g.context[1] + 6.0 * f).abs() < 1e-12);
    }
}
