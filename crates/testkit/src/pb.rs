//! A minimal protobuf writer for hand-made ONNX models.

pub fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn int(field: u32, v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    varint(u64::from(field) << 3, &mut out);
    varint(v as u64, &mut out);
    out
}

pub fn bytes(field: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint((u64::from(field) << 3) | 2, &mut out);
    varint(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}

/// A ValueInfoProto of floats; a negative dimension is symbolic (`N`).
pub fn value(name: &str, dims: &[i64]) -> Vec<u8> {
    let shape: Vec<u8> = dims
        .iter()
        .flat_map(|&d| {
            let dim = if d < 0 { bytes(2, b"N") } else { int(1, d) };
            bytes(1, &dim)
        })
        .collect();
    let tensor = [int(1, 1), bytes(2, &shape)].concat();
    [bytes(1, name.as_bytes()), bytes(2, &bytes(1, &tensor))].concat()
}

pub fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str]) -> Vec<u8> {
    let mut n = Vec::new();
    for i in inputs {
        n.extend(bytes(1, i.as_bytes()));
    }
    for o in outputs {
        n.extend(bytes(2, o.as_bytes()));
    }
    n.extend(bytes(3, name.as_bytes()));
    n.extend(bytes(4, op.as_bytes()));
    n
}

/// A model with one graph input `x` and one output `z`.
pub fn model(x_dims: &[i64], nodes: &[Vec<u8>]) -> Vec<u8> {
    model_with(x_dims, &[], nodes)
}

/// A model with initializers too.
pub fn model_with(x_dims: &[i64], initializers: &[Vec<u8>], nodes: &[Vec<u8>]) -> Vec<u8> {
    model_graph(x_dims, initializers, nodes, &[])
}

/// A model whose graph also carries the raw fields `extra`.
pub fn model_graph(
    x_dims: &[i64],
    initializers: &[Vec<u8>],
    nodes: &[Vec<u8>],
    extra: &[u8],
) -> Vec<u8> {
    let mut g = Vec::new();
    for n in nodes {
        g.extend(bytes(1, n));
    }
    for t in initializers {
        g.extend(bytes(5, t));
    }
    g.extend(bytes(11, &value("x", x_dims)));
    g.extend(bytes(12, &value("z", &[])));
    g.extend_from_slice(extra);
    let opset = [bytes(1, b""), int(2, 13)].concat();
    [int(1, 8), bytes(7, &g), bytes(8, &opset)].concat()
}

/// An int64 initializer `name` holding `0..n`.
pub fn int64s(name: &str, n: i64) -> Vec<u8> {
    let mut dims = Vec::new();
    varint(n as u64, &mut dims);
    let raw: Vec<u8> = (0..n).flat_map(|v| v.to_le_bytes()).collect();
    [
        bytes(1, &dims),
        int(2, 7),
        bytes(8, name.as_bytes()),
        bytes(9, &raw),
    ]
    .concat()
}

/// A `Constant` node writing the int64 vector `values` to `output`.
pub fn constant(output: &str, values: &[i64]) -> Vec<u8> {
    let mut dims = Vec::new();
    varint(values.len() as u64, &mut dims);
    let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let tensor = [bytes(1, &dims), int(2, 7), bytes(9, &raw)].concat();
    let attr = [bytes(1, b"value"), bytes(5, &tensor), int(20, 4)].concat();
    [node("", "Constant", &[], &[output]), bytes(5, &attr)].concat()
}

/// `node` with an integer attribute.
pub fn with_int(node: Vec<u8>, name: &str, v: i64) -> Vec<u8> {
    let attr = [bytes(1, name.as_bytes()), int(3, v), int(20, 2)].concat();
    [node, bytes(5, &attr)].concat()
}

/// A float ValueInfoProto whose dims are numbers, names (`dim_param`) or `?`
/// (neither).
pub fn value_dims(name: &str, dims: &[&str]) -> Vec<u8> {
    let shape: Vec<u8> = dims
        .iter()
        .flat_map(|&d| {
            let dim = match d.parse::<i64>() {
                Ok(v) => int(1, v),
                Err(_) if d == "?" => Vec::new(),
                Err(_) => bytes(2, d.as_bytes()),
            };
            bytes(1, &dim)
        })
        .collect();
    let tensor = [int(1, 1), bytes(2, &shape)].concat();
    [bytes(1, name.as_bytes()), bytes(2, &bytes(1, &tensor))].concat()
}

/// A model whose graph inputs are `inputs` (ValueInfoProtos), output `z`.
pub fn model_inputs(inputs: &[Vec<u8>], nodes: &[Vec<u8>]) -> Vec<u8> {
    let mut g = Vec::new();
    for n in nodes {
        g.extend(bytes(1, n));
    }
    for i in inputs {
        g.extend(bytes(11, i));
    }
    g.extend(bytes(12, &value("z", &[])));
    let opset = [bytes(1, b""), int(2, 13)].concat();
    [int(1, 8), bytes(7, &g), bytes(8, &opset)].concat()
}

/// `node` with a string attribute.
pub fn with_str(node: Vec<u8>, name: &str, v: &str) -> Vec<u8> {
    let attr = [
        bytes(1, name.as_bytes()),
        bytes(4, v.as_bytes()),
        int(20, 3),
    ]
    .concat();
    [node, bytes(5, &attr)].concat()
}

/// A `Constant` node writing a float tensor of `dims` (zeros) to `output`.
pub fn constant_float(output: &str, dims: &[i64]) -> Vec<u8> {
    let mut tensor = Vec::new();
    for &d in dims {
        tensor.extend(int(1, d));
    }
    tensor.extend(int(2, 1));
    let n: i64 = dims.iter().product();
    tensor.extend(bytes(9, &vec![0u8; 4 * n as usize]));
    let attr = [bytes(1, b"value"), bytes(5, &tensor), int(20, 4)].concat();
    [node("", "Constant", &[], &[output]), bytes(5, &attr)].concat()
}
