//! How many worker threads a run may use: never more than the CPUs this
//! process may run on. More threads than CPUs only contend (1000 made an SVD
//! 250x slower) and 100000 would exhaust the machine, so every place a thread
//! count comes in (`--threads`, a session's `threads:`, the TUI form) goes
//! through [`cap_threads`].

/// The number of CPUs this process may use (at least 1).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `asked` threads capped at [`cpus`] (and at least 1), with a warning naming
/// `what` (`--threads`, `threads:` of a session) when the count was lowered.
pub fn cap_threads(asked: usize, what: &str) -> (usize, Option<String>) {
    cap_at(asked, cpus(), what)
}

fn cap_at(asked: usize, cpus: usize, what: &str) -> (usize, Option<String>) {
    if asked <= cpus {
        return (asked.max(1), None);
    }
    let s = if cpus == 1 { "" } else { "s" };
    (
        cpus,
        Some(format!(
            "{what} {asked} is more than the {cpus} CPU{s} available: using {cpus}"
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_at_the_cpus_with_a_warning() {
        assert_eq!(cap_at(2, 4, "--threads"), (2, None));
        assert_eq!(cap_at(0, 4, "--threads"), (1, None));
        assert_eq!(
            cap_at(100_000, 4, "--threads"),
            (
                4,
                Some("--threads 100000 is more than the 4 CPUs available: using 4".into())
            )
        );
        let (n, warning) = cap_threads(usize::MAX, "threads:");
        assert_eq!(n, cpus());
        assert!(warning
            .unwrap()
            .starts_with("threads: 18446744073709551615 is more"));
    }
}
