//! The rules by op name, one family per file.

use super::conv::*;
use super::elementwise::*;
use super::layout::*;
use super::reductions::*;
use super::slicing::*;
use super::values::*;
use super::Rule;

/// The rules by op name.
#[rustfmt::skip]
pub const RULES: &[(&str, Rule)] = &[
    // convolutions and pools (NHWC)
    ("CONV_2D", conv_2d), ("DEPTHWISE_CONV_2D", depthwise_conv_2d),
    ("TRANSPOSE_CONV", transpose_conv),
    ("CUSTOM:Convolution2DTransposeBias", transpose_conv_bias),
    ("AVERAGE_POOL_2D", pool_2d), ("MAX_POOL_2D", pool_2d), ("L2_POOL_2D", pool_2d),
    ("FULLY_CONNECTED", fully_connected), ("BATCH_MATMUL", batch_matmul),
    // broadcasting elementwise ops
    ("ADD", add), ("SUB", sub), ("MUL", mul), ("DIV", div), ("FLOOR_DIV", floor_div),
    ("FLOOR_MOD", broadcast_all), ("MAXIMUM", maximum), ("MINIMUM", minimum),
    ("POW", broadcast_all), ("SQUARED_DIFFERENCE", broadcast_all), ("ATAN2", broadcast_all),
    ("LESS", broadcast_all), ("LESS_EQUAL", broadcast_all), ("GREATER", broadcast_all),
    ("GREATER_EQUAL", broadcast_all), ("EQUAL", broadcast_all), ("NOT_EQUAL", broadcast_all),
    ("LOGICAL_AND", broadcast_all), ("LOGICAL_OR", broadcast_all),
    ("BITWISE_XOR", broadcast_all), ("RIGHT_SHIFT", broadcast_all),
    ("PRELU", broadcast_all), ("ADD_N", broadcast_all), ("SELECT_V2", broadcast_all),
    ("SELECT", select),
    // unary ops and activations: the shape of input 0
    ("RELU", same), ("RELU6", same), ("RELU_N1_TO_1", same), ("RELU_0_TO_1", same),
    ("LEAKY_RELU", same), ("ELU", same), ("GELU", same), ("HARD_SWISH", same),
    ("LOGISTIC", same), ("TANH", same), ("SOFTMAX", same), ("LOG_SOFTMAX", same),
    ("QUANTIZE", same), ("DEQUANTIZE", same), ("FAKE_QUANT", same), ("CAST", cast),
    ("ABS", same), ("NEG", same), ("SIGN", same), ("EXP", same), ("LOG", same),
    ("SQRT", same), ("RSQRT", same), ("SQUARE", same), ("SIN", same), ("COS", same),
    ("FLOOR", same), ("CEIL", same), ("ROUND", same), ("LOGICAL_NOT", same),
    ("ZEROS_LIKE", same), ("L2_NORMALIZATION", same),
    ("LOCAL_RESPONSE_NORMALIZATION", same), ("CUMSUM", same), ("REVERSE_V2", same),
    ("REVERSE_SEQUENCE", same), ("DYNAMIC_UPDATE_SLICE", same),
    ("MATRIX_SET_DIAG", same),
    // layout
    ("RESHAPE", reshape), ("SQUEEZE", squeeze), ("EXPAND_DIMS", expand_dims),
    ("TRANSPOSE", transpose), ("CONCATENATION", concatenation), ("PACK", pack),
    ("UNPACK", unpack), ("SPLIT", split), ("SPLIT_V", split_v), ("TILE", tile),
    ("BROADCAST_TO", broadcast_to), ("DEPTH_TO_SPACE", depth_to_space),
    ("SPACE_TO_DEPTH", space_to_depth), ("SPACE_TO_BATCH_ND", space_to_batch_nd),
    ("BATCH_TO_SPACE_ND", batch_to_space_nd),
    ("PAD", pad), ("PADV2", pad), ("MIRROR_PAD", pad),
    ("RESIZE_BILINEAR", resize), ("RESIZE_NEAREST_NEIGHBOR", resize),
    // slicing and gathering
    ("STRIDED_SLICE", strided_slice), ("SLICE", slice), ("GATHER", gather),
    ("GATHER_ND", gather_nd), ("EMBEDDING_LOOKUP", embedding_lookup),
    ("SCATTER_ND", scatter_nd), ("ONE_HOT", one_hot), ("TOPK_V2", topk),
    // reductions
    ("MEAN", reduce), ("SUM", reduce_sum), ("REDUCE_PROD", reduce_prod),
    ("REDUCE_MAX", reduce), ("REDUCE_MIN", reduce), ("REDUCE_ANY", reduce),
    ("REDUCE_ALL", reduce), ("ARG_MAX", arg_reduce), ("ARG_MIN", arg_reduce),
    ("UNSORTED_SEGMENT_PROD", segment_prod), ("UNSORTED_SEGMENT_SUM", segment_sum),
    ("UNSORTED_SEGMENT_MAX", segment_max), ("UNSORTED_SEGMENT_MIN", segment_min),
    // shapes as values
    ("SHAPE", shape), ("RANK", rank), ("FILL", fill), ("RANGE", range),
];

/// The rule for op `kind`.
pub fn rule(kind: &str) -> Option<Rule> {
    RULES.iter().find(|(k, _)| *k == kind).map(|&(_, r)| r)
}
