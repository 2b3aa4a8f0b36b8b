//! Finiteness of the input every layout and graph method checks first.

use ndarray::ArrayView2;

use crate::{Error, Result};

/// Fails on the first NaN or infinite value of `x`, naming its row (and the
/// row's word when `words` are given) and column: projections of such input
/// would panic or place every point at NaN. The vectors readers already refuse
/// non-finite values; this guards the library entry points.
pub fn check_finite(x: ArrayView2<'_, f32>, words: Option<&[String]>) -> Result<()> {
    let Some(((row, col), v)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) else {
        return Ok(());
    };
    let word = words
        .and_then(|w| w.get(row))
        .map_or(String::new(), |w| format!(" (word '{w}')"));
    Err(Error::param(
        "vectors",
        format!(
            "row {}{word}, value {} is {v}; projection needs finite values",
            row + 1,
            col + 1
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn non_finite_values_are_named_by_row_word_and_column() {
        assert!(check_finite(array![[1.0f32, 2.0]].view(), None).is_ok());
        let x = array![[1.0f32, 2.0], [3.0, f32::INFINITY]];
        let e = check_finite(x.view(), Some(&["a".into(), "b".into()])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for vectors: row 2 (word 'b'), value 2 is inf; projection needs finite values"
        );
    }
}
