//! Shared by the fuzz targets: planning a graph under every strategy and checking
//! each plan, and building small graphs from fuzz bytes.

use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use memplan::liveness::{LiveOptions, Lifetime};
use memplan::order::OrderKind;
use memplan::{check, Options, PackOptions, Strategy};

/// Graphs above this many tensors are read but not planned (planning every
/// strategy on a whole model would leave little time for the reader).
const MAX_PLANNED: usize = 2000;
/// The searching strategies run only on graphs up to this many tensors.
const MAX_SEARCHED: usize = 200;

/// Plans `graph` with every strategy under `opts` (the searching ones on the
/// smallest budget) and panics on any plan the checker refuses.
pub fn plan_and_check_with(graph: &Graph, opts: Options) {
    if graph.tensors.len() > MAX_PLANNED {
        return;
    }
    let opts = Options {
        pack: PackOptions {
            budget_ms: 1,
            ..opts.pack
        },
        ..opts
    };
    let Ok(analysis) = memplan::analyse(graph, &opts) else {
        return;
    };
    for strategy in Strategy::ALL {
        if strategy.searches() && graph.tensors.len() > MAX_SEARCHED {
            continue;
        }
        let plan = analysis.plan(graph, strategy);
        let violations = check::check(graph, &plan);
        assert!(
            violations.is_empty(),
            "{} made an invalid plan: {violations:?}",
            strategy.name()
        );
        assert!(plan.peak_bytes >= plan.lower_bound, "{} beat the lower bound", strategy.name());
    }
}

/// [`plan_and_check_with`] in Kahn order, no alignment.
pub fn plan_and_check(graph: &Graph) {
    plan_and_check_with(graph, Options::default());
}

/// Reads bytes one at a time; zeros once they run out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A size mixing zeros, tiny, repeated, large and huge values.
    pub fn size(&mut self) -> u64 {
        let kind = self.byte();
        let v = u64::from(self.byte());
        match kind % 8 {
            0 => 0,
            1 | 2 => v,
            3 => 4096,
            4 => v << 10,
            5 => (v + 1) << 20,
            6 => (v + 1) << 40,
            _ => memplan::graph::MAX_TENSOR_BYTES >> (v % 8),
        }
    }
}

/// Options and a graph of at most 40 tensors from `data`: either a DAG (ops
/// reading earlier tensors, listed in a shuffled order) or buffers with given
/// lifetimes and no ops. `None` when the sizes exceed the graph limits.
pub fn graph_from_bytes(data: &[u8]) -> Option<(Graph, Options)> {
    let mut b = Bytes(data);
    let flags = b.byte();
    let align = [1u64, 1, 8, 64, 100, 4096, 3, 1 << 20][usize::from(flags & 7)];
    let order = [OrderKind::Kahn, OrderKind::Dfs, OrderKind::Memory, OrderKind::Kahn]
        [usize::from((flags >> 3) & 3)];
    let opts = Options {
        order,
        live: LiveOptions {
            keep_outputs: flags & 0x20 != 0,
        },
        pack: PackOptions::new(align).ok()?,
    };
    let graph = if flags & 0x40 != 0 {
        intervals(&mut b)
    } else {
        dag(&mut b)
    };
    graph.ok().map(|g| (g, opts))
}

fn tensor(name: String, size: u64, lifetime: Option<Lifetime>) -> Tensor {
    Tensor {
        name,
        size,
        role: Role::Arena,
        level: None,
        lifetime,
    }
}

fn dag(b: &mut Bytes) -> Result<Graph, memplan::Error> {
    let mut tensors: Vec<Tensor> = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    while !b.is_empty() && tensors.len() < 40 {
        let shape = b.byte();
        let mut inputs: Vec<TensorId> = Vec::new();
        for _ in 0..(shape & 3) {
            if !tensors.is_empty() {
                let pick = usize::from(b.byte()) % tensors.len();
                inputs.push(TensorId(pick as u32));
            }
        }
        inputs.sort();
        inputs.dedup();
        let mut outputs = Vec::new();
        for _ in 0..1 + ((shape >> 2) & 1) {
            tensors.push(tensor(format!("t{}", tensors.len()), b.size(), None));
            outputs.push(TensorId(tensors.len() as u32 - 1));
        }
        ops.push(Op {
            name: format!("op{}", ops.len()),
            kind: String::new(),
            inputs,
            outputs,
        });
    }
    let mut seed = u64::from(b.byte());
    for i in (1..ops.len()).rev() {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ops.swap(i, (seed >> 33) as usize % (i + 1));
    }
    Graph::new("fuzz".into(), tensors, ops)
}

fn intervals(b: &mut Bytes) -> Result<Graph, memplan::Error> {
    let mut tensors = Vec::new();
    while !b.is_empty() && tensors.len() < 40 {
        let start = u32::from(b.byte());
        let len = u32::from(b.byte() % 64);
        let size = b.size();
        let name = format!("b{}", tensors.len());
        tensors.push(tensor(name, size, Some(Lifetime::new(start, start + len))));
    }
    Graph::new("fuzz".into(), tensors, Vec::new())
}
