//! Sorted runs of `(pair key, weight)`: the sparse half of the counter.
//!
//! Pairs outside the dense block are appended to a buffer as packed `u64`
//! events (`pair << dbits | distance`), which is cheap and cache-friendly.
//! When the buffer is full it is radix-sorted and collapsed into a [`Run`]
//! of unique pair keys with summed weights; runs are merged LSM-style so that
//! memory stays bounded by the number of distinct pairs, not by the corpus.

/// Distinct pair keys in increasing order, with their summed weights.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Run {
    /// Pair keys `i * n + j`, strictly increasing.
    pub keys: Vec<u64>,
    /// Weight of each key.
    pub vals: Vec<f64>,
}

impl Run {
    /// Number of distinct pairs.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Bytes allocated for the keys and values.
    pub fn heap_bytes(&self) -> usize {
        (self.keys.capacity() + self.vals.capacity()) * 8
    }

    /// Collapses sorted events into a run: consecutive events with the same
    /// pair (`base + (event >> dbits)`) are summed, each weighing
    /// `weights[(event & mask) + 1]`.
    #[cfg(test)]
    pub fn from_sorted_events(events: &[u64], base: u64, dbits: u32, weights: &[f64]) -> Run {
        let mut run = Run::default();
        run.fill_from_sorted_events(events, base, dbits, weights);
        run
    }

    /// As [`Run::from_sorted_events`], into this run's allocation.
    pub fn fill_from_sorted_events(
        &mut self,
        events: &[u64],
        base: u64,
        dbits: u32,
        weights: &[f64],
    ) {
        let mask = (1u64 << dbits) - 1;
        let run = self;
        run.keys.clear();
        run.vals.clear();
        let mut iter = events.iter();
        let Some(&first) = iter.next() else {
            return;
        };
        let mut key = first >> dbits;
        let mut sum = weights[((first & mask) + 1) as usize];
        for &e in iter {
            let k = e >> dbits;
            let w = weights[((e & mask) + 1) as usize];
            if k == key {
                sum += w;
            } else {
                run.keys.push(base + key);
                run.vals.push(sum);
                key = k;
                sum = w;
            }
        }
        run.keys.push(base + key);
        run.vals.push(sum);
    }

    /// Merges two runs, summing the weights of keys present in both.
    #[cfg(test)]
    pub fn merge(a: &Run, b: &Run) -> Run {
        let mut out = Run::default();
        Run::merge_into(a, b, &mut out);
        out
    }

    /// Merges `a` and `b` into `out`, reusing its allocation.
    pub fn merge_into(a: &Run, b: &Run, out: &mut Run) {
        out.keys.clear();
        out.vals.clear();
        out.keys.reserve(a.len() + b.len());
        out.vals.reserve(a.len() + b.len());
        let (mut x, mut y) = (0, 0);
        while x < a.len() && y < b.len() {
            let (ka, kb) = (a.keys[x], b.keys[y]);
            if ka < kb {
                out.keys.push(ka);
                out.vals.push(a.vals[x]);
                x += 1;
            } else if kb < ka {
                out.keys.push(kb);
                out.vals.push(b.vals[y]);
                y += 1;
            } else {
                out.keys.push(ka);
                out.vals.push(a.vals[x] + b.vals[y]);
                x += 1;
                y += 1;
            }
        }
        out.keys.extend_from_slice(&a.keys[x..]);
        out.vals.extend_from_slice(&a.vals[x..]);
        out.keys.extend_from_slice(&b.keys[y..]);
        out.vals.extend_from_slice(&b.vals[y..]);
    }
}

/// Widest radix digit: 1024 buckets keep the scatter's write streams in L1.
const MAX_DIGIT_BITS: u32 = 10;

/// Sorts `keys` (whose values are below `2^bits`) with an LSD radix sort,
/// using `scratch` as the second buffer. Digits on which all keys agree are
/// skipped. Meant for buffers that fit the L2 cache.
pub(crate) fn radix_sort(keys: &mut [u64], scratch: &mut Vec<u64>, bits: u32) {
    let len = keys.len();
    if len < 64 {
        keys.sort_unstable();
        return;
    }
    let passes = bits.div_ceil(MAX_DIGIT_BITS).max(1);
    let digit = bits.div_ceil(passes);
    let buckets = 1usize << digit;
    let mask = (buckets - 1) as u64;
    let passes = passes as usize;
    let mut counts = vec![0usize; passes * buckets];
    for &k in keys.iter() {
        for p in 0..passes {
            counts[p * buckets + ((k >> (p as u32 * digit)) & mask) as usize] += 1;
        }
    }
    scratch.clear();
    scratch.resize(len, 0);
    let mut src: &mut [u64] = keys;
    let mut dst: &mut [u64] = &mut scratch[..];
    let mut in_scratch = false;
    for p in 0..passes {
        let hist = &mut counts[p * buckets..(p + 1) * buckets];
        if hist.contains(&len) {
            continue;
        }
        let mut sum = 0;
        for c in hist.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        let shift = p as u32 * digit;
        for &k in src.iter() {
            let b = ((k >> shift) & mask) as usize;
            dst[hist[b]] = k;
            hist[b] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        // `src` is the scratch buffer here and `dst` the caller's slice.
        dst.copy_from_slice(src);
    }
}

/// Number of bits needed to hold values below `limit` (at least 1).
pub(crate) fn bits_for(limit: u64) -> u32 {
    (64 - limit.saturating_sub(1).leading_zeros()).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn radix_sort_matches_std_sort() {
        let mut seed = 7;
        for (len, bits) in [(10, 8), (1000, 5), (5000, 33), (3000, 64), (4096, 22)] {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let mut keys: Vec<u64> = (0..len).map(|_| splitmix(&mut seed) & mask).collect();
            let mut expect = keys.clone();
            expect.sort_unstable();
            let mut scratch = Vec::new();
            radix_sort(&mut keys, &mut scratch, bits);
            assert_eq!(keys, expect, "len {len} bits {bits}");
        }
    }

    #[test]
    fn events_collapse_with_distance_weights() {
        // dbits = 2: low two bits hold d - 1.
        let weights = [0.0, 1.0, 0.5, 0.25];
        let events = [(3 << 2), (3 << 2) | 1, (5 << 2) | 2, (5 << 2) | 2];
        let run = Run::from_sorted_events(&events, 100, 2, &weights);
        assert_eq!(run.keys, vec![103, 105]);
        assert_eq!(run.vals, vec![1.5, 0.5]);
        assert_eq!(Run::from_sorted_events(&[], 0, 2, &weights).len(), 0);
    }

    #[test]
    fn merging_sums_common_keys() {
        let a = Run {
            keys: vec![1, 4, 9],
            vals: vec![1.0, 2.0, 3.0],
        };
        let b = Run {
            keys: vec![0, 4, 10],
            vals: vec![5.0, 0.5, 1.0],
        };
        let m = Run::merge(&a, &b);
        assert_eq!(m.keys, vec![0, 1, 4, 9, 10]);
        assert_eq!(m.vals, vec![5.0, 1.0, 2.5, 3.0, 1.0]);
    }

    #[test]
    fn bit_widths() {
        assert_eq!(bits_for(1), 1);
        assert_eq!(bits_for(2), 1);
        assert_eq!(bits_for(3), 2);
        assert_eq!(bits_for(1 << 20), 20);
        assert_eq!(bits_for((1 << 20) + 1), 21);
    }
}
