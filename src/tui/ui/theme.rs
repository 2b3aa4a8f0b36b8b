//! Styles readable on dark and light terminals: the terminal's own
//! foreground and background, the basic named colours (which every theme
//! maps to readable shades), and reverse video for selection.

use ratatui::style::{Color, Modifier, Style};

/// Titles and the brand.
pub fn title() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Accents: focused borders, the active tab.
pub fn accent() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// Quiet text: help, units, defaults.
pub fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// The selected row.
pub fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// Good news, shared neighbours.
pub fn good() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

/// Warnings.
pub fn warn() -> Style {
    Style::new().fg(Color::Yellow)
}

/// Errors.
pub fn error() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// Key names in hints.
pub fn key() -> Style {
    Style::new().fg(Color::Cyan)
}

/// The loss curve.
pub const LOSS: Color = Color::Cyan;
/// The perplexity curve.
pub const PERPLEXITY: Color = Color::Magenta;
/// The curve of a model's own perplexity (beside the calibrated one).
pub const MODEL_PERPLEXITY: Color = Color::Green;
/// Markers of mid-run changes.
pub const CHANGE: Color = Color::Yellow;
/// Colour groups of the scatter (basic colours, readable on any theme).
pub const PALETTE: [Color; 6] = [
    Color::Cyan,
    Color::Magenta,
    Color::Green,
    Color::Yellow,
    Color::Blue,
    Color::Red,
];
