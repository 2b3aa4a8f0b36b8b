//! Correlation coefficients: for word-similarity benchmarks, and for the
//! graph methods' quality measures (on the ground floor, below both).
//!
//! Spearman's rho is computed as scipy's `spearmanr` does: tied values get the
//! average of the ranks they span, then Pearson's r of the two rank vectors.
//! (The textbook `1 - 6 sum d^2 / (n (n^2 - 1))` is only right without ties,
//! and similarity sets are full of tied human scores.) Everything is `f64`,
//! with means subtracted before the products.

/// Pearson's correlation coefficient of `x` and `y`.
///
/// NaN when the lengths differ, fewer than two values are given, or either
/// side is constant (as scipy returns).
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return f64::NAN;
    }
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (da, db) = (a - mx, b - my);
        sxy += da * db;
        sxx += da * da;
        syy += db * db;
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0)
}

/// Spearman's rank correlation of `x` and `y`, tie-aware (see the module docs).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() {
        return f64::NAN;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

/// 1-based ranks of `values`; tied values share the average of their ranks.
/// NaNs sort last.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && values[order[j]] == values[order[i]] {
            j += 1;
        }
        // Positions i..j (0-based) hold ranks i+1..=j; their mean is (i + 1 + j) / 2.
        let rank = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        i = j;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(
            average_ranks(&[10.0, 20.0, 10.0, 30.0, 10.0]),
            vec![2.0, 4.0, 2.0, 5.0, 2.0]
        );
        assert_eq!(average_ranks(&[3.0, 1.0, 2.0]), vec![3.0, 1.0, 2.0]);
        assert_eq!(
            average_ranks(&[-0.0, 0.0]),
            vec![1.5, 1.5],
            "-0 and 0 are equal, hence tied"
        );
    }

    #[test]
    fn spearman_with_ties_by_hand() {
        // x = [1, 2, 2, 3] -> ranks [1, 2.5, 2.5, 4]; y = [1, 3, 2, 4] -> ranks [1, 3, 2, 4].
        // Centred (means 2.5): rx = [-1.5, 0, 0, 1.5], ry = [-1.5, 0.5, -0.5, 1.5].
        // sum rx*ry = 4.5; sum rx^2 = 4.5; sum ry^2 = 5  ->  rho = 4.5 / sqrt(4.5 * 5) = 0.9486833.
        let rho = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]);
        assert!((rho - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-15, "{rho}");
        assert!((rho - 0.948_683_298_050_513_8).abs() < 1e-12);
        // The no-ties shortcut 1 - 6 sum d^2 / (n (n^2 - 1)) would give 1 - 6 * 0.5 / 60 = 0.95: wrong.
    }

    #[test]
    fn pearson_by_hand_and_degenerate_cases() {
        // x = [1, 2, 3], y = [2, 4, 7]: centred [-1, 0, 1], [-2.33, -0.33, 2.67];
        // sxy = 5, sxx = 2, syy = 38/3  ->  r = 5 / sqrt(76/3) = 0.9933993.
        let r = pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 7.0]);
        assert!((r - 5.0 / (76.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert!((pearson(&[1.0, 2.0], &[4.0, 2.0]) + 1.0).abs() < 1e-15);
        assert!(pearson(&[1.0], &[1.0]).is_nan());
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
        assert!(spearman(&[1.0, 2.0], &[1.0]).is_nan());
        // Monotone but non-linear: Spearman is 1, Pearson is not.
        let (x, y) = ([1.0, 2.0, 3.0, 4.0], [1.0, 8.0, 27.0, 64.0]);
        assert_eq!(spearman(&x, &y), 1.0);
        assert!(pearson(&x, &y) < 1.0);
    }
}
