//! SGNS and CBOW through the training engine, on a generated corpus with
//! planted topic structure (tests/fixtures/word2vec/generate.py).

use std::path::PathBuf;
use std::sync::Arc;

use ndarray::ArrayView1;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use wordbench::algo::word2vec::kernel::{ns_gradient, ns_loss, ns_update, Lanes, Portable};
use wordbench::algo::word2vec::sigmoid::ExactSigmoid;
use wordbench::algo::word2vec::{Architecture, Word2Vec, CBOW, SGNS};
use wordbench::corpus::{Corpus, CorpusConfig};
use wordbench::embedding::Embedding;
use wordbench::train::{Command, Event, Job, JobConfig, Method, Progress, TrainInput, Trainer};

const TOPICS: &[&str] = &[
    "apple banana cherry grape lemon mango orange peach pear plum",
    "badger beaver camel donkey ferret horse llama otter rabbit zebra",
    "amber azure beige crimson indigo ivory maroon olive scarlet violet",
    "bicycle bus canoe ferry glider lorry scooter sledge tractor tram",
    "banjo cello drum flute guitar harp oboe piano trumpet violin",
    "breeze cloud drizzle fog frost hail mist rain sleet thunder",
    "ankle elbow finger knee liver lung neck shoulder spine wrist",
    "anvil chisel drill hammer ladder pliers saw shovel spanner wrench",
    "austria brazil canada denmark egypt finland greece india japan kenya",
    "archery boxing cricket fencing golf hockey judo rowing rugby tennis",
    "bread butter cheese honey noodle pasta rice soup sugar yogurt",
    "bronze cobalt copper gold iron lead nickel silver tin zinc",
];

fn corpus() -> Arc<Corpus> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/word2vec/topics.txt");
    let mut config = CorpusConfig::default();
    config.read.heldout.fraction = 0.1;
    Arc::new(Corpus::open(path, config).expect("fixture corpus"))
}

fn input(method: &Method, sets: &[(&str, &str)], seed: u64, threads: usize) -> TrainInput {
    TrainInput {
        corpus: corpus(),
        params: method.params(sets.iter().copied()).unwrap(),
        seed,
        threads,
        counts: Default::default(),
    }
}

/// Runs a job to the end, returning the embedding and the progress events.
fn run(method: &'static Method, input: TrainInput) -> (Embedding, Vec<Progress>) {
    let mut progress = Vec::new();
    let embedding = Job::spawn(method, input, JobConfig::default())
        .wait(|e| {
            if let Event::Progress(p) = e {
                progress.push(*p);
            }
        })
        .unwrap();
    (embedding, progress)
}

fn cosine(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b.iter())
        .map(|(&x, &y)| x as f64 * y as f64)
        .sum();
    let na: f64 = a.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

/// Mean cosine of same-topic pairs and of different-topic pairs.
fn topic_cosines(e: &Embedding) -> (f64, f64) {
    let topics: Vec<Vec<ArrayView1<f32>>> = TOPICS
        .iter()
        .map(|t| t.split(' ').map(|w| e.vector(w).expect(w)).collect())
        .collect();
    let (mut same, mut ns, mut diff, mut nd) = (0.0, 0, 0.0, 0);
    for (i, ti) in topics.iter().enumerate() {
        for (j, tj) in topics.iter().enumerate() {
            for (a, va) in ti.iter().enumerate() {
                for (b, vb) in tj.iter().enumerate() {
                    if i == j && a < b {
                        same += cosine(*va, *vb);
                        ns += 1;
                    } else if i < j {
                        diff += cosine(*va, *vb);
                        nd += 1;
                    }
                }
            }
        }
    }
    (same / ns as f64, diff / nd as f64)
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

fn check_training_curves(method: &'static Method) {
    let (_, progress) = run(
        method,
        input(method, &[("dim", "20"), ("epochs", "12")], 1, 2),
    );
    assert_eq!(progress.len() as u64, progress.last().unwrap().total_steps);
    let k = 3;
    let first = mean(progress[..k].iter().map(|p| p.loss));
    let last = mean(progress[progress.len() - k..].iter().map(|p| p.loss));
    assert!(
        last < 0.85 * first,
        "{}: loss {first:.4} -> {last:.4}",
        method.name
    );
    // Negative-sampling loss starts at (1 + k)·ln 2 = 4.16 with zero output vectors.
    assert!(first < 6.0 * std::f64::consts::LN_2, "{first}");
    let ppl: Vec<f64> = progress.iter().filter_map(|p| p.perplexity).collect();
    assert!(ppl.len() >= 2, "perplexity measured {} times", ppl.len());
    let vocab = corpus().vocab().len() as f64;
    assert!(ppl[0] <= vocab * 1.01, "{} vs vocabulary {vocab}", ppl[0]);
    assert!(
        *ppl.last().unwrap() < 0.7 * ppl[0],
        "{}: perplexity {} -> {}",
        method.name,
        ppl[0],
        ppl.last().unwrap()
    );
    // The rate decays linearly from its initial value.
    let lr: Vec<f64> = progress.iter().map(|p| p.lr).collect();
    assert!(lr.windows(2).all(|w| w[1] < w[0]), "{lr:?}");
}

#[test]
fn sgns_loss_and_perplexity_fall() {
    check_training_curves(&SGNS);
}

#[test]
fn cbow_loss_and_perplexity_fall() {
    check_training_curves(&CBOW);
}

fn check_topics_with(
    method: &'static Method,
    epochs: &str,
    schedule: &str,
    extra: &[(&str, &str)],
) {
    let mut sets = vec![("dim", "24"), ("epochs", epochs), ("schedule", schedule)];
    sets.extend_from_slice(extra);
    let (e, _) = run(method, input(method, &sets, 3, 2));
    let (same, diff) = topic_cosines(&e);
    assert!(
        same > diff + 0.3,
        "{}: same-topic {same:.3}, cross-topic {diff:.3}",
        method.name
    );
    // Nearest neighbour of every topic word (among topic words) is in its topic.
    let words: Vec<(&str, usize)> = TOPICS
        .iter()
        .enumerate()
        .flat_map(|(t, ws)| ws.split(' ').map(move |w| (w, t)))
        .collect();
    let mut hits = 0;
    for &(w, t) in &words {
        let v = e.vector(w).unwrap();
        let best = words
            .iter()
            .filter(|&&(x, _)| x != w)
            .max_by(|a, b| {
                cosine(v, e.vector(a.0).unwrap()).total_cmp(&cosine(v, e.vector(b.0).unwrap()))
            })
            .unwrap();
        hits += usize::from(best.1 == t);
    }
    assert!(
        hits >= words.len() * 95 / 100,
        "{}: {hits}/{} neighbours in topic",
        method.name,
        words.len()
    );
    assert!(e.context().is_some());
}

/// word2vec.c's pairs (`batch=pair`) learn the topics under both schedules.
#[test]
fn sgns_puts_topic_words_together() {
    check_topics_with(&SGNS, "10", "deterministic", &[("batch", "pair")]);
    check_topics_with(&SGNS, "10", "hogwild", &[("batch", "pair")]);
}

/// `batch=window` (shared negatives per centre) learns the topics too,
/// under both schedules.
#[test]
fn sgns_window_batches_put_topic_words_together() {
    check_topics_with(&SGNS, "10", "deterministic", &[("batch", "window")]);
    check_topics_with(&SGNS, "10", "hogwild", &[("batch", "window")]);
}

#[test]
fn cbow_puts_topic_words_together() {
    check_topics_with(&CBOW, "20", "deterministic", &[("batch", "example")]);
    check_topics_with(&CBOW, "20", "hogwild", &[("batch", "example")]);
}

/// CBOW's `batch=window` (targets drawn ahead, scored in one pass) learns
/// the topics too, under both schedules.
#[test]
fn cbow_window_batches_put_topic_words_together() {
    check_topics_with(&CBOW, "20", "deterministic", &[("batch", "window")]);
    check_topics_with(&CBOW, "20", "hogwild", &[("batch", "window")]);
}

#[test]
fn single_thread_runs_are_bit_for_bit_reproducible() {
    let examples: &[(&str, &str)] = &[("dim", "16"), ("epochs", "2"), ("batch", "example")];
    let pairs: &[(&str, &str)] = &[("dim", "16"), ("epochs", "2"), ("batch", "pair")];
    let windows: &[(&str, &str)] = &[("dim", "16"), ("epochs", "2"), ("batch", "window")];
    let runs = [
        (&SGNS, pairs),
        (&CBOW, examples),
        (&SGNS, windows),
        (&CBOW, windows),
    ];
    for (method, sets) in runs {
        let (a, pa) = run(method, input(method, sets, 42, 1));
        let (b, pb) = run(method, input(method, sets, 42, 1));
        assert_eq!(a.vectors(), b.vectors(), "{}", method.name);
        assert_eq!(a.context(), b.context(), "{}", method.name);
        let losses = |p: &[Progress]| p.iter().map(|x| x.loss.to_bits()).collect::<Vec<_>>();
        assert_eq!(losses(&pa), losses(&pb));
        let (c, _) = run(method, input(method, sets, 43, 1));
        assert_ne!(a.vectors(), c.vectors(), "another seed gives other vectors");
    }
}

/// Trains `input` (whose `threads` is the run's lane count) to the end on a
/// pool of `pool` threads, in steps of 30,000 words (the fixture's two
/// 10,000-word chunks: one round of two lanes); returns the vectors' bits and the step losses' bits.
fn train_on_pool(arch: Architecture, input: &TrainInput, pool: usize) -> (Vec<u32>, Vec<u64>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pool)
        .build()
        .unwrap();
    pool.install(|| {
        let mut t = Word2Vec::with_limits(arch, input, &mut |_| {}, u64::MAX, 30_000).unwrap();
        let losses = (0..t.total_steps())
            .map(|s| t.step(s).unwrap().loss.to_bits())
            .collect();
        let e = Box::new(t).into_embedding().unwrap();
        let bits = e
            .vectors()
            .iter()
            .chain(e.context().unwrap().iter())
            .map(|x| x.to_bits())
            .collect();
        (bits, losses)
    })
}

#[test]
fn the_deterministic_schedule_depends_on_the_thread_count_only() {
    let runs = [
        (&SGNS, Architecture::SkipGram, "pair"),
        (&CBOW, Architecture::Cbow, "example"),
        (&SGNS, Architecture::SkipGram, "window"),
        (&CBOW, Architecture::Cbow, "window"),
    ];
    for (method, arch, batch) in runs {
        let with_batch = |sets: &[(&'static str, &'static str)]| {
            let mut sets = sets.to_vec();
            if !batch.is_empty() {
                sets.push(("batch", batch));
            }
            sets
        };
        let sets = with_batch(&[
            ("dim", "16"),
            ("epochs", "2"),
            ("schedule", "deterministic"),
        ]);
        let two = input(method, &sets, 42, 2);
        let first = train_on_pool(arch, &two, 2);
        assert_eq!(first.1.len(), 2, "a step per epoch");
        // Again, and with the two lanes carried by one thread: same bits.
        assert!(train_on_pool(arch, &two, 2) == first, "{}", method.name);
        assert!(train_on_pool(arch, &two, 1) == first, "{}", method.name);
        // One thread: both schedules are the serial loop.
        let one = input(method, &sets, 42, 1);
        let hogwild = input(
            method,
            &with_batch(&[("dim", "16"), ("epochs", "2"), ("schedule", "hogwild")]),
            42,
            1,
        );
        let serial = train_on_pool(arch, &one, 1);
        assert!(
            serial == train_on_pool(arch, &hogwild, 1),
            "{}",
            method.name
        );
        // The thread count is part of the run: two lanes train other vectors.
        assert!(serial.0 != first.0, "{}", method.name);
    }
}

#[test]
fn two_thread_deterministic_runs_through_the_engine_are_bit_for_bit() {
    for method in [&SGNS, &CBOW] {
        let sets = [
            ("dim", "16"),
            ("epochs", "3"),
            ("schedule", "deterministic"),
        ];
        let (a, pa) = run(method, input(method, &sets, 5, 2));
        let (b, pb) = run(method, input(method, &sets, 5, 2));
        assert_eq!(a.vectors(), b.vectors(), "{}", method.name);
        assert_eq!(a.context(), b.context(), "{}", method.name);
        let losses = |p: &[Progress]| p.iter().map(|x| x.loss.to_bits()).collect::<Vec<_>>();
        assert_eq!(losses(&pa), losses(&pb), "{}", method.name);
        // Which steps measure perplexity depends on the clock; the first and
        // last always do, and any step measured in both runs agrees.
        let both: Vec<(f64, f64)> = pa
            .iter()
            .zip(&pb)
            .filter_map(|(x, y)| Some((x.perplexity?, y.perplexity?)))
            .collect();
        assert!(both.len() >= 2, "{}", method.name);
        assert!(
            both.iter().all(|(x, y)| x.to_bits() == y.to_bits()),
            "{both:?}"
        );
    }
}

#[test]
fn sgns_gradient_matches_finite_differences() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let d = 8;
    let mut vec = |scale: f32| -> Vec<f32> {
        (0..d)
            .map(|_| (rng.random::<f32>() - 0.5) * scale)
            .collect()
    };
    let h = vec(2.0);
    let outs: Vec<Vec<f32>> = (0..6).map(|_| vec(2.0)).collect();
    let refs = |o: &[Vec<f32>]| -> Vec<Vec<f32>> { o.to_vec() };
    let loss =
        |h: &[f32], o: &[Vec<f32>]| ns_loss(h, &o.iter().map(|x| &x[..]).collect::<Vec<_>>());
    let (dh, douts) = ns_gradient(&h, &outs.iter().map(|x| &x[..]).collect::<Vec<_>>());
    let eps = 1e-2f32;
    for i in 0..d {
        let (mut hp, mut hm) = (h.clone(), h.clone());
        hp[i] += eps;
        hm[i] -= eps;
        let fd = (loss(&hp, &outs) - loss(&hm, &outs)) / (hp[i] - hm[i]) as f64;
        assert!((fd - dh[i]).abs() < 1e-4, "dL/dh[{i}]: {fd} vs {}", dh[i]);
        for (k, dk) in douts.iter().enumerate() {
            let (mut op, mut om) = (refs(&outs), refs(&outs));
            op[k][i] += eps;
            om[k][i] -= eps;
            let fd = (loss(&h, &op) - loss(&h, &om)) / (op[k][i] - om[k][i]) as f64;
            assert!(
                (fd - dk[i]).abs() < 1e-4,
                "dL/do{k}[{i}]: {fd} vs {}",
                dk[i]
            );
        }
    }
}

fn check_hot_loop_update(lanes: impl Lanes) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let d = 100;
    let mut vec = || -> Vec<f32> { (0..d).map(|_| rng.random::<f32>() - 0.5).collect() };
    let h = vec();
    let outs: Vec<Vec<f32>> = (0..6).map(|_| vec()).collect();
    let views: Vec<&[f32]> = outs.iter().map(|x| &x[..]).collect();
    let (dh, douts) = ns_gradient(&h, &views);
    let lr = 0.025f32;
    let mut neu1e = vec![0.0f32; d];
    let mut updated = outs.clone();
    let mut loss = 0.0f64;
    for (k, row) in updated.iter_mut().enumerate() {
        let label = if k == 0 { 1.0 } else { 0.0 };
        loss += ns_update(lanes, &h, row, label, lr, &ExactSigmoid, &mut neu1e) as f64;
    }
    assert!((loss - ns_loss(&h, &views)).abs() < 1e-4 * loss);
    for i in 0..d {
        assert!((neu1e[i] as f64 + lr as f64 * dh[i]).abs() < 1e-6, "h[{i}]");
        for k in 0..outs.len() {
            let step = updated[k][i] as f64 - outs[k][i] as f64;
            assert!((step + lr as f64 * douts[k][i]).abs() < 1e-6, "o{k}[{i}]");
        }
    }
}

#[test]
fn hot_loop_update_is_minus_lr_times_the_gradient() {
    check_hot_loop_update(Portable);
    #[cfg(target_arch = "x86_64")]
    if let Some(avx) = wordbench::fast::lanes::Avx2::detect() {
        check_hot_loop_update(avx);
    }
}

#[test]
fn learning_rate_set_mid_run_rescales_the_schedule() {
    let inp = input(&SGNS, &[("dim", "8"), ("epochs", "6")], 1, 1);
    let mut trainer = (SGNS.build)(&inp, &mut |_| {}).unwrap();
    let total = trainer.total_steps();
    assert_eq!(total, 6, "one step per epoch on the small fixture");
    let r0 = trainer.step(0).unwrap();
    assert_eq!(r0.lr, 0.025);
    let r1 = trainer.step(1).unwrap();
    assert!((r1.lr - 0.025 * 5.0 / 6.0).abs() < 1e-12, "{}", r1.lr);
    let mut changed = inp.params.clone();
    changed
        .set("sgns", "lr", &wordbench::schema::Value::Float(0.1))
        .unwrap();
    trainer.set(&changed).unwrap();
    let rates: Vec<f64> = (2..total).map(|s| trainer.step(s).unwrap().lr).collect();
    // 0.1 now (a third done), decaying linearly to zero at the end.
    for (k, r) in rates.iter().enumerate() {
        let expect = 0.1 * (4 - k) as f64 / 4.0;
        assert!(
            (r - expect).abs() < 1e-12,
            "step {}: {r} vs {expect}",
            k + 2
        );
    }
    // Only `lr` changes mid-run; the engine refuses the rest by name.
    assert!(SGNS.check_change("window", "3").is_err());
}

#[test]
fn engine_commands_reach_the_trainer() {
    let job = Job::spawn(
        &SGNS,
        input(&SGNS, &[("dim", "8"), ("epochs", "50")], 1, 2),
        JobConfig::default(),
    );
    job.send(Command::Pause);
    let (mut applied, mut progress, mut finished) = (None, Vec::new(), None);
    for event in job.events().iter() {
        match event {
            Event::Paused { .. } => {
                job.send(Command::Set("lr".into(), "0.01".into()));
                job.send(Command::Set("window".into(), "2".into()));
                job.send(Command::Resume);
            }
            Event::ParamApplied { name, step, .. } => applied = Some((name, step)),
            Event::ParamRejected { name, reason } => assert_eq!(
                (name.as_str(), reason.as_str()),
                ("window", "cannot be changed during a run")
            ),
            Event::Progress(p) => {
                progress.push(p);
                if p.step == 5 {
                    job.send(Command::Stop);
                }
            }
            Event::Finished(e) => finished = Some(e),
            Event::Failed { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
    let (name, step) = applied.expect("lr applied");
    assert_eq!(name, "lr");
    let after = progress.iter().find(|p| p.step == step + 1).unwrap();
    assert_eq!(after.lr, 0.01);
    assert!(
        progress.len() < 50,
        "stopped early after {} steps",
        progress.len()
    );
    assert_eq!(
        finished.expect("embedding after stop").len(),
        corpus().vocab().len()
    );
}

/// Trains to the end with one thread, ids in memory only when they take at
/// most `memory` bytes, a step per 10,000-word chunk (two or more an epoch).
fn train_within(arch: Architecture, input: &TrainInput, memory: u64) -> (Embedding, Vec<String>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let mut log = Vec::new();
        let mut t =
            Word2Vec::with_limits(arch, input, &mut |l| log.push(l), memory, 4_000).unwrap();
        assert!(t.total_steps() >= 2 * 3, "several steps per epoch");
        for step in 0..t.total_steps() {
            t.step(step).unwrap();
        }
        (Box::new(t).into_embedding().unwrap(), log)
    })
}

#[test]
fn reread_from_disk_each_epoch_trains_the_same_vectors_bit_for_bit() {
    for (method, arch) in [(&SGNS, Architecture::SkipGram), (&CBOW, Architecture::Cbow)] {
        let inp = input(method, &[("dim", "12"), ("epochs", "3")], 7, 1);
        let (in_memory, log) = train_within(arch, &inp, u64::MAX);
        assert!(!log.iter().any(|l| l.contains("re-read")), "{log:?}");
        // A budget of 0 bytes: no id is held beyond the step being trained.
        let (streamed, log) = train_within(arch, &inp, 0);
        assert!(
            log.iter()
                .any(|l| l.contains("re-read from disk each epoch")),
            "{log:?}"
        );
        let bits = |e: &Embedding| -> Vec<u32> {
            let c = e.context().unwrap();
            e.vectors()
                .iter()
                .chain(c.iter())
                .map(|x| x.to_bits())
                .collect()
        };
        assert_eq!(bits(&streamed), bits(&in_memory), "{}", method.name);
    }
}

#[test]
fn the_batch_option_changes_the_update() {
    let sets = |batch| [("dim", "16"), ("epochs", "1"), ("batch", batch)];
    let (pair, _) = run(&SGNS, input(&SGNS, &sets("pair"), 7, 1));
    let (window, _) = run(&SGNS, input(&SGNS, &sets("window"), 7, 1));
    assert_ne!(pair.vectors(), window.vectors());
    let (example, _) = run(&CBOW, input(&CBOW, &sets("example"), 7, 1));
    let (window, _) = run(&CBOW, input(&CBOW, &sets("window"), 7, 1));
    assert_ne!(example.vectors(), window.vectors());
    let err = SGNS
        .params([("batch", "sentence")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("batch"), "{err}");
    // Each method names its word2vec.c order after its unit of update.
    assert!(SGNS.params([("batch", "example")]).is_err());
    let err = CBOW.params([("batch", "pair")]).unwrap_err().to_string();
    assert!(err.contains("example, window"), "{err}");
}
