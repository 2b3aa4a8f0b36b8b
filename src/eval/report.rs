//! Evaluating one embedding on a list of dataset files: what `wordbench eval`
//! prints, what a session records and what the TUI shows.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    evaluate_analogy, evaluate_similarity, AnalogyConfig, AnalogyDataset, AnalogyResult,
    SimilarityConfig, SimilarityDataset, SimilarityResult,
};
use crate::embedding::Embedding;
use crate::Result;

/// Which datasets to run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EvalPlan {
    /// Similarity dataset files.
    pub similarity: Vec<PathBuf>,
    /// Analogy dataset file.
    pub analogy: Option<PathBuf>,
    /// Analogy settings.
    pub analogy_config: AnalogyConfig,
}

/// Results of an [`EvalPlan`]; serialises to the CLI's `--json` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// One result per similarity file.
    pub similarity: Vec<SimilarityResult>,
    /// The analogy result, if an analogy file was given.
    pub analogy: Option<AnalogyResult>,
}

impl EvalPlan {
    /// Reads the datasets and evaluates `embedding`; fails on the first
    /// unreadable or malformed dataset (file:line).
    pub fn run(&self, embedding: &Embedding) -> Result<Report> {
        let similarity = self
            .similarity
            .iter()
            .map(|f| {
                let dataset = SimilarityDataset::read(f)?;
                Ok(evaluate_similarity(
                    embedding,
                    &dataset,
                    SimilarityConfig::default(),
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let analogy = match &self.analogy {
            Some(f) => Some(evaluate_analogy(
                embedding,
                &AnalogyDataset::read(f)?,
                self.analogy_config,
            )),
            None => None,
        };
        Ok(Report {
            similarity,
            analogy,
        })
    }
}
