//! The Corpus screen: file and preprocessing on the left, statistics, top
//! words and the frequency histogram on the right.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph, Row, Table};
use ratatui::Frame;

use super::fields::{field_help, field_line, form_lines, input_spans};
use super::format::thousands;
use super::{block, theme};
use crate::tui::app::{App, TICKS_PER_SECOND};

const SPINNER: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Draws the Corpus screen.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    draw_options(frame, left, app);
    draw_stats(frame, right, app);
}

fn draw_options(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.corpus;
    // Borders, marker, label and a margin take 17 columns; a long path shows its end.
    let room = (area.width as usize).saturating_sub(17).max(8);
    let path = if v.editing_path || v.path.text().chars().count() <= room {
        input_spans(&v.path, v.editing_path, "type a corpus file")
    } else {
        let chars: Vec<char> = v.path.text().chars().collect();
        let tail: String = chars[chars.len() - (room - 1)..].iter().collect();
        vec![Span::raw(format!("…{tail}"))]
    };
    let mut lines = vec![field_line("path", 11, path, v.selected == 0, None)];
    let mut form = v.options.clone();
    form.selected = v.selected.saturating_sub(1);
    let option_lines = form_lines(&form, v.selected > 0);
    lines.extend(option_lines.into_iter().map(|l| pad_label(l, 11)));
    lines.push(Line::default());
    if v.selected == 0 {
        lines.push(Line::from(vec![
            Span::styled(" path: ", theme::accent()),
            Span::raw("plain text, one document per line, Wikipedia XML or fastText; .gz/.bz2 ok"),
        ]));
    } else {
        lines.push(field_help(&form));
    }
    if !v.completions.is_empty() {
        lines.push(Line::styled(
            format!(" {}", v.completions.join("  ")),
            theme::dim(),
        ));
    }
    lines.push(Line::default());
    if let Some((_, path, started)) = &v.loading {
        let ticks = app.tick.saturating_sub(*started);
        let spin = SPINNER[(ticks as usize) % SPINNER.len()];
        lines.push(Line::styled(
            format!(
                " {spin} reading and counting {} … {:.1}s",
                path.display(),
                ticks as f64 / TICKS_PER_SECOND as f64
            ),
            theme::warn(),
        ));
    } else if let Some(e) = &v.error {
        lines.push(Line::styled(format!(" ✗ {e}"), theme::error()));
    } else if v.stale() {
        lines.push(Line::styled(
            " options changed: press l to reload the corpus",
            theme::warn(),
        ));
    }
    let p = Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .block(block("Corpus · preprocessing", true));
    frame.render_widget(p, area);
}

/// Widens a form line's label column to `width` (the form pads to its own widest name).
fn pad_label(mut line: Line<'static>, width: usize) -> Line<'static> {
    if let Some(label) = line.spans.get_mut(1) {
        let text = label.content.trim_end().to_string();
        label.content = format!("{text:<width$} ").into();
    }
    line
}

fn draw_stats(frame: &mut Frame, area: Rect, app: &App) {
    let Some(loaded) = &app.corpus.loaded else {
        let p = Paragraph::new(" no corpus loaded yet").block(block("Statistics", false));
        frame.render_widget(p, area);
        return;
    };
    let c = &loaded.corpus;
    let s = c.stats();
    let [stats, lower] = Layout::vertical([Constraint::Length(10), Constraint::Min(0)]).areas(area);
    let name = c
        .path()
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let row = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(format!(" {k:<18}"), theme::dim()),
            Span::raw(v),
        ])
    };
    let lines = vec![
        row(
            "file",
            format!("{name} ({})", c.config().read.format.name()),
        ),
        row("documents", thousands(s.documents)),
        row("tokens", thousands(s.tokens)),
        row("types", thousands(s.types as u64)),
        row("vocabulary", thousands(s.vocabulary as u64)),
        row("held-out tokens", thousands(s.heldout_tokens)),
        row(
            "training tokens",
            format!("{} in vocabulary", thousands(s.train_tokens_in_vocab)),
        ),
        row("read in", format!("{:.1}s", loaded.seconds)),
    ];
    frame.render_widget(
        Paragraph::new(lines).block(block("Statistics", false)),
        stats,
    );
    let [top, hist] = Layout::horizontal([Constraint::Length(28), Constraint::Min(0)]).areas(lower);
    let vocab = c.vocab();
    let rows: Vec<Row> = (0..vocab.len().min(top.height.saturating_sub(3) as usize))
        .map(|i| {
            Row::new(vec![
                format!("{:>3}", i + 1),
                vocab.word(i as u32).to_string(),
                thousands(vocab.counts()[i]),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(3),
            Constraint::Min(8),
            Constraint::Length(10),
        ],
    )
    .header(Row::new(vec!["#", "word", "count"]).style(theme::dim()))
    .block(block("Top words", false));
    frame.render_widget(table, top);
    let bars: Vec<Bar> = loaded
        .histogram
        .iter()
        .map(|(label, n)| {
            Bar::default()
                .label(Line::from(label.clone()))
                .value(*n)
                .text_value(super::format::si(*n as f64))
                .style(Style::new().fg(theme::LOSS))
        })
        .collect();
    let chart = BarChart::default()
        .data(BarGroup::default().bars(&bars))
        .bar_width(5)
        .bar_gap(1)
        .block(block("Words by count", false));
    frame.render_widget(chart, hist);
}
