//! Robustness: limits with clear errors, deep and wide graphs without stack
//! overflow, property tests at volume, determinism of plans, and the inputs the
//! fuzz targets (`fuzz/`) found, kept as regression tests.
//!
//! `MEMPLAN_LONG=1` runs the random-graph test ten times longer.
//!
//! Why one long file: it is one list of stress cases for the whole pipeline at its
//! extremes (limits, million-op graphs, random graphs at volume, repeated runs, fuzz
//! finds), built from the same small `arena` and `op` graph helpers; each section is
//! short, and splitting would copy those helpers into files of a hundred lines.

use memplan::graph::{Graph, Op, Role, Tensor, TensorId, MAX_TENSOR_BYTES, MAX_TOTAL_BYTES};
use memplan::liveness::{Lifetime, LiveOptions};
use memplan::order::OrderKind;
use memplan::{check, Options, PackOptions, Strategy};
use memplan_formats::{self as formats, Format, MAX_INPUT_BYTES};
use std::time::{Duration, Instant};

fn arena(name: String, size: u64) -> Tensor {
    Tensor {
        name,
        size,
        role: Role::Arena,
        level: None,
        lifetime: None,
    }
}

fn op(name: String, inputs: Vec<TensorId>, outputs: Vec<TensorId>) -> Op {
    Op {
        name,
        kind: String::new(),
        inputs,
        outputs,
    }
}

/// The error of reading `data` as `format`, as text.
fn read_error(data: &[u8], format: Option<Format>) -> String {
    match formats::read(data, format, "hostile") {
        Ok(g) => panic!(
            "read a graph of {} tensors instead of an error",
            g.tensors.len()
        ),
        Err(e) => e.to_string(),
    }
}

fn assert_names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

// ---------------------------------------------------------------- limits

#[test]
fn an_input_above_the_size_limit_is_refused_before_parsing() {
    let data = vec![b' '; MAX_INPUT_BYTES + 1];
    let e = read_error(&data, None);
    assert_names(&e, &["input size", "268435457", "limit of 268435456"]);
}

#[test]
fn a_tensor_of_2_to_the_60_bytes_names_the_tensor_and_the_limit() {
    let json = format!(
        r#"{{"tensors": [{{"name": "vast", "size": {}}}], "ops": [{{"outputs": ["vast"]}}]}}"#,
        1u64 << 60
    );
    let e = read_error(json.as_bytes(), None);
    assert_names(
        &e,
        &[
            "`vast`",
            &(1u64 << 60).to_string(),
            &MAX_TENSOR_BYTES.to_string(),
        ],
    );
    let csv = format!("id,lower,upper,size\nhuge,0,2,{}\n", u64::MAX);
    assert_names(&read_error(csv.as_bytes(), None), &["`huge`", "limit"]);
}

#[test]
fn sizes_whose_sum_overflows_64_bits_give_the_total_limit() {
    // 20,000 tensors of 1 PiB: 2^64.3 bytes in all
    let tensors: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"name": "t{i}", "size": {MAX_TENSOR_BYTES}}}"#))
        .collect();
    let ops: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"outputs": ["t{i}"]}}"#))
        .collect();
    let json = format!(
        r#"{{"tensors": [{}], "ops": [{}]}}"#,
        tensors.join(","),
        ops.join(",")
    );
    let e = read_error(json.as_bytes(), Some(Format::Native));
    assert_names(
        &e,
        &[
            "total size of the arena tensors",
            &MAX_TOTAL_BYTES.to_string(),
        ],
    );
    // the same through MiniMalloc CSV
    let mut csv = String::from("id,lower,upper,size\n");
    for i in 0..20_000 {
        csv += &format!("b{i},{i},{},{MAX_TENSOR_BYTES}\n", i + 1);
    }
    assert_names(&read_error(csv.as_bytes(), None), &["total size", "limit"]);
}

#[test]
fn units_that_overflow_64_bits_are_refused() {
    let json =
        r#"{"tensors": [{"name": "x", "size": "99999999999TiB"}], "ops": [{"outputs": ["x"]}]}"#;
    assert_names(
        &read_error(json.as_bytes(), None),
        &["`x`", "99999999999TiB"],
    );
}

#[test]
fn arena_sums_at_the_limit_plan_without_overflow() {
    // four tensors of 1 PiB alive together, with `naive` stacking all of them
    let tensors: Vec<Tensor> = (0..4)
        .map(|i| arena(format!("t{i}"), MAX_TENSOR_BYTES))
        .collect();
    let all: Vec<TensorId> = (0..4).map(TensorId).collect();
    let ops = vec![
        op("make".into(), vec![], all.clone()),
        op("use".into(), all, vec![]),
    ];
    let g = Graph::new("peta".into(), tensors, ops).unwrap();
    for strategy in Strategy::ALL {
        let plan = memplan::plan(&g, strategy, &Options::default()).unwrap();
        assert!(check::check(&g, &plan).is_empty(), "{}", strategy.name());
        assert_eq!(plan.peak_bytes, 4 * MAX_TENSOR_BYTES, "{}", strategy.name());
    }
}

use memplan_testkit::pb;

/// A model `x -> Relu -> z` (the second op unnamed), with `extra` appended to the graph.
fn relu(x_dims: &[i64], extra: &[u8]) -> Vec<u8> {
    let unnamed = [
        pb::bytes(1, b"y"),
        pb::bytes(2, b"z"),
        pb::bytes(4, b"Relu"),
    ]
    .concat();
    pb::model_graph(
        x_dims,
        &[],
        &[pb::node("act", "Relu", &["x"], &["y"]), unnamed],
        extra,
    )
}

#[test]
fn a_shape_of_2_to_the_40_by_2_to_the_40_names_the_tensor() {
    let data = relu(&[1 << 40, 1 << 40], &[]);
    assert_eq!(Format::detect(&data).unwrap(), Format::Onnx);
    let e = read_error(&data, None);
    assert_names(&e, &["`x`", "limit", &MAX_TENSOR_BYTES.to_string()]);
    // dimensions whose product overflows even 128 bits
    let e = read_error(&relu(&[i64::MAX; 4], &[]), None);
    assert_names(&e, &["`x`", "limit"]);
    // the same through the command line shape override
    let mut args = formats::ReadOptions::default();
    args.input_shapes
        .push(formats::parse_input_shape("x=1099511627776x1099511627776").unwrap());
    let e = formats::read_with(&relu(&[1, 1], &[]), None, "m", &args)
        .unwrap_err()
        .to_string();
    assert_names(&e, &["`x`", "limit"]);
}

#[test]
fn deeply_nested_input_is_an_error_not_a_stack_overflow() {
    let deep_json = format!(
        r#"{{"tensors": [], "ops": {}{}}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    // detection skips the nesting without recursing; the reader stops at the first
    // value of the wrong type
    let e = read_error(deep_json.as_bytes(), None);
    assert_names(&e, &["native json", "line 1"]);
    assert!(
        e.contains("recursion limit") || e.contains("invalid type: sequence"),
        "{e}"
    );
    let deep_value = format!(
        r#"{{"Nodes": {}{}, "tensors": []}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    assert!(!formats::is_npu_case(deep_value.as_bytes()));
    assert_names(
        &read_error(deep_value.as_bytes(), None),
        &["unknown field `Nodes`"],
    );
    // a message nested 100,000 deep inside an ONNX graph (an unknown field) is skipped
    let mut nested = Vec::new();
    for _ in 0..100_000 {
        nested = pb::bytes(6, &nested);
    }
    let g = formats::read(&relu(&[2, 3], &pb::bytes(99, &nested)), None, "m").unwrap();
    assert_eq!(g.ops.len(), 2);
}

// ---------------------------------------------------------------- hostile snapshots

/// A pickle that would run code, one cut short, one with a string of 2^60 bytes,
/// a million nested lists and gzip that is not: each read as any file is (format
/// detected) gives an error naming what is wrong, never a panic or a hang.
#[test]
fn hostile_snapshots_are_refused_in_words() {
    let code = b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.";
    assert_names(
        &read_error(code, None),
        &["GLOBAL", "would import or call Python code"],
    );
    let whole = std::fs::read(memplan_testkit::root().join("tests/data/mlp_train.pickle")).unwrap();
    assert_names(
        &read_error(&whole[..whole.len() / 3], None),
        &["pickle", "truncated"],
    );
    let vast = b"\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x10abc.";
    assert_names(
        &read_error(vast, None),
        &["truncated", "1152921504606846976 bytes needed"],
    );
    let mut deep = b"\x80\x04".to_vec();
    deep.extend(std::iter::repeat_n(b']', 1_000_000));
    deep.extend(std::iter::repeat_n(b'a', 999_999));
    deep.push(b'.');
    assert_names(
        &read_error(&deep, None),
        &["no dict", "not a memory snapshot"],
    );
    assert_names(&read_error(b"\x1f\x8bnot gzip at all", None), &["gzip"]);
}

// ---------------------------------------------------------------- deep and wide graphs

/// `n` ops in a chain: op k reads tensor k and writes tensor k + 1; ops listed last first.
fn chain(n: usize) -> Graph {
    let tensors = (0..=n)
        .map(|i| arena(format!("t{i}"), 64 + (i as u64 % 7) * 32))
        .collect();
    let ops = (0..n)
        .rev()
        .map(|k| {
            op(
                format!("op{k}"),
                vec![TensorId(k as u32)],
                vec![TensorId(k as u32 + 1)],
            )
        })
        .collect();
    let mut tensors: Vec<Tensor> = tensors;
    tensors[0].role = Role::Input;
    Graph::new("chain".into(), tensors, ops).unwrap()
}

/// Strategies that stay near-linear on long graphs. `first-fit`, `greedy-size` and
/// `best-fit` compare each buffer with every buffer placed before it (quadratic:
/// hours on a million buffers), so they run on the shorter graphs below.
const LINEAR: [Strategy; 2] = [Strategy::Naive, Strategy::Pools];
const QUADRATIC: [Strategy; 3] = [Strategy::GreedySize, Strategy::FirstFit, Strategy::BestFit];

fn plan_and_check(g: &Graph, order: OrderKind, strategies: &[Strategy]) {
    let opts = Options {
        order,
        ..Options::default()
    };
    let analysis = memplan::analyse(g, &opts).unwrap();
    assert_eq!(analysis.order.len(), g.ops.len());
    for &strategy in strategies {
        let plan = analysis.plan(g, strategy);
        assert!(check::check(g, &plan).is_empty(), "{}", strategy.name());
    }
}

#[test]
fn a_million_op_chain_plans_without_stack_overflow() {
    let started = Instant::now();
    let g = chain(1_000_000);
    for order in [OrderKind::Kahn, OrderKind::Dfs] {
        plan_and_check(&g, order, &LINEAR);
    }
    let took = started.elapsed();
    if !cfg!(debug_assertions) {
        assert!(took < Duration::from_secs(30), "{took:?}");
    }
    eprintln!("1,000,000-op chain: two orders, naive and pools, checked in {took:?}");
    let started = Instant::now();
    plan_and_check(&chain(10_000), OrderKind::Dfs, &QUADRATIC);
    eprintln!(
        "10,000-op chain: the fitting strategies in {:?}",
        started.elapsed()
    );
}

#[test]
fn a_long_chain_reads_from_json() {
    let n = 200_000;
    let mut json = String::from(r#"{"tensors": [{"name": "t0", "size": 8, "kind": "input"}"#);
    for i in 1..=n {
        json += &format!(r#",{{"name": "t{i}", "size": 8}}"#);
    }
    json += r#"], "ops": ["#;
    for k in 0..n {
        let sep = if k == 0 { "" } else { "," };
        json += &format!(r#"{sep}{{"inputs": ["t{k}"], "outputs": ["t{}"]}}"#, k + 1);
    }
    json += "]}";
    let g = formats::read(json.as_bytes(), None, "chain").unwrap();
    let plan = memplan::plan(&g, Strategy::Naive, &Options::default()).unwrap();
    assert_eq!(plan.peak_bytes, 8 * n as u64);
}

#[test]
fn a_million_op_cycle_is_named_without_recursion() {
    let n = 1_000_000;
    let tensors = (0..n).map(|i| arena(format!("t{i}"), 1)).collect();
    let ops = (0..n)
        .map(|k| {
            op(
                format!("op{k}"),
                vec![TensorId(k as u32)],
                vec![TensorId(((k + 1) % n) as u32)],
            )
        })
        .collect();
    let g = Graph::new("ring".into(), tensors, ops).unwrap();
    let e = memplan::analyse(&g, &Options::default()).unwrap_err();
    assert!(e.is_cycle());
    assert!(e.to_string().starts_with("the graph has a cycle: `op"));
}

#[test]
fn a_hundred_thousand_way_fan_out_plans() {
    let n = 100_000u32;
    let mut tensors = vec![arena("root".into(), 1 << 20)];
    tensors.extend((0..n).map(|i| arena(format!("leaf{i}"), 1 + u64::from(i % 3))));
    let ops = (0..n)
        .map(|i| op(format!("op{i}"), vec![TensorId(0)], vec![TensorId(i + 1)]))
        .chain([op("src".into(), vec![], vec![TensorId(0)])])
        .collect();
    let g = Graph::new("fan".into(), tensors, ops).unwrap();
    plan_and_check(&g, OrderKind::Kahn, &LINEAR);
}

// ---------------------------------------------------------------- property tests at volume

/// splitmix64: small, seeded, the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Sizes by the graph's mood: all equal, tiny, round, or huge and tiny mixed.
fn size(rng: &mut Rng, mood: u64) -> u64 {
    match mood {
        0 => 4096,
        1 => rng.below(16),
        2 => [64, 128, 256, 1024, 4096][rng.below(5) as usize],
        _ => match rng.below(6) {
            0 => 0,
            1 => 1 + rng.below(63),
            2 => (1 + rng.below(1 << 10)) << 30,
            3 => MAX_TENSOR_BYTES >> rng.below(8),
            _ => 1 + rng.below(1 << 20),
        },
    }
}

/// A random graph of 1 to 40 tensors: a chain, a fan-out, diamonds, a random DAG
/// with ops listed in a shuffled order, or MiniMalloc-like fixed lifetimes.
fn random_graph(rng: &mut Rng) -> Graph {
    let n = 1 + rng.below(40) as usize;
    let mood = rng.below(4);
    let shape = rng.below(5);
    let mut tensors: Vec<Tensor> = (0..n)
        .map(|i| arena(format!("t{i}"), size(rng, mood)))
        .collect();
    if shape == 4 {
        for t in &mut tensors {
            let start = rng.below(60) as u32;
            t.lifetime = Some(Lifetime::new(start, start + rng.below(20) as u32));
        }
        return Graph::new("intervals".into(), tensors, vec![]).unwrap();
    }
    let t = |i: usize| TensorId(i as u32);
    let mut ops: Vec<Op> = Vec::new();
    let mut add = |inputs: Vec<TensorId>, outputs: Vec<TensorId>| {
        let name = format!("op{}", ops.len());
        ops.push(op(name, inputs, outputs));
    };
    match shape {
        0 => {
            add(vec![], vec![t(0)]);
            (1..n).for_each(|i| add(vec![t(i - 1)], vec![t(i)]));
        }
        1 => {
            add(vec![], vec![t(0)]);
            (1..n).for_each(|i| add(vec![t(0)], vec![t(i)]));
        }
        2 => {
            // diamonds: a split into two branches joined again, repeated
            add(vec![], vec![t(0)]);
            let mut i = 1;
            while i + 2 < n {
                add(vec![t(i - 1)], vec![t(i)]);
                add(vec![t(i - 1)], vec![t(i + 1)]);
                add(vec![t(i), t(i + 1)], vec![t(i + 2)]);
                i += 3;
            }
            (i..n).for_each(|j| add(vec![t(j - 1)], vec![t(j)]));
        }
        _ => {
            let mut made = 0;
            while made < n {
                let outs = (1 + rng.below(2) as usize).min(n - made);
                let mut inputs: Vec<TensorId> = (0..rng.below(4))
                    .filter(|_| made > 0)
                    .map(|_| t(rng.below(made as u64) as usize))
                    .collect();
                inputs.sort();
                inputs.dedup();
                add(inputs, (made..made + outs).map(t).collect());
                made += outs;
            }
        }
    }
    for i in (1..ops.len()).rev() {
        ops.swap(i, rng.below(i as u64 + 1) as usize);
    }
    Graph::new("random".into(), tensors, ops).unwrap()
}

fn random_options(rng: &mut Rng) -> Options {
    let order = match rng.below(20) {
        0 => OrderKind::Memory,
        1..=7 => OrderKind::Dfs,
        _ => OrderKind::Kahn,
    };
    let align = [1, 1, 1, 8, 64, 100, 3][rng.below(7) as usize];
    Options {
        order,
        live: LiveOptions {
            keep_outputs: rng.chance(30),
        },
        pack: PackOptions {
            budget_ms: 1,
            ..PackOptions::new(align).unwrap()
        },
    }
}

/// Plans graph number `k` of the seeded stream under every fast strategy (and,
/// on every 25th graph, the searching ones with a budget of 1 ms) and checks each
/// plan. Returns how many plans were checked.
fn plan_random(k: u64) -> usize {
    let mut rng = Rng(k.wrapping_mul(0x2545f4914f6cdd1d) ^ 0x6d656d706c616e);
    let g = random_graph(&mut rng);
    let opts = random_options(&mut rng);
    let analysis = memplan::analyse(&g, &opts).unwrap_or_else(|e| panic!("graph {k}: {e}"));
    let mut checked = 0;
    for strategy in Strategy::ALL {
        if strategy.searches() && !k.is_multiple_of(25) {
            continue;
        }
        let plan = analysis.plan(&g, strategy);
        let violations = check::check(&g, &plan);
        assert!(
            violations.is_empty(),
            "graph {k} ({opts:?}), {}: {violations:?}\n{g:?}",
            strategy.name()
        );
        assert!(
            plan.peak_bytes >= plan.lower_bound,
            "graph {k}, {}",
            strategy.name()
        );
        checked += 1;
    }
    checked
}

#[test]
fn a_hundred_thousand_random_graphs_plan_and_check() {
    let graphs: u64 = if std::env::var_os("MEMPLAN_LONG").is_some() {
        1_000_000
    } else {
        100_000
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let started = Instant::now();
    let plans: usize = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                s.spawn(move || {
                    (w..graphs)
                        .step_by(threads as usize)
                        .map(plan_random)
                        .sum::<usize>()
                })
            })
            .collect();
        workers.into_iter().map(|h| h.join().unwrap()).sum()
    });
    eprintln!(
        "{graphs} random graphs, {plans} plans checked on {threads} threads in {:?}",
        started.elapsed()
    );
    assert!(plans as u64 >= graphs * 5);
}

// ---------------------------------------------------------------- determinism

/// The plan JSON of every strategy on `g`.
fn plan_bytes(g: &Graph) -> Vec<Vec<u8>> {
    let analysis = memplan::analyse(g, &Options::default()).unwrap();
    Strategy::ALL
        .iter()
        .map(|&s| serde_json::to_vec(&analysis.plan(g, s)).unwrap())
        .collect()
}

#[test]
fn every_corpus_graph_plans_to_the_same_bytes_twice() {
    let mut files = Vec::new();
    for (sub, ext) in [("graphs", "json"), ("minimalloc", "csv")] {
        let Some(dir) = memplan_testkit::corpus_dir(sub) else {
            return;
        };
        files.extend(memplan_testkit::files(&dir, ext));
    }
    files.push(memplan_testkit::root().join("examples/transformer_layer.json"));
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let g = formats::read(&data, None, "g").unwrap();
        // separate reads, separate analyses: hash maps seeded differently each time
        let again = formats::read(&data, None, "g").unwrap();
        assert_eq!(plan_bytes(&g), plan_bytes(&again), "{}", path.display());
    }
}

// ---------------------------------------------------------------- fuzz regressions
//
// Inputs the fuzz targets crash on go here, inline as bytes. The runs so far
// (fuzz/run.sh 60: every target, about 1M executions in all) found none.
