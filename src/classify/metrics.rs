//! Scores of a binary or multi-class prediction.

use serde::Serialize;

/// The scores of one evaluation. `f1` and `r_precision` are for binary tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    /// Fraction of test documents classified right.
    pub accuracy: f64,
    /// F1 of the minority class of the test set (the target class of a
    /// one-vs-rest task); binary tasks only.
    pub f1: Option<f64>,
    /// Mean F1 over classes.
    pub macro_f1: f64,
    /// Precision among the R test documents ranked most likely to be in the
    /// minority class, R being how many are; binary tasks only.
    pub r_precision: Option<f64>,
}

/// F1 of `class` from true and predicted classes (0 when it is never true
/// nor predicted: no credit for a class nobody found).
pub fn f1(truth: &[usize], predicted: &[usize], class: usize) -> f64 {
    let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
    for (&t, &p) in truth.iter().zip(predicted) {
        match (t == class, p == class) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
            (false, false) => {}
        }
    }
    let denom = 2 * tp + fp + fn_;
    if denom == 0 {
        0.0
    } else {
        2.0 * tp as f64 / denom as f64
    }
}

/// Accuracy and macro-F1 of a prediction over `classes` classes.
pub fn multiclass(truth: &[usize], predicted: &[usize], classes: usize) -> Scores {
    let right = truth.iter().zip(predicted).filter(|(t, p)| t == p).count();
    let macro_f1 = (0..classes).map(|c| f1(truth, predicted, c)).sum::<f64>() / classes as f64;
    Scores {
        accuracy: ratio(right, truth.len()),
        f1: None,
        macro_f1,
        r_precision: None,
    }
}

/// The scores of a binary prediction; `margin[i]` ranks documents by how
/// likely they are to be in class 0 (larger first).
pub fn binary(truth: &[usize], predicted: &[usize], margin: &[f64]) -> Scores {
    let mut s = multiclass(truth, predicted, 2);
    let positives = truth.iter().filter(|&&t| t == 0).count();
    let minority = if positives * 2 <= truth.len() { 0 } else { 1 };
    s.f1 = Some(f1(truth, predicted, minority));
    s.r_precision = Some(r_precision(truth, margin, minority));
    s
}

/// R-precision of `class`: rank by `margin` (towards class 0), take the top
/// R where R is how many documents are in `class`, and return the share of
/// them that are. Ties are broken by document order, so it is deterministic.
pub fn r_precision(truth: &[usize], margin: &[f64], class: usize) -> f64 {
    let r = truth.iter().filter(|&&t| t == class).count();
    if r == 0 {
        return 0.0;
    }
    let mut order: Vec<usize> = (0..truth.len()).collect();
    let towards = |i: usize| if class == 0 { margin[i] } else { -margin[i] };
    order.sort_by(|&i, &j| towards(j).total_cmp(&towards(i)).then(i.cmp(&j)));
    let hits = order[..r].iter().filter(|&&i| truth[i] == class).count();
    ratio(hits, r)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_scores() {
        // truth: 0 0 1 1 1 ; predicted: 0 1 1 1 0
        let truth = [0, 0, 1, 1, 1];
        let pred = [0, 1, 1, 1, 0];
        // class 0: tp 1, fp 1, fn 1 -> F1 = 2/4; class 1: tp 2, fp 1, fn 1 -> 4/6.
        assert!((f1(&truth, &pred, 0) - 0.5).abs() < 1e-15);
        assert!((f1(&truth, &pred, 1) - 4.0 / 6.0).abs() < 1e-15);
        let margin = [0.9, 0.2, -0.5, 0.4, -1.0];
        let s = binary(&truth, &pred, &margin);
        assert!((s.accuracy - 0.6).abs() < 1e-15);
        assert!((s.macro_f1 - (0.5 + 4.0 / 6.0) / 2.0).abs() < 1e-15);
        assert_eq!(s.f1, Some(0.5), "class 0 is the minority");
        // Top 2 by margin: docs 0 (0.9) and 3 (0.4): one of them is class 0.
        assert_eq!(s.r_precision, Some(0.5));
    }
}
