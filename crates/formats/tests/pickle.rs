//! The pickle reader against pickles Python wrote (protocols 2 to 5, in
//! `tests/data/plain_p*.pickle`, with Python's own reading of them as JSON in
//! `plain.json`), and against hostile pickles: each gets a clear error, never a
//! panic or a hang.

use memplan_formats::pickle::{self, Fold, Node, Tree, Val};
use serde_json::{json, Value};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(memplan_testkit::root().join("tests/data").join(name)).unwrap()
}

/// The tree as Python's JSON of it: tuples as lists, integers beyond 2^53 as
/// `{"int": "digits"}`.
fn to_json(t: &Tree, v: Val) -> Value {
    match v {
        Val::None => Value::Null,
        Val::Bool(b) => json!(b),
        Val::Float(f) => json!(f),
        Val::Int(_) | Val::UInt(_) => {
            let i = t.int(v).unwrap();
            if i.unsigned_abs() > 1 << 53 {
                json!({"int": i.to_string()})
            } else {
                json!(i as i64)
            }
        }
        Val::Str { .. } => json!(t.str(v).unwrap()),
        Val::Record(_) => unreachable!("no fold, no records"),
        Val::Node(_) => match (t.items(v), t.pairs(v)) {
            (Some(items), _) => Value::Array(items.iter().map(|&x| to_json(t, x)).collect()),
            (_, Some(pairs)) => Value::Object(
                (pairs.iter())
                    .map(|&(k, x)| (t.str(k).unwrap().to_string(), to_json(t, x)))
                    .collect(),
            ),
            _ => unreachable!(),
        },
    }
}

#[test]
fn every_protocol_reads_as_python_reads_it() {
    let expected: Value = serde_json::from_slice(&data("plain.json")).unwrap();
    for p in 2..=5 {
        let tree = pickle::read(data(&format!("plain_p{p}.pickle"))).unwrap();
        assert_eq!(to_json(&tree, tree.root), expected, "protocol {p}");
    }
}

#[test]
fn a_shared_list_is_one_node_not_a_copy() {
    for p in [2, 4] {
        let tree = pickle::read(data(&format!("plain_p{p}.pickle"))).unwrap();
        let (a, b) = (
            tree.get(tree.root, "a").unwrap(),
            tree.get(tree.root, "b").unwrap(),
        );
        assert!(matches!(a, Val::Node(_)));
        assert_eq!(
            a, b,
            "protocol {p}: memo reference resolved to another node"
        );
    }
}

#[test]
fn addresses_at_or_above_2_to_the_63_keep_every_bit() {
    let tree = pickle::read(data("plain_p4.pickle")).unwrap();
    let ints = tree.items(tree.get(tree.root, "ints").unwrap()).unwrap();
    let values: Vec<i128> = ints.iter().map(|&v| tree.int(v).unwrap()).collect();
    assert!(values.contains(&((1i128 << 63) + 5)));
    assert!(values.contains(&((1i128 << 64) - 1)));
    assert!(values.contains(&-(1i128 << 63)));
}

/// Folds the dicts with an `action` key (as the snapshot reader does) into records
/// numbered in order.
struct Actions(u32);

impl Fold for Actions {
    fn dict(&mut self, t: &Tree, pairs: &[(Val, Val)]) -> Result<Option<u32>, memplan::Error> {
        Ok(t.find(pairs, "action").map(|_| {
            self.0 += 1;
            self.0 - 1
        }))
    }
}

#[test]
fn a_folded_dict_is_a_record_at_every_memo_reference() {
    // Python's pickle.dumps([d, d, {'action': 'y', 'w': [1]}]) with d = {'action': 'x', 'v': 1}
    let p4 = b"\x80\x04\x951\x00\x00\x00\x00\x00\x00\x00]\x94(}\x94(\x8c\x06action\x94\x8c\x01x\x94\x8c\x01v\x94K\x01uh\x01}\x94(h\x02\x8c\x01y\x94\x8c\x01w\x94]\x94K\x01aue.";
    let tree = pickle::read_from(&p4[..], &mut Actions(0)).unwrap();
    let items = tree.items(tree.root).unwrap();
    assert_eq!(items, [Val::Record(0), Val::Record(0), Val::Record(1)]);
    // d, the last node made when folded, gave its node back; the second dict made
    // [1] after itself, so its node stays, emptied
    assert_eq!(tree.nodes.len(), 3, "{:?}", tree.nodes);
    assert_eq!(tree.nodes[1], Node::Dict(Vec::new()));
    // protocol 2: [d, d]
    let p2 = b"\x80\x02]q\x00(}q\x01(X\x06\x00\x00\x00actionq\x02X\x01\x00\x00\x00xq\x03X\x01\x00\x00\x00vq\x04K\x01uh\x01e.";
    let tree = pickle::read_from(&p2[..], &mut Actions(0)).unwrap();
    assert_eq!(
        tree.items(tree.root).unwrap(),
        [Val::Record(0), Val::Record(0)]
    );
    // without a fold every dict stays
    let tree = pickle::read(p4.to_vec()).unwrap();
    let first = tree.items(tree.root).unwrap()[0];
    assert_eq!(tree.str(tree.get(first, "action").unwrap()), Some("x"));
}

/// A stream that hands over one to seven bytes per read.
struct Trickle<'a>(&'a [u8], u64);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.1 = self.1.wrapping_mul(6364136223846793005).wrapping_add(1);
        let n = (1 + (self.1 >> 33) % 7) as usize;
        let n = n.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_stream_a_few_bytes_at_a_time_reads_as_a_whole_input() {
    let expected: Value = serde_json::from_slice(&data("plain.json")).unwrap();
    for p in [2, 5] {
        let bytes = data(&format!("plain_p{p}.pickle"));
        let tree = pickle::read_from(Trickle(&bytes, 1), &mut ()).unwrap();
        assert_eq!(to_json(&tree, tree.root), expected, "protocol {p}");
        let cut = pickle::read_from(Trickle(&bytes[..bytes.len() - 3], 1), &mut ());
        assert!(cut.unwrap_err().to_string().contains("truncated"));
    }
}

fn error(bytes: &[u8]) -> String {
    match pickle::read(bytes.to_vec()) {
        Ok(t) => panic!("read {:?} instead of an error", t.root),
        Err(e) => e.to_string(),
    }
}

#[test]
fn code_calling_opcodes_are_refused_by_name() {
    let e = error(&data("global.pickle"));
    assert!(
        e.contains("STACK_GLOBAL") && e.contains("would import or call"),
        "{e}"
    );
    // protocol 2's GLOBAL, then REDUCE
    let e = error(b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.");
    assert!(e.contains("GLOBAL"), "{e}");
    let e = error(b"\x80\x02]q\x00(K\x01e)R.");
    assert!(e.contains("REDUCE"), "{e}");
    let e = error(b"\x80\x02}q\x00b.");
    assert!(e.contains("BUILD"), "{e}");
}

#[test]
fn truncated_and_oversized_lengths_name_the_byte() {
    let whole = data("plain_p4.pickle");
    for cut in [1, 2, 3, 10, whole.len() / 2, whole.len() - 1] {
        let e = error(&whole[..cut]);
        assert!(
            e.contains("truncated") || e.contains("byte"),
            "cut at {cut}: {e}"
        );
    }
    // a string claiming 2^60 bytes, and one claiming 200 of 3
    let e = error(b"\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x10abc.");
    assert!(e.contains("truncated"), "{e}");
    let e = error(b"\x80\x04\x8c\xc8abc.");
    assert!(e.contains("truncated: 200 bytes needed, 4 left"), "{e}");
    // a LONG4 of 2^31 bytes
    let e = error(b"\x80\x04\x8b\x00\x00\x00\x80.");
    assert!(e.contains("truncated: 2147483648 bytes needed"), "{e}");
}

#[test]
fn memo_and_stack_misuse_are_errors() {
    assert!(error(b"\x80\x04h\x05.").contains("memo index 5 was never stored"));
    assert!(error(b"\x80\x04r\xff\xff\xff\x7f.").contains("empty stack"));
    assert!(error(b"\x80\x04K\x01r\xff\xff\xff\x7f.").contains("beyond the input's size"));
    assert!(error(b"\x80\x04.").contains("STOP"));
    assert!(error(b"\x80\x04K\x01K\x02.").contains("STOP"));
    assert!(error(b"\x80\x04K\x01e.").contains("without a MARK"));
    assert!(error(b"\x80\x04K\x01K\x02a.").contains("other than a list"));
    assert!(error(b"\x80\x04}(K\x01u.").contains("odd number"));
    assert!(error(b"\x80\x01.").contains("protocol 1"));
    assert!(error(b"\x80\x04B\x01\x00\x00\x00x.").contains("not one Python writes"));
}

#[test]
fn a_million_nested_lists_read_without_recursion() {
    let depth = 1_000_000;
    let mut bytes = b"\x80\x04".to_vec();
    bytes.extend(std::iter::repeat_n(b']', depth));
    bytes.extend(std::iter::repeat_n(b'a', depth - 1));
    bytes.push(b'.');
    let tree = pickle::read(bytes).unwrap();
    let mut v = tree.root;
    let mut seen = 1;
    while let Some([inner]) = tree.items(v) {
        v = *inner;
        seen += 1;
    }
    assert_eq!(seen, depth);
}

#[test]
fn random_damage_never_panics() {
    let whole = data("plain_p4.pickle");
    let mut rng = memplan_testkit::Rng(7);
    for _ in 0..3000 {
        let mut bytes = whole.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] = rng.below(256) as u8;
        }
        let _ = pickle::read(bytes);
    }
}

#[test]
fn a_pickle_holding_more_values_than_the_limit_stops_in_words() {
    // a list of 2,000 empty lists, then the same under a limit of 1,000 values
    let mut bytes = b"\x80\x04](".to_vec();
    bytes.extend(std::iter::repeat_n(b']', 2000));
    bytes.extend(b"e.");
    let tree = pickle::read_limited(&bytes[..], &mut (), 10_000).unwrap();
    assert_eq!(tree.len(tree.root), Some(2000));
    let e = pickle::read_limited(&bytes[..], &mut (), 1000)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the values a pickle holds at once") && e.contains("limit of 1000"),
        "{e}"
    );
    // appended one by one, the items count as they are stored
    let mut bytes = b"\x80\x04]".to_vec();
    for _ in 0..2000 {
        bytes.extend(b"K\x01a");
    }
    bytes.push(b'.');
    let e = pickle::read_limited(&bytes[..], &mut (), 1000)
        .unwrap_err()
        .to_string();
    assert!(e.contains("limit of 1000"), "{e}");
    // Python's own pickle of the fixture fits in a small multiple of its items
    assert!(pickle::read_limited(&data("plain_p4.pickle")[..], &mut (), 20_000).is_ok());
}
