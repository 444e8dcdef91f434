//! A model without its weights: walks a `ModelProto` in a [`Source`] and copies
//! every field planning needs, but skips the payload of each tensor too large for
//! the shape-value evaluator to read (`raw_data`, the typed data fields), marking
//! the tensor's data as held elsewhere. A multi-gigabyte model becomes a message
//! the size of its graph, never read whole; external data files are never opened.

use super::proto::MAX_DEPTH;
use crate::source::{put_field, put_varint, Cursor, Field, Source};
use memplan::error::Error;

const F: &str = "onnx";

/// Tensor payloads up to this size are kept: 8,192 int64s, far more than any
/// shape arithmetic reads (weights are larger and their contents never needed).
const KEEP: u64 = 64 << 10;

/// The messages whose fields are walked rather than copied.
#[derive(Clone, Copy)]
enum Kind {
    Model,
    Graph,
    Node,
    Attribute,
    Tensor,
}

/// `ModelProto` fields 1..: graph = 7; `GraphProto`: node = 1, initializer = 5;
/// `NodeProto`: attribute = 5; `AttributeProto`: t = 5, g = 6, tensors = 10,
/// graphs = 11; `TensorProto` payloads: float_data 4, int32_data 5, string_data 6,
/// int64_data 7, raw_data 9, double_data 10, uint64_data 11.
fn child(kind: Kind, field: u32) -> Option<Kind> {
    match (kind, field) {
        (Kind::Model, 7) => Some(Kind::Graph),
        (Kind::Graph, 1) => Some(Kind::Node),
        (Kind::Graph, 5) => Some(Kind::Tensor),
        (Kind::Node, 5) => Some(Kind::Attribute),
        (Kind::Attribute, 5 | 10) => Some(Kind::Tensor),
        (Kind::Attribute, 6 | 11) => Some(Kind::Graph),
        _ => None,
    }
}

fn is_payload(field: u32) -> bool {
    matches!(field, 4..=7 | 9..=11)
}

/// The model in `src` with large tensor payloads left out.
pub fn slim(src: &dyn Source) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    message(src, 0, src.size(), Kind::Model, 0, &mut out)?;
    Ok(out)
}

fn message(
    src: &dyn Source,
    at: u64,
    len: u64,
    kind: Kind,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    if depth > 3 * MAX_DEPTH + 4 {
        return Err(Error::parse(
            F,
            None,
            format!("subgraphs nest more than {MAX_DEPTH} deep"),
        ));
    }
    let mut c = Cursor::new(src, at, len, F);
    let mut skipped = false;
    while let Some((number, field)) = c.next_field()? {
        let Field::Bytes { at, len } = field else {
            put_field(number, field, &[], out);
            continue;
        };
        if let Some(inner) = child(kind, number) {
            let mut sub = Vec::new();
            message(src, at, len, inner, depth + 1, &mut sub)?;
            put_field(number, field, &sub, out);
        } else if matches!(kind, Kind::Tensor) && is_payload(number) && len > KEEP {
            skipped = true;
        } else {
            put_field(number, field, &c.read(at, len)?, out);
        }
    }
    if skipped {
        // data_location = EXTERNAL: the reader keeps the tensor's type, not its data
        put_varint(14 << 3, out); // field 14, varint
        put_varint(1, out);
    }
    Ok(())
}
