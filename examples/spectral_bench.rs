//! Driver of `benches/compare/spectral_compare.sh`: builds a spectral
//! method's matrix from a corpus, exports it for scipy, and times the block
//! Lanczos solve of it, printing one JSON line.
//!
//! ```text
//! cargo run --release --example spectral_bench -- CORPUS [--algo eigenword|svd-ns|svd]
//!     [--set name=value]... [--min-count 5] [--heldout 0.05] [--threads 2] [--seed 1]
//!     [--which la|lm] [--keep N] [--repeat 1] [--export DIR] [--no-solve]
//!     [--import DIR] [--save PREFIX] [--kernels]
//! ```
//! `--save PREFIX` writes the eigenpairs of the (last) solve as
//! `PREFIX.values` (k f64) and `PREFIX.vectors` (n × k f64, row-major), so
//! the comparison script recomputes every solver's residual with one code.
//! `--export DIR` writes the counts and the method's matrix as raw
//! little-endian CSR arrays (`NAME.indptr` i64, `NAME.indices` i32,
//! `NAME.data` f64, `NAME.shape` text) plus `vocab.txt` (one word per row).
//! The solve uses the method's settings (`dim` pairs, `tol`, `block`,
//! `basis`); `--which` overrides the end of the spectrum (EigenWord: la).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use sprs::CsMat;
use wordbench::algo::spectral::{matrix, Settings};
use wordbench::algo::{self};
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::linalg::{
    eigen_residuals, svd_residuals, Csr, Lanczos, SymmetricCsr, TruncatedSvd, Which,
};

struct Args {
    corpus: PathBuf,
    algo: String,
    sets: Vec<(String, String)>,
    min_count: u64,
    heldout: f64,
    threads: usize,
    seed: u64,
    which: Option<Which>,
    keep: Option<usize>,
    repeat: usize,
    export: Option<PathBuf>,
    import: Option<PathBuf>,
    max_vocab: Option<usize>,
    solve: bool,
    kernels: bool,
    save: Option<PathBuf>,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        corpus: PathBuf::new(),
        algo: "eigenword".into(),
        sets: Vec::new(),
        min_count: 5,
        heldout: 0.05,
        threads: 2,
        seed: 1,
        which: None,
        keep: None,
        repeat: 1,
        export: None,
        import: None,
        max_vocab: None,
        solve: true,
        kernels: false,
        save: None,
    };
    let mut it = std::env::args().skip(1);
    let mut corpus = None;
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--algo" => a.algo = value()?,
            "--set" => {
                let v = value()?;
                let (k, x) = v.split_once('=').context("--set name=value")?;
                a.sets.push((k.into(), x.into()));
            }
            "--min-count" => a.min_count = value()?.parse()?,
            "--heldout" => a.heldout = value()?.parse()?,
            "--threads" => a.threads = value()?.parse()?,
            "--seed" => a.seed = value()?.parse()?,
            "--keep" => a.keep = Some(value()?.parse()?),
            "--repeat" => a.repeat = value()?.parse()?,
            "--export" => a.export = Some(value()?.into()),
            "--import" => a.import = Some(value()?.into()),
            "--max-vocab" => a.max_vocab = Some(value()?.parse()?),
            "--no-solve" => a.solve = false,
            "--kernels" => a.kernels = true,
            "--save" => a.save = Some(value()?.into()),
            "--which" => {
                a.which = Some(match value()?.as_str() {
                    "la" => Which::LargestAlgebraic,
                    "lm" => Which::LargestMagnitude,
                    w => bail!("--which {w}: expected la or lm"),
                })
            }
            s if s.starts_with("--") => bail!("unknown option {s}"),
            s => corpus = Some(PathBuf::from(s)),
        }
    }
    a.corpus = match (corpus, &a.import) {
        (Some(c), _) => c,
        (None, Some(_)) => PathBuf::new(),
        (None, None) => bail!("usage: spectral_bench CORPUS [options] (or --import DIR)"),
    };
    Ok(a)
}

fn main() -> Result<()> {
    let args = parse()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()?;
    pool.install(|| run(&args))
}

fn run(args: &Args) -> Result<()> {
    let method = algo::find(&args.algo)?;
    let params = method.params(args.sets.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let settings = match args.algo.as_str() {
        "eigenword" => Settings::eigenword(&params),
        "svd-ns" => Settings::svd_ns(&params),
        "svd" => Settings::svd(&params),
        other => bail!("{other} is not a spectral method"),
    };
    let t0 = Instant::now();
    let (x, m, vocab) = match &args.import {
        Some(dir) => {
            let m = import(dir, "matrix")?;
            (m.clone(), m, None)
        }
        None => {
            let mut config = CorpusConfig::default();
            config.vocab.min_count = args.min_count;
            config.vocab.max_size = args.max_vocab;
            config.read.heldout.fraction = args.heldout;
            let corpus = Corpus::open(&args.corpus, config)?;
            let x = matrix::counts(&corpus, &settings)?;
            let m = matrix::transform(&x, &settings)?;
            let words: Vec<String> = (0..m.rows())
                .map(|id| corpus.vocab().word(id as u32).to_string())
                .collect();
            (x, m, Some(words))
        }
    };
    let build_s = t0.elapsed().as_secs_f64();
    if let Some(dir) = &args.export {
        std::fs::create_dir_all(dir)?;
        export(dir, "counts", &x)?;
        export(dir, "matrix", &m)?;
        if let Some(words) = &vocab {
            let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("vocab.txt"))?);
            for w in words {
                writeln!(f, "{w}")?;
            }
        }
    }
    let mut out = serde_json::json!({
        "algo": args.algo, "n": m.rows(), "nnz": m.nnz(), "counts_nnz": x.nnz(),
        "build_s": build_s, "threads": args.threads,
    });
    if args.kernels {
        out["kernels"] = kernels(&m)?;
    }
    if args.solve {
        out["solve"] = solve(&m, &settings, args)?;
    }
    println!("{out}");
    Ok(())
}

fn solve(m: &CsMat<f64>, settings: &Settings, args: &Args) -> Result<serde_json::Value> {
    let a = Csr::from_sprs(m)?;
    let mut config = settings.eigen_config(args.seed);
    config.keep = args.keep;
    let eigen = args.algo == "eigenword" || args.which.is_some();
    if let Some(w) = args.which {
        config.which = w;
    }
    let mut runs = Vec::new();
    for _ in 0..args.repeat {
        let t = Instant::now();
        let run = if eigen {
            let op = SymmetricCsr::new(a.clone())?;
            let l = Lanczos::new(&op, config)?;
            let sizes = l.sizes();
            let pairs = l.solve(|_| {});
            let secs = t.elapsed().as_secs_f64();
            let true_res = eigen_residuals(&op, &pairs.values, pairs.vectors.view());
            if let Some(prefix) = &args.save {
                save(prefix, &pairs.values, pairs.vectors.view())?;
            }
            serde_json::json!({
                "seconds": secs, "sizes": sizes, "status": format!("{:?}", pairs.status),
                "matvecs": pairs.status.matvecs, "values": pairs.values,
                "max_true_residual": true_res.iter().cloned().fold(0.0, f64::max),
                "max_estimated_residual": pairs.residuals.iter().cloned().fold(0.0, f64::max),
            })
        } else {
            let s = TruncatedSvd::new(a.clone(), config)?;
            let (sizes, symmetric) = (s.sizes(), s.is_symmetric());
            let svd = s.solve(|_| {});
            let secs = t.elapsed().as_secs_f64();
            let true_res = svd_residuals(&a, svd.u.view(), &svd.s, svd.v.view());
            serde_json::json!({
                "seconds": secs, "sizes": sizes, "symmetric": symmetric,
                "status": format!("{:?}", svd.status), "matvecs": svd.status.matvecs,
                "values": svd.s,
                "max_true_residual": true_res.iter().cloned().fold(0.0, f64::max),
                "max_estimated_residual": svd.residuals.iter().cloned().fold(0.0, f64::max),
            })
        };
        eprintln!("solve: {:.2}s", run["seconds"]);
        runs.push(run);
    }
    Ok(serde_json::Value::Array(runs))
}

/// Writes eigenvalues and row-major eigenvectors as raw little-endian f64.
fn save(prefix: &Path, values: &[f64], vectors: ndarray::ArrayView2<'_, f64>) -> Result<()> {
    let with = |ext: &str| {
        let mut p = prefix.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let bytes = |xs: &mut dyn Iterator<Item = &f64>| -> Vec<u8> {
        xs.flat_map(|v| v.to_le_bytes()).collect()
    };
    std::fs::write(with(".values"), bytes(&mut values.iter()))?;
    std::fs::write(with(".vectors"), bytes(&mut vectors.iter()))?;
    Ok(())
}

/// Writes `m` as raw CSR arrays `DIR/NAME.{indptr,indices,data,shape}`.
fn export(dir: &Path, name: &str, m: &CsMat<f64>) -> Result<()> {
    let m = if m.is_csr() { m.clone() } else { m.to_csr() };
    let write =
        |ext: &str, bytes: Vec<u8>| std::fs::write(dir.join(format!("{name}.{ext}")), bytes);
    write(
        "indptr",
        m.indptr()
            .raw_storage()
            .iter()
            .flat_map(|&p| (p as i64).to_le_bytes())
            .collect(),
    )?;
    write(
        "indices",
        m.indices()
            .iter()
            .flat_map(|&c| (c as i32).to_le_bytes())
            .collect(),
    )?;
    write(
        "data",
        m.data().iter().flat_map(|v| v.to_le_bytes()).collect(),
    )?;
    write("shape", format!("{} {}\n", m.rows(), m.cols()).into_bytes())?;
    Ok(())
}

/// Times the solver's building blocks on `m`: the sparse block product for
/// several block sizes, and the basis products at a typical basis size.
fn kernels(m: &CsMat<f64>) -> Result<serde_json::Value> {
    use wordbench::linalg::block;
    let a = Csr::from_sprs(m)?;
    let n = a.shape().0;
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let mut out = serde_json::Map::new();
    for b in [1usize, 4, 8, 16] {
        let x: Vec<f64> = (0..n * b).map(|i| (i % 7) as f64 - 3.0).collect();
        let mut y = vec![0.0; n * b];
        let s = best(&mut || a.mul_block(&x, &mut y, b));
        out.insert(
            format!("spmm_b{b}_ms_per_vector"),
            (s * 1e3 / b as f64).into(),
        );
    }
    let (p, b, ld) = (232usize, 8usize, 240usize);
    let v: Vec<f64> = (0..n * ld).map(|i| ((i * 7) % 13) as f64 / 13.0).collect();
    let mut w: Vec<f64> = (0..n * b).map(|i| ((i * 3) % 11) as f64 / 11.0).collect();
    let mut c = Vec::new();
    out.insert(
        "project_ms".into(),
        (best(&mut || c = block::project(&v, ld, p, &w, b)) * 1e3).into(),
    );
    out.insert(
        "subtract_and_project_ms".into(),
        (best(&mut || {
            block::subtract_and_project(&v, ld, p, &mut w, b, &c);
        }) * 1e3)
            .into(),
    );
    out.insert(
        "subtract_ms".into(),
        (best(&mut || block::subtract(&v, ld, p, &mut w, b, &c)) * 1e3).into(),
    );
    use rayon::prelude::*;
    let mut total = 0.0;
    out.insert(
        "stream_read_v_ms".into(),
        (best(&mut || {
            total = v
                .par_chunks(ld * 1024)
                .map(|c| c.iter().sum::<f64>())
                .sum::<f64>();
        }) * 1e3)
            .into(),
    );
    let gemm = |v: &[f64], w: &[f64]| {
        use ndarray::{linalg::general_mat_mul, ArrayView2, ShapeBuilder};
        let vv = ArrayView2::from_shape((n, p).strides((ld, 1)), &v[..(n - 1) * ld + p]).unwrap();
        let wv = ArrayView2::from_shape((n, b), w).unwrap();
        let mut c = ndarray::Array2::<f64>::zeros((p, b));
        general_mat_mul(1.0, &vv.t(), &wv, 0.0, &mut c);
        c
    };
    let w0: Vec<f64> = (0..n * b).map(|i| ((i * 3) % 11) as f64 / 11.0).collect();
    out.insert(
        "project_gemm_1thread_ms".into(),
        (best(&mut || {
            std::hint::black_box(gemm(&v, &w0));
        }) * 1e3)
            .into(),
    );
    out.insert(
        "project_1thread_ms".into(),
        (best(&mut || {
            let mut c = vec![0.0; p * b];
            wordbench::fast::blocked::project_rows(&v, ld, p, &w0, b, &mut c);
            std::hint::black_box(c);
        }) * 1e3)
            .into(),
    );
    std::hint::black_box(total);
    let y: Vec<f64> = (0..p * 144).map(|i| ((i * 5) % 17) as f64 / 17.0).collect();
    let mut vv = v.clone();
    out.insert(
        "rotate_232_to_144_ms".into(),
        (best(&mut || block::rotate(&mut vv, ld, p, &y, 144)) * 1e3).into(),
    );
    Ok(out.into())
}

/// Reads a matrix written by [`export`] (or by the comparison script).
fn import(dir: &Path, name: &str) -> Result<CsMat<f64>> {
    let read = |ext: &str| {
        std::fs::read(dir.join(format!("{name}.{ext}"))).with_context(|| format!("{name}.{ext}"))
    };
    let shape = String::from_utf8(read("shape")?)?;
    let dims: Vec<usize> = shape
        .split_whitespace()
        .map(|t| t.parse())
        .collect::<Result<_, _>>()?;
    let indptr: Vec<usize> = read("indptr")?
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as usize)
        .collect();
    let indices: Vec<usize> = read("indices")?
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as usize)
        .collect();
    let data: Vec<f64> = read("data")?
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    CsMat::try_new((dims[0], dims[1]), indptr, indices, data)
        .map_err(|e| anyhow::anyhow!("{name}: {e:?}"))
}
