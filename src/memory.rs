//! Memory budgets: settings whose working set grows faster than the input
//! (t-SNE's neighbour graph with a large perplexity, a dense block of a
//! factorisation) are refused before they start when they would not fit,
//! with the memory they would need, instead of swapping the machine to a halt.

use std::path::Path;

use crate::{Error, Result};

/// Bytes of RAM the machine has (`MemTotal` of `/proc/meminfo`), or 8 GiB
/// where that cannot be read.
pub fn total_ram() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| parse_mem_total(&text))
        .unwrap_or(8 << 30)
}

/// The default budget for one working set: half the machine's RAM.
pub fn default_budget() -> u64 {
    total_ram() / 2
}

fn parse_mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses `needed` bytes above `budget`, naming the parameter to lower and
/// what the memory is for.
pub fn check(param: &str, what: &str, needed: u64, budget: u64) -> Result<()> {
    check_advising(param, what, needed, budget, &format!("lower {param}"))
}

/// [`check`] with the way out said by the caller, for a parameter whose
/// remedy is not to lower it (exact Isomap's `landmarks = 0` is fixed by
/// setting some).
pub fn check_advising(
    param: &str,
    what: &str,
    needed: u64,
    budget: u64,
    advice: &str,
) -> Result<()> {
    if needed <= budget {
        return Ok(());
    }
    Err(Error::param(
        param,
        format!(
            "{what} would need about {}, more than the budget of {} (half of this machine's memory); {advice}",
            human(needed),
            human(budget)
        ),
    ))
}

/// Refuses to hold `rows x cols` `f32` values of the file `path` (a vectors
/// matrix, as its header declares it or as far as it has been read) when
/// they would need more than `budget` bytes: the message gives both sizes,
/// so a matrix that cannot fit is refused before it is allocated rather
/// than aborting the process (or swapping the machine) part way.
pub fn check_matrix(path: &Path, what: &str, rows: u64, cols: u64, budget: u64) -> Result<()> {
    let needed = rows.saturating_mul(cols).saturating_mul(4);
    if needed <= budget {
        return Ok(());
    }
    Err(Error::format(
        path,
        format!(
            "{what} of {rows} x {cols} values would need about {} of memory, more than the budget of {} \
             (half of this machine's memory); read fewer words (--limit)",
            human(needed),
            human(budget)
        ),
    ))
}

/// `3.9 GB`, `512 MB`: decimal units, as `free -h` users read them.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..=999_999 => format!("{:.0} kB", b / 1e3),
        1_000_000..=999_999_999 => format!("{:.0} MB", b / 1e6),
        1_000_000_000..=999_999_999_999 => format!("{:.1} GB", b / 1e9),
        1_000_000_000_000..=999_999_999_999_999 => format!("{:.1} TB", b / 1e12),
        _ => format!("{:.1} PB", b / 1e15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_is_read_in_kib() {
        let text = "MemTotal:       24546300 kB\nMemFree: 1 kB\n";
        assert_eq!(parse_mem_total(text), Some(24_546_300 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB"), None);
        assert!(total_ram() > 0);
    }

    #[test]
    fn a_matrix_over_the_budget_is_refused_with_both_sizes() {
        let p = Path::new("v.npy");
        assert!(check_matrix(p, "the matrix", 1000, 250, 1_000_000).is_ok());
        let e = check_matrix(p, "the matrix", 1000, 500, 1_000_000)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "v.npy: the matrix of 1000 x 500 values would need about 2 MB of memory, \
             more than the budget of 1 MB (half of this machine's memory); read fewer words (--limit)"
        );
        // Sizes that overflow 64 bits are still refused, not wrapped.
        let e = check_matrix(p, "the matrix", u64::MAX, u64::MAX, 1 << 30).unwrap_err();
        assert!(e.to_string().contains("18446.7 PB"), "{e}");
    }

    #[test]
    fn over_budget_names_the_parameter_and_the_memory() {
        assert!(check("perplexity", "x", 10, 10).is_ok());
        let e = check(
            "perplexity",
            "t-SNE's affinities",
            3_900_000_000,
            1_000_000_000,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("perplexity") && e.contains("3.9 GB") && e.contains("1.0 GB"),
            "{e}"
        );
    }
}
