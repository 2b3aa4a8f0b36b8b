//! UBE's update rules compared on a labelled feature file (`label TAB
//! features` per line, gzipped): each rule at one learning rate, then
//! k-means NMI x 100 (10 runs) of the 3-D output, and of the raw data.
//! docs/methods/ube.md, "Update rules", quotes its numbers:
//!
//! `cargo run --release --example ube_updates -- ../shared/data/manifold/digits.tsv.gz normalised,newton,sgd 0.1 250`
//!
//! Optional fifth to seventh arguments: `k_max` (default 50), the
//! neighbour floor `min_k` (default 1) and the k-means runs (default 10;
//! the thesis' Table 2.3: 50); the authors' code as they ran it:
//! `... authors 0.1 500 90 15 50`.

use std::io::Read;
use wordbench::eval::clustering::kmeans_study;
use wordbench::geometry::ube::{embed, Config, Update};
use wordbench::schema::Choice;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = &args[1];
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    let mut labels = Vec::new();
    let mut rows = Vec::new();
    for line in s.lines() {
        let mut it = line.split('\t');
        labels.push(it.next().unwrap().parse::<usize>().unwrap());
        rows.extend(it.map(|v| v.parse::<f32>().unwrap()));
    }
    let n = labels.len();
    let x = ndarray::Array2::from_shape_vec((n, rows.len() / n), rows).unwrap();
    let k = *labels.iter().max().unwrap() + 1;
    let runs: usize = args.get(7).map_or(10, |v| v.parse().unwrap());
    for name in args[2].split(',') {
        let lr: f64 = args.get(3).map_or(0.1, |v| v.parse().unwrap());
        let iters: usize = args.get(4).map_or(250, |v| v.parse().unwrap());
        let k_max: usize = args.get(5).map_or(50, |v| v.parse().unwrap());
        let min_k: usize = args.get(6).map_or(1, |v| v.parse().unwrap());
        let c = Config {
            update: Update::from_name(name).unwrap(),
            lr,
            iters,
            k_max,
            min_k,
            ..Config::new(3)
        };
        let t = std::time::Instant::now();
        let (y, losses) = embed(x.clone(), c).unwrap();
        let el = t.elapsed().as_secs_f64();
        let st = kmeans_study(y.mapv(|v| v as f32).view(), k, runs, 1, 1, Some(&labels));
        println!(
            "{name} lr {lr} iters {iters} k_max {k_max} min_k {min_k}: J {:.1} -> {:.1}, NMI {:.1} ± {:.1}, {el:.1}s",
            losses[0],
            losses.last().unwrap(),
            st.nmi_mean_sd().0,
            st.nmi_mean_sd().1
        );
    }
    let st = kmeans_study(x.view(), k, runs, 1, 1, Some(&labels));
    println!("raw NMI {:.1}", st.nmi_mean_sd().0);
}
