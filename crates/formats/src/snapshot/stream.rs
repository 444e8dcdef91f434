//! A snapshot read from memory, a ranged source or a stream: gunzipped when it is
//! gzip, unpickled, and rebuilt. Apart from `mod.rs` so that the snapshot's types,
//! which the rebuilding uses, sit in a module that imports none of it.

use super::{build, is_gzip, Snapshot};
use crate::pickle;
use crate::source::Source;
use memplan::error::Error;
use std::io::{BufRead, Read};

/// Reads a snapshot held in memory (a pickle, or a gzipped one) and rebuilds the
/// trace of `device`, or of the device with the most entries.
pub fn read(data: Vec<u8>, device: Option<u32>) -> Result<Snapshot, Error> {
    read_stream(data.as_slice(), device)
}

/// [`read`] from an input read by ranges, as a stream: never held whole.
pub fn read_source(src: &dyn Source, device: Option<u32>) -> Result<Snapshot, Error> {
    read_stream(SourceReader { src, at: 0 }, device)
}

/// [`read`] from a stream: a pickle, or gzip of one (by its first two bytes).
pub fn read_stream(input: impl Read, device: Option<u32>) -> Result<Snapshot, Error> {
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    let head = input
        .fill_buf()
        .map_err(|e| Error::parse("pickle", None, e.to_string()))?;
    if is_gzip(head) {
        return read_pickle(flate2::bufread::GzDecoder::new(input), device);
    }
    if !pickle::is_pickle(head) {
        return Err(Error::parse(
            "pickle",
            Some("byte 0".into()),
            "not a pickle of protocol 2 to 5 (a snapshot starts with 0x80 and the protocol)",
        ));
    }
    read_pickle(input, device)
}

fn read_pickle(input: impl Read, device: Option<u32>) -> Result<Snapshot, Error> {
    let mut records = build::Records::default();
    let tree = pickle::read_from(input, &mut records)?;
    build::snapshot(&tree, records, device)
}

/// A [`Source`] read front to back.
struct SourceReader<'s> {
    src: &'s dyn Source,
    at: u64,
}

impl Read for SourceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.src.size().saturating_sub(self.at)) as usize;
        self.src
            .read_at(self.at, &mut buf[..n])
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        self.at += n as u64;
        Ok(n)
    }
}
