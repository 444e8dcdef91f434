//! memplan: a static memory planner for computation graphs.
//!
//! The pipeline is a list of phase calls, one module each: order the ops
//! ([`order`]), derive lifetimes and the lower bound ([`liveness`]), colour the
//! interference graph into pools ([`interference`]), assign offsets ([`pack`]).
//! [`check`] verifies any plan independently. The readers (`memplan-formats`),
//! the charts (`memplan-render`), the page's wasm and the CLI are crates of their
//! own above this one: nothing in the core reads files or draws, and Cargo keeps
//! it so.

pub mod check;
pub mod dims;
pub mod error;
pub mod graph;
pub mod id;
pub mod interference;
pub mod liveness;
pub mod order;
pub mod pack;
pub mod plan;
pub mod pool;
pub mod report;
pub mod rng;
pub mod sort;
pub mod teach;
pub mod units;

pub use error::Error;
pub use graph::Graph;
pub use pack::{Budget, PackOptions, Strategy};
pub use plan::Plan;
pub use report::PlanReport;

use interference::Colouring;
use liveness::{LiveOptions, Liveness};
use order::OrderKind;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub order: OrderKind,
    pub live: LiveOptions,
    pub pack: PackOptions,
}

/// Everything a strategy needs, computed once per graph.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub order: Vec<graph::OpId>,
    pub liveness: Liveness,
    pub colouring: Colouring,
    pub naive_bytes: u64,
    opts: Options,
}

/// Orders the ops, derives lifetimes and colours them.
pub fn analyse(graph: &Graph, opts: &Options) -> Result<Analysis, Error> {
    let order = order::topological_for(graph, opts.order, opts.live)?;
    let liveness = liveness::analyse(graph, &order, opts.live)?;
    let colouring = interference::colour(&liveness.buffers);
    let naive_bytes = graph.naive_bytes();
    Ok(Analysis {
        order,
        liveness,
        colouring,
        naive_bytes,
        opts: *opts,
    })
}

/// Plans `graph` with `strategy`.
pub fn plan(graph: &Graph, strategy: Strategy, opts: &Options) -> Result<Plan, Error> {
    Ok(analyse(graph, opts)?.plan(graph, strategy))
}

/// The plan of one body of an op (an `If` branch, a `Loop` body): a nested
/// arena, in use only while its op runs. `path` names it from the main graph.
#[derive(Clone, Debug)]
pub struct Nested<'g> {
    pub path: String,
    pub graph: &'g Graph,
    pub plan: Plan,
}

/// Plans every body of `graph`'s ops (and theirs, depth first) with `strategy`.
pub fn plan_nested<'g>(
    graph: &'g Graph,
    strategy: Strategy,
    opts: &Options,
) -> Result<Vec<Nested<'g>>, Error> {
    graph
        .bodies()
        .into_iter()
        .map(|(path, graph)| {
            Ok(Nested {
                path,
                graph,
                plan: plan(graph, strategy, opts)?,
            })
        })
        .collect()
}

impl Analysis {
    /// Offsets from `strategy`, gathered into a [`Plan`]; the searching strategies
    /// run on a deterministic work budget (see [`PackOptions::budget_ms`]).
    pub fn plan(&self, graph: &Graph, strategy: Strategy) -> Plan {
        self.plan_within(
            graph,
            strategy,
            &mut Budget::work_for_ms(self.opts.pack.budget_ms),
        )
    }

    /// Like [`Analysis::plan`], within `budget` (a clock the caller supplies, or
    /// work units). `reorder` also tries the memory-aware order and keeps the
    /// plan with the lower peak.
    pub fn plan_within(&self, graph: &Graph, strategy: Strategy, budget: &mut Budget) -> Plan {
        if strategy == Strategy::Reorder {
            return self.plan_reordered(graph, budget);
        }
        let packed = strategy.pack_within(&self.liveness.buffers, self.opts.pack, budget);
        self.gather(graph, strategy, packed)
    }

    /// `search` on this order and on the memory-aware order, the lower peak kept
    /// (this order on ties).
    fn plan_reordered(&self, graph: &Graph, budget: &mut Budget) -> Plan {
        let opts = Options {
            order: OrderKind::Memory,
            ..self.opts
        };
        let other = analyse(graph, &opts).ok().filter(|a| a.order != self.order);
        let share = if other.is_some() { 0.5 } else { 1.0 };
        let mut plan = budget.share(share, |b| self.plan_within(graph, Strategy::Search, b));
        if let Some(other) = other {
            let there = other.plan_within(graph, Strategy::Search, budget);
            if there.peak_bytes < plan.peak_bytes {
                plan = there;
            }
        }
        plan.strategy = Strategy::Reorder.name().to_string();
        plan
    }

    fn gather(&self, graph: &Graph, strategy: Strategy, packed: pack::Packed) -> Plan {
        let buffers = &self.liveness.buffers;
        let offsets = packed.offsets;
        let tensors = buffers
            .iter()
            .zip(&offsets)
            .zip(&self.colouring.pool_of)
            .map(|((b, &offset), &pool)| plan::Placement {
                id: b.tensor.0,
                name: graph.tensor(b.tensor).name.clone(),
                size: b.size,
                start: b.life.start,
                end: b.life.end,
                offset,
                pool,
            })
            .collect();
        let peak_bytes = pack::peak(buffers, &offsets);
        Plan {
            graph: graph.name.clone(),
            strategy: strategy.name().to_string(),
            order_kind: self.opts.order.name().to_string(),
            align: self.opts.pack.align,
            keep_outputs: self.opts.live.keep_outputs,
            steps: self.liveness.steps,
            lower_bound: self.liveness.lower_bound,
            naive_bytes: self.naive_bytes,
            peak_bytes,
            proven_optimal: peak_bytes <= packed.proven_bound,
            proven_bound: packed.proven_bound.min(peak_bytes),
            pools: self.colouring.pools(),
            pooled_bytes: self.colouring.pooled_bytes(),
            order: self.order.iter().map(|o| o.0).collect(),
            tensors,
        }
    }
}
