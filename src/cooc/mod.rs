//! Co-occurrence counting and the PMI family of transforms. (Being written.)
