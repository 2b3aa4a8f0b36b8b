//! The bundled font, registered with plotters once.
//!
//! plotters' `ab_glyph` text backend knows no system fonts: without a
//! registered font every text draw fails with `FontUnavailable`. DejaVu Sans
//! (permissive Bitstream Vera licence, see `assets/fonts/`) is compiled in,
//! so PNG and SVG export work on a machine with no fonts at all.

use std::sync::OnceLock;

use plotters::style::{register_font, FontStyle};

use crate::{Error, Result};

/// The family name plots use.
pub const FAMILY: &str = "sans-serif";

static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers the bundled font under [`FAMILY`] (idempotent, thread-safe).
pub fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok =
        *REGISTERED.get_or_init(|| register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok());
    if ok {
        Ok(())
    } else {
        Err(Error::param(
            "font",
            "the bundled DejaVu Sans font could not be loaded",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::style::{FontDesc, FontFamily};

    #[test]
    fn bundled_font_measures_text() {
        ensure_font().unwrap();
        ensure_font().unwrap();
        let font = FontDesc::new(FontFamily::Name(FAMILY), 20.0, FontStyle::Normal);
        let (w1, h) = font.box_size("word").unwrap();
        let (w2, _) = font.box_size("wordword").unwrap();
        assert!(h > 5 && h < 40, "{h}");
        assert!(w2 > w1 && w1 > 20, "{w1} {w2}");
    }
}
