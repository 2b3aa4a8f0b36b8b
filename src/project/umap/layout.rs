//! The layout's stochastic gradient descent (McInnes et al. 2018, Alg. 5;
//! umap-learn's `optimize_layout_euclidean`).
//!
//! Each directed edge `(i, j)` of the fuzzy graph with weight `w` is
//! sampled once every `w_max / w` epochs ([`epochs_per_sample`]): both ends
//! move towards each other along the gradient of `log(1 / (1 + a d^(2b)))`,
//! then `i` is pushed away from `negative_sample_rate` points drawn
//! uniformly per sample of the edge. Every gradient term is clipped to
//! `[−4, 4]`, and the step size falls linearly from `learning_rate` to 0.
//!
//! With more than one thread the edges are split into chunks that run in
//! parallel and write the shared layout without locks, as umap-learn's
//! `parallel=True` does (Hogwild-style: a point may be read while another
//! thread moves it). The coordinates are `f32` bits in relaxed atomics, so
//! this is defined behaviour in Rust and costs plain loads and stores. With
//! one thread there is one chunk and the run is bit-for-bit reproducible.
//! Nothing is allocated per edge or per sample.

use std::sync::atomic::{AtomicU32, Ordering};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::curve::Curve;

/// Gradient terms are clipped to `[−CLIP, CLIP]` (umap-learn's `clip`).
const CLIP: f32 = 4.0;
/// Added to the squared distance in the repulsion (umap-learn's 0.001).
const REPULSION_EPS: f32 = 1e-3;
/// Chunks per thread in a parallel epoch (load balance).
const CHUNKS_PER_THREAD: usize = 8;

/// The edges to sample: `head → tail` with their sampling period in epochs
/// (`None` for an edge too light ever to be sampled).
#[derive(Debug, Clone, PartialEq)]
pub struct Edges {
    /// Moving end of each edge.
    pub head: Vec<u32>,
    /// Other end.
    pub tail: Vec<u32>,
    /// Epochs between two samples of each edge.
    pub period: Vec<f32>,
}

/// Sampling periods of edges with weights `w` over `n_epochs` (umap-learn's
/// `make_epochs_per_sample`): the heaviest edge every epoch, an edge of
/// weight `w` every `w_max / w` epochs; an edge that would be sampled
/// less than once gets an infinite period.
pub fn epochs_per_sample(w: &[f64], n_epochs: usize) -> Vec<f32> {
    let max = w.iter().copied().fold(0.0f64, f64::max);
    w.iter()
        .map(|&v| {
            let samples = n_epochs as f64 * v / max;
            if samples > 0.0 {
                (n_epochs as f64 / samples) as f32
            } else {
                f32::INFINITY
            }
        })
        .collect()
}

/// Settings of the descent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sgd {
    /// The low-dimensional curve.
    pub curve: Curve,
    /// Negative samples per positive one (0: none).
    pub negative_sample_rate: usize,
    /// Step size of the first epoch.
    pub learning_rate: f64,
    /// Epochs.
    pub n_epochs: usize,
    /// Seed of the negative samples.
    pub seed: u64,
    /// Threads (1: sequential, reproducible).
    pub threads: usize,
}

/// Per-edge sampling state of one chunk of edges.
struct Chunk<'a> {
    head: &'a [u32],
    tail: &'a [u32],
    period: &'a [f32],
    next: &'a mut [f32],
    next_negative: &'a mut [f32],
}

/// The constants of one epoch.
#[derive(Clone, Copy)]
struct Epoch {
    a: f32,
    b: f32,
    alpha: f32,
    rate: f32,
    epoch: f32,
    n: u32,
}

fn load<const D: usize>(y: &[AtomicU32], i: usize) -> [f32; D] {
    std::array::from_fn(|d| f32::from_bits(y[D * i + d].load(Ordering::Relaxed)))
}

fn store<const D: usize>(y: &[AtomicU32], i: usize, p: [f32; D]) {
    for (d, v) in p.into_iter().enumerate() {
        y[D * i + d].store(v.to_bits(), Ordering::Relaxed);
    }
}

/// `a − b` and its squared length.
fn diff<const D: usize>(a: &[f32; D], b: &[f32; D]) -> ([f32; D], f32) {
    let d: [f32; D] = std::array::from_fn(|k| a[k] - b[k]);
    (d, d.iter().map(|v| v * v).sum())
}

/// One epoch over a chunk of edges, in `D` dimensions.
fn run_chunk<const D: usize>(
    c: Chunk<'_>,
    y: &[AtomicU32],
    e: Epoch,
    rng: &mut Xoshiro256PlusPlus,
) {
    let clip = |v: f32| v.clamp(-CLIP, CLIP);
    for k in 0..c.head.len() {
        if c.next[k] > e.epoch {
            continue;
        }
        let (i, j) = (c.head[k] as usize, c.tail[k] as usize);
        let mut cur = load::<D>(y, i);
        let mut other = load::<D>(y, j);
        let (delta, d2) = diff(&cur, &other);
        if d2 > 0.0 {
            let pb = d2.powf(e.b);
            let coeff = -2.0 * e.a * e.b * (pb / d2) / (e.a * pb + 1.0);
            for d in 0..D {
                let g = clip(coeff * delta[d]) * e.alpha;
                cur[d] += g;
                other[d] -= g;
            }
            store(y, j, other);
        }
        c.next[k] += c.period[k];
        if e.rate == 0.0 {
            store(y, i, cur);
            continue;
        }
        let negative_period = c.period[k] / e.rate;
        let draws = ((e.epoch - c.next_negative[k]) / negative_period).max(0.0) as usize;
        for _ in 0..draws {
            let m = (rng.random::<u32>() % e.n) as usize;
            if m == i {
                continue;
            }
            let (delta, d2) = diff(&cur, &load::<D>(y, m));
            if d2 > 0.0 {
                let coeff = 2.0 * e.b / ((REPULSION_EPS + d2) * (e.a * d2.powf(e.b) + 1.0));
                for d in 0..D {
                    cur[d] += clip(coeff * delta[d]) * e.alpha;
                }
            }
        }
        c.next_negative[k] += draws as f32 * negative_period;
        store(y, i, cur);
    }
}

/// What [`optimize`] calls after each epoch: `(epoch, n_epochs, layout)`,
/// where `layout()` copies the layout so far (its first two coordinates:
/// only a caller that shows it pays for the copy); false stops the descent.
pub type Watch<'a> = dyn FnMut(usize, usize, &dyn Fn() -> Vec<[f64; 2]>) -> bool + 'a;

/// Runs the descent on the row-major `n × dims` layout `y` (`dims` 2 or
/// 3), calling `progress` after each epoch ([`Watch`]); returns false when
/// `progress` asked to stop (the layout is then left where it was).
pub fn optimize(
    y: &mut [f32],
    dims: usize,
    edges: &Edges,
    sgd: &Sgd,
    progress: &mut Watch<'_>,
) -> bool {
    match dims {
        2 => optimize_in::<2>(y, edges, sgd, progress),
        3 => optimize_in::<3>(y, edges, sgd, progress),
        _ => panic!("UMAP lays out in 2 or 3 dimensions, not {dims}"),
    }
}

fn optimize_in<const D: usize>(
    y: &mut [f32],
    edges: &Edges,
    sgd: &Sgd,
    progress: &mut Watch<'_>,
) -> bool {
    let n = y.len() / D;
    let shared: Vec<AtomicU32> = y.iter().map(|v| AtomicU32::new(v.to_bits())).collect();
    let mut next = edges.period.clone();
    let rate = sgd.negative_sample_rate as f32;
    let mut next_negative: Vec<f32> = edges.period.iter().map(|p| p / rate.max(1.0)).collect();
    let chunks = if sgd.threads <= 1 {
        1
    } else {
        sgd.threads * CHUNKS_PER_THREAD
    };
    let size = edges.head.len().div_ceil(chunks).max(1);
    let mut stopped = false;
    for epoch in 0..sgd.n_epochs {
        let e = Epoch {
            a: sgd.curve.a as f32,
            b: sgd.curve.b as f32,
            alpha: (sgd.learning_rate * (1.0 - epoch as f64 / sgd.n_epochs as f64)) as f32,
            rate,
            epoch: epoch as f32,
            n: n as u32,
        };
        let work = edges
            .head
            .chunks(size)
            .zip(edges.tail.chunks(size))
            .zip(edges.period.chunks(size))
            .zip(next.chunks_mut(size).zip(next_negative.chunks_mut(size)))
            .enumerate()
            .map(|(c, (((head, tail), period), (next, next_negative)))| {
                (
                    c,
                    Chunk {
                        head,
                        tail,
                        period,
                        next,
                        next_negative,
                    },
                )
            });
        let seed = sgd.seed;
        let run = |(c, chunk): (usize, Chunk<'_>)| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                seed ^ (epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((c as u64) << 40),
            );
            run_chunk::<D>(chunk, &shared, e, &mut rng);
        };
        if chunks == 1 {
            work.for_each(run);
        } else {
            work.collect::<Vec<_>>().into_par_iter().for_each(run);
        }
        let layout = || {
            let at = |v: &AtomicU32| f64::from(f32::from_bits(v.load(Ordering::Relaxed)));
            shared
                .chunks_exact(D)
                .map(|p| [at(&p[0]), at(&p[1])])
                .collect()
        };
        if !progress(epoch + 1, sgd.n_epochs, &layout) {
            stopped = true;
            break;
        }
    }
    for (v, s) in y.iter_mut().zip(&shared) {
        *v = f32::from_bits(s.load(Ordering::Relaxed));
    }
    !stopped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_periods_follow_the_weights() {
        let p = epochs_per_sample(&[1.0, 0.5, 0.25, 0.0], 200);
        assert_eq!(p, [1.0, 2.0, 4.0, f32::INFINITY]);
    }

    #[test]
    fn an_edge_pulls_its_ends_together_and_an_unlinked_point_stays() {
        let edges = Edges {
            head: vec![0, 1],
            tail: vec![1, 0],
            period: vec![1.0, 1.0],
        };
        let sgd = Sgd {
            curve: Curve { a: 1.577, b: 0.895 },
            negative_sample_rate: 0,
            learning_rate: 0.1,
            n_epochs: 20,
            seed: 1,
            threads: 1,
        };
        let mut y = vec![0.0, 0.0, 3.0, 0.0, 50.0, 50.0];
        assert!(optimize(&mut y, 2, &edges, &sgd, &mut |_, _, _| true));
        assert!(y[2] - y[0] < 3.0 && y[2] > y[0], "{y:?}");
        assert_eq!((y[1], y[3]), (0.0, 0.0));
        assert_eq!(&y[4..], &[50.0, 50.0], "a point without edges stays");
        // In 3-D the same pull moves along the line joining the ends only.
        let mut y3 = vec![0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 50.0, 50.0, 50.0];
        assert!(optimize(&mut y3, 3, &edges, &sgd, &mut |_, _, _| true));
        assert_eq!((y3[0], y3[3]), (y[0], y[2]), "the 2-D steps, on the x axis");
        assert_eq!((y3[1], y3[2], y3[4], y3[5]), (0.0, 0.0, 0.0, 0.0));
        assert_eq!(&y3[6..], &[50.0, 50.0, 50.0]);
    }
}
