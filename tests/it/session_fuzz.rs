//! The session parser on arbitrary and damaged input: never a panic, every
//! error names the file (and a line where the text is at fault).

use std::path::Path;

use proptest::prelude::*;
use wordbench::session::file::from_str;

/// A real session (the shipped SGNS example) to damage.
fn valid() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/sgns.ron")).unwrap()
}

fn located(err: &str) -> bool {
    err.starts_with("s.ron:") && !err.contains('\n')
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_is_refused_with_the_file_named(text in ".{0,400}") {
        if let Err(e) = from_str(&text, Path::new("s.ron")) {
            prop_assert!(located(&e.to_string()), "{}", e);
        }
    }

    #[test]
    fn damaged_sessions_never_panic(at in 0usize..4000, cut in 0usize..40, insert in "[a-z0-9:,(){}\"\\[\\]. -]{0,8}") {
        let text = valid();
        let at = at.min(text.len());
        let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let end = (at + cut).min(text.len());
        let end = (end..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
        let damaged = format!("{}{insert}{}", &text[..at], &text[end..]);
        match from_str(&damaged, Path::new("s.ron")) {
            Ok(s) => prop_assert!(s.runs.iter().all(|r| r.corpus.is_some())),
            Err(e) => prop_assert!(located(&e.to_string()), "{}", e),
        }
    }
}
