//! Walking a graph: its nodes in a topological order, and importing each node
//! (its handler's inference, the declared types, folding and evaluation) into
//! the frame of the graph being walked.

use super::inputs::static_shape;
use super::monotone;
use super::ops::{self, Ctx, Handler};
use super::shape::{self, Data, Info, Out};
use super::{dtype, eval, proto, Source, Walker, DATA_BUDGET, F};
use crate::import::Node;
use memplan::error::Error;
use memplan::graph::{Bound, Subgraph};
use std::collections::{BinaryHeap, HashMap, HashSet};

/// Op types whose outputs are never folded (each run differs).
const RANDOM: &[&str] = &[
    "RandomUniformLike",
    "RandomNormalLike",
    "Bernoulli",
    "Multinomial",
    "RandomUniform",
    "RandomNormal",
];

impl Walker<'_> {
    pub(super) fn walk_nodes(&mut self, g: &proto::Graph, main: bool) -> Result<(), Error> {
        let order = topological(g);
        if order.iter().enumerate().any(|(i, &k)| i != k) {
            let place = if main { "the model" } else { "a subgraph" };
            self.notes.push(format!(
                "the node list of {place} `{}` is not topologically sorted; memplan ordered it",
                g.name
            ));
        }
        for k in order {
            self.node(&g.nodes[k], k)?;
        }
        Ok(())
    }

    /// Imports one node: resolves its inputs, infers, folds and defines its outputs.
    fn node(&mut self, node: &proto::Node, k: usize) -> Result<(), Error> {
        let label = if node.name.is_empty() {
            format!("#{k}")
        } else {
            node.name.clone()
        };
        let domain = if node.domain.is_empty() {
            "ai.onnx"
        } else {
            node.domain.as_str()
        };
        let at = || Some(format!("op `{label}` ({}, domain {domain})", node.op_type));
        let mut ids = Vec::with_capacity(node.inputs.len());
        for name in &node.inputs {
            if name.is_empty() {
                ids.push(None);
                continue;
            }
            let id = self.lookup(name).ok_or_else(|| {
                Error::parse(F, at(), format!("input `{name}` is not defined by an earlier op, a graph input or an initializer"))
            })?;
            ids.push(Some(id));
        }
        let mut infos: Vec<Option<Info>> = {
            let f = self.top();
            ids.iter().map(|i| i.map(|i| f.infos[i].clone())).collect()
        };
        // the data of values planned at a bound, only where more gives more
        let own_domain = if node.domain == "ai.onnx" {
            ""
        } else {
            node.domain.as_str()
        };
        let guarded = monotone::guard(own_domain, &node.op_type, &mut infos);
        let bounded_input = infos.iter().flatten().any(|i| i.bounded);
        let refs: Vec<Option<&Info>> = infos.iter().map(Option::as_ref).collect();
        let opset = self.opsets.get(node.domain.as_str()).copied().unwrap_or(1);
        let ctx = Ctx::new(node, &refs, opset);
        let to_infos = |out: Out| out.into_iter().map(|(d, s)| Info::new(d, s)).collect();
        let inferred: Result<Vec<Info>, String> = match ops::lookup(&node.domain, &node.op_type) {
            Some(Handler::Plain(f)) => f(&ctx).map(to_infos),
            Some(Handler::Bodies(f)) => f(&ctx, self).map(to_infos),
            Some(Handler::Values(f)) => f(&ctx),
            None => Err(format!(
                "no shape inference for op type `{}` of domain {domain} (memplan uses the file's value_info where it has none: run onnx.shape_inference on the model, or give {GIVE_SHAPE})",
                node.op_type
            )),
        };
        let worst = ctx.worst_cases();
        let unbounded: Vec<(usize, Result<Vec<Info>, String>)> = (ctx.unbounded().into_iter())
            .map(|(j, why)| {
                (
                    j,
                    Err(format!(
                        "{}: {}",
                        ops::DATA_DEPENDENT,
                        self.explained(why, &ids)
                    )),
                )
            })
            .collect();
        let inferred = inferred.map_err(|why| {
            let at_bound = ops::unknown_input(&why)
                .and_then(|k| infos.get(k)?.as_ref())
                .is_some_and(|i| i.bounded);
            if at_bound {
                // the value is computed from a size planned at its bound, through
                // an op that could make a larger size smaller (see `monotone`)
                format!(
                    "{}: {why}: it is computed from a size that depends on the input data, planned at its bound, which cannot stand for it here",
                    ops::DATA_DEPENDENT
                )
            } else {
                self.explained(why, &ids)
            }
        });
        let inferred = inferred.and_then(|out| {
            for i in &out {
                shape::valid(&i.shape)?;
                i.seq.iter().flatten().try_for_each(|s| shape::valid(s))?;
            }
            Ok(out)
        });
        // bodies read values of this graph: they become inputs of the node
        let mut bodies = std::mem::take(&mut self.pending);
        let mut extra = Vec::new();
        for (_, _, captured) in &bodies {
            for name in captured {
                let id = self.lookup(name).expect("a captured name resolves outside");
                if !extra.contains(&id) && !ids.contains(&Some(id)) {
                    extra.push(id);
                }
            }
        }
        let subs = bodies.drain(..).map(|(attribute, graph, _)| Subgraph {
            op: label.clone(),
            attribute,
            graph,
        });
        self.top().subgraphs.extend(subs);
        let mut all_inputs: Vec<usize> = ids.iter().flatten().copied().collect();
        all_inputs.extend(&extra);
        let folded = {
            let f = self.top();
            node.op_type == "Constant"
                || node.op_type == "Shape"
                || (!all_inputs.is_empty()
                    && all_inputs.iter().all(|&i| f.infos[i].konst)
                    && !RANDOM.contains(&node.op_type.as_str()))
        };
        let given = self.bounds_given(node, &inferred, &worst);
        let mut outs = Vec::with_capacity(node.outputs.len());
        for (j, name) in node.outputs.iter().enumerate() {
            let why = worst
                .iter()
                .find(|(k, _)| *k == j)
                .map(|(_, why)| why.as_str());
            let known = unbounded
                .iter()
                .find(|(k, _)| *k == j)
                .map_or(&inferred, |(_, e)| e);
            let ty = self
                .output_type(name, j, known, why, given[j].as_deref())
                .map_err(|why| match why {
                    Why::Bad(why) => Error::parse(F, at(), why),
                    Why::NeedsShape(why) => Error::needs_shape(F, at(), name, why),
                })?;
            outs.push(ty);
        }
        let out_types: Out = outs.iter().map(|(i, _)| i.ty()).collect();
        let evaluate = (folded || node.op_type == "Size") && self.data_used < DATA_BUDGET;
        let data = if evaluate {
            eval::eval(node, &refs, &out_types)
        } else {
            vec![None; outs.len()]
        };
        let mut outputs = Vec::with_capacity(outs.len());
        for ((name, (mut info, mut source)), data) in node.outputs.iter().zip(outs).zip(data) {
            if name.is_empty() {
                continue; // an omitted optional output
            }
            if info.data.is_none() {
                info.data = data;
            }
            info.bounded = bounded_input || matches!(source, Source::WorstCase | Source::User);
            if guarded {
                info.data = None;
            }
            self.data_used += info.data.as_ref().map_or(0, Data::len);
            if self.data_used > DATA_BUDGET {
                info.data = None;
            }
            if info.data.is_some() && source == Source::Inferred {
                source = Source::Evaluated;
            }
            info.konst = folded;
            let id = self
                .define(name, info, source)
                .map_err(|e| Error::parse(F, at(), e.to_string()))?;
            outputs.push(id);
        }
        let kind = if node.domain.is_empty() {
            node.op_type.clone()
        } else {
            format!("{}.{}", node.domain, node.op_type)
        };
        self.top().nodes.push(Node {
            name: Some(node.name.clone()),
            kind,
            inputs: all_inputs,
            outputs,
            folded,
        });
        Ok(())
    }

    /// The shape the user gave for each output of `node`, if any. Outputs at one
    /// worst case share a bound given for any of them (TopK's values and
    /// indices, Unique's), so that one bound keeps them consistent.
    fn bounds_given(
        &self,
        node: &proto::Node,
        inferred: &Result<Vec<Info>, String>,
        worst: &[(usize, String)],
    ) -> Vec<Option<Vec<u64>>> {
        let user = |name: &String| {
            (self.opts.value_shapes.iter())
                .find(|(n, _)| n == name)
                .map(|(_, dims)| dims.clone())
        };
        let mut given: Vec<Option<Vec<u64>>> = node.outputs.iter().map(user).collect();
        let shape = |j: usize| {
            inferred
                .as_ref()
                .ok()
                .and_then(|o| o.get(j))
                .map(|i| &i.shape)
        };
        for &(j, _) in worst {
            let shared = (worst.iter())
                .find(|&&(k, _)| k != j && given[k].is_some() && shape(k) == shape(j))
                .and_then(|&(k, _)| given[k].clone());
            if given[j].is_none() {
                given[j] = shared;
            }
        }
        given
    }

    /// A handler's reason, with the graph inputs that the value it names as
    /// unknown is computed from.
    fn explained(&mut self, why: String, ids: &[Option<usize>]) -> String {
        match ops::unknown_input(&why).and_then(|i| ids.get(i).copied().flatten()) {
            Some(id) => format!("{why}{}", self.provenance(id)),
            None => why,
        }
    }

    /// Which inputs of the graph being walked the value of `id` is computed from,
    /// as words for an error (empty when `id` is such an input itself).
    fn provenance(&mut self, id: usize) -> String {
        let f = self.top();
        let mut producer: HashMap<usize, usize> = HashMap::new();
        for (k, n) in f.nodes.iter().enumerate() {
            for &o in &n.outputs {
                producer.insert(o, k);
            }
        }
        let (mut stack, mut seen, mut roots) = (vec![id], HashSet::new(), Vec::new());
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || f.infos[v].data.is_some() {
                continue;
            }
            match producer.get(&v) {
                Some(&k) => stack.extend(&f.nodes[k].inputs),
                None if f.inputs.contains(&v) && v != id => roots.push(f.values[v].name.clone()),
                None => {}
            }
        }
        if roots.is_empty() {
            return String::new();
        }
        memplan::sort::by(&mut roots, Ord::cmp);
        let names: Vec<String> = roots.iter().map(|r| format!("`{r}`")).collect();
        format!(
            " (it is computed from the value of input {})",
            names.join(", ")
        )
    }

    /// What is known of output `j` named `name`: the user's shape, else
    /// inference, else the declared type. `given` is the user's shape, `worst`
    /// says why, when inference gave
    /// the output's worst case (a size that depends on the data): the value is
    /// listed among the graph's bounds.
    fn output_type(
        &mut self,
        name: &str,
        j: usize,
        inferred: &Result<Vec<Info>, String>,
        worst: Option<&str>,
        given: Option<&[u64]>,
    ) -> Result<(Info, Source), Why> {
        let from_infer = inferred.as_ref().ok().and_then(|o| o.get(j).cloned());
        let bound = |dims: &[i64], given: bool| {
            let worst = worst.zip(from_infer.as_ref())?;
            let unsigned = |d: &[i64]| d.iter().map(|&d| d.max(0) as u64).collect();
            Some(Bound {
                value: name.to_string(),
                dims: unsigned(dims),
                worst: unsigned(&worst.1.shape),
                why: worst.0.to_string(),
                given,
            })
        };
        let declared = self.declared.get(name).copied();
        let from_decl = declared.and_then(static_shape);
        if let Some(dims) = given {
            let dt = from_infer
                .as_ref()
                .map(|t| t.dtype)
                .or(declared.map(|d| d.elem_type))
                .filter(|&d| d != 0)
                .unwrap_or(dtype::FLOAT);
            let dims = dims
                .iter()
                .map(|&d| {
                    i64::try_from(d)
                        .map_err(|_| Why::Bad(format!("dimension {d} of `{name}` is too large")))
                })
                .collect::<Result<Vec<i64>, _>>()?;
            if let Some(b) = bound(&dims, true) {
                let above = b.dims.len() != b.worst.len()
                    || b.dims.iter().zip(&b.worst).any(|(d, w)| d > w);
                if above {
                    self.notes.push(format!(
                        "`{name}`: the bound given, {:?}, is not within its worst case {:?} ({})",
                        b.dims, b.worst, b.why
                    ));
                }
                self.bounds.push(b);
            }
            return Ok((Info::new(dt, dims), Source::User));
        }
        if let (Some(b), Some(i)) = (bound(&[], false), &from_infer) {
            // a traced exporter declares the size it saw: the worst case is used
            self.bounds.push(Bound {
                dims: b.worst.clone(),
                ..b
            });
            return Ok((i.clone(), Source::WorstCase));
        }
        match (from_infer, from_decl) {
            (Some(i), Some(d)) => {
                if i.seq.is_none() && (d.1 != i.shape || (d.0 != 0 && d.0 != i.dtype)) {
                    self.notes.push(format!(
                        "`{name}`: the file declares {} {:?}, memplan infers {} {:?} (used)",
                        dtype::name(d.0),
                        d.1,
                        dtype::name(i.dtype),
                        i.shape
                    ));
                }
                Ok((i, Source::Inferred))
            }
            (Some(i), None) => Ok((i, Source::Inferred)),
            (None, Some(d)) if d.0 != 0 => Ok((Info::new(d.0, d.1), Source::Declared)),
            _ if name.is_empty() => Ok((Info::new(dtype::FLOAT, vec![]), Source::Inferred)),
            _ => {
                let why = inferred
                    .as_ref()
                    .err()
                    .cloned()
                    .unwrap_or_else(|| format!("output {j} cannot be inferred"));
                if let Some(rest) = why.strip_prefix(ops::DATA_DEPENDENT) {
                    Err(Why::NeedsShape(format!(
                        "the size of `{name}` depends on the input values{rest}; no worst case follows from the input shapes, so it needs an upper bound"
                    )))
                } else if why.contains(GIVE_SHAPE) {
                    let why = why.replace(GIVE_SHAPE, &format!("the shape of `{name}`"));
                    Err(Why::NeedsShape(format!(
                        "cannot infer the shape of `{name}`: {why}"
                    )))
                } else {
                    Err(Why::Bad(format!(
                        "cannot infer the shape of `{name}`: {why}"
                    )))
                }
            }
        }
    }
}

/// Where a handler's reason asks the user for a value's shape; the words that
/// name the value replace it once it is known. Messages name no flag or control:
/// the CLI and the page each say how a shape is given.
const GIVE_SHAPE: &str = "the shape of NAME";

/// Why an output has no type: a fault of the file, or a shape only the user can
/// give (its size depends on the data, or memplan has no rule for the op).
enum Why {
    Bad(String),
    NeedsShape(String),
}

/// The file's node order if it is topological, else a stable topological order
/// (the lowest index first among the ready nodes); nodes on a cycle or reading
/// undefined names follow in file order, where their import fails with a name.
fn topological(g: &proto::Graph) -> Vec<usize> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (k, n) in g.nodes.iter().enumerate() {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            producer.entry(o.as_str()).or_insert(k);
        }
    }
    let mut reads: Vec<HashSet<&str>> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let mut r: HashSet<&str> = n.inputs.iter().map(String::as_str).collect();
        for a in &n.attributes {
            for b in a.g.iter().chain(&a.graphs) {
                free_names(b, &mut r);
            }
        }
        reads.push(r);
    }
    let n = g.nodes.len();
    let mut indegree = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, r) in reads.iter().enumerate() {
        for name in r {
            if let Some(&p) = producer.get(name) {
                if p != k {
                    indegree[k] += 1;
                    users[p].push(k);
                }
            }
        }
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&k| indegree[k] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(k)) = ready.pop() {
        order.push(k);
        for &u in &users[k] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(std::cmp::Reverse(u));
            }
        }
    }
    if order.len() < n {
        let placed: HashSet<usize> = order.iter().copied().collect();
        order.extend((0..n).filter(|k| !placed.contains(k)));
    }
    order
}

/// Names a body reads that it does not define itself.
fn free_names<'a>(g: &'a proto::Graph, out: &mut HashSet<&'a str>) {
    let mut defined: HashSet<&str> = g.inputs.iter().map(|v| v.name.as_str()).collect();
    defined.extend(g.initializers.iter().map(|t| t.name.as_str()));
    for n in &g.nodes {
        defined.extend(n.outputs.iter().map(String::as_str));
    }
    let mut read = HashSet::new();
    for n in &g.nodes {
        read.extend(n.inputs.iter().map(String::as_str));
        for a in &n.attributes {
            for b in a.g.iter().chain(&a.graphs) {
                free_names(b, &mut read);
            }
        }
    }
    read.extend(g.outputs.iter().map(|v| v.name.as_str()));
    out.extend(
        read.into_iter()
            .filter(|r| !r.is_empty() && !defined.contains(r)),
    );
}
