//! The HParams screen's state: which sweep is shown, the table's sort and
//! selection, and what the chart plots (a metric against a swept
//! hyperparameter), with the pure functions that build its rows.
//!
//! Rows come from the sweep's record and the session's runs
//! ([`crate::sweep::table::Row`]), so the screen shows what `wordbench sweep`
//! printed, and follows runs renamed, evaluated or deleted since.

use crate::session::{Run, SweepRecord};
use crate::sweep::chart::ChartData;
use crate::sweep::table::Row;
use crate::sweep::Metric;

/// The HParams screen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HParamsView {
    /// The sweep shown (index among the session's sweeps).
    pub sweep: usize,
    /// The selected row, in the table's sorted order.
    pub selected: usize,
    /// The column sorted by (a swept name, `0..names`, then the metrics)
    /// and whether largest first; `None`: the sweep's metric, best first.
    pub sort: Option<(usize, bool)>,
    /// The swept name on the chart's x axis.
    pub axis: usize,
    /// The metric on the chart's y axis and the last parallel axis (index
    /// into [`Table::metrics`]); `None` until chosen: the sweep's own.
    pub metric: Option<usize>,
}

/// A sweep's table as the screen shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The swept names.
    pub names: Vec<String>,
    /// Every metric a row can have, in column order.
    pub metrics: Vec<Metric>,
    /// Rows in sweep order.
    pub rows: Vec<Row>,
    /// Row indices in the order shown.
    pub order: Vec<usize>,
    /// The metric the sweep ranks by.
    pub ranked_by: Metric,
    /// Whether each swept name was drawn on a log scale.
    pub log: Vec<bool>,
}

impl Table {
    /// The table of `record`, runs found by number with `run`, sorted as
    /// `view` says.
    pub fn of<'a>(
        record: &SweepRecord,
        run: impl Fn(u32) -> Option<&'a Run>,
        view: &HParamsView,
    ) -> Table {
        let rows = crate::sweep::table::rows_with(record, run);
        let mut metrics = vec![Metric::Loss, Metric::Perplexity];
        for r in &rows {
            for (name, _) in &r.similarity {
                let m = Metric::Similarity(name.clone());
                if !metrics.contains(&m) {
                    metrics.push(m);
                }
            }
        }
        if rows.iter().any(|r| r.analogy.is_some()) {
            metrics.push(Metric::Analogy);
        }
        let log = record
            .names
            .iter()
            .map(|n| record.spec.ranges.iter().any(|r| &r.name == n && r.log))
            .collect();
        let mut table = Table {
            names: record.names.clone(),
            metrics,
            rows,
            order: Vec::new(),
            ranked_by: record.spec.metric.clone(),
            log,
        };
        table.order = table.sorted(view);
        table
    }

    /// Columns a sort can use: the names, then the metrics.
    pub fn columns(&self) -> usize {
        self.names.len() + self.metrics.len()
    }

    /// The header of sort column `c`.
    pub fn column_name(&self, c: usize) -> String {
        match c.checked_sub(self.names.len()) {
            None => self.names[c].clone(),
            Some(m) => self.metrics.get(m).map_or(String::new(), short),
        }
    }

    /// The metric the chart shows.
    pub fn metric(&self, view: &HParamsView) -> usize {
        view.metric
            .filter(|&m| m < self.metrics.len())
            .or_else(|| self.metrics.iter().position(|m| *m == self.ranked_by))
            .unwrap_or(0)
    }

    /// Row order for `view`: by the sort column (numbers as numbers), rows
    /// without a value last, ties in sweep order.
    fn sorted(&self, view: &HParamsView) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        let (c, descending) = self.sort(view);
        let key = |i: usize| -> Option<f64> {
            let r = &self.rows[i];
            match c.checked_sub(self.names.len()) {
                None => r.values.get(c).and_then(|v| v.parse().ok()),
                Some(m) => self.metrics.get(m).and_then(|m| r.value(m)),
            }
        };
        let text = |i: usize| self.rows[i].values.get(c).cloned().unwrap_or_default();
        order.sort_by(|&a, &b| {
            let ord = match (key(a), key(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => return std::cmp::Ordering::Less,
                (None, Some(_)) => return std::cmp::Ordering::Greater,
                (None, None) => text(a).cmp(&text(b)),
            };
            if descending {
                ord.reverse()
            } else {
                ord
            }
        });
        order
    }

    /// The sort column and direction `view` asks for.
    pub fn sort(&self, view: &HParamsView) -> (usize, bool) {
        match view.sort {
            Some((c, d)) if c < self.columns() => (c, d),
            _ => {
                let m = self
                    .metrics
                    .iter()
                    .position(|m| *m == self.ranked_by)
                    .unwrap_or(0);
                (self.names.len() + m, self.ranked_by.higher_is_better())
            }
        }
    }

    /// The chart `view` shows, as an image exports it: the chosen metric
    /// against the chosen swept name; `None` with nothing swept.
    pub fn chart(&self, view: &HParamsView, title: String) -> Option<ChartData> {
        let axis = view.axis.min(self.names.len().checked_sub(1)?);
        Some(ChartData {
            rows: self.rows.clone(),
            name: self.names[axis].clone(),
            axis,
            log: self.log.get(axis).copied().unwrap_or(false),
            metric: self.metrics.get(self.metric(view))?.clone(),
            title,
        })
    }

    /// The run number of the row shown at `selected`.
    pub fn selected_run(&self, selected: usize) -> Option<u32> {
        self.order.get(selected).and_then(|&i| self.rows[i].number)
    }
}

/// A metric's column header: `ppl`, `simlex999`.
pub fn short(m: &Metric) -> String {
    match m {
        Metric::Perplexity => "ppl".into(),
        other => other.to_string(),
    }
}

impl HParamsView {
    /// Sorts by column `c` of `table`: metrics where larger is better
    /// start best first, the rest smallest first; the same column again
    /// turns the order round.
    pub fn sort_by(&mut self, table: &Table, c: usize) {
        let (now, descending) = table.sort(self);
        self.sort = Some(if c == now {
            (c, !descending)
        } else {
            let higher = c
                .checked_sub(table.names.len())
                .and_then(|m| table.metrics.get(m))
                .is_some_and(Metric::higher_is_better);
            (c, higher)
        });
        self.selected = 0;
    }
}
