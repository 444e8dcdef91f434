//! The registry built once from every family's handlers, and the lookup in it.
//! Apart from `mod.rs` so that the types every family uses ([`Ctx`](super::Ctx),
//! [`Registry`]) sit in a module that imports none of the families.

use super::{
    bounded, control, elementwise, image, layout, microsoft, misc, nn, quant, reduce, rnn, sequence,
};
use super::{Handler, Registry, MS};
use std::sync::OnceLock;

/// The registry, built once.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        elementwise::register(&mut r);
        layout::register(&mut r);
        nn::register(&mut r);
        image::register(&mut r);
        reduce::register(&mut r);
        rnn::register(&mut r);
        quant::register(&mut r);
        microsoft::register(&mut r);
        misc::register(&mut r);
        bounded::register(&mut r);
        control::register(&mut r);
        sequence::register(&mut r);
        r
    })
}

/// The handler of `domain`/`op`; onnxruntime also accepts standard ops under
/// `com.microsoft`, so that domain falls back to the default one.
pub fn lookup(domain: &str, op: &str) -> Option<Handler> {
    let r = registry();
    let d = if domain == "ai.onnx" { "" } else { domain };
    r.map
        .get(&(d, op))
        .or_else(|| (d == MS).then(|| r.map.get(&("", op))).flatten())
        .copied()
}
