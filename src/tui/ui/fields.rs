//! Drawing forms and text inputs: one line per field with its value and,
//! when the text is invalid, the reason right beside it.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::format::thousands;
use super::theme;
use crate::schema::{Auto, CorpusSize, ParamSpec, Value, AUTO};
use crate::tui::form::Form;
use crate::tui::input::LineInput;

/// Spans of an input's text with the cursor shown (reverse video), when editing.
pub fn input_spans(input: &LineInput, editing: bool, placeholder: &str) -> Vec<Span<'static>> {
    if !editing {
        if input.text().is_empty() {
            return vec![Span::styled(placeholder.to_string(), theme::dim())];
        }
        return vec![Span::raw(input.text().to_string())];
    }
    if input.is_selected() {
        // Typing replaces a selected value: show it selected.
        return vec![Span::styled(input.text().to_string(), theme::selected())];
    }
    let chars: Vec<char> = input.text().chars().collect();
    let at = input.cursor().min(chars.len());
    let before: String = chars[..at].iter().collect();
    let under: String = chars.get(at).map_or(" ".into(), |c| c.to_string());
    let after: String = chars
        .get(at + 1..)
        .map_or(String::new(), |r| r.iter().collect());
    vec![
        Span::raw(before),
        Span::styled(under, theme::selected()),
        Span::raw(after),
    ]
}

/// A labelled single-line field.
pub fn field_line(
    label: &str,
    width: usize,
    value: Vec<Span<'static>>,
    selected: bool,
    error: Option<&str>,
) -> Line<'static> {
    let marker = if selected { "▸ " } else { "  " };
    let label_style = if selected {
        theme::accent()
    } else {
        Style::new()
    };
    let mut spans = vec![
        Span::styled(marker, theme::accent()),
        Span::styled(format!("{label:<width$} "), label_style),
    ];
    spans.extend(value);
    if let Some(e) = error {
        spans.push(Span::styled(
            format!("  ✗ {}", short_error(e)),
            theme::error(),
        ));
    }
    Line::from(spans)
}

/// The part of an error message after `invalid value for NAME: `.
fn short_error(e: &str) -> &str {
    e.split_once(": ").map_or(e, |(_, rest)| rest)
}

/// Every field of a form; `selected` marks the selected one when the form has focus.
pub fn form_lines(form: &Form, focused: bool) -> Vec<Line<'static>> {
    sized_form_lines(form, focused, None)
}

/// [`form_lines`] for a form whose corpus-sized defaults (`auto`) follow a
/// corpus of `size`: such a field shows the value it resolves to and its
/// rule (`core  11,115 (auto: half the vocabulary, at most 25,000)`), or
/// the rule alone while no corpus is loaded.
pub fn sized_form_lines(
    form: &Form,
    focused: bool,
    size: Option<CorpusSize>,
) -> Vec<Line<'static>> {
    let width = form.specs().iter().map(|s| s.name.len()).max().unwrap_or(0);
    (0..form.len())
        .map(|i| {
            let selected = focused && i == form.selected;
            let editing = selected && form.editing().is_some();
            let spec = &form.specs()[i];
            let (value, error) = if editing {
                let line = form.editing().expect("editing");
                (input_spans(line, true, ""), form.editing_error())
            } else {
                let style = if form.is_default(i) {
                    Style::new()
                } else {
                    theme::warn()
                };
                let mut v = match (spec.auto, spec.is_auto_text(form.raw(i))) {
                    (Some(auto), true) => auto_spans(spec, auto, size),
                    _ => vec![Span::styled(form.raw(i).to_string(), style)],
                };
                if spec.live {
                    v.push(Span::styled(" ~", theme::dim()));
                }
                (v, form.error(i).map(String::from))
            };
            field_line(spec.name, width, value, selected, error.as_deref())
        })
        .collect()
}

/// An `auto` field's value for the loaded corpus and its rule.
fn auto_spans(spec: &ParamSpec, auto: Auto, size: Option<CorpusSize>) -> Vec<Span<'static>> {
    let value = size.and_then(|size| spec.auto_value(size));
    match value {
        Some(Value::Int(n)) => vec![
            Span::raw(thousands(n.max(0) as u64)),
            Span::styled(format!(" (auto: {})", auto.rule), theme::dim()),
        ],
        Some(v) => vec![
            Span::raw(v.to_string()),
            Span::styled(format!(" (auto: {})", auto.rule), theme::dim()),
        ],
        None => vec![
            Span::raw(AUTO),
            Span::styled(format!(" ({})", auto.rule), theme::dim()),
        ],
    }
}

/// The help line of the selected field: its help and valid range.
pub fn field_help(form: &Form) -> Line<'static> {
    let Some(spec) = form.specs().get(form.selected) else {
        return Line::default();
    };
    let live = if spec.live {
        " · live: can change mid-run"
    } else {
        ""
    };
    let auto = match spec.auto {
        Some(_) => format!(
            " · auto follows the corpus (paper: {})",
            spec.default.value()
        ),
        None => String::new(),
    };
    Line::from(vec![
        Span::styled(format!(" {}: ", spec.name), theme::accent()),
        Span::raw(spec.help.to_string()),
        Span::styled(
            format!(" [{}]{live}{auto}", spec.range_text()),
            theme::dim(),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn an_auto_field_shows_its_value_for_the_corpus_and_its_rule() {
        let form = Form::new(crate::algo::psdvec::SCHEMA.to_vec());
        let core = form.index("core").unwrap();
        let size = CorpusSize {
            vocab: 21_837,
            tokens: 1_949_350,
        };
        let line = text(&sized_form_lines(&form, false, Some(size))[core]);
        assert!(
            line.ends_with(
                "core         10,919 (auto: half the vocabulary, at most 25,000 (the paper's))"
            ),
            "{line}"
        );
        let line = text(&form_lines(&form, false)[core]);
        assert!(
            line.ends_with("auto (half the vocabulary, at most 25,000 (the paper's))"),
            "{line}"
        );
    }
}
