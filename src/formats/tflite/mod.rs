//! TFLite models (FlatBuffers, file identifier `TFL3`): subgraph 0's tensors and
//! operators in their stored execution order.
//!
//! A tensor with a non-empty buffer is a weight; so is every output of an op whose
//! inputs are all constant (fp16 `DEQUANTIZE`, `DENSIFY`), which is folded away.
//! Ops are named `KIND#step`; custom ops are `CUSTOM:<custom code>`. Field indices
//! follow TFLite's `schema.fbs`.

mod ops;

use super::flatbuf::{Table, Vector};
use super::import::{self, Node, Value};
use super::ReadOptions;
use crate::error::Error;
use crate::graph::Graph;

const FORMAT: &str = "tflite";

/// True when bytes 4..8 hold the file identifier `TFL3`.
pub fn is_tflite(data: &[u8]) -> bool {
    data.get(4..8) == Some(b"TFL3".as_slice())
}

/// Reads subgraph 0; `opts` (free dimensions, input shapes) is not yet applied
/// to TFLite models.
pub fn read(data: &[u8], name: &str, opts: &ReadOptions) -> Result<Graph, Error> {
    let _ = opts;
    let model = Table::root(data)?;
    // every byte the reader keeps is paid for by bytes of the file, so a corrupt
    // file sharing one long vector or string among many tables cannot make it slow
    // or large
    let mut budget = Budget(2 * data.len() + (64 << 10));
    let codes = op_codes(&model, &mut budget)?;
    let buffers = model.vector(4, 4)?;
    let subgraphs = model.vector(2, 4)?;
    let Some(sub) = subgraphs.filter(|s| !s.is_empty()) else {
        return Err(err(None, "the model has no subgraph"));
    };
    let sub = sub.table(0)?;
    let tensors = sub
        .vector(0, 4)?
        .ok_or_else(|| err(None, "subgraph 0 has no tensors"))?;
    let mut values = Vec::with_capacity(tensors.len());
    for i in 0..tensors.len() {
        values.push(tensor(
            &tensors.table(i)?,
            i,
            buffers.as_ref(),
            &mut budget,
        )?);
    }
    let mut nodes = Vec::new();
    if let Some(list) = sub.vector(3, 4)? {
        nodes.reserve(list.len());
        for k in 0..list.len() {
            nodes.push(operator(
                &list.table(k)?,
                k,
                &codes,
                values.len(),
                &mut budget,
            )?);
        }
    }
    let inputs = indices(sub.vector(1, 4)?, values.len(), "graph input", &mut budget)?;
    let outputs = indices(sub.vector(2, 4)?, values.len(), "graph output", &mut budget)?;
    import::fold(&mut values, &mut nodes);
    import::build(name.to_string(), values, &nodes, &inputs, &outputs)
}

fn err(at: Option<String>, message: impl Into<String>) -> Error {
    Error::parse(FORMAT, at, message)
}

/// Bytes the reader may still keep.
struct Budget(usize);

impl Budget {
    fn spend(&mut self, n: usize) -> Result<(), Error> {
        self.0 = self.0.checked_sub(n).ok_or_else(|| {
            err(
                None,
                "the model's tables share more data than a valid model of its size can (a corrupt file?)",
            )
        })?;
        Ok(())
    }
}

/// The kind of each operator code: builtin name or `CUSTOM:<code>`.
fn op_codes(model: &Table, budget: &mut Budget) -> Result<Vec<String>, Error> {
    let Some(list) = model.vector(1, 4)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for i in 0..list.len() {
        let code = list.table(i)?;
        // builtin_code (field 3) supersedes the one-byte deprecated_builtin_code
        // (field 0), which saturates at 127 for newer ops
        let builtin = i32::from(code.i8(0, 0)?).max(code.i32(3, 0)?);
        let kind = match code.string(1)? {
            Some(custom) if builtin == 32 => format!("CUSTOM:{custom}"),
            _ => ops::builtin_name(builtin),
        };
        budget.spend(kind.len())?;
        out.push(kind);
    }
    Ok(out)
}

fn tensor(
    t: &Table,
    index: usize,
    buffers: Option<&Vector>,
    budget: &mut Budget,
) -> Result<Value, Error> {
    let name = t.string(3)?.unwrap_or_else(|| format!("tensor{index}"));
    budget.spend(name.len())?;
    let at = || Some(format!("tensor `{name}`"));
    let shape: Vec<i64> = match t.vector(0, 4)? {
        Some(v) => {
            budget.spend(4 * v.len())?;
            v.i32s()?.into_iter().map(i64::from).collect()
        }
        None => Vec::new(),
    };
    let kind = t.i8(1, 0)?;
    let bits =
        element_bits(kind).ok_or_else(|| err(at(), format!("unknown tensor type {kind}")))?;
    let buffer = t.u32(2, 0)? as usize;
    let has_data = match buffers {
        Some(list) if buffer < list.len() => {
            let b = list.table(buffer)?;
            b.vector(0, 1)?.is_some_and(|d| !d.is_empty()) || (b.u64(1, 0)? > 1 && b.u64(2, 0)? > 0)
        }
        _ if buffer == 0 => false,
        _ => {
            return Err(err(
                at(),
                format!(
                    "buffer {buffer} does not exist (the model has {})",
                    buffers.map_or(0, |b| b.len())
                ),
            ))
        }
    };
    let variable = t.u8(5, 0)? != 0;
    Ok(Value {
        bytes: import::tensor_bytes(FORMAT, &name, &shape, bits)?,
        name,
        konst: has_data || variable,
    })
}

/// Bits per element of a `TensorType`; strings, resources and variants count 0.
fn element_bits(kind: i8) -> Option<u64> {
    Some(match kind {
        0 | 2 | 15 => 32,      // FLOAT32, INT32, UINT32
        1 | 7 | 16 | 18 => 16, // FLOAT16, INT16, UINT16, BFLOAT16
        3 | 6 | 9 => 8,        // UINT8, BOOL, INT8
        4 | 8 | 10 | 12 => 64, // INT64, COMPLEX64, FLOAT64, UINT64
        11 => 128,             // COMPLEX128
        17 => 4,               // INT4
        5 | 13 | 14 => 0,      // STRING, RESOURCE, VARIANT
        _ => return None,
    })
}

fn operator(
    op: &Table,
    k: usize,
    codes: &[String],
    n_tensors: usize,
    budget: &mut Budget,
) -> Result<Node, Error> {
    let code = op.u32(0, 0)? as usize;
    let kind = codes.get(code).cloned().ok_or_else(|| {
        err(
            Some(format!("operator {k}")),
            format!(
                "opcode index {code} does not exist (the model has {})",
                codes.len()
            ),
        )
    })?;
    budget.spend(kind.len())?;
    let what = format!("input of operator {k} ({kind})");
    let inputs = indices(op.vector(1, 4)?, n_tensors, &what, budget)?;
    let what = format!("output of operator {k} ({kind})");
    let outputs = indices(op.vector(2, 4)?, n_tensors, &what, budget)?;
    Ok(Node {
        name: None,
        kind,
        inputs,
        outputs,
        folded: false,
    })
}

/// Tensor indices of an `[int]` vector; `-1` (an absent optional tensor) is skipped.
fn indices(
    list: Option<Vector>,
    n_tensors: usize,
    what: &str,
    budget: &mut Budget,
) -> Result<Vec<usize>, Error> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    budget.spend(4 * list.len())?;
    let mut out = Vec::with_capacity(list.len());
    for i in list.i32s()? {
        match usize::try_from(i) {
            Ok(t) if t < n_tensors => out.push(t),
            _ if i == -1 => {}
            _ => {
                return Err(err(
                    None,
                    format!("{what} names tensor {i}, but subgraph 0 has {n_tensors} tensors"),
                ))
            }
        }
    }
    Ok(out)
}
