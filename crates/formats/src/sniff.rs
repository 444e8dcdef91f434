//! What format detection needs from a JSON file, read without building the document:
//! the top-level keys and the keys of the first tensor. Everything else is skipped,
//! so a large file costs no more memory than its bytes while it is sniffed.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The top-level keys detection looks at.
#[derive(serde::Deserialize)]
pub struct Keys {
    #[serde(rename = "Nodes")]
    nodes: Option<IgnoredAny>,
    #[serde(rename = "Edges")]
    edges: Option<IgnoredAny>,
    pub ops: Option<IgnoredAny>,
    pub tensors: Option<FirstKeys>,
}

impl Keys {
    /// An NPU case in contest JSON has `Nodes` and `Edges`.
    pub fn is_npu(&self) -> bool {
        self.nodes.is_some() && self.edges.is_some()
    }
}

/// The keys of the first item of a list of objects; none for anything else.
#[derive(Default)]
pub struct FirstKeys(Vec<String>);

impl FirstKeys {
    pub fn has(&self, key: &str) -> bool {
        self.0.iter().any(|k| k == key)
    }
}

/// A value's keys when it is an object, skipping the values.
#[derive(Default)]
struct ObjectKeys(Vec<String>);

/// Accepts any JSON value: `on_seq` and `on_map` look into lists and objects, every
/// other value gives `T::default()`.
macro_rules! accept_scalars {
    ($t:ty) => {
        fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_unit<E>(self) -> Result<$t, E> {
            Ok(<$t>::default())
        }
    };
}

struct FirstKeysVisitor;

impl<'de> Visitor<'de> for FirstKeysVisitor {
    type Value = FirstKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    accept_scalars!(FirstKeys);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FirstKeys, A::Error> {
        let first = seq.next_element::<ObjectKeys>()?.unwrap_or_default();
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(FirstKeys(first.0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstKeys, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(FirstKeys::default())
    }
}

impl<'de> Deserialize<'de> for FirstKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FirstKeys, D::Error> {
        d.deserialize_any(FirstKeysVisitor)
    }
}

struct ObjectKeysVisitor;

impl<'de> Visitor<'de> for ObjectKeysVisitor {
    type Value = ObjectKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    accept_scalars!(ObjectKeys);

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ObjectKeys, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(ObjectKeys::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectKeys, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            keys.push(key);
        }
        Ok(ObjectKeys(keys))
    }
}

impl<'de> Deserialize<'de> for ObjectKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ObjectKeys, D::Error> {
        d.deserialize_any(ObjectKeysVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Keys {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn reads_top_level_keys_and_the_first_tensor_only() {
        let k = keys(r#"{"tensors": [{"bytes": 1, "kind": "x"}, {"other": 2}], "ops": []}"#);
        let first = k.tensors.as_ref().unwrap();
        assert!(first.has("bytes") && first.has("kind") && !first.has("other"));
        assert!(k.ops.is_some() && !k.is_npu());
        assert!(keys(r#"{"Nodes": [], "Edges": {}, "x": [1, {"y": null}]}"#).is_npu());
        assert!(!keys(r#"{"Nodes": []}"#).is_npu());
    }

    #[test]
    fn any_value_is_accepted_where_a_list_is_expected() {
        for tensors in ["3", "\"x\"", "null", "{\"a\": 1}", "[]", "[1, [2]]", "true"] {
            let k = keys(&format!(r#"{{"tensors": {tensors}}}"#));
            assert!(!k.tensors.is_some_and(|t| t.has("a")), "{tensors}");
        }
    }

    #[test]
    fn malformed_json_is_an_error() {
        assert!(serde_json::from_str::<Keys>(r#"{"tensors": [1,]}"#).is_err());
        assert!(serde_json::from_str::<Keys>(r#"{"tensors": [] "#).is_err());
    }
}
