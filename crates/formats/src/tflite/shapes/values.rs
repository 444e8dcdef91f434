//! Shapes as values: `SHAPE`, `RANK`, `FILL`, `RANGE`.

use super::*;

/// `SHAPE`: [rank], whose value is the input's dimensions.
pub(super) fn shape(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    Ok(vec![valued(vec![x.len() as i64], Some(x.to_vec()))])
}

/// `RANK`: a scalar, the input's rank.
pub(super) fn rank(c: &Ctx) -> R<Vec<Out>> {
    let x = c.dims(0)?;
    Ok(vec![valued(Vec::new(), Some(vec![x.len() as i64]))])
}

/// `FILL`: inputs (dims, value): the shape is the value of input 0.
pub(super) fn fill(c: &Ctx) -> R<Vec<Out>> {
    let d = c.value(0, "dims")?;
    if d.iter().any(|&n| n < 0) {
        return Err(format!("its dims {} are not a shape", show(d)));
    }
    let value = match (c.input(1)?.value, numel(d)) {
        (Some(&[v]), Ok(n)) if (0..=MAX_VALUE as i64).contains(&n) => Some(vec![v; n as usize]),
        _ => None,
    };
    Ok(vec![valued(d.to_vec(), value)])
}

/// `RANGE`: inputs (start, limit, delta), integers.
pub(super) fn range(c: &Ctx) -> R<Vec<Out>> {
    let (start, limit, delta) = (
        c.scalar(0, "start")?,
        c.scalar(1, "limit")?,
        c.scalar(2, "delta")?,
    );
    if delta == 0 {
        return Err("its delta is 0".to_string());
    }
    let span = i128::from(limit) - i128::from(start);
    let delta128 = i128::from(delta);
    let n = if (span > 0) == (delta > 0) && span != 0 {
        (span.abs() + delta128.abs() - 1) / delta128.abs()
    } else {
        0
    };
    let n = i64::try_from(n).map_err(|_| too_large())?;
    let value = (n as u64 <= MAX_VALUE as u64)
        .then(|| {
            (0..n)
                .map(|k| start.checked_add(k.checked_mul(delta)?))
                .collect()
        })
        .flatten();
    Ok(vec![valued(vec![n], value)])
}
