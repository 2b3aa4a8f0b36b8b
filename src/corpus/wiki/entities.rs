//! HTML character references as they appear in wikitext (`&nbsp;`, `&ndash;`,
//! `&#233;`), decoded without pulling in a full HTML5 entity table: the
//! Latin-1 block, Greek letters and the usual typographic names cover what
//! articles use; anything else is left as written.

/// Names of U+00A0..=U+00FF in code-point order (HTML 4 / Latin-1).
const LATIN1: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

/// Greek letter names; capitals are U+0391.., small letters U+03B1.. (U+03A2 is unassigned).
const GREEK: [&str; 25] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigmaf", "sigma", "tau", "upsilon", "phi",
    "chi", "psi", "omega",
];

/// Other names seen in articles.
const OTHER: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("ndash", '\u{2013}'),
    ("mdash", '\u{2014}'),
    ("minus", '\u{2212}'),
    ("hellip", '\u{2026}'),
    ("lsquo", '\u{2018}'),
    ("rsquo", '\u{2019}'),
    ("sbquo", '\u{201A}'),
    ("ldquo", '\u{201C}'),
    ("rdquo", '\u{201D}'),
    ("bdquo", '\u{201E}'),
    ("bull", '\u{2022}'),
    ("prime", '\u{2032}'),
    ("Prime", '\u{2033}'),
    ("dagger", '\u{2020}'),
    ("Dagger", '\u{2021}'),
    ("permil", '\u{2030}'),
    ("euro", '\u{20AC}'),
    ("trade", '\u{2122}'),
    ("larr", '\u{2190}'),
    ("rarr", '\u{2192}'),
    ("harr", '\u{2194}'),
    ("le", '\u{2264}'),
    ("ge", '\u{2265}'),
    ("ne", '\u{2260}'),
    ("asymp", '\u{2248}'),
    ("infin", '\u{221E}'),
    ("oelig", '\u{0153}'),
    ("OElig", '\u{0152}'),
    ("scaron", '\u{0161}'),
    ("Scaron", '\u{0160}'),
];

/// Names rendered as plain spaces (no-break, thin, en and em spaces) or as nothing.
const SPACES: &[&str] = &[
    "nbsp", "thinsp", "ensp", "emsp", "numsp", "puncsp", "hairsp",
];
const INVISIBLE: &[&str] = &["shy", "zwj", "zwnj", "lrm", "rlm"];

/// Decodes the character reference starting at `b[0] == b'&'`.
///
/// Returns what to write (a space for no-break spaces, nothing for invisible
/// characters) and the length of the reference, or `None` when `b` does not
/// start with a known, `;`-terminated reference.
pub fn decode(b: &[u8]) -> Option<(Decoded, usize)> {
    let semi = b.iter().take(34).position(|&c| c == b';')?;
    let body = std::str::from_utf8(&b[1..semi]).ok()?;
    let decoded = if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        match char::from_u32(code)? {
            '\0' => return None,
            '\u{A0}' | '\u{2002}'..='\u{200A}' => Decoded::Char(' '),
            '\u{AD}' | '\u{200B}'..='\u{200F}' => Decoded::Nothing,
            c => Decoded::Char(c),
        }
    } else {
        named(body)?
    };
    Some((decoded, semi + 1))
}

/// What a character reference stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// One character (a space for the space-like ones).
    Char(char),
    /// Nothing visible (soft hyphen, zero-width joiners, direction marks).
    Nothing,
}

fn named(name: &str) -> Option<Decoded> {
    if SPACES.contains(&name) {
        return Some(Decoded::Char(' '));
    }
    if INVISIBLE.contains(&name) {
        return Some(Decoded::Nothing);
    }
    if let Some(&(_, c)) = OTHER.iter().find(|(n, _)| *n == name) {
        return Some(Decoded::Char(c));
    }
    if let Some(i) = LATIN1.iter().position(|n| *n == name) {
        return char::from_u32(0xA0 + i as u32).map(Decoded::Char);
    }
    let lower = name.to_ascii_lowercase();
    let i = GREEK.iter().position(|n| *n == lower)?;
    let capital = name.as_bytes()[0].is_ascii_uppercase();
    if capital && lower == "sigmaf" {
        return None;
    }
    let base = if capital { 0x391 } else { 0x3B1 };
    char::from_u32(base + i as u32).map(Decoded::Char)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Option<(Decoded, usize)> {
        decode(s.as_bytes())
    }

    #[test]
    fn named_numeric_and_unknown_references() {
        assert_eq!(dec("&amp; rest"), Some((Decoded::Char('&'), 5)));
        assert_eq!(dec("&nbsp;x"), Some((Decoded::Char(' '), 6)));
        assert_eq!(dec("&ndash;"), Some((Decoded::Char('–'), 7)));
        assert_eq!(dec("&eacute;"), Some((Decoded::Char('é'), 8)));
        assert_eq!(dec("&yuml;"), Some((Decoded::Char('ÿ'), 6)));
        assert_eq!(dec("&times;"), Some((Decoded::Char('×'), 7)));
        assert_eq!(dec("&alpha;"), Some((Decoded::Char('α'), 7)));
        assert_eq!(dec("&Omega;"), Some((Decoded::Char('Ω'), 7)));
        assert_eq!(dec("&sigmaf;"), Some((Decoded::Char('ς'), 8)));
        assert_eq!(dec("&#233;"), Some((Decoded::Char('é'), 6)));
        assert_eq!(dec("&#x3B1;"), Some((Decoded::Char('α'), 7)));
        assert_eq!(dec("&#160;"), Some((Decoded::Char(' '), 6)));
        assert_eq!(dec("&shy;"), Some((Decoded::Nothing, 5)));
        assert_eq!(dec("&bogus;"), None);
        assert_eq!(dec("& no"), None);
        assert_eq!(dec("&#0;"), None);
        assert_eq!(dec("&#xD800;"), None);
        assert_eq!(dec("&amp"), None);
    }
}
