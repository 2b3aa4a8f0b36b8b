//! Tests of PSDVec against dense references.
