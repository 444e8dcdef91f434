//! Sampling and regions over images: grid sampling, ROI pooling, unpooling,
//! column-to-image.

use super::{Ctx, Registry, ONNX};
use crate::onnx::shape::{add, mul, product, Out};

pub fn register(r: &mut Registry) {
    r.add(ONNX, &["GridSample"], grid_sample);
    r.add(ONNX, &["AffineGrid"], affine_grid);
    r.add(ONNX, &["RoiAlign"], roi_align);
    r.add(ONNX, &["MaxRoiPool"], max_roi_pool);
    r.add(ONNX, &["Col2Im"], col2im);
    r.add(ONNX, &["MaxUnpool"], max_unpool);
}

/// `[N, C, spatial of the grid...]` from `X` `[N, C, ...]` and the grid
/// `[N, out..., rank - 2]`.
fn grid_sample(c: &Ctx) -> Result<Out, String> {
    let (x, grid) = (c.x(0)?, c.x(1)?);
    let r = x.rank();
    if r < 3 || grid.rank() != r {
        return Err(format!(
            "an input of {:?} with a grid of {:?}",
            x.shape, grid.shape
        ));
    }
    if grid.shape[r - 1] != r as i64 - 2 || grid.shape[0] != x.shape[0] {
        return Err(format!(
            "a grid of {:?} for an input of {:?}",
            grid.shape, x.shape
        ));
    }
    let mut shape = x.shape[..2].to_vec();
    shape.extend_from_slice(&grid.shape[1..r - 1]);
    Ok(vec![(x.dtype, shape)])
}

/// A grid `[N, H, W, 2]` or `[N, D, H, W, 3]` for a `size` of `[N, C, H, W]` or
/// `[N, C, D, H, W]`.
fn affine_grid(c: &Ctx) -> Result<Out, String> {
    let theta = c.x(0)?;
    let size = c.values(1, "size")?;
    let (n, spatial) = match size.len() {
        4 | 5 => (size[0], &size[2..]),
        k => return Err(format!("a size of {k} values, not 4 or 5")),
    };
    let k = spatial.len() as i64;
    if theta.shape != [n, k, k + 1] {
        return Err(format!(
            "a theta of {:?} for a size of {size:?}",
            theta.shape
        ));
    }
    let mut shape = vec![n];
    shape.extend_from_slice(spatial);
    shape.push(k);
    Ok(vec![(theta.dtype, shape)])
}

/// `[num_rois, C, output_height, output_width]`.
fn roi_align(c: &Ctx) -> Result<Out, String> {
    let (x, rois) = (c.x(0)?, c.x(1)?);
    if x.rank() != 4 || rois.rank() != 2 || rois.shape[1] != 4 {
        return Err(format!(
            "an input of {:?} with rois of {:?}",
            x.shape, rois.shape
        ));
    }
    if let Some(b) = c.opt(2) {
        if b.shape != [rois.shape[0]] {
            return Err(format!(
                "batch indices of {:?} for {} rois",
                b.shape, rois.shape[0]
            ));
        }
    }
    let (h, w) = (c.int("output_height", 1), c.int("output_width", 1));
    Ok(vec![(x.dtype, vec![rois.shape[0], x.shape[1], h, w])])
}

/// `[num_rois, C, pooled_shape...]`.
fn max_roi_pool(c: &Ctx) -> Result<Out, String> {
    let (x, rois) = (c.x(0)?, c.x(1)?);
    if x.rank() != 4 || rois.rank() != 2 || rois.shape[1] != 5 {
        return Err(format!(
            "an input of {:?} with rois of {:?}",
            x.shape, rois.shape
        ));
    }
    let pooled = c.ints("pooled_shape").ok_or("no pooled_shape")?;
    match *pooled {
        [h, w] if h > 0 && w > 0 => Ok(vec![(x.dtype, vec![rois.shape[0], x.shape[1], h, w])]),
        _ => Err(format!("a pooled_shape of {pooled:?}")),
    }
}

/// `[N, C, image_shape...]` from columns `[N, C * prod(block_shape), L]`.
fn col2im(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    let image = c.values(1, "image_shape")?;
    let block = c.values(2, "block_shape")?;
    if x.rank() != 3 || image.len() != block.len() || block.iter().any(|&b| b <= 0) {
        return Err(format!(
            "columns of {:?} with an image of {image:?} and blocks of {block:?}",
            x.shape
        ));
    }
    let per_channel = product(&block)?;
    if x.shape[1] % per_channel != 0 {
        return Err(format!("{} rows for blocks of {block:?}", x.shape[1]));
    }
    let mut shape = vec![x.shape[0], x.shape[1] / per_channel];
    shape.extend_from_slice(&image);
    Ok(vec![(x.dtype, shape)])
}

/// The given `output_shape` (input 2), else each spatial axis grown back to
/// `(d - 1) * stride + kernel - pads`.
fn max_unpool(c: &Ctx) -> Result<Out, String> {
    let x = c.x(0)?;
    if let Some(shape) = c.opt_values(2, "output_shape")? {
        if shape.len() != x.rank() {
            return Err(format!(
                "an output_shape of {shape:?} for rank {}",
                x.rank()
            ));
        }
        return Ok(vec![(x.dtype, shape)]);
    }
    let k = x.rank().checked_sub(2).ok_or("an input of rank below 2")?;
    let kernel = c.ints("kernel_shape").ok_or("no kernel_shape")?;
    let (ones, zeros) = (vec![1i64; k], vec![0i64; 2 * k]);
    let strides = c.ints("strides").unwrap_or(&ones);
    let pads = c.ints("pads").unwrap_or(&zeros);
    if kernel.len() != k || strides.len() != k || pads.len() != 2 * k {
        return Err("kernel_shape, strides or pads do not match the input".into());
    }
    let mut shape = x.shape[..2].to_vec();
    for i in 0..k {
        let grown = add(mul(x.shape[i + 2] - 1, strides[i])?, kernel[i])?;
        let d = grown
            .checked_sub(pads[i])
            .and_then(|d| d.checked_sub(pads[i + k]))
            .ok_or("a dimension overflows")?;
        shape.push(d);
    }
    Ok(vec![(x.dtype, shape)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::ops::testing::*;

    #[test]
    fn grids_follow_their_size() {
        let n = node("GridSample", vec![], 1);
        let out = shapes(run(grid_sample, &n, 20, &[t(&[2, 3, 8, 8]), t(&[2, 5, 6, 2])]).unwrap());
        assert_eq!(out[0], vec![2, 3, 5, 6]);
        assert!(run(grid_sample, &n, 20, &[t(&[2, 3, 8, 8]), t(&[2, 5, 6, 3])]).is_err());
        assert!(run(grid_sample, &n, 20, &[t(&[2, 3]), t(&[2, 3])]).is_err());
        let n = node("AffineGrid", vec![], 1);
        let ins = [t(&[2, 2, 3]), k(&[4], &[2, 3, 4, 5])];
        assert_eq!(
            shapes(run(affine_grid, &n, 20, &ins).unwrap())[0],
            vec![2, 4, 5, 2]
        );
        let ins = [t(&[2, 3, 4]), k(&[5], &[2, 3, 4, 5, 6])];
        assert_eq!(
            shapes(run(affine_grid, &n, 20, &ins).unwrap())[0],
            vec![2, 4, 5, 6, 3]
        );
        assert!(run(
            affine_grid,
            &n,
            20,
            &[t(&[2, 2, 3]), k(&[5], &[2, 3, 4, 5, 6])]
        )
        .is_err());
    }

    #[test]
    fn rois_and_columns() {
        let n = node(
            "RoiAlign",
            vec![int("output_height", 5), int("output_width", 7)],
            1,
        );
        let ins = [t(&[1, 4, 10, 10]), t(&[3, 4]), k(&[3], &[0, 0, 0])];
        assert_eq!(
            shapes(run(roi_align, &n, 16, &ins).unwrap())[0],
            vec![3, 4, 5, 7]
        );
        let n = node("MaxRoiPool", vec![ints("pooled_shape", &[2, 2])], 1);
        let ins = [t(&[1, 4, 10, 10]), t(&[6, 5])];
        assert_eq!(
            shapes(run(max_roi_pool, &n, 1, &ins).unwrap())[0],
            vec![6, 4, 2, 2]
        );
        let n = node("Col2Im", vec![], 1);
        let ins = [t(&[1, 10, 12]), k(&[2], &[5, 5]), k(&[2], &[1, 5])];
        assert_eq!(
            shapes(run(col2im, &n, 18, &ins).unwrap())[0],
            vec![1, 2, 5, 5]
        );
        let ins = [t(&[1, 9, 12]), k(&[2], &[5, 5]), k(&[2], &[1, 5])];
        assert!(run(col2im, &n, 18, &ins).is_err());
    }

    #[test]
    fn max_unpool_grows_back_or_takes_the_output_shape() {
        let n = node(
            "MaxUnpool",
            vec![ints("kernel_shape", &[2, 2]), ints("strides", &[2, 2])],
            1,
        );
        let ins = [t(&[1, 1, 2, 2]), k(&[1, 1, 2, 2], &[])];
        assert_eq!(
            shapes(run(max_unpool, &n, 11, &ins).unwrap())[0],
            vec![1, 1, 4, 4]
        );
        let ins = [
            t(&[1, 1, 2, 2]),
            k(&[1, 1, 2, 2], &[]),
            k(&[4], &[1, 1, 5, 5]),
        ];
        assert_eq!(
            shapes(run(max_unpool, &n, 11, &ins).unwrap())[0],
            vec![1, 1, 5, 5]
        );
        let ins = [t(&[1, 1, 2, 2]), k(&[1, 1, 2, 2], &[]), t(&[4])];
        assert!(run(max_unpool, &n, 11, &ins).is_err());
    }
}
