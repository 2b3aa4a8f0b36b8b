//! Cache hints for rows read from random places.
//!
//! The hardware prefetcher follows strides, not the random row order of a
//! negative sample, a shuffled co-occurrence cell or a tree search, so the
//! hot loops ask for a row a few steps before they read it. A prefetch is
//! only a hint: it never faults and changes no value, so results are the
//! same with or without it.

/// Bytes in one cache line on the CPUs we build for.
const LINE: usize = 64;

/// Hints the CPU to start loading `row` into the cache.
#[inline(always)]
pub fn row(row: &[f32]) {
    raw(row.as_ptr(), row.len());
}

/// Hints the CPU to start loading `len` floats from `start`.
///
/// Safe for any pointer: a prefetch never dereferences in the language's
/// sense and never faults, and the addresses are formed with wrapping
/// arithmetic. Used where no reference may be formed because other threads
/// write the memory ([`super::hogwild`]).
#[inline(always)]
pub fn raw(start: *const f32, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = start as *const i8;
        for offset in (0..len * std::mem::size_of::<f32>()).step_by(LINE) {
            // SAFETY: `_mm_prefetch` is a hint that cannot fault or write,
            // whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    #[test]
    fn hints_change_nothing_and_accept_any_length() {
        let v: Vec<f32> = (0..100).map(|x| x as f32).collect();
        super::row(&v);
        super::row(&v[..0]);
        super::raw(std::ptr::null(), 0);
        assert_eq!(v[99], 99.0);
    }
}
