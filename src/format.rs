//! Numbers for people: counts with thousands separators or SI suffixes,
//! durations, values that keep a sensible number of digits, and text cut
//! to a column. The workbench's screens and the command line's progress
//! lines both use these (the screens reach them as `tui::ui::format`).

/// `text` cut to `width` characters with a trailing `…` when it is longer,
/// so a cut name never reads as a whole (different) one.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` cut at a word boundary to at most `width` characters, with `…`
/// where it was cut (a word is split only when it alone is too long).
pub fn fit_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    let head: String = text.chars().take(room).collect();
    let cut = match head.rfind(' ') {
        Some(i) if i > room / 2 => head[..i].trim_end().to_string(),
        _ => head,
    };
    format!("{cut}…")
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1234567.0` → `1.23M`, `5300.0` → `5.3k`.
pub fn si(x: f64) -> String {
    let a = x.abs();
    if a >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if a >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if a >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Seconds as `42s`, `3m07s`, `1h02m`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "-".into();
    }
    let s = secs.round() as u64;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// A value with about four significant digits: `0.02413`, `12.35`, `1.2e-5`.
pub fn value(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{x:.2e}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 10.0 {
        format!("{x:.2}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(si(1_234_567.0), "1.23M");
        assert_eq!(si(5300.0), "5.3k");
        assert_eq!(si(12.0), "12");
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(187.0), "3m07s");
        assert_eq!(duration(3720.0), "1h02m");
        assert_eq!(duration(f64::NAN), "-");
        assert_eq!(value(0.025), "0.0250");
        assert_eq!(value(12.346), "12.35");
        assert_eq!(value(1.5), "1.500");
        assert_eq!(value(3.2e-5), "3.20e-5");
        assert_eq!(value(f64::INFINITY), "-");
    }

    #[test]
    fn long_text_is_cut_between_words() {
        assert_eq!(
            fit_words("corpus ready. Next: 2 Train", 27),
            "corpus ready. Next: 2 Train"
        );
        assert_eq!(
            fit_words("corpus ready. Next: 2 Train", 24),
            "corpus ready. Next: 2…"
        );
        assert_eq!(fit("abcdef", 4), "abc…");
    }
}
