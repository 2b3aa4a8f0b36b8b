//! `wordbench cluster`: k-means (k-means++ seeding, restarts) on vectors or
//! on a projection's CSV coordinates, with NMI against class labels — the
//! clustering check of UBE (docs/methods/ube.md).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use super::values::{count, MAX_LISTED, MAX_THREADS};
use ndarray::Array2;
use wordbench::eval::clustering::{kmeans_study, label_ids, read_labels};
use wordbench::outputs::{Guard, Kind};
use wordbench::project::export::read_csv;

/// `wordbench cluster`
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Vectors file (word2vec text or binary, GloVe text; .gz ok) or a `project` CSV (word,x,y[,z]).
    pub vectors: PathBuf,
    /// Number of clusters.
    #[arg(long, value_parser = count(1, MAX_LISTED))]
    pub k: usize,
    /// Class labels, `word label` per line: NMI against them (only labelled words are clustered).
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// Independent k-means runs (NMI reported as mean ± sd over them).
    #[arg(long, default_value_t = 1, value_parser = count(1, 1000))]
    pub runs: usize,
    /// k-means++ seedings per run; the one with the lowest inertia is kept.
    #[arg(long, default_value_t = 10, value_parser = count(1, 1000))]
    pub restarts: usize,
    /// Scale rows to unit length first (cosine geometry).
    #[arg(long)]
    pub unit: bool,
    /// Seed of every random choice.
    #[arg(long, default_value_t = wordbench::train::DEFAULT_SEED)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = count(0, MAX_THREADS))]
    pub threads: Option<usize>,
    /// Write `word,cluster` of the best run (lowest inertia) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(args: ClusterArgs) -> Result<()> {
    if args.k == 0 {
        bail!("invalid value for --k: 0 (expected at least 1)");
    }
    if args.runs == 0 || args.restarts == 0 {
        bail!("invalid value for --runs/--restarts: 0 (expected at least 1)");
    }
    if let Some(out) = &args.out {
        super::check_output_name("--out", out, false)?;
        let mut guard = Guard::new();
        guard.vectors_input("the vectors being clustered", &args.vectors);
        if let Some(labels) = &args.labels {
            guard.input("the --labels file", labels);
        }
        guard.output("--out", out, Kind::Csv("word,"))?;
    }
    let (words, mut x) = load(&args.vectors)?;
    if args.unit {
        for mut r in x.rows_mut() {
            let n = r.dot(&r).sqrt();
            if n > 0.0 {
                r.mapv_inplace(|v| v / n);
            }
        }
    }
    let (words, x, truth) = match &args.labels {
        None => (words, x, None),
        Some(path) => {
            let labels = read_labels(path)?;
            let keep: Vec<usize> = (0..words.len())
                .filter(|&i| labels.contains_key(&words[i]))
                .collect();
            if keep.len() < 2 {
                bail!(
                    "--labels {}: {} of the {} words have a label (need 2 at least)",
                    path.display(),
                    keep.len(),
                    words.len()
                );
            }
            if keep.len() < words.len() && !args.json {
                eprintln!(
                    "{} of {} words have no label and are left out",
                    words.len() - keep.len(),
                    words.len()
                );
            }
            let truth = label_ids(keep.iter().map(|&i| labels[&words[i]].as_str()));
            let x = x.select(ndarray::Axis(0), &keep);
            let words: Vec<String> = keep.iter().map(|&i| words[i].clone()).collect();
            (words, x, Some(truth))
        }
    };
    if args.k > words.len() {
        bail!(
            "invalid value for --k: {} (only {} points)",
            args.k,
            words.len()
        );
    }
    let threads = super::threads(args.threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let start = std::time::Instant::now();
    let study = pool.install(|| {
        kmeans_study(
            x.view(),
            args.k,
            args.runs,
            args.restarts,
            args.seed,
            truth.as_deref(),
        )
    });
    let seconds = start.elapsed().as_secs_f64();
    if let Some(out) = &args.out {
        let mut text = String::from("word,cluster\n");
        for (w, c) in words.iter().zip(&study.best) {
            writeln!(text, "{},{c}", csv_field(w))?;
        }
        wordbench::atomic::write_bytes(out, text.as_bytes())?;
    }
    let (mean, sd) = study.nmi_mean_sd();
    let best_inertia = study.inertia.iter().copied().fold(f64::INFINITY, f64::min);
    if args.json {
        let v = serde_json::json!({
            "vectors": args.vectors.display().to_string(),
            "points": words.len(),
            "dim": x.ncols(),
            "k": args.k,
            "runs": study.runs,
            "restarts": study.restarts,
            "nmi_mean": truth.as_ref().map(|_| mean),
            "nmi_sd": truth.as_ref().map(|_| sd),
            "nmi": study.nmi,
            "best_inertia": best_inertia,
            "seconds": seconds,
        });
        println!("{v}");
    } else {
        println!(
            "k-means: {} points in {}-d, k = {}, {} run(s) x {} restart(s), best inertia {:.4e}, {seconds:.1}s",
            words.len(),
            x.ncols(),
            args.k,
            study.runs,
            study.restarts,
            best_inertia
        );
        if truth.is_some() {
            println!("NMI x 100: {mean:.1} ± {sd:.1}");
        }
    }
    Ok(())
}

/// Rows and words of a vectors file or of a projection CSV.
fn load(path: &Path) -> Result<(Vec<String>, Array2<f32>)> {
    let is_csv = path
        .to_string_lossy()
        .trim_end_matches(".gz")
        .to_ascii_lowercase()
        .ends_with(".csv");
    if is_csv {
        let (words, coords) = read_csv(path)?;
        return Ok((words, coords.mapv(|v| v as f32)));
    }
    let e =
        super::vectors::load(path, None).with_context(|| format!("reading {}", path.display()))?;
    let (index, vectors, _) = e.into_parts();
    Ok((index.words().to_vec(), vectors))
}

fn csv_field(w: &str) -> String {
    if w.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", w.replace('"', "\"\""))
    } else {
        w.to_string()
    }
}
