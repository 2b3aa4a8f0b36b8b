//! CPU seconds of this process, the figure benchmarks compare on a busy
//! machine (wall time there measures the load as much as the work).

/// User + system CPU seconds of this process so far, every thread included,
/// ended ones too (Linux: `/proc/self/stat`'s `utime` and `stime`, in the
/// 1/100 s ticks of the kernel's user ABI); NaN where that file cannot be
/// read. A difference of two readings is the CPU time of the work between
/// them when nothing else runs in the process meanwhile.
pub fn process_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // The fields after the command name, which is in parentheses: `state`
    // is field 3, `utime` 14 and `stime` 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) as f64 / 100.0,
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::process_seconds;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_cpu_clock_advances_with_work_and_never_goes_back() {
        let before = process_seconds();
        assert!(before.is_finite() && before >= 0.0, "{before}");
        let mut x = 1u64;
        let mut now = before;
        // Spin until a tick (0.01 s of CPU) passes; a bound keeps a broken
        // clock from hanging the test (billions of steps are seconds).
        for round in 0..4_000 {
            for i in 0..1_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
            }
            now = process_seconds();
            assert!(now >= before, "round {round}: {now} < {before}");
            if now > before {
                break;
            }
        }
        assert!(now > before, "no CPU tick after 4e9 steps ({x})");
    }
}
