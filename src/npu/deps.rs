//! Node dependencies of a case, in compressed adjacency form.

use super::case::Case;

pub struct Deps {
    pub succ: Vec<Vec<u32>>,
    pub pred: Vec<Vec<u32>>,
}

impl Deps {
    pub fn new(case: &Case) -> Deps {
        let n = case.nodes.len();
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in &case.edges {
            succ[a as usize].push(b);
            pred[b as usize].push(a);
        }
        for list in succ.iter_mut().chain(pred.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        Deps { succ, pred }
    }
}
