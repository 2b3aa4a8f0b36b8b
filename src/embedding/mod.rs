//! Word vectors. (Being written.)
