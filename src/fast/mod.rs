//! The fast paths: every `unsafe` line written for speed lives here.
//!
//! Training loops share four low-level tools, and each used to carry its own
//! copy; one copy each, with its safety argument written once:
//!
//! - [`adagrad`]: GloVe's AdaGrad step on two Hogwild rows;
//! - [`momentum`]: MPNNLM's momentum step on a row and its velocity row,
//!   and the distances of its prototype rows;
//! - [`hogwild`]: rows of a table that many threads update without locks
//!   (SGNS/CBOW, GloVe), the race word2vec.c and glove.c accept by design;
//! - [`replicas`]: the deterministic alternative, a replica of a table per
//!   worker, the rows they changed merged in a fixed order after each round;
//! - [`lanes`]: `f32` dot products and `axpy` for the hot loops, and the
//!   small dense products of SGNS's window batches, in a portable version,
//!   an AVX2+FMA one and an AVX-512 one chosen at run time;
//! - [`mixed`]: the same operations accumulated in `f64` for methods whose
//!   sums must not depend on the instruction set (GloVe, DSNMF, Lanczos),
//!   and on `f64` rows (PSDVec, Lanczos);
//! - [`math`]: `exp` and `tanh` in plain branch-free arithmetic (no
//!   `unsafe`), the same bits on every CPU, for loops that vectorise them;
//! - [`prefetch`]: cache hints for rows read from random places;
//! - [`join`]: NN-descent's local join, an AVX-512 kernel that multiplies a
//!   point's new candidates by all its candidates right of the diagonal and
//!   tests the distances 16 at a time;
//! - [`blocked`]: register-blocked `f64` kernels for the tall-and-thin block
//!   products of the Lanczos solver and the sparse × dense-block product;
//! - [`cauchy`]: t-SNE's attraction, 8 gathered entries of a row to an
//!   AVX-512 register.
//!
//! Rules for this module: every `unsafe fn` has a `# Safety` section, every
//! `unsafe` block a `SAFETY:` comment, and no safe public function can read
//! or write out of bounds whatever its arguments (bad shapes are refused or
//! fall back, never trusted).
// Unsafe code is denied crate-wide (src/lib.rs) and allowed here: this module is where the fast paths' unsafe lines live.
#![allow(unsafe_code)]

pub mod adagrad;
pub mod blocked;
pub mod cauchy;
pub mod hogwild;
pub mod join;
pub mod lanes;
pub mod math;
pub mod mixed;
pub mod momentum;
pub mod prefetch;
pub mod replicas;
