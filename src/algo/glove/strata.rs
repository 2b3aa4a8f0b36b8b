//! GloVe's deterministic parallel schedule: stratified SGD (Gemulla, Nijkamp,
//! Haas & Sismanis, KDD 2011, "DSGD").
//!
//! A cell `(i, j)` updates word row `i` and context row `j` only. The words
//! are split into `lanes` strata for the word table and again for the context
//! table, balanced by their number of cells, which cuts a step's cells into
//! `lanes × lanes` blocks. Round `k` of a step gives lane `t` the block
//! (word stratum `t`, context stratum `(t + k) mod lanes`): within a round no
//! two lanes share a word row or a context row, so the lanes update the
//! tables in place with no race and no copy, and after `lanes` rounds every
//! block was trained once. Each block keeps its cells in the shuffled order.
//! The result depends on the seed, the settings and the number of lanes,
//! never on timing; with one lane there is one block and the step is the
//! serial loop.

use super::cells::Cell;

/// The strata of the words' rows in both tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Strata {
    lanes: usize,
    /// Stratum of each word's row in the word table.
    word: Vec<u32>,
    /// Stratum of each word's row in the context table.
    context: Vec<u32>,
}

impl Strata {
    /// Strata for `lanes` lanes over `words` words, balanced by how many of
    /// `cells` touch each row.
    pub fn new(cells: &[Cell], words: usize, lanes: usize) -> Strata {
        let lanes = lanes.max(1);
        let (mut by_word, mut by_context) = (vec![0u64; words], vec![0u64; words]);
        for c in cells {
            by_word[c.word as usize] += 1;
            by_context[c.context as usize] += 1;
        }
        Strata {
            lanes,
            word: balance(&by_word, lanes),
            context: balance(&by_context, lanes),
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The block of `cell`: `word stratum × lanes + context stratum`.
    pub fn block(&self, cell: &Cell) -> usize {
        self.word[cell.word as usize] as usize * self.lanes
            + self.context[cell.context as usize] as usize
    }

    /// The block lane `lane` trains in round `round` of a step.
    pub fn round_block(&self, round: usize, lane: usize) -> usize {
        round_block(self.lanes, round, lane)
    }

    /// Orders `cells` by block, keeping their order within a block (a
    /// counting sort); returns the `lanes² + 1` block offsets.
    pub fn arrange(&self, cells: &mut [Cell]) -> Vec<usize> {
        let blocks = self.lanes * self.lanes;
        let mut offsets = vec![0usize; blocks + 1];
        for c in cells.iter() {
            offsets[self.block(c) + 1] += 1;
        }
        for b in 0..blocks {
            offsets[b + 1] += offsets[b];
        }
        let mut next = offsets.clone();
        let mut sorted = vec![
            Cell {
                word: 0,
                context: 0,
                log_count: 0.0,
                weight: 0.0
            };
            cells.len()
        ];
        for c in cells.iter() {
            let b = self.block(c);
            sorted[next[b]] = *c;
            next[b] += 1;
        }
        cells.copy_from_slice(&sorted);
        offsets
    }
}

/// The block lane `lane` of `lanes` trains in round `round`: word stratum
/// `lane`, context stratum `(lane + round) mod lanes`.
fn round_block(lanes: usize, round: usize, lane: usize) -> usize {
    lane * lanes + (lane + round) % lanes
}

/// Assigns items of the given loads to `lanes` strata: heaviest first (ties
/// by index), each to the lightest stratum so far (ties to the lowest).
fn balance(load: &[u64], lanes: usize) -> Vec<u32> {
    let mut order: Vec<usize> = (0..load.len()).collect();
    order.sort_by(|&a, &b| load[b].cmp(&load[a]).then(a.cmp(&b)));
    let mut totals = vec![0u64; lanes];
    let mut stratum = vec![0u32; load.len()];
    for i in order {
        let s = (0..lanes).min_by_key(|&s| (totals[s], s)).unwrap_or(0);
        totals[s] += load[i];
        stratum[i] = s as u32;
    }
    stratum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(word: u32, context: u32) -> Cell {
        Cell {
            word,
            context,
            log_count: word as f32,
            weight: context as f32,
        }
    }

    #[test]
    fn balance_puts_the_heaviest_apart() {
        // 5 → 0, 4 → 1, 3 → 1 (4 < 5), 2 → 0 (5 < 7), 1 → 0 (a tie, 7 = 7).
        assert_eq!(balance(&[5, 1, 4, 2, 3], 2), vec![0, 0, 1, 0, 1]);
        assert_eq!(balance(&[7, 7], 1), vec![0, 0]);
    }

    #[test]
    fn rounds_never_share_a_row_and_cover_every_block() {
        for lanes in 1..5 {
            let mut seen = vec![0; lanes * lanes];
            for round in 0..lanes {
                let blocks: Vec<usize> = (0..lanes).map(|t| round_block(lanes, round, t)).collect();
                let words: Vec<usize> = blocks.iter().map(|b| b / lanes).collect();
                let contexts: Vec<usize> = blocks.iter().map(|b| b % lanes).collect();
                for t in 0..lanes {
                    assert!(
                        !words[..t].contains(&words[t]) && !contexts[..t].contains(&contexts[t])
                    );
                    seen[blocks[t]] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{lanes}: {seen:?}");
        }
    }

    #[test]
    fn arrange_groups_blocks_and_keeps_the_order_within() {
        // Row loads 3, 3, 1: strata {0, 2}, {1}; column loads 2, 2, 3:
        // strata {2}, {0, 1}. Block = 2 × word stratum + context stratum.
        let mut cells = vec![
            cell(1, 0),
            cell(0, 2),
            cell(2, 2),
            cell(0, 1),
            cell(1, 1),
            cell(0, 0),
            cell(1, 2),
        ];
        let strata = Strata::new(&cells, 3, 2);
        assert_eq!(strata.word, vec![0, 1, 0]);
        assert_eq!(strata.context, vec![1, 1, 0]);
        let offsets = strata.arrange(&mut cells);
        assert_eq!(offsets, vec![0, 2, 4, 5, 7]);
        assert_eq!(
            cells,
            vec![
                cell(0, 2),
                cell(2, 2),
                cell(0, 1),
                cell(0, 0),
                cell(1, 2),
                cell(1, 0),
                cell(1, 1)
            ]
        );
    }
}
