//! The products of a matmul-like case (ops with one L0C, one L0A and one L0B
//! buffer) and the ops that fill their L0A/L0B buffers, read off the graph; the
//! tile grid and the reload bound both start from them.

use crate::case::{BufferId, Case, Node, OpNode};

/// A product op of a matmul-like case: the op, its C tile (L0C buffer) and its
/// L0A and L0B buffers.
type Product = (u32, BufferId, [BufferId; 2]);

/// The products of `case` (ops with one L0C, one L0A and one L0B buffer) and, per
/// buffer, the index of the product whose L0A or L0B buffer it is (`u32::MAX` for
/// none). `None` when the case has no L0 levels or no products, when an op uses
/// L0C otherwise than alone or as one product, or when an L0A/L0B buffer serves
/// two products.
pub(super) fn find_products(case: &Case) -> Option<(Vec<Product>, Vec<u32>)> {
    let level = |name: &str| case.level_index(name).map(|l| l.index());
    let (l0a, l0b, l0c) = (level("L0A")?, level("L0B")?, level("L0C")?);
    let level_of = |b: BufferId| case.buffers[b.index()].level.index();
    let mut products: Vec<Product> = Vec::new();
    let mut product_of = vec![u32::MAX; case.buffers.len()];
    for (v, node) in case.nodes.iter().enumerate() {
        let Node::Op(op) = node else { continue };
        let of = |l: usize| op.bufs.iter().copied().filter(move |&b| level_of(b) == l);
        let (c, a, b) = (of(l0c).count(), of(l0a).count(), of(l0b).count());
        if c == 0 || (c == 1 && a == 0 && b == 0) {
            continue;
        }
        if c != 1 || a != 1 || b != 1 {
            return None;
        }
        let (a, b) = (of(l0a).next()?, of(l0b).next()?);
        for x in [a, b] {
            if product_of[x.index()] != u32::MAX {
                return None;
            }
            product_of[x.index()] = products.len() as u32;
        }
        products.push((v as u32, of(l0c).next()?, [a, b]));
    }
    (!products.is_empty()).then_some((products, product_of))
}

/// The ops that bring data into the products' L0A/L0B buffers: `(op index, the
/// op, the buffer, its product's index)`, for every such use by an op other than
/// the product itself.
pub(super) fn fills<'c>(
    case: &'c Case,
    products: &'c [Product],
    product_of: &'c [u32],
) -> impl Iterator<Item = (u32, &'c OpNode, BufferId, usize)> + 'c {
    let ops = case
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(v, node)| match node {
            Node::Op(op) => Some((v as u32, op)),
            _ => None,
        });
    ops.flat_map(move |(v, op)| {
        op.bufs.iter().filter_map(move |&x| {
            let p = product_of[x.index()];
            (p != u32::MAX && products[p as usize].0 != v).then_some((v, op, x, p as usize))
        })
    })
}
