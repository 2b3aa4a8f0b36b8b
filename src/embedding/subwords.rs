//! fastText's character n-gram vectors, so a word outside the vocabulary
//! still gets a vector, computed exactly as fastText's `get_word_vector` does.
//!
//! fastText wraps a word in `<` and `>`, takes every n-gram of `minn` to
//! `maxn` characters (UTF-8 code points: continuation bytes never start or
//! end an n-gram; the lone `<` and `>` are skipped), hashes each n-gram's
//! bytes with 32-bit FNV-1a and uses `hash % bucket` as a row among the
//! bucket vectors that follow the word rows of its input matrix. A word's
//! vector is the mean of its rows: its own row (for a vocabulary word) and
//! one row per n-gram occurrence (repeated n-grams count again).
//!
//! The hash has a quirk we must keep: the C++ code widens each byte through
//! a signed `char`, so a byte >= 0x80 is XORed in as `0xFFFFFFxx`. Pre-trained
//! models were built with it, so non-ASCII words only find their buckets
//! with the same quirk.

use std::sync::Arc;

use ndarray::Array1;

/// The longest n-gram a model may ask for, in characters. fastText's
/// default is 6 and models use a few more at most; a `maxn` in the
/// thousands would make each word's n-grams grow with the square of its
/// length (and their hashing with the cube). Readers refuse larger values.
pub const MAX_NGRAM: usize = 32;

/// The longest word given a vector from its n-grams, in bytes: with
/// `maxn` at most [`MAX_NGRAM`] the work per word is linear in its length,
/// and this bounds it (no word of a language is this long).
pub const MAX_WORD_BYTES: usize = 1 << 16;

/// FNV-1a offset basis.
const FNV_OFFSET: u32 = 2_166_136_261;
/// FNV-1a prime.
const FNV_PRIME: u32 = 16_777_619;

/// fastText's 32-bit FNV-1a of `bytes`, each byte sign-extended as a C
/// `int8_t` before the XOR (fastText's `Dictionary::hash`).
pub fn fasttext_hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ (b as i8 as i32 as u32)).wrapping_mul(FNV_PRIME)
    })
}

/// Calls `f` with every n-gram of `minn..=maxn` characters of `bounded`
/// (a word already wrapped in `<` `>`), in fastText's order
/// (`Dictionary::computeSubwords`).
pub fn for_each_ngram(bounded: &[u8], minn: usize, maxn: usize, mut f: impl FnMut(&[u8])) {
    let continuation = |b: u8| b & 0xC0 == 0x80;
    let len = bounded.len();
    for i in 0..len {
        if continuation(bounded[i]) {
            continue;
        }
        let mut j = i;
        let mut n = 1;
        while j < len && n <= maxn {
            j += 1;
            while j < len && continuation(bounded[j]) {
                j += 1;
            }
            if n >= minn && !(n == 1 && (i == 0 || j == len)) {
                f(&bounded[i..j]);
            }
            n += 1;
        }
    }
}

/// `<` + `word` + `>` into `out` (cleared first).
pub(crate) fn bounded(word: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(b'<');
    out.extend_from_slice(word);
    out.push(b'>');
}

/// Where the rows of a fastText input matrix live: mapped from the file
/// (little-endian `f32`s, possibly unaligned) or read into memory (a
/// compressed file).
#[derive(Debug)]
pub(crate) enum Rows {
    /// `rows x dim` values starting `offset` bytes into the mapped file.
    Mapped {
        map: Arc<memmap2::Mmap>,
        offset: usize,
    },
    /// `rows x dim` values in row-major order.
    Owned(Vec<f32>),
}

impl Rows {
    /// Adds row `row` (of `dim` values) to `acc`.
    pub fn add_to(&self, row: usize, acc: &mut [f32]) {
        let dim = acc.len();
        match self {
            Rows::Mapped { map, offset } => {
                let start = offset + row * dim * 4;
                let bytes = &map[start..start + dim * 4];
                for (a, b) in acc.iter_mut().zip(bytes.chunks_exact(4)) {
                    *a += f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            Rows::Owned(values) => {
                for (a, v) in acc.iter_mut().zip(&values[row * dim..(row + 1) * dim]) {
                    *a += v;
                }
            }
        }
    }
}

/// A fastText model's n-gram settings and bucket vectors: enough to give any
/// word a vector.
#[derive(Debug)]
pub struct Subwords {
    minn: usize,
    maxn: usize,
    dim: usize,
    /// Number of bucket rows (fastText's `-bucket`).
    buckets: u32,
    rows: Rows,
}

impl Subwords {
    pub(crate) fn new(minn: usize, maxn: usize, dim: usize, buckets: u32, rows: Rows) -> Self {
        Subwords {
            minn,
            maxn,
            dim,
            buckets,
            rows,
        }
    }

    /// Shortest n-gram, in characters.
    pub fn minn(&self) -> usize {
        self.minn
    }

    /// Longest n-gram, in characters.
    pub fn maxn(&self) -> usize {
        self.maxn
    }

    /// Number of hash buckets.
    pub fn buckets(&self) -> u32 {
        self.buckets
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The bucket rows of `word`'s n-grams (with repeats), in fastText's order.
    pub fn buckets_of(&self, word: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        self.push_buckets(word.as_bytes(), &mut scratch, &mut out);
        out
    }

    /// Appends the bucket rows of `word`'s n-grams to `out`; `scratch` is reused.
    pub(crate) fn push_buckets(&self, word: &[u8], scratch: &mut Vec<u8>, out: &mut Vec<u32>) {
        if self.buckets == 0 || self.maxn == 0 {
            return;
        }
        bounded(word, scratch);
        for_each_ngram(scratch, self.minn, self.maxn, |g| {
            out.push(fasttext_hash(g) % self.buckets)
        });
    }

    /// Adds bucket row `bucket` to `acc` (of length [`dim`](Self::dim)).
    pub(crate) fn add_bucket(&self, bucket: u32, acc: &mut [f32]) {
        self.rows.add_to(bucket as usize, acc);
    }

    /// The vector fastText gives a word outside its vocabulary: the mean of
    /// its n-gram bucket vectors, or `None` when the word has no n-gram
    /// (fastText would return zeros) or is longer than [`MAX_WORD_BYTES`].
    pub fn vector(&self, word: &str) -> Option<Array1<f32>> {
        if word.len() > MAX_WORD_BYTES {
            return None;
        }
        let buckets = self.buckets_of(word);
        if buckets.is_empty() {
            return None;
        }
        let mut acc = vec![0.0f32; self.dim];
        for &b in &buckets {
            self.add_bucket(b, &mut acc);
        }
        let scale = 1.0 / buckets.len() as f32;
        Some(Array1::from_iter(acc.into_iter().map(|v| v * scale)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ngrams(word: &str, minn: usize, maxn: usize) -> Vec<String> {
        let mut b = Vec::new();
        bounded(word.as_bytes(), &mut b);
        let mut out = Vec::new();
        for_each_ngram(&b, minn, maxn, |g| {
            out.push(String::from_utf8(g.to_vec()).unwrap())
        });
        out
    }

    #[test]
    fn ngrams_follow_fasttext_order_and_skip_lone_boundaries() {
        assert_eq!(
            ngrams("abc", 1, 2),
            ["<a", "a", "ab", "b", "bc", "c", "c>"],
            "lone '<' and '>' are skipped"
        );
        assert_eq!(ngrams("ab", 3, 3), ["<ab", "ab>"]);
        // Characters, not bytes: 'é' is two bytes, one character.
        assert_eq!(ngrams("é", 2, 3), ["<é", "<é>", "é>"]);
        assert!(ngrams("ab", 5, 6).is_empty());
    }

    #[test]
    fn hash_is_fnv1a_with_signed_bytes() {
        // Plain FNV-1a for ASCII (reference values of 32-bit FNV-1a).
        assert_eq!(fasttext_hash(b""), 0x811c_9dc5);
        assert_eq!(fasttext_hash(b"a"), 0xe40c_292c);
        assert_eq!(fasttext_hash(b"foobar"), 0xbf9c_f968);
        // A byte >= 0x80 is XORed in sign-extended, unlike standard FNV-1a.
        let standard = (FNV_OFFSET ^ 0xe9).wrapping_mul(FNV_PRIME);
        let quirk = (FNV_OFFSET ^ 0xffff_ffe9).wrapping_mul(FNV_PRIME);
        assert_eq!(fasttext_hash(&[0xe9]), quirk);
        assert_ne!(quirk, standard);
    }

    #[test]
    fn oov_vector_is_the_mean_of_its_buckets() {
        // 4 buckets of dim 2: bucket b = (b, 10 b).
        let values: Vec<f32> = (0..4).flat_map(|b| [b as f32, 10.0 * b as f32]).collect();
        let s = Subwords::new(3, 3, 2, 4, Rows::Owned(values));
        let buckets = s.buckets_of("ab");
        let expect: Vec<u32> = ["<ab", "ab>"]
            .iter()
            .map(|g| fasttext_hash(g.as_bytes()) % 4)
            .collect();
        assert_eq!(buckets, expect);
        let mean = buckets.iter().map(|&b| b as f32).sum::<f32>() / 2.0;
        assert_eq!(s.vector("ab").unwrap().to_vec(), vec![mean, 10.0 * mean]);
        assert!(s.vector("").is_none(), "'<>' has no 3-gram");
    }

    #[test]
    fn the_work_per_word_is_linear_in_its_length_and_bounded() {
        // At most maxn n-grams start at each character.
        let s = Subwords::new(1, MAX_NGRAM, 1, 7, Rows::Owned(vec![0.5; 7]));
        for len in [1, 100, 20_000] {
            let word = "é".repeat(len);
            let grams = s.buckets_of(&word).len();
            assert!(grams <= MAX_NGRAM * (len + 2), "{len}: {grams}");
        }
        assert!(s.vector(&"a".repeat(MAX_WORD_BYTES)).is_some());
        assert!(s.vector(&"a".repeat(MAX_WORD_BYTES + 1)).is_none());
    }
}
