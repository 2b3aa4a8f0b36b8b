//! Memory budgets: settings whose working set grows faster than the input
//! (t-SNE's neighbour graph with a large perplexity, a dense block of a
//! factorisation) are refused before they start when they would not fit,
//! with the memory they would need, instead of swapping the machine to a halt.

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
    if needed <= budget {
        return Ok(());
    }
    Err(Error::param(
        param,
        format!(
            "{what} would need about {}, more than the budget of {} (half of this machine's memory); lower {param}",
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
        _ => format!("{:.1} GB", b / 1e9),
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
