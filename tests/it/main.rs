//! The end-to-end tests, one crate: each module drives the library or the
//! `wordbench` binary the way a user would. One crate links the library once
//! instead of once per file, which keeps the suite's build small and fast.

mod classify;
mod cli_corpus;
mod cli_neighbors;
mod common;
mod cooc;
mod counts;
mod eval_reference;
mod fasttext_bin;
mod glove;
mod kubwe;
mod mpnnlm;
mod pretrained;
mod projection;
mod reader_fuzz;
mod registry;
mod reliability;
mod senses;
mod session;
mod session_fuzz;
mod sessions_shipped;
mod spectral;
mod tui_cli;
mod tui_e2e;
mod tui_imported;
mod tui_snapshots;
mod tui_ube;
mod ube_cli;
mod word2vec;
mod writes;
