//! How failures reach JS: every error a JS `Error` (with the core's kind when it
//! has one), and a panic, which is a bug, kept for the page to report.

use serde::Serialize;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The message of the last panic, until JS takes it.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = info.payload_as_str().unwrap_or("a panic");
        let text = match info.location() {
            Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
            None => message.to_string(),
        };
        let _ = LAST_PANIC.try_with(|last| last.try_borrow_mut().map(|mut l| *l = Some(text)));
    }));
}

/// The message of the last panic (a bug: the call that panicked threw a
/// `RuntimeError`), once; `undefined` when there was none.
#[wasm_bindgen(js_name = takePanic)]
pub fn take_panic() -> Option<String> {
    LAST_PANIC
        .try_with(|last| last.try_borrow_mut().ok().and_then(|mut l| l.take()))
        .ok()
        .flatten()
}

/// Panics with `message`, as a bug would: the tests prove the page survives it.
#[wasm_bindgen(js_name = panicForTests)]
pub fn panic_for_tests(message: &str) {
    panic!("{message}");
}

/// An error as JS receives it: a JS `Error` with the message and, when the core
/// raised it, a `kind` (`parse`, `needs-shape`, `invalid`, `limit`, `cycle`, `usage`) for the
/// page to act on instead of reading the words.
#[derive(Debug)]
pub struct Thrown(JsValue);

impl Thrown {
    /// A JS `Error` with `message` and no kind (a mistake of the caller's).
    pub fn new(message: &str) -> Thrown {
        Thrown(js_sys::Error::new(message).into())
    }
}

impl From<Thrown> for JsValue {
    fn from(thrown: Thrown) -> JsValue {
        thrown.0
    }
}

/// `e` as a JS `Error`; a core [`memplan::Error`] carries its kind, a
/// `needs-shape` one the `value` whose shape the page must ask for, and one of a
/// model that did not import with its free dims as they were those `dims`.
pub(crate) fn js_error<E: std::fmt::Display + 'static>(e: E) -> Thrown {
    let thrown = Thrown::new(&e.to_string());
    if let Some(core) = (&e as &dyn std::any::Any).downcast_ref::<memplan::Error>() {
        // setting a property of a fresh Error cannot fail
        let set = |key: &str, value: &str| {
            let _ = js_sys::Reflect::set(&thrown.0, &key.into(), &value.into());
        };
        set("kind", core.kind_name());
        if let Some(value) = core.value_needing_shape() {
            set("value", value);
        }
        // a model that did not import with its free dims as they were: the page
        // asks for them
        if !core.free_dims().is_empty() {
            if let Ok(dims) = to_js(core.free_dims()) {
                let _ = js_sys::Reflect::set(&thrown.0, &"dims".into(), &dims);
            }
        }
    }
    thrown
}

pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Thrown> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_error)
}

/// `value` as compact JSON text, the form reports leave the worker in.
#[cfg(any(feature = "worker", feature = "npu"))]
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Thrown> {
    serde_json::to_string(value).map_err(js_error)
}
