//! The [`Builder`] that assembles the graph as its lines are read: the `graph`
//! line, declarations, op lines with their inline `NAME=SIZE` declarations, and at
//! the end every op's tensors resolved and checked for a second producer.

use super::decl::{decl_size, parse_decl};
use super::tokens::{quote, statement, tokenize, Token};
use super::{at, graph_name};
use memplan::error::Error;
use memplan::graph::{Graph, Op, Role, Tensor, TensorId};
use std::collections::HashMap;

/// An op as read, naming tensors by slot until every declaration is known.
struct PendingOp {
    name: String,
    kind: String,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    line: usize,
}

/// The graph as its lines are read.
#[derive(Default)]
pub(super) struct Builder {
    /// The `graph` line: the name and the line number.
    graph: Option<(String, usize)>,
    /// A statement was read (the `graph` line must come first).
    started: bool,
    /// Every name declared or mentioned, to its slot.
    names: HashMap<String, usize>,
    /// Per slot: the tensor's index and its declaration's line, once declared.
    slots: Vec<Option<(usize, usize)>>,
    tensors: Vec<Tensor>,
    ops: Vec<PendingOp>,
}

impl Builder {
    /// Reads line `n`.
    pub(super) fn line(&mut self, n: usize, line: &str) -> Result<(), String> {
        let toks = tokenize(line)?;
        if toks.is_empty() {
            return Ok(());
        }
        if toks.contains(&Token::Colon) {
            self.op(n, line, &toks)?;
        } else if let Some(name) = graph_name(&toks) {
            self.graph_line(n, name)?;
        } else {
            let d = parse_decl(line, &toks)?;
            let tensor = Tensor {
                name: d.name.to_string(),
                size: d.size,
                role: d.role,
                level: d.level.map(str::to_string),
                lifetime: d.life,
            };
            self.declare(n, tensor)?;
        }
        self.started = true;
        Ok(())
    }

    /// Takes the graph's name from a `graph NAME` line: the first statement.
    fn graph_line(&mut self, n: usize, name: &str) -> Result<(), String> {
        if let Some((_, first)) = &self.graph {
            return Err(format!("the graph is already named on line {first}"));
        }
        if self.started {
            return Err(format!(
                "`graph {}` must be the first line (comments aside), before any tensor or op",
                quote(name)
            ));
        }
        self.graph = Some((name.to_string(), n));
        Ok(())
    }

    /// The slot of `name`, made on its first mention or declaration.
    fn slot(&mut self, name: &str) -> usize {
        if let Some(&s) = self.names.get(name) {
            return s;
        }
        self.slots.push(None);
        self.names.insert(name.to_string(), self.slots.len() - 1);
        self.slots.len() - 1
    }

    /// Declares `tensor` on line `n`, once per name; returns its slot.
    fn declare(&mut self, n: usize, tensor: Tensor) -> Result<usize, String> {
        let s = self.slot(&tensor.name);
        if let Some((_, first)) = self.slots[s] {
            return Err(format!(
                "tensor `{}` is declared twice (first on line {first})",
                tensor.name
            ));
        }
        self.slots[s] = Some((self.tensors.len(), n));
        self.tensors.push(tensor);
        Ok(s)
    }

    /// Reads an op line (one with a `:`): `NAME [TYPE]: INPUTS -> OUTPUTS`.
    fn op(&mut self, n: usize, line: &str, toks: &[Token]) -> Result<(), String> {
        let form = || {
            format!(
                "expected `NAME [TYPE]: INPUTS -> OUTPUTS`, found `{}`",
                statement(line)
            )
        };
        let colon = toks.iter().position(|t| *t == Token::Colon).unwrap_or(0);
        let (head, rest) = (&toks[..colon], &toks[colon + 1..]);
        if rest.contains(&Token::Colon) {
            return Err(format!(
                "{}: an op line has one `:`; quote a name that has one, e.g. `\"input:0\"`",
                form()
            ));
        }
        let (name, kind) = match head {
            [] => {
                return Err(format!(
                    "the op has no name: write `NAME: INPUTS -> OUTPUTS`, e.g. `relu1: x -> y` (found `{}`)",
                    statement(line)
                ))
            }
            [n] => (n.name(), Some("")),
            [n, t] => (n.name(), t.name()),
            _ => (None, None),
        };
        let (Some(name), Some(kind)) = (name, kind) else {
            return Err(format!(
                "{}: before `:` come the op's name and its type; quote a name that has spaces",
                form()
            ));
        };
        let Some(arrow) = rest.iter().position(|t| t.is_word("->")) else {
            let hint = if rest
                .iter()
                .any(|t| matches!(t, Token::Word(w) if w.contains("->")))
            {
                "put spaces around `->`"
            } else {
                "`->` separates the inputs from the outputs, e.g. `relu1: x -> y`"
            };
            return Err(format!("{} ({hint})", form()));
        };
        if rest[arrow + 1..].iter().any(|t| t.is_word("->")) {
            return Err(format!(
                "{}: an op line has one `->`; quote a tensor named `->`",
                form()
            ));
        }
        let inputs = self.side(n, &rest[..arrow])?;
        let outputs = self.side(n, &rest[arrow + 1..])?;
        self.ops.push(PendingOp {
            name: name.to_string(),
            kind: kind.to_string(),
            inputs,
            outputs,
            line: n,
        });
        Ok(())
    }

    /// The slots of the tensors an op lists on one side of `->`, declaring those
    /// written `NAME=SIZE`.
    fn side(&mut self, n: usize, toks: &[Token]) -> Result<Vec<usize>, String> {
        let mut slots = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let Some(name) = toks[i].name() else {
                return Err(misplaced(&toks[i]));
            };
            if toks.get(i + 1) == Some(&Token::Equals) {
                let size = match toks.get(i + 2) {
                    Some(t @ (Token::Word(_) | Token::Quoted(_))) => decl_size(name, t)?,
                    _ => {
                        return Err(format!(
                            "tensor `{name}` has `=` but no size: write `{}=64MiB`",
                            quote(name)
                        ))
                    }
                };
                let tensor = Tensor {
                    name: name.to_string(),
                    size,
                    role: Role::Arena,
                    level: None,
                    lifetime: None,
                };
                slots.push(self.declare(n, tensor)?);
                i += 3;
            } else {
                slots.push(self.slot(name));
                i += 1;
            }
        }
        Ok(slots)
    }

    /// The graph: every op's tensors resolved, checked for a second producer.
    pub(super) fn finish(self, fallback: &str) -> Result<Graph, Error> {
        let mut producer: Vec<Option<usize>> = vec![None; self.tensors.len()];
        let mut ops = Vec::with_capacity(self.ops.len());
        for (i, op) in self.ops.iter().enumerate() {
            let inputs = self.resolve(op, &op.inputs)?;
            let outputs = self.resolve(op, &op.outputs)?;
            for t in &outputs {
                if let Some(first) = producer[t.index()].replace(i) {
                    return Err(self.second_producer(i, first, *t));
                }
            }
            ops.push(Op {
                name: op.name.clone(),
                kind: op.kind.clone(),
                inputs,
                outputs,
            });
        }
        let name = match self.graph {
            Some((name, _)) => name,
            None => fallback.to_string(),
        };
        Graph::new(name, self.tensors, ops)
    }

    /// The tensor ids of `slots`, or an error at `op`'s line (its first use)
    /// for a tensor never declared.
    fn resolve(&self, op: &PendingOp, slots: &[usize]) -> Result<Vec<TensorId>, Error> {
        slots
            .iter()
            .map(|&s| match self.slots[s] {
                Some((t, _)) => u32::try_from(t)
                    .map(TensorId)
                    .map_err(|_| Error::limit("tensors", t as u64, u64::from(u32::MAX))),
                None => {
                    let name = self.name_of(s);
                    Err(at(
                        op.line,
                        format!(
                            "tensor `{name}` has no size: declare it as `{q} 64MiB` or write `{q}=64MiB` where it is first used",
                            q = quote(name)
                        ),
                    ))
                }
            })
            .collect()
    }

    /// The name of slot `s` (a scan: for error messages only).
    fn name_of(&self, s: usize) -> &str {
        self.names
            .iter()
            .find(|(_, &v)| v == s)
            .map_or("", |(k, _)| k.as_str())
    }

    /// The error for op `i` writing tensor `t`, which op `first` writes already.
    fn second_producer(&self, i: usize, first: usize, t: TensorId) -> Error {
        let tensor = &self.tensors[t.index()].name;
        let (op, earlier) = (&self.ops[i], &self.ops[first]);
        let message = if i == first {
            format!("op `{}` writes tensor `{tensor}` twice", op.name)
        } else {
            format!(
                "tensor `{tensor}` is produced by both op `{}` (line {}) and op `{}`",
                earlier.name, earlier.line, op.name
            )
        };
        at(op.line, message)
    }
}

/// The error for a `=` or `@` out of place in an op's tensor list.
fn misplaced(tok: &Token) -> String {
    match tok {
        Token::At => {
            "`@LEVEL` goes on the tensor's declaration line, e.g. `x 4KiB @UB`".to_string()
        }
        _ => "`=` must follow a tensor name, e.g. `s=64MiB`".to_string(),
    }
}
