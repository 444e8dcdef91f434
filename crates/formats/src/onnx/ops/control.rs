//! Control flow: `If`, `Loop` and `Scan`. Their bodies are walked by the importer
//! ([`Bodies`]), which also plans each body as a nested arena and makes every
//! value a body reads from outside an input of the node.

use super::{Bodies, Ctx, Registry, ONNX};
use crate::onnx::dtype::{BOOL, INT64};
use crate::onnx::proto::Graph;
use crate::onnx::shape::{axis, Info, Out, Ty};

pub fn register(r: &mut Registry) {
    r.add_bodies(ONNX, &["If"], if_);
    r.add_bodies(ONNX, &["Loop"], loop_);
    r.add_bodies(ONNX, &["Scan"], scan);
}

fn body<'a>(c: &Ctx<'a>, attr: &str) -> Result<&'a Graph, String> {
    c.attr(attr)
        .and_then(|a| a.g.as_ref())
        .ok_or_else(|| format!("no `{attr}` subgraph"))
}

fn types(infos: Vec<Info>) -> Out {
    infos.into_iter().map(|i| (i.dtype, i.shape)).collect()
}

/// The larger of two types of one output: same element type, and per axis the
/// larger dimension (or the one with more elements when the ranks differ).
fn larger(a: Ty, b: Ty) -> Ty {
    if a.1.len() == b.1.len() {
        let shape = a.1.iter().zip(&b.1).map(|(&x, &y)| x.max(y)).collect();
        return (a.0, shape);
    }
    let n = |t: &Ty| t.1.iter().fold(1i128, |p, &d| p * i128::from(d));
    if n(&b) > n(&a) {
        b
    } else {
        a
    }
}

fn if_(c: &Ctx, bodies: &mut dyn Bodies) -> Result<Out, String> {
    let cond = c.x(0)?.ints().and_then(|v| v.first().copied());
    let (then_g, else_g) = (body(c, "then_branch")?, body(c, "else_branch")?);
    match cond {
        Some(v) => {
            let (attr, g) = if v != 0 {
                ("then_branch", then_g)
            } else {
                ("else_branch", else_g)
            };
            Ok(types(bodies.walk(attr, g, vec![])?))
        }
        None => {
            let a = bodies.walk("then_branch", then_g, vec![]).map(types);
            let b = bodies.walk("else_branch", else_g, vec![]).map(types);
            // a branch that cannot run at these shapes leaves the other
            let (a, b) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), Err(_)) => return Err(e),
                (Ok(a), Err(e)) | (Err(e), Ok(a)) => {
                    bodies.branch_cannot_run(format!(
                        "`If` `{}`: one branch cannot run at these input shapes, so only the other is planned ({e})",
                        c.node.name
                    ));
                    return Ok(a);
                }
            };
            if a.len() != b.len() {
                return Err(format!("branches with {} and {} outputs", a.len(), b.len()));
            }
            if a != b {
                bodies.note(format!(
                    "the branches of `If` `{}` give outputs of different shapes ({a:?} and {b:?}): each output is sized for the larger",
                    c.node.name
                ));
            }
            Ok(a.into_iter().zip(b).map(|(x, y)| larger(x, y)).collect())
        }
    }
}

fn loop_(c: &Ctx, bodies: &mut dyn Bodies) -> Result<Out, String> {
    let g = body(c, "body")?;
    let carried: Vec<Info> = c
        .inputs
        .iter()
        .skip(2)
        .map(|i| i.cloned().unwrap_or_default())
        .collect();
    let mut ins = vec![Info::new(INT64, vec![]), Info::new(BOOL, vec![])];
    ins.extend(carried.iter().map(|i| Info::new(i.dtype, i.shape.clone())));
    let outs = bodies.walk("body", g, ins)?;
    let n = carried.len();
    if outs.len() < n + 1 {
        return Err(format!(
            "a body with {} outputs for {n} loop-carried values",
            outs.len()
        ));
    }
    let mut out: Out = outs[1..=n].iter().map(Info::ty).collect();
    let scans = &outs[n + 1..];
    if !scans.is_empty() {
        let trip = c
            .opt(0)
            .and_then(Info::ints)
            .and_then(|v| v.first().copied());
        // no bound: the loop runs as often as its trip count or condition says
        if trip.is_none() {
            let why = match c.node.inputs.first().filter(|s| !s.is_empty()) {
                Some(_) => format!("it is as long as the loop's trip count, and {}", c.unknown(0, "M")),
                None => "it is as long as the loop runs, and the loop has no trip count (it runs until its condition is false)".to_string(),
            };
            for j in n..n + scans.len() {
                c.no_bound(j, why.clone());
            }
        }
        for s in scans {
            let mut shape = vec![trip.unwrap_or(0).max(0)];
            shape.extend_from_slice(&s.shape);
            out.push((s.dtype, shape));
        }
    }
    Ok(out)
}

fn scan(c: &Ctx, bodies: &mut dyn Bodies) -> Result<Out, String> {
    let g = body(c, "body")?;
    let m =
        usize::try_from(c.int("num_scan_inputs", 0)).map_err(|_| "a negative num_scan_inputs")?;
    // opset 8 takes sequence_lens first and a batch axis on every input
    let batched = c.opset < 9;
    let all: Vec<&Info> = c
        .inputs
        .iter()
        .skip(usize::from(batched))
        .flatten()
        .copied()
        .collect();
    let n = all
        .len()
        .checked_sub(m)
        .ok_or("more scan inputs than inputs")?;
    let in_axes = c
        .ints("scan_input_axes")
        .map(<[i64]>::to_vec)
        .unwrap_or_else(|| vec![0; m]);
    let drop_batch = |s: &[i64]| {
        if batched {
            s.get(1..).unwrap_or(&[]).to_vec()
        } else {
            s.to_vec()
        }
    };
    let mut ins: Vec<Info> = all[..n]
        .iter()
        .map(|i| Info::new(i.dtype, drop_batch(&i.shape)))
        .collect();
    let mut len = None;
    for (k, x) in all[n..].iter().enumerate() {
        let mut s = drop_batch(&x.shape);
        let a = axis(*in_axes.get(k).unwrap_or(&0), s.len())?;
        len = Some(s.remove(a));
        ins.push(Info::new(x.dtype, s));
    }
    let len = len.ok_or("no scan inputs")?;
    let outs = bodies.walk("body", g, ins)?;
    if outs.len() < n {
        return Err(format!("a body with {} outputs for {n} states", outs.len()));
    }
    let out_axes = c.ints("scan_output_axes").map(<[i64]>::to_vec);
    let batch = if batched {
        all.first().and_then(|x| x.shape.first().copied())
    } else {
        None
    };
    let mut out = Vec::new();
    for (k, o) in outs.iter().enumerate() {
        let mut shape = o.shape.clone();
        if k >= n {
            let a = out_axes
                .as_ref()
                .and_then(|v| v.get(k - n).copied())
                .unwrap_or(0);
            shape.insert(axis(a, shape.len() + 1)?, len);
        }
        if let Some(b) = batch {
            shape.insert(0, b);
        }
        out.push((o.dtype, shape));
    }
    Ok(out)
}
