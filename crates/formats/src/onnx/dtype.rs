//! ONNX element types (`TensorProto.DataType`): their sizes and names.

pub const FLOAT: i32 = 1;
pub const UINT8: i32 = 2;
#[cfg_attr(not(test), allow(dead_code))]
pub const INT8: i32 = 3;
pub const INT32: i32 = 6;
pub const INT64: i32 = 7;
pub const STRING: i32 = 8;
pub const BOOL: i32 = 9;
#[cfg_attr(not(test), allow(dead_code))]
pub const FLOAT16: i32 = 10;

/// `(code, bits per element, name)`; packed 4-bit and 2-bit types take two or four
/// per byte (a tensor's bytes round up), strings count 0.
const TYPES: &[(i32, u64, &str)] = &[
    (1, 32, "float32"),
    (2, 8, "uint8"),
    (3, 8, "int8"),
    (4, 16, "uint16"),
    (5, 16, "int16"),
    (6, 32, "int32"),
    (7, 64, "int64"),
    (8, 0, "string"),
    (9, 8, "bool"),
    (10, 16, "float16"),
    (11, 64, "float64"),
    (12, 32, "uint32"),
    (13, 64, "uint64"),
    (14, 64, "complex64"),
    (15, 128, "complex128"),
    (16, 16, "bfloat16"),
    (17, 8, "float8e4m3fn"),
    (18, 8, "float8e4m3fnuz"),
    (19, 8, "float8e5m2"),
    (20, 8, "float8e5m2fnuz"),
    (21, 4, "uint4"),
    (22, 4, "int4"),
    (23, 4, "float4e2m1"),
    (24, 8, "float8e8m0"),
    (25, 2, "uint2"),
    (26, 2, "int2"),
];

/// Bits per element, `None` for an unknown code.
pub fn bits(dtype: i32) -> Option<u64> {
    TYPES.iter().find(|t| t.0 == dtype).map(|t| t.1)
}

/// ONNX's lowercase name of an element type (`float32`, `int64`, ...).
pub fn name(dtype: i32) -> String {
    TYPES
        .iter()
        .find(|t| t.0 == dtype)
        .map_or_else(|| format!("type{dtype}"), |t| t.2.to_string())
}

/// Integer and boolean types, whose small constants shape arithmetic reads.
pub fn is_integer(dtype: i32) -> bool {
    matches!(dtype, 2..=7 | 9 | 12 | 13 | 21 | 22 | 25 | 26)
}

/// Floating-point types whose values the evaluator keeps as `f64`.
pub fn is_float(dtype: i32) -> bool {
    matches!(dtype, 1 | 10 | 11 | 16..=20 | 23 | 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_a_size_and_a_name() {
        assert_eq!(bits(10), Some(16));
        assert_eq!(bits(22), Some(4));
        assert_eq!(bits(99), None);
        assert_eq!(name(FLOAT), "float32");
        assert_eq!(name(11), "float64");
        assert_eq!(name(19), "float8e5m2");
        assert!(is_integer(BOOL) && !is_integer(FLOAT));
    }
}
