//! GloVe: the loss gradient against finite differences, the hot loop against
//! the gradient, training through the engine (loss and perplexity fall,
//! topics separate), bit-for-bit reproducibility, and a live learning-rate
//! change that can be replayed exactly from its echoed step.

use std::path::Path;
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use wordbench::algo::glove::loss::{cell_gradient, cell_loss, weight, CellInput};
use wordbench::algo::glove::model::adagrad_step;
use wordbench::algo::glove::GLOVE;
use wordbench::corpus::{Corpus, CorpusConfig, HeldoutConfig, ReadConfig, VocabConfig};
use wordbench::embedding::Embedding;
use wordbench::schema::Value;
use wordbench::train::{Command, Event, Job, JobConfig, Progress, TrainInput};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/glove/topics.txt"
);

fn open(path: &Path) -> Arc<Corpus> {
    let config = CorpusConfig {
        read: ReadConfig {
            heldout: HeldoutConfig {
                fraction: 0.1,
                ..HeldoutConfig::default()
            },
            ..ReadConfig::default()
        },
        vocab: VocabConfig {
            min_count: 1,
            max_size: None,
        },
    };
    Arc::new(Corpus::open(path, config).unwrap())
}

fn input(corpus: &Arc<Corpus>, sets: &[(&str, &str)], seed: u64, threads: usize) -> TrainInput {
    TrainInput {
        corpus: corpus.clone(),
        params: GLOVE.params(sets.iter().copied()).unwrap(),
        seed,
        threads,
        counts: Default::default(),
    }
}

fn quiet() -> JobConfig {
    JobConfig {
        perplexity: false,
        ..JobConfig::default()
    }
}

/// Runs a job to the end; returns the embedding and the progress history.
fn run(input: TrainInput, config: JobConfig) -> (Embedding, Vec<Progress>) {
    let mut history = Vec::new();
    let emb = Job::spawn(&GLOVE, input, config)
        .wait(|e| {
            if let Event::Progress(p) = e {
                history.push(*p);
            }
        })
        .unwrap();
    (emb, history)
}

fn random_vec(rng: &mut Xoshiro256PlusPlus, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.random::<f64>() - 0.5).collect()
}

#[test]
fn gradient_matches_finite_differences() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    // Counts below and above x_max (the weight's cap).
    for count in [0.3, 4.0, 37.5, 250.0] {
        let (w, c) = (random_vec(&mut rng, 7), random_vec(&mut rng, 7));
        let cell = |w: &[f64], c: &[f64], bw: f64, bc: f64| -> f64 {
            cell_loss(&CellInput {
                word: w,
                context: c,
                word_bias: bw,
                context_bias: bc,
                count,
                x_max: 100.0,
                alpha: 0.75,
            })
        };
        let (bw, bc) = (0.3, -0.2);
        let g = cell_gradient(&CellInput {
            word: &w,
            context: &c,
            word_bias: bw,
            context_bias: bc,
            count,
            x_max: 100.0,
            alpha: 0.75,
        });
        assert_eq!(g.loss, cell(&w, &c, bw, bc));
        let h = 1e-6;
        let check = |numeric: f64, analytic: f64| {
            assert!(
                (numeric - analytic).abs() < 1e-7 * (1.0 + analytic.abs()),
                "{numeric} vs {analytic} (x = {count})"
            );
        };
        for k in 0..w.len() {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[k] += h;
            wm[k] -= h;
            check(
                (cell(&wp, &c, bw, bc) - cell(&wm, &c, bw, bc)) / (2.0 * h),
                g.word[k],
            );
            let (mut cp, mut cm) = (c.clone(), c.clone());
            cp[k] += h;
            cm[k] -= h;
            check(
                (cell(&w, &cp, bw, bc) - cell(&w, &cm, bw, bc)) / (2.0 * h),
                g.context[k],
            );
        }
        check(
            (cell(&w, &c, bw + h, bc) - cell(&w, &c, bw - h, bc)) / (2.0 * h),
            g.word_bias,
        );
        check(
            (cell(&w, &c, bw, bc + h) - cell(&w, &c, bw, bc - h)) / (2.0 * h),
            g.context_bias,
        );
    }
}

#[test]
fn hot_loop_applies_adagrad_to_the_exact_gradient() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let dim = 19; // not a multiple of the eight dot-product lanes
    let (x, lr) = (6.5f64, 0.05f64);
    let fx = weight(x, 10.0, 0.75);
    // Rows as laid out by the model: word [w | b | 1 | sums | pad], context
    // [c | 1 | b̃ | sums | pad], with the sums already grown.
    let row = |rng: &mut Xoshiro256PlusPlus, bias: usize| -> Vec<f32> {
        let mut params: Vec<f32> = random_vec(rng, dim + 2)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        params[2 * dim + 1 - bias] = 1.0;
        let sums = (0..=dim).map(|_| 1.0 + 3.0 * rng.random::<f32>());
        params.into_iter().chain(sums).chain([1.0]).collect()
    };
    let (mut w, mut c) = (row(&mut rng, dim), row(&mut rng, dim + 1));
    let (w0, c0) = (w.clone(), c.clone());
    let as64 = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let g = cell_gradient(&CellInput {
        word: &as64(&w0[..dim]),
        context: &as64(&c0[..dim]),
        word_bias: w0[dim] as f64,
        context_bias: c0[dim + 1] as f64,
        count: x,
        x_max: 10.0,
        alpha: 0.75,
    });
    let loss = adagrad_step(&mut w, &mut c, dim, x.ln() as f32, fx as f32, lr as f32);
    assert!(
        (loss - g.loss).abs() < 1e-6 * g.loss.max(1.0),
        "{loss} vs {}",
        g.loss
    );
    // Parameter k (the bias last) at column `at`, its sum at dim + 2 + k.
    let expect = |old: &[f32], grads: &[f64], k: usize, at: usize| -> (f64, f64) {
        let step = lr * grads[k];
        let sum = old[dim + 2 + k] as f64;
        (old[at] as f64 - step / sum.sqrt(), sum + step * step)
    };
    let wg: Vec<f64> = g.word.iter().copied().chain([g.word_bias]).collect();
    let cg: Vec<f64> = g.context.iter().copied().chain([g.context_bias]).collect();
    for k in 0..=dim {
        for (new, old, grads, bias) in [(&w, &w0, &wg, dim), (&c, &c0, &cg, dim + 1)] {
            let at = if k == dim { bias } else { k };
            let (param, sum) = expect(old, grads, k, at);
            assert!(
                (new[at] as f64 - param).abs() < 1e-6,
                "param {k}: {} vs {param}",
                new[at]
            );
            let got = new[dim + 2 + k] as f64;
            assert!((got - sum).abs() < 1e-6, "sum {k}: {got} vs {sum}");
        }
    }
    // The constant 1s and the padding are never touched.
    assert_eq!(
        (w[dim + 1], c[dim], w[2 * dim + 3], c[2 * dim + 3]),
        (1.0, 1.0, 1.0, 1.0)
    );
}

#[test]
fn loss_and_perplexity_fall_and_topics_separate() {
    let corpus = open(Path::new(FIXTURE));
    let sets = [
        ("dim", "16"),
        ("epochs", "40"),
        ("x_max", "10"),
        ("window", "5"),
    ];
    let (emb, history) = run(input(&corpus, &sets, 3, 1), JobConfig::default());
    assert_eq!(history.len(), 40, "one step per epoch on the fixture");
    let losses: Vec<f64> = history.iter().map(|p| p.loss).collect();
    assert!(losses.windows(2).all(|w| w[1] < w[0]), "{losses:?}");
    assert!(losses[39] < 0.2 * losses[0], "{losses:?}");
    let ppl: Vec<f64> = history.iter().filter_map(|p| p.perplexity).collect();
    assert!(
        ppl.len() >= 2 && ppl[ppl.len() - 1] < 0.9 * ppl[0],
        "{ppl:?}"
    );

    let topics = [
        "acacia birch cedar elm hazel larch maple willow",
        "crow eagle finch heron owl raven robin swan",
        "bream carp cod eel perch pike salmon trout",
        "agate basalt chalk flint granite marble quartz slate",
    ];
    let ids: Vec<Vec<u32>> = topics
        .iter()
        .map(|t| t.split(' ').filter_map(|w| emb.id(w)).collect())
        .collect();
    let (mut same, mut cross) = ((0.0, 0), (0.0, 0));
    for (a, ta) in ids.iter().enumerate() {
        for (b, tb) in ids.iter().enumerate() {
            for &i in ta {
                for &j in tb {
                    if i != j {
                        let acc = if a == b { &mut same } else { &mut cross };
                        acc.0 += emb.cosine(i, j);
                        acc.1 += 1;
                    }
                }
            }
        }
    }
    let (same, cross) = (same.0 / same.1 as f64, cross.0 / cross.1 as f64);
    assert!(
        same > cross + 0.3,
        "same-topic cosine {same:.3}, cross-topic {cross:.3}"
    );
    assert_eq!(emb.context().map(|c| c.dim()), Some((emb.len(), 16)));
}

#[test]
fn one_thread_runs_are_bit_for_bit_reproducible() {
    let corpus = open(Path::new(FIXTURE));
    let sets = [("dim", "12"), ("epochs", "5"), ("shuffle", "epoch")];
    let (a, ha) = run(input(&corpus, &sets, 9, 1), quiet());
    let (b, hb) = run(input(&corpus, &sets, 9, 1), quiet());
    assert_eq!(a.vectors(), b.vectors());
    assert_eq!(a.context(), b.context());
    let loss = |h: &[Progress]| h.iter().map(|p| p.loss.to_bits()).collect::<Vec<_>>();
    assert_eq!(loss(&ha), loss(&hb));
    let (c, _) = run(input(&corpus, &sets, 10, 1), quiet());
    assert_ne!(a.vectors(), c.vectors());
}

#[test]
fn two_thread_runs_are_bit_for_bit_and_independent_of_the_pool() {
    let corpus = open(Path::new(FIXTURE));
    let sets = [("dim", "12"), ("epochs", "4"), ("shuffle", "epoch")];
    let (a, ha) = run(input(&corpus, &sets, 9, 2), quiet());
    let (b, hb) = run(input(&corpus, &sets, 9, 2), quiet());
    assert_eq!(a.vectors(), b.vectors());
    assert_eq!(a.context(), b.context());
    let loss = |h: &[Progress]| h.iter().map(|p| p.loss.to_bits()).collect::<Vec<_>>();
    assert_eq!(loss(&ha), loss(&hb));
    // The same two lanes carried by a one-thread pool: the same bits.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (c, hc) = pool.install(|| {
        let mut trainer = (GLOVE.build)(&input(&corpus, &sets, 9, 2), &mut |_| {}).unwrap();
        let losses: Vec<u64> = (0..trainer.total_steps())
            .map(|s| trainer.step(s).unwrap().loss.to_bits())
            .collect();
        (trainer.into_embedding().unwrap(), losses)
    });
    assert_eq!(c.vectors(), a.vectors());
    assert_eq!(hc, loss(&ha));
    // One lane is the serial loop, which two lanes are not.
    let (one, _) = run(input(&corpus, &sets, 9, 1), quiet());
    assert_ne!(one.vectors(), a.vectors());
}

#[test]
fn output_is_word_plus_context_unless_asked_for_words() {
    let corpus = open(Path::new(FIXTURE));
    let sets = [("dim", "8"), ("epochs", "2")];
    let (sum, _) = run(input(&corpus, &sets, 4, 1), quiet());
    let (word, _) = run(
        input(
            &corpus,
            &[("dim", "8"), ("epochs", "2"), ("output", "word")],
            4,
            1,
        ),
        quiet(),
    );
    let context = sum.context().unwrap();
    assert_eq!(word.context().unwrap(), context);
    assert_eq!(sum.vectors(), &word.vectors() + &context);
}

#[test]
fn two_threads_train_as_well_as_one() {
    let corpus = open(Path::new(FIXTURE));
    let sets = [("dim", "16"), ("epochs", "20")];
    let (_, one) = run(input(&corpus, &sets, 2, 1), quiet());
    let l1 = one.last().unwrap().loss;
    for schedule in ["deterministic", "hogwild"] {
        let with = [("dim", "16"), ("epochs", "20"), ("schedule", schedule)];
        let (emb, two) = run(input(&corpus, &with, 2, 2), quiet());
        let l2 = two.last().unwrap().loss;
        assert!(emb.vectors().iter().all(|x| x.is_finite()));
        assert!(
            (l2 - l1).abs() < 0.25 * l1,
            "{schedule}: 1 thread {l1}, 2 threads {l2}"
        );
    }
}

#[test]
fn live_learning_rate_change_is_echoed_and_replayable() {
    let corpus = open(Path::new(FIXTURE));
    // Far more steps than the test needs: it pauses, changes lr, resumes,
    // pauses again a few steps later and stops there.
    let sets = [("dim", "8"), ("epochs", "100000")];
    let job = Job::spawn(&GLOVE, input(&corpus, &sets, 6, 1), quiet());
    let (mut pauses, mut applied, mut rejected) = (Vec::new(), None, Vec::new());
    let mut history: Vec<Progress> = Vec::new();
    let (mut result, mut pauses_sent) = (None, 0);
    for event in job.events().iter() {
        match event {
            Event::Progress(p) => {
                let resumed_for = pauses.first().map_or(0, |&s| p.step - s);
                if pauses_sent == 0 || (pauses_sent == 1 && pauses.len() == 1 && resumed_for >= 5) {
                    job.send(Command::Pause);
                    pauses_sent += 1;
                }
                history.push(p);
            }
            Event::Paused { step } => {
                pauses.push(step);
                if pauses.len() == 1 {
                    job.send(Command::Set("lr".into(), "0.01".into()));
                    job.send(Command::Set("window".into(), "3".into()));
                    job.send(Command::Resume);
                } else {
                    job.send(Command::Stop);
                }
            }
            Event::ParamApplied { name, value, step } => applied = Some((name, value, step)),
            Event::ParamRejected { name, .. } => rejected.push(name),
            Event::Finished(e) => result = Some(*e),
            Event::Failed { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
    let emb = result.expect("finished");
    let [s, t] = <[u64; 2]>::try_from(pauses).expect("paused twice");
    assert!(s >= 1 && t >= s + 5, "paused at {s} and {t}");
    assert_eq!(applied, Some(("lr".to_string(), Value::Float(0.01), s)));
    assert_eq!(rejected, vec!["window".to_string()]);
    // Progress.step counts steps done: step index s (the first at the new rate) reports s + 1.
    for p in &history {
        let expect = if p.step <= s { 0.05 } else { 0.01 };
        assert_eq!(p.lr, expect, "step {}", p.step);
    }

    // Replaying the recorded change at the echoed step, up to the stop, gives the same vectors.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let replay = pool.install(|| {
        let inp = input(&corpus, &sets, 6, 1);
        let mut trainer = (GLOVE.build)(&inp, &mut |_| {}).unwrap();
        let mut changed = inp.params.clone();
        changed.set("glove", "lr", &Value::Float(0.01)).unwrap();
        for step in 0..t {
            if step == s {
                trainer.set(&changed).unwrap();
            }
            trainer.step(step).unwrap();
        }
        trainer.into_embedding().unwrap()
    });
    assert_eq!(replay.vectors(), emb.vectors());
}

#[test]
fn a_corpus_without_pairs_is_rejected_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("single.txt");
    std::fs::write(&path, "alpha. beta. gamma. alpha. beta.\n").unwrap();
    let corpus = open(&path);
    let err = Job::spawn(&GLOVE, input(&corpus, &[("dim", "2")], 1, 1), quiet())
        .wait(|_| {})
        .unwrap_err();
    assert!(err.to_string().contains("no two words co-occur"), "{err}");
}

#[test]
fn schema_rejects_bad_values_naming_the_parameter() {
    let err = GLOVE.params([("x_max", "0")]).unwrap_err().to_string();
    assert!(err.contains("x_max"), "{err}");
    let err = GLOVE
        .params([("shuffle", "never")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("once, epoch"), "{err}");
    // Names are snake_case: checked for every method in src/algo/mod.rs.
    let p = GLOVE.params([]).unwrap();
    assert_eq!(
        (p.usize("dim"), p.usize("epochs"), p.usize("window")),
        (100, 15, 10)
    );
    assert_eq!(
        (p.f64("lr"), p.f64("x_max"), p.f64("alpha")),
        (0.05, 100.0, 0.75)
    );
}
