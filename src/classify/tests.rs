//! Checks of the MNB-FM fit against its definition, and of the reader.

use std::io::Write;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::counts::ClassCounts;
use super::dataset::{Document, Part, Reader};
use super::fm::{self, Word};
use super::marginals::Marginals;
use super::nb;
use super::protocol::{self, Data, Draw, MarginalSource, Method, MnbVocabulary, Protocol, Tasks};

fn doc(labels: &[u32], bag: &[(u32, u32)]) -> Document {
    Document {
        labels: labels.to_vec(),
        bag: bag.to_vec(),
        line: 0,
    }
}

/// A random word problem with both classes holding the word (where the
/// paper guarantees a root) or not.
fn random_word(rng: &mut Xoshiro256PlusPlus, both: bool) -> Word {
    let tc = rng.random_range(50.0..5000.0f64).round();
    let tn = rng.random_range(50.0..5000.0f64).round();
    let lo = if both { 1.0 } else { 0.0 };
    let a = rng.random_range(lo..(tc / 10.0)).round().max(lo);
    let c = rng.random_range(lo..(tn / 10.0)).round().max(lo);
    let p = tc / (tc + tn);
    let pu = rng.random_range(1e-6..0.05f64);
    Word {
        a,
        b: tc - a,
        c,
        e: tn - c,
        k: pu / (1.0 - p),
        l: p / (1.0 - p),
    }
}

#[test]
fn the_solution_is_stationary_and_keeps_the_marginal() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut solved = 0;
    for case in 0..2000 {
        let w = random_word(&mut rng, case % 2 == 0);
        let Some((t, _)) = w.solve(0.5 * (w.interval().unwrap().0 + w.interval().unwrap().1))
        else {
            assert!(
                case % 2 == 1,
                "case {case}: no root although both classes hold the word: {w:?}"
            );
            continue;
        };
        solved += 1;
        let (lo, hi) = w.interval().unwrap();
        assert!(t > lo && t < hi, "case {case}: {t} outside ({lo}, {hi})");
        // Stationary: ℓ′ is tiny against its terms' scale.
        let scale = w.a / t + w.b / (1.0 - t);
        assert!(
            w.slope(t).abs() <= 1e-8 * scale,
            "case {case}: ℓ′ = {}",
            w.slope(t)
        );
        // The constraint, written back with p: P_U = θ p + θ' (1 − p).
        let p = w.l / (1.0 + w.l);
        let pu = w.k * (1.0 - p);
        let back = t * p + w.other(t) * (1.0 - p);
        assert!(
            (back - pu).abs() <= 1e-12 * pu,
            "case {case}: {back} vs {pu}"
        );
        // A maximum: no point of a fine grid over the interval does better.
        let best = (1..2000)
            .map(|i| lo + (hi - lo) * i as f64 / 2000.0)
            .map(|x| w.loglik(x))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(w.loglik(t) >= best - 1e-9 * best.abs(), "case {case}");
    }
    assert!(solved > 1000);
}

/// Two classes over six words; word 5 is never in a labelled document.
fn toy() -> (ClassCounts, Vec<Document>) {
    let docs = vec![
        doc(&[0], &[(0, 3), (1, 1), (2, 2)]),
        doc(&[0], &[(0, 1), (3, 1)]),
        doc(&[1], &[(1, 2), (2, 1), (4, 3)]),
        doc(&[1], &[(0, 1), (2, 2), (4, 1)]),
    ];
    let counts = ClassCounts::new(2, 6, &docs, |d| d.labels[0] as usize);
    (counts, docs)
}

#[test]
fn with_the_labelled_data_s_own_marginals_the_fit_is_the_maximum_likelihood_estimate() {
    let (counts, docs) = toy();
    let marginals = Marginals::from_documents(&docs);
    let vocab = vec![true, true, true, true, true, false];
    let raw = fm::raw_thetas(&counts, &marginals, &vocab);
    let (tc, tn) = (counts.tokens[0], counts.tokens[1]);
    for w in 0..3 {
        // Words 0, 1, 2 are in both classes: the constraint holds at the MLE.
        let (pos, neg, solved) = raw[w];
        assert!(solved, "word {w}");
        assert!(
            (pos - counts.words[0][w] / tc).abs() < 1e-12,
            "word {w}: {pos}"
        );
        assert!(
            (neg - counts.words[1][w] / tn).abs() < 1e-12,
            "word {w}: {neg}"
        );
    }
}

#[test]
fn a_word_absent_from_the_labelled_set_gets_its_marginal_in_both_classes() {
    let (counts, _) = toy();
    let unlabelled = [doc(&[0], &[(0, 10), (5, 2), (2, 8)])];
    let marginals = Marginals::from_documents(&unlabelled);
    let raw = fm::raw_thetas(&counts, &marginals, &[true; 6]);
    let (pos, neg, solved) = raw[5];
    assert!(solved);
    assert!(
        (pos - 0.1).abs() < 1e-12 && (neg - 0.1).abs() < 1e-12,
        "{pos} {neg}"
    );
}

#[test]
fn the_fit_is_renormalised_and_counts_its_fallbacks() {
    let (counts, _) = toy();
    let unlabelled = [doc(&[0], &[(0, 10), (1, 3), (2, 8), (4, 5), (5, 2)])];
    let marginals = Marginals::from_documents(&unlabelled);
    let (model, report) = fm::fit(&counts, &marginals, vec![true; 6]);
    for row in &model.log_theta {
        let total: f64 = row.iter().map(|l| l.exp()).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
    // Word 3 has no unlabelled count: add-one.
    assert_eq!(report.words, 6);
    assert_eq!(report.solved + report.fallbacks, 6);
    assert!(report.fallbacks >= 1);
}

#[test]
fn add_one_naive_bayes_matches_a_hand_computation() {
    let (counts, docs) = toy();
    let vocab = vec![true, true, true, true, true, false];
    let model = nb::fit_add_one(&counts, vocab);
    // Class 0: 8 tokens, |V| = 5: θ_0 = (4 + 1) / 13.
    assert!((model.log_theta[0][0] - (5.0f64 / 13.0).ln()).abs() < 1e-15);
    // Priors: (2 + 1) / (4 + 2) each.
    assert!((model.log_prior[0] - 0.5f64.ln()).abs() < 1e-15);
    let mut s = Vec::new();
    model.scores(&docs[0], &mut s);
    let by_hand = 0.5f64.ln()
        + 3.0 * (5.0f64 / 13.0).ln()
        + (2.0f64 / 13.0).ln()
        + 2.0 * (3.0f64 / 13.0).ln();
    assert!((s[0] - by_hand).abs() < 1e-12);
    assert_eq!(model.predict(&docs[2]), 1);
}

fn write(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn both_layouts_are_read_with_stop_words_dropped() {
    let ft = write("__label__pos __label__books A good, GOOD book!\n\n__label__neg the worst\n");
    let mut r = Reader::new(true);
    let docs = r.read(ft.path(), Part::All).unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0].labels, vec![0, 1]);
    assert_eq!(docs[0].line, 1);
    assert_eq!(docs[1].line, 3);
    let good = r.lexicon.get("good").unwrap();
    assert!(docs[0].bag.contains(&(good, 2)));
    assert!(r.lexicon.get("a").is_none() && r.lexicon.get("the").is_none());

    let tsv = write("train\t1\tearn,acq\tProfit rose.\ntest\t2\tgrain\tWheat fell\n");
    let mut r = Reader::new(false);
    let train = r.read(tsv.path(), Part::Train).unwrap();
    let test = r.read(tsv.path(), Part::Test).unwrap();
    assert_eq!((train.len(), test.len()), (1, 1));
    assert_eq!(r.labels.names(), ["earn", "acq", "grain"]);
    assert_eq!(test[0].line, 2);
}

#[test]
fn malformed_lines_are_located() {
    let cases = [
        (
            "__label__pos fine\nno label here\n",
            ":2: expected `__label__X`",
        ),
        ("hello world\n", ":1: expected a labelled line"),
        (
            "train\t1\tearn\ttext\ntrain\t2\n",
            ":2: expected 4 tab-separated fields",
        ),
        ("train\t1\tearn\ttext\ndev\t2\tx\ty\n", ":2: split is `dev`"),
        ("train\t1\tearn,\ttext\n", ":1: empty label"),
        ("__label__ text\n", ":1: expected `__label__X`"),
    ];
    for (text, want) in cases {
        let f = write(text);
        let e = Reader::new(true)
            .read(f.path(), Part::All)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(e.contains(&f.path().display().to_string()), "{e}");
    }
    let empty = write("\n\n");
    let e = Reader::new(true)
        .read(empty.path(), Part::All)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no labelled documents"), "{e}");
}

fn synthetic(n: usize, seed: u64) -> Vec<Document> {
    // Two topics over 40 words; class 0 prefers words 0..20.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let class = u32::from(i % 3 == 0);
            let mut ids: Vec<u32> = (0..30)
                .map(|_| {
                    let own = rng.random_range(0..20u32);
                    if rng.random_range(0..4) == 0 {
                        rng.random_range(0..40)
                    } else if class == 0 {
                        own
                    } else {
                        20 + own
                    }
                })
                .collect();
            ids.sort_unstable();
            let mut bag: Vec<(u32, u32)> = Vec::new();
            for id in ids {
                match bag.last_mut() {
                    Some((w, c)) if *w == id => *c += 1,
                    _ => bag.push((id, 1)),
                }
            }
            doc(&[class], &bag)
        })
        .collect()
}

#[test]
fn the_protocol_is_reproducible_and_learns() {
    let docs = synthetic(300, 3);
    let mut labels_reader = Reader::new(true);
    let tsv = write("train\t1\ta\tx\ntrain\t2\tb\ty\n");
    labels_reader.read(tsv.path(), Part::All).unwrap();
    let protocol = Protocol {
        labelled: vec![10, 50],
        resamples: 3,
        seed: 9,
        methods: vec![Method::Mnb, Method::MnbFm],
        tasks: Tasks::OneVsRest(vec![0]),
        marginals: MarginalSource::Test,
        mnb_vocabulary: MnbVocabulary::Shared,
        draw: Draw::Shared,
    };
    let data = Data {
        train: &docs,
        test: None,
        n_words: 40,
    };
    let run = || protocol::run(data, &protocol, &labels_reader.labels, |_| {}).unwrap();
    let (a, b) = (run(), run());
    assert_eq!(a.len(), 2 * 3 * 2);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.scores, y.scores);
    }
    let points = protocol::curve(&a, &protocol);
    let fm50 = points
        .iter()
        .find(|p| p.labelled == 50 && p.method == Method::MnbFm)
        .unwrap();
    assert!(fm50.accuracy.mean > 0.9, "{fm50:?}");
    let multi = Protocol {
        tasks: Tasks::Multiclass(vec![0, 1]),
        ..protocol.clone()
    };
    let cells = protocol::run(data, &multi, &labels_reader.labels, |_| {}).unwrap();
    assert!(cells.iter().all(|c| c.scores.f1.is_none()));
    assert!(cells.iter().all(|c| c.scores.accuracy > 0.6), "{cells:?}");
    let too_many = Protocol {
        labelled: vec![300],
        ..protocol
    };
    let e = protocol::run(data, &too_many, &labels_reader.labels, |_| {}).unwrap_err();
    assert!(e.to_string().contains("labelled"), "{e}");
}

/// Both MNB vocabularies on a corpus small enough to compute by hand; the
/// numbers are what scikit-learn's `MultinomialNB(alpha=1,
/// class_prior=[0.5, 0.5])` gives on count matrices over each vocabulary
/// (labelled only: a `CountVectorizer` fitted on the labelled documents,
/// so the test document's unseen word is dropped).
#[test]
fn both_mnb_vocabularies_match_a_hand_computation() {
    // Words 0..4; class 0 = label 0. Labelled: one document per class.
    let a = doc(&[0], &[(0, 2), (1, 1)]);
    let b = doc(&[1], &[(1, 1), (2, 3)]);
    let test = doc(&[0], &[(0, 1), (2, 1), (3, 2)]);
    let labelled = [&a, &b];
    let marginals = Marginals::from_documents([&test]);
    let counts = ClassCounts::new(2, 4, labelled.iter().copied(), |d| usize::from(!d.has(0)));
    let mut s = Vec::new();
    // Labelled only: |V| = 3. Class 0: T = 3, θ = (3, 2, 1)/6;
    // class 1: T = 4, θ = (1, 2, 4)/7. Word 3 is skipped.
    let only = protocol::labelled_vocabulary(&labelled, 4);
    assert_eq!(only, [true, true, true, false]);
    nb::fit_add_one(&counts, only).scores(&test, &mut s);
    let half = 0.5f64.ln();
    let want = [
        half + (3.0f64 / 6.0).ln() + (1.0f64 / 6.0).ln(),
        half + (1.0f64 / 7.0).ln() + (4.0f64 / 7.0).ln(),
    ];
    for c in 0..2 {
        assert!(
            (s[c] - want[c]).abs() < 1e-12,
            "labelled, class {c}: {} vs {}",
            s[c],
            want[c]
        );
    }
    // scikit-learn's joint log-likelihoods.
    assert!((s[0] - -3.1780538303479453).abs() < 1e-12);
    assert!((s[1] - -3.1986731175506815).abs() < 1e-12);
    // Shared: |V| = 4 (word 3 from the unlabelled = test marginals).
    // Class 0: denominator 7, θ = (3, 2, 1, 1)/7; class 1: 8, θ = (1, 2, 4, 1)/8.
    let shared = protocol::vocabulary(&labelled, &marginals, 4);
    assert_eq!(shared, [true; 4]);
    nb::fit_add_one(&counts, shared).scores(&test, &mut s);
    let want = [
        half + (3.0f64 / 7.0).ln() + (1.0f64 / 7.0).ln() + 2.0 * (1.0f64 / 7.0).ln(),
        half + (1.0f64 / 8.0).ln() + (4.0f64 / 8.0).ln() + 2.0 * (1.0f64 / 8.0).ln(),
    ];
    for c in 0..2 {
        assert!(
            (s[c] - want[c]).abs() < 1e-12,
            "shared, class {c}: {} vs {}",
            s[c],
            want[c]
        );
    }
    assert!((s[0] - -7.378175488113088).abs() < 1e-12);
    assert!((s[1] - -7.624618986159398).abs() < 1e-12);
}

#[test]
fn per_task_draws_seed_each_task_apart() {
    let tasks = Tasks::OneVsRest(vec![0, 3]);
    let shared = protocol::task_draws(&tasks, Draw::Shared, 5);
    assert_eq!(shared, vec![(tasks.clone(), 5)]);
    let per = protocol::task_draws(&tasks, Draw::PerTask, 5);
    assert_eq!(per.len(), 2);
    assert_eq!(per[0].0, Tasks::OneVsRest(vec![0]));
    assert_eq!(per[1].0, Tasks::OneVsRest(vec![3]));
    assert_ne!(per[0].1, per[1].1);
    assert_ne!(per[0].1, 5);
    let multi = Tasks::Multiclass(vec![0, 3]);
    assert_eq!(
        protocol::task_draws(&multi, Draw::PerTask, 5),
        vec![(multi, 5)]
    );
}
