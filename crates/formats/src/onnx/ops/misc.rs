//! String ops, optionals, `ai.onnx.ml` models and `ai.onnx.preview.training`
//! optimisers (the ops whose sizes depend on values are in `bounded`).
//!
//! Why one file: each family here is a handful of short handlers, too few to
//! stand alone; the code is 280 lines, the tests (the last 110) the rest.

use super::{Ctx, Registry, ML, ONNX, TRAINING};
use crate::onnx::dtype::{BOOL, FLOAT, INT64, STRING, UINT8};
use crate::onnx::shape::{broadcast, product, Info, Out};

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["StringConcat"], string_concat);
    r.add(ONNX, &["RegexFullMatch"], regex_full_match);
    r.add(ONNX, &["TfIdfVectorizer"], tf_idf);
    r.add_values(ONNX, &["Optional"], optional);
    r.add_values(ONNX, &["OptionalGetElement"], optional_get_element);
    r.add(ONNX, &["OptionalHasElement"], optional_has_element);
    r.add(ML, &["LabelEncoder"], label_encoder);
    r.add(ML, &["Binarizer", "Imputer"], same);
    r.add(ML, &["Scaler", "Normalizer"], to_float);
    r.add(ML, &["ArrayFeatureExtractor"], array_feature_extractor);
    r.add(ML, &["OneHotEncoder"], one_hot_encoder);
    r.add(ML, &["FeatureVectorizer"], feature_vectorizer);
    r.add(
        ML,
        &["TreeEnsemble", "TreeEnsembleRegressor"],
        tree_regressor,
    );
    r.add(ML, &["TreeEnsembleClassifier"], tree_classifier);
    r.add(ML, &["LinearClassifier", "SVMClassifier"], tree_classifier);
    r.add(ML, &["LinearRegressor", "SVMRegressor"], linear_regressor);
    r.add(ML, &["CategoryMapper"], category_mapper);
    r.add_values(ML, &["ZipMap"], zip_map);
    r.add(TRAINING, &["Adagrad", "Momentum", "Adam"], optimizer);
    r.add(TRAINING, &["Gradient"], gradient);
}

fn same(c: &Ctx) -> Result<Out, String> {
    c.same()
}

fn string_concat(c: &Ctx) -> Result<Out, String> {
    let (a, b) = (c.x(0)?, c.x(1)?);
    Ok(vec![(STRING, broadcast(&[&a.shape, &b.shape])?)])
}

fn regex_full_match(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(BOOL, c.x(0)?.shape.clone())])
}

/// `[max(ngram_indexes) + 1]` or `[N, max(ngram_indexes) + 1]` floats.
fn tf_idf(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let indexes = c.ints("ngram_indexes").unwrap_or(&[]);
    let top = indexes.iter().copied().max().ok_or("no ngram_indexes")?;
    if indexes.iter().any(|&i| i < 0) {
        return Err("a negative ngram index".into());
    }
    let width = top + 1;
    match x.shape[..] {
        [_] => Ok(vec![(FLOAT, vec![width])]),
        [n, _] => Ok(vec![(FLOAT, vec![n, width])]),
        _ => Err(format!("an input of rank {}, not 1 or 2", x.rank())),
    }
}

/// An optional holds its input (a tensor or a sequence); an empty one (no
/// input) holds nothing, kept as an empty tensor.
fn optional(c: &Ctx) -> Result<Vec<Info>, String> {
    match c.opt(0) {
        Some(x) => Ok(vec![x.clone()]),
        None => Ok(vec![Info::new(UINT8, vec![0])]),
    }
}

fn optional_get_element(c: &Ctx) -> Result<Vec<Info>, String> {
    Ok(vec![c.x(0)?.clone()])
}

fn optional_has_element(_: &Ctx) -> Result<Out, String> {
    Ok(vec![(BOOL, vec![])])
}

/// The input's shape; the type of the values mapped to (the `values_*`
/// attribute from version 2, the other of string and int64 before).
fn label_encoder(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = if c.opset < 2 {
        match x.dtype {
            STRING => INT64,
            INT64 => STRING,
            t => return Err(format!("an input of type {t}, not string or int64")),
        }
    } else if let Some(t) = c.attr("values_tensor").and_then(|a| a.t.as_ref()) {
        t.data_type
    } else if c.attr("values_strings").is_some() {
        STRING
    } else if c.attr("values_int64s").is_some() {
        INT64
    } else if c.attr("values_floats").is_some() {
        FLOAT
    } else {
        return Err("no values_* attribute".into());
    };
    Ok(vec![(dtype, x.shape.clone())])
}

fn to_float(c: &Ctx) -> Result<Out, String> {
    Ok(vec![(FLOAT, c.x(0)?.shape.clone())])
}

/// The input with its last axis replaced by the number of indices (a 1-D input
/// gives `[1, indices]`).
fn array_feature_extractor(c: &Ctx) -> Result<Out, String> {
    let (x, idx) = (c.x(0)?, c.x(1)?);
    let n = product(&idx.shape)?;
    let mut shape = match x.rank() {
        0 => return Err("a scalar input".into()),
        1 => vec![1],
        r => x.shape[..r - 1].to_vec(),
    };
    shape.push(n);
    Ok(vec![(x.dtype, shape)])
}

/// The input with one more axis, one per category.
fn one_hot_encoder(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let n = match (c.ints("cats_int64s"), c.attr("cats_strings")) {
        (Some(ints), None) => ints.len(),
        (None, Some(s)) => s.strings,
        _ => return Err("not exactly one of cats_int64s and cats_strings".into()),
    };
    let mut shape = x.shape.clone();
    shape.push(n as i64);
    Ok(vec![(FLOAT, shape)])
}

/// The batch of a `[N, F]` input (1 for a 1-D one).
fn batch(x: &Info) -> Result<i64, String> {
    match x.shape[..] {
        [_] => Ok(1),
        [n, _] => Ok(n),
        _ => Err(format!("an input of rank {}, not 1 or 2", x.rank())),
    }
}

/// `[N, sum(inputdimensions)]` floats.
fn feature_vectorizer(c: &Ctx) -> Result<Out, String> {
    let n = batch(c.x(0)?)?;
    let dims = c.ints("inputdimensions").ok_or("no inputdimensions")?;
    let width = dims
        .iter()
        .try_fold(0i64, |s, &d| s.checked_add(d))
        .ok_or("a dimension overflows")?;
    Ok(vec![(FLOAT, vec![n, width])])
}

/// `[N, n_targets]`: the input's type for `TreeEnsemble`, float for the regressor.
fn tree_regressor(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let n = batch(x)?;
    let ids = if c.node.op_type == "TreeEnsemble" {
        "leaf_targetids"
    } else {
        "target_ids"
    };
    let targets = match c.attr("n_targets").and_then(|a| a.i) {
        Some(t) => t,
        None => {
            let top = c
                .ints(ids)
                .and_then(|t| t.iter().max())
                .ok_or("no n_targets")?;
            top.checked_add(1).ok_or("a target id overflows")?
        }
    };
    let dtype = if c.node.op_type == "TreeEnsemble" {
        x.dtype
    } else {
        FLOAT
    };
    Ok(vec![(dtype, vec![n, targets])])
}

/// The class labels of a classifier: their element type and number (string
/// labels, or int64 ones: `classlabels_int64s` for trees, `classlabels_ints` for
/// the linear and SVM classifiers).
fn class_labels(c: &Ctx) -> Result<(i32, usize), String> {
    let strings = c.attr("classlabels_strings").map_or(0, |a| a.strings);
    if strings > 0 {
        return Ok((STRING, strings));
    }
    let ints = (c.ints("classlabels_int64s"))
        .or(c.ints("classlabels_ints"))
        .unwrap_or(&[]);
    if ints.is_empty() {
        return Err("no classlabels_strings, classlabels_int64s or classlabels_ints".into());
    }
    Ok((INT64, ints.len()))
}

/// The top class `[N]` (string or int64 labels) and the scores `[N, classes]`.
fn tree_classifier(c: &Ctx) -> Result<Out, String> {
    let n = batch(c.x(0)?)?;
    let (dtype, classes) = class_labels(c)?;
    Ok(vec![(dtype, vec![n]), (FLOAT, vec![n, classes as i64])])
}

/// A sequence of `N` maps from class label to score, one per row of the `[N, C]`
/// scores. memplan sizes a map of `C` entries as `C` rows of three floats: a key
/// of 8 bytes (an int64, or a string's pointer) and a float value.
fn zip_map(c: &Ctx) -> Result<Vec<Info>, String> {
    let x = c.x(0)?;
    let (_, classes) = class_labels(c)?;
    let n = match x.shape[..] {
        [c] if c == classes as i64 => 1,
        [n, c] if c == classes as i64 => n,
        _ => {
            return Err(format!(
                "scores of shape {:?} for {classes} class labels",
                x.shape
            ))
        }
    };
    let rows = usize::try_from(n).map_err(|_| "a negative batch")?;
    Ok(vec![Info::sequence(
        FLOAT,
        vec![vec![classes as i64, 3]; rows],
    )])
}

/// `[N, targets]` floats.
fn linear_regressor(c: &Ctx) -> Result<Out, String> {
    let n = batch(c.x(0)?)?;
    Ok(vec![(FLOAT, vec![n, c.int("targets", 1)])])
}

/// Strings to int64s and back, in the input's shape.
fn category_mapper(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let dtype = if x.dtype == STRING { INT64 } else { STRING };
    Ok(vec![(dtype, x.shape.clone())])
}

/// `Adagrad`, `Momentum`, `Adam`: inputs `R, T`, then groups of `n` tensors
/// (`X, G, H` / `X, G, V` / `X, G, V, H`); the outputs are the new `X`, then the
/// new state groups, each shaped like its input.
fn optimizer(c: &Ctx) -> Result<Out, String> {
    let groups = if c.node.op_type == "Adam" { 4 } else { 3 };
    let tensors = c.inputs.len().saturating_sub(2);
    let n = tensors / groups;
    if n == 0 || !tensors.is_multiple_of(groups) || c.n_out() > n * (groups - 1) {
        return Err(format!(
            "{} inputs and {} outputs",
            c.inputs.len(),
            c.n_out()
        ));
    }
    (0..c.n_out())
        .map(|j| {
            let group = if j < n { 0 } else { j / n + 1 };
            Ok(c.x(2 + group * n + j % n)?.ty())
        })
        .collect()
}

/// The gradients with respect to `xs`: the first inputs, which are their values.
fn gradient(c: &Ctx) -> Result<Out, String> {
    let xs = c.attr("xs").map_or(0, |a| a.strings);
    if c.n_out() != xs || xs > c.inputs.len() {
        return Err(format!(
            "{} outputs for {xs} xs and {} inputs",
            c.n_out(),
            c.inputs.len()
        ));
    }
    (0..xs).map(|i| Ok(c.x(i)?.ty())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::ops::testing::*;
    use crate::onnx::shape::Info;

    #[test]
    fn optimizers_update_their_inputs() {
        let ins = [
            t(&[]),
            k(&[], &[0]),
            t(&[1]),
            t(&[2]),
            t(&[1]),
            t(&[2]),
            t(&[1]),
            t(&[2]),
            t(&[1]),
            t(&[2]),
        ];
        let n = node("Adam", vec![], 6);
        assert_eq!(
            shapes(run(optimizer, &n, 1, &ins).unwrap()),
            vec![vec![1], vec![2], vec![1], vec![2], vec![1], vec![2]]
        );
        let n = node("Momentum", vec![], 4);
        assert!(run(optimizer, &n, 1, &ins[..9]).is_err());
        let ins = [t(&[]), k(&[], &[0]), t(&[3]), t(&[3]), t(&[4])];
        let n = node("Adagrad", vec![], 2);
        assert_eq!(
            shapes(run(optimizer, &n, 1, &ins).unwrap()),
            vec![vec![3], vec![4]]
        );
        let n = node("Gradient", vec![strings("xs", 2)], 2);
        assert_eq!(
            shapes(run(gradient, &n, 1, &[t(&[2]), t(&[3]), t(&[4])]).unwrap()),
            vec![vec![2], vec![3]]
        );
        let n = node("Gradient", vec![strings("xs", 3)], 2);
        assert!(run(gradient, &n, 1, &[t(&[2]), t(&[3]), t(&[4])]).is_err());
    }

    #[test]
    fn ml_types_follow_their_attributes() {
        let x = Some(Info::new(STRING, vec![5]));
        let n = node("LabelEncoder", vec![], 1);
        assert_eq!(
            run(label_encoder, &n, 1, std::slice::from_ref(&x)).unwrap(),
            vec![(INT64, vec![5])]
        );
        let n = node(
            "LabelEncoder",
            vec![strings("keys_strings", 2), ints("values_int64s", &[1, 2])],
            1,
        );
        assert_eq!(
            run(label_encoder, &n, 2, std::slice::from_ref(&x)).unwrap(),
            vec![(INT64, vec![5])]
        );
        assert!(run(label_encoder, &node("LabelEncoder", vec![], 1), 2, &[x]).is_err());
        let n = node(
            "TreeEnsembleRegressor",
            vec![ints("target_ids", &[0, 2, 1])],
            1,
        );
        assert_eq!(
            run(tree_regressor, &n, 3, &[t(&[7, 4])]).unwrap(),
            vec![(FLOAT, vec![7, 3])]
        );
        let n = node(
            "TreeEnsembleClassifier",
            vec![strings("classlabels_strings", 3)],
            2,
        );
        let out = run(tree_classifier, &n, 3, &[t(&[7, 4])]).unwrap();
        assert_eq!(out, vec![(STRING, vec![7]), (FLOAT, vec![7, 3])]);
        let n = node("ArrayFeatureExtractor", vec![], 1);
        assert_eq!(
            shapes(run(array_feature_extractor, &n, 1, &[t(&[4]), k(&[2], &[0, 1])]).unwrap())[0],
            vec![1, 2]
        );
        let n = node("OneHotEncoder", vec![ints("cats_int64s", &[1, 2, 3])], 1);
        assert_eq!(
            shapes(run(one_hot_encoder, &n, 1, &[t(&[2, 4])]).unwrap())[0],
            vec![2, 4, 3]
        );
        let n = node(
            "FeatureVectorizer",
            vec![ints("inputdimensions", &[2, 3])],
            1,
        );
        assert_eq!(
            shapes(run(feature_vectorizer, &n, 1, &[t(&[5, 2]), t(&[5, 3])]).unwrap())[0],
            vec![5, 5]
        );
    }

    #[test]
    fn tf_idf_is_as_wide_as_the_largest_ngram_index() {
        let n = node(
            "TfIdfVectorizer",
            vec![ints("ngram_indexes", &[0, 6, 3])],
            1,
        );
        assert_eq!(
            run(tf_idf, &n, 9, &[k(&[2, 6], &[])]).unwrap(),
            vec![(FLOAT, vec![2, 7])]
        );
    }
}
