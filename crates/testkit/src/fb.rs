//! A small FlatBuffers writer for hand-made files, and a TFLite model builder
//! over it.
//!
//! A table is a list of `(field index, value)`; [`finish`] writes the tree front
//! to back: each table's vtable, then the table (its scalars inline, aligned to
//! their size), then its children, so that every offset points forward as the
//! format requires.

/// A field's value.
#[derive(Clone, Debug)]
pub enum Field {
    U8(u8),
    I8(i8),
    I32(i32),
    U32(u32),
    U64(u64),
    Table(Table),
    Tables(Vec<Table>),
    Ints(Vec<i32>),
    Bytes(Vec<u8>),
    Str(String),
}

impl Field {
    /// Bytes the field takes inside its table (offsets take 4).
    fn inline_size(&self) -> usize {
        match self {
            Field::U8(_) | Field::I8(_) => 1,
            Field::U64(_) => 8,
            _ => 4,
        }
    }
}

/// A table: fields by index; unset fields take their schema default.
#[derive(Clone, Debug, Default)]
pub struct Table(pub Vec<(usize, Field)>);

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    /// Sets field `index` (replacing an earlier value).
    pub fn set(mut self, index: usize, f: Field) -> Table {
        self.0.retain(|(i, _)| *i != index);
        self.0.push((index, f));
        self
    }

    pub fn u8(self, index: usize, v: u8) -> Table {
        self.set(index, Field::U8(v))
    }

    pub fn i8(self, index: usize, v: i8) -> Table {
        self.set(index, Field::I8(v))
    }

    pub fn i32(self, index: usize, v: i32) -> Table {
        self.set(index, Field::I32(v))
    }

    pub fn u32(self, index: usize, v: u32) -> Table {
        self.set(index, Field::U32(v))
    }

    pub fn flag(self, index: usize, v: bool) -> Table {
        self.u8(index, u8::from(v))
    }

    pub fn ints(self, index: usize, v: &[i32]) -> Table {
        self.set(index, Field::Ints(v.to_vec()))
    }

    pub fn str(self, index: usize, v: &str) -> Table {
        self.set(index, Field::Str(v.to_string()))
    }
}

/// The bytes of a FlatBuffer with root table `root` and file identifier `ident`.
pub fn finish(root: &Table, ident: &[u8; 4]) -> Vec<u8> {
    let mut w = Writer(vec![0; 8]);
    w.0[4..8].copy_from_slice(ident);
    let pos = w.table(root);
    w.offset(0, pos);
    w.0
}

struct Writer(Vec<u8>);

impl Writer {
    fn align(&mut self, n: usize) {
        while !self.0.len().is_multiple_of(n) {
            self.0.push(0);
        }
    }

    fn put(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }

    /// Stores at `at` the offset to `target`, which lies after it.
    fn offset(&mut self, at: usize, target: usize) {
        let off = u32::try_from(target - at).expect("a forward offset");
        self.0[at..at + 4].copy_from_slice(&off.to_le_bytes());
    }

    fn table(&mut self, t: &Table) -> usize {
        let slots = t.0.iter().map(|(i, _)| i + 1).max().unwrap_or(0);
        let mut fields: Vec<&(usize, Field)> = t.0.iter().collect();
        fields.sort_by_key(|(_, f)| std::cmp::Reverse(f.inline_size()));
        let mut at = vec![0u16; slots];
        let mut cursor = 4usize;
        for (i, f) in &fields {
            let size = f.inline_size();
            cursor = cursor.div_ceil(size) * size;
            at[*i] = cursor as u16;
            cursor += size;
        }
        let len = cursor.div_ceil(4) * 4;
        self.align(2);
        let vtable = self.0.len();
        self.put(&(4 + 2 * slots as u16).to_le_bytes());
        self.put(&(len as u16).to_le_bytes());
        for a in &at {
            self.put(&a.to_le_bytes());
        }
        self.align(8);
        let pos = self.0.len();
        self.put(&((pos - vtable) as i32).to_le_bytes());
        self.0.resize(pos + len, 0);
        for (i, f) in &t.0 {
            let p = pos + usize::from(at[*i]);
            let bytes: Vec<u8> = match f {
                Field::U8(v) => vec![*v],
                Field::I8(v) => v.to_le_bytes().to_vec(),
                Field::I32(v) => v.to_le_bytes().to_vec(),
                Field::U32(v) => v.to_le_bytes().to_vec(),
                Field::U64(v) => v.to_le_bytes().to_vec(),
                _ => continue,
            };
            self.0[p..p + bytes.len()].copy_from_slice(&bytes);
        }
        for (i, f) in &t.0 {
            let p = pos + usize::from(at[*i]);
            if let Some(child) = self.child(f) {
                self.offset(p, child);
            }
        }
        pos
    }

    /// Writes the object a field points to; `None` for a scalar.
    fn child(&mut self, f: &Field) -> Option<usize> {
        self.align(4);
        let pos = self.0.len();
        match f {
            Field::Table(t) => return Some(self.table(t)),
            Field::Tables(ts) => {
                self.put(&(ts.len() as u32).to_le_bytes());
                self.0.resize(pos + 4 + 4 * ts.len(), 0);
                for (k, t) in ts.iter().enumerate() {
                    let c = self.table(t);
                    self.offset(pos + 4 + 4 * k, c);
                }
            }
            Field::Ints(v) => {
                self.put(&(v.len() as u32).to_le_bytes());
                for x in v {
                    self.put(&x.to_le_bytes());
                }
            }
            Field::Bytes(b) => {
                self.put(&(b.len() as u32).to_le_bytes());
                self.put(b);
            }
            Field::Str(s) => {
                self.put(&(s.len() as u32).to_le_bytes());
                self.put(s.as_bytes());
                self.0.push(0);
            }
            _ => return None,
        }
        Some(pos)
    }
}

/// TFLite models by hand: tensors, operators and subgraphs, field indices as in
/// TFLite's `schema.fbs`.
pub mod tfl {
    use super::{finish, Field, Table};

    pub const FLOAT32: i8 = 0;
    pub const INT32: i8 = 2;
    pub const BOOL: i8 = 6;

    // builtin operator codes
    pub const ADD: i32 = 0;
    pub const AVERAGE_POOL_2D: i32 = 1;
    pub const CONCATENATION: i32 = 2;
    pub const CONV_2D: i32 = 3;
    pub const DEPTHWISE_CONV_2D: i32 = 4;
    pub const DEPTH_TO_SPACE: i32 = 5;
    pub const FULLY_CONNECTED: i32 = 9;
    pub const L2_POOL_2D: i32 = 12;
    pub const MAX_POOL_2D: i32 = 17;
    pub const RELU: i32 = 19;
    pub const RESHAPE: i32 = 22;
    pub const RESIZE_BILINEAR: i32 = 23;
    pub const SPACE_TO_DEPTH: i32 = 26;
    pub const CUSTOM: i32 = 32;
    pub const PAD: i32 = 34;
    pub const GATHER: i32 = 36;
    pub const BATCH_TO_SPACE_ND: i32 = 37;
    pub const SPACE_TO_BATCH_ND: i32 = 38;
    pub const TRANSPOSE: i32 = 39;
    pub const MEAN: i32 = 40;
    pub const SQUEEZE: i32 = 43;
    pub const STRIDED_SLICE: i32 = 45;
    pub const SPLIT: i32 = 49;
    pub const PRELU: i32 = 54;
    pub const LESS: i32 = 58;
    pub const PADV2: i32 = 60;
    pub const SLICE: i32 = 65;
    pub const TRANSPOSE_CONV: i32 = 67;
    pub const TILE: i32 = 69;
    pub const EXPAND_DIMS: i32 = 70;
    pub const SUM: i32 = 74;
    pub const SHAPE: i32 = 77;
    pub const REDUCE_MAX: i32 = 82;
    pub const PACK: i32 = 83;
    pub const UNPACK: i32 = 88;
    pub const RESIZE_NEAREST_NEIGHBOR: i32 = 97;
    pub const MIRROR_PAD: i32 = 100;
    pub const SPLIT_V: i32 = 102;
    pub const WHERE: i32 = 109;
    pub const IF: i32 = 118;
    pub const WHILE: i32 = 119;
    pub const BATCH_MATMUL: i32 = 126;
    pub const CALL_ONCE: i32 = 129;
    pub const UNSORTED_SEGMENT_PROD: i32 = 153;

    // BuiltinOptions union types
    pub const CONV_2D_OPTIONS: u8 = 1;
    pub const DEPTHWISE_CONV_2D_OPTIONS: u8 = 2;
    pub const POOL_2D_OPTIONS: u8 = 5;
    pub const FULLY_CONNECTED_OPTIONS: u8 = 8;
    pub const CONCATENATION_OPTIONS: u8 = 10;
    pub const RESHAPE_OPTIONS: u8 = 17;
    pub const SPACE_TO_DEPTH_OPTIONS: u8 = 19;
    pub const GATHER_OPTIONS: u8 = 23;
    pub const REDUCER_OPTIONS: u8 = 27;
    pub const SQUEEZE_OPTIONS: u8 = 30;
    pub const STRIDED_SLICE_OPTIONS: u8 = 32;
    pub const SPLIT_OPTIONS: u8 = 35;
    pub const TRANSPOSE_CONV_OPTIONS: u8 = 49;
    pub const PACK_OPTIONS: u8 = 59;
    pub const UNPACK_OPTIONS: u8 = 64;
    pub const IF_OPTIONS: u8 = 92;
    pub const WHILE_OPTIONS: u8 = 93;
    pub const DEPTH_TO_SPACE_OPTIONS: u8 = 94;
    pub const BATCH_MATMUL_OPTIONS: u8 = 101;
    pub const CALL_ONCE_OPTIONS: u8 = 103;

    #[derive(Default)]
    struct Sub {
        name: String,
        tensors: Vec<Table>,
        inputs: Vec<i32>,
        outputs: Vec<i32>,
        ops: Vec<Table>,
    }

    /// A model under construction; subgraph 0 exists from the start.
    pub struct Model {
        codes: Vec<(i32, Option<String>)>,
        buffers: Vec<Vec<u8>>,
        /// Buffers whose data lies after the FlatBuffer: `(index, offset, size)`.
        far: Vec<(usize, u64, u64)>,
        subs: Vec<Sub>,
    }

    impl Default for Model {
        fn default() -> Model {
            Model::new()
        }
    }

    impl Model {
        pub fn new() -> Model {
            Model {
                codes: Vec::new(),
                buffers: vec![Vec::new()], // buffer 0: the empty sentinel
                far: Vec::new(),
                subs: vec![Sub::default()],
            }
        }

        /// Adds a subgraph; returns its index.
        pub fn subgraph(&mut self, name: &str) -> usize {
            self.subs.push(Sub {
                name: name.to_string(),
                ..Sub::default()
            });
            self.subs.len() - 1
        }

        fn add(&mut self, s: usize, t: Table) -> i32 {
            let tensors = &mut self.subs[s].tensors;
            tensors.push(t);
            tensors.len() as i32 - 1
        }

        fn data(&mut self, bytes: Vec<u8>) -> u32 {
            self.buffers.push(bytes);
            self.buffers.len() as u32 - 1
        }

        /// A tensor of `kind` without data.
        pub fn typed(&mut self, s: usize, name: &str, shape: &[i32], kind: i8) -> i32 {
            let t = Table::new().ints(0, shape).i8(1, kind).str(3, name);
            self.add(s, t)
        }

        /// A float tensor without data (an input or an activation).
        pub fn tensor(&mut self, s: usize, name: &str, shape: &[i32]) -> i32 {
            self.typed(s, name, shape, FLOAT32)
        }

        /// A float input with a `shape_signature`.
        pub fn dynamic(&mut self, s: usize, name: &str, shape: &[i32], signature: &[i32]) -> i32 {
            let t = Table::new()
                .ints(0, shape)
                .i8(1, FLOAT32)
                .str(3, name)
                .ints(7, signature);
            self.add(s, t)
        }

        /// A float weight (its one byte of data makes it a constant).
        pub fn weight(&mut self, s: usize, name: &str, shape: &[i32]) -> i32 {
            let b = self.data(vec![0]);
            let t = Table::new()
                .ints(0, shape)
                .i8(1, FLOAT32)
                .u32(2, b)
                .str(3, name);
            self.add(s, t)
        }

        /// A float weight whose `size` bytes of data lie at `offset` of the file,
        /// after the FlatBuffer (as models over 2 GB store them).
        pub fn far_weight(
            &mut self,
            s: usize,
            name: &str,
            shape: &[i32],
            offset: u64,
            size: u64,
        ) -> i32 {
            self.buffers.push(Vec::new());
            let b = self.buffers.len() - 1;
            self.far.push((b, offset, size));
            let t = Table::new()
                .ints(0, shape)
                .i8(1, FLOAT32)
                .u32(2, b as u32)
                .str(3, name);
            self.add(s, t)
        }

        /// An int32 constant of `shape` holding `values`.
        pub fn consts(&mut self, s: usize, name: &str, shape: &[i32], values: &[i32]) -> i32 {
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let b = self.data(bytes);
            let t = Table::new()
                .ints(0, shape)
                .i8(1, INT32)
                .u32(2, b)
                .str(3, name);
            self.add(s, t)
        }

        /// An int32 vector constant.
        pub fn ints(&mut self, s: usize, name: &str, values: &[i32]) -> i32 {
            self.consts(s, name, &[values.len() as i32], values)
        }

        /// An int32 scalar constant.
        pub fn scalar(&mut self, s: usize, name: &str, value: i32) -> i32 {
            self.consts(s, name, &[], &[value])
        }

        fn code(&mut self, kind: i32, custom: Option<&str>) -> u32 {
            let key = (kind, custom.map(str::to_string));
            match self.codes.iter().position(|c| *c == key) {
                Some(i) => i as u32,
                None => {
                    self.codes.push(key);
                    self.codes.len() as u32 - 1
                }
            }
        }

        /// An operator; `options` is the union type and its table.
        pub fn op(
            &mut self,
            s: usize,
            kind: i32,
            inputs: &[i32],
            outputs: &[i32],
            options: Option<(u8, Table)>,
        ) {
            let mut t = Table::new()
                .u32(0, self.code(kind, None))
                .ints(1, inputs)
                .ints(2, outputs);
            if let Some((kind, table)) = options {
                t = t.u8(3, kind).set(4, Field::Table(table));
            }
            self.subs[s].ops.push(t);
        }

        /// A custom operator with raw `custom_options`.
        pub fn custom(
            &mut self,
            s: usize,
            code: &str,
            inputs: &[i32],
            outputs: &[i32],
            opts: &[u8],
        ) {
            let t = Table::new()
                .u32(0, self.code(CUSTOM, Some(code)))
                .ints(1, inputs)
                .ints(2, outputs)
                .set(5, Field::Bytes(opts.to_vec()));
            self.subs[s].ops.push(t);
        }

        /// The inputs and outputs of subgraph `s`.
        pub fn io(&mut self, s: usize, inputs: &[i32], outputs: &[i32]) {
            self.subs[s].inputs = inputs.to_vec();
            self.subs[s].outputs = outputs.to_vec();
        }

        pub fn bytes(&self) -> Vec<u8> {
            let codes = self
                .codes
                .iter()
                .map(|(kind, custom)| {
                    let t = Table::new()
                        .i8(0, (*kind).min(127) as i8)
                        .i32(2, 1)
                        .i32(3, *kind);
                    match custom {
                        Some(c) => t.str(1, c),
                        None => t,
                    }
                })
                .collect();
            let subs = self
                .subs
                .iter()
                .map(|s| {
                    let t = Table::new()
                        .set(0, Field::Tables(s.tensors.clone()))
                        .ints(1, &s.inputs)
                        .ints(2, &s.outputs)
                        .set(3, Field::Tables(s.ops.clone()));
                    if s.name.is_empty() {
                        t
                    } else {
                        t.str(4, &s.name)
                    }
                })
                .collect();
            let buffers = self
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| match self.far.iter().find(|f| f.0 == i) {
                    Some(&(_, offset, size)) => Table::new()
                        .set(1, Field::U64(offset))
                        .set(2, Field::U64(size)),
                    None if b.is_empty() => Table::new(),
                    None => Table::new().set(0, Field::Bytes(b.clone())),
                })
                .collect();
            let model = Table::new()
                .u32(0, 3)
                .set(1, Field::Tables(codes))
                .set(2, Field::Tables(subs))
                .set(4, Field::Tables(buffers));
            finish(&model, b"TFL3")
        }
    }
}
