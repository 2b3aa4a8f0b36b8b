//! UBE's update rules compared on a labelled feature file (`label TAB
//! features` per line, gzipped): each rule at one learning rate, then
//! k-means NMI x 100 (10 runs) of the 3-D output, and of the raw data.
//! docs/methods/ube.md, "Update rules", quotes its numbers:
//!
//! `cargo run --release --example ube_updates -- ../shared/data/manifold/digits.tsv.gz normalised,newton,sgd 0.1 250`

use std::io::Read;
use wordbench::eval::clustering::kmeans_study;
use wordbench::geometry::ube::{embed, Config, Update};

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
    for name in args[2].split(',') {
        let lr: f64 = args.get(3).map_or(0.1, |v| v.parse().unwrap());
        let iters: usize = args.get(4).map_or(250, |v| v.parse().unwrap());
        let c = Config {
            update: Update::from_name(name).unwrap(),
            lr,
            iters,
            ..Config::new(3)
        };
        let t = std::time::Instant::now();
        let (y, losses) = embed(x.clone(), c).unwrap();
        let el = t.elapsed().as_secs_f64();
        let st = kmeans_study(y.mapv(|v| v as f32).view(), k, 10, 1, 1, Some(&labels));
        println!(
            "{name} lr {lr}: J {:.1} -> {:.1}, NMI {:.1} ± {:.1}, {el:.1}s",
            losses[0],
            losses.last().unwrap(),
            st.nmi_mean_sd().0,
            st.nmi_mean_sd().1
        );
    }
    let st = kmeans_study(x.view(), k, 10, 1, 1, Some(&labels));
    println!("raw NMI {:.1}", st.nmi_mean_sd().0);
}
