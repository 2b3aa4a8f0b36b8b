//! Evaluation. (Being written.)
