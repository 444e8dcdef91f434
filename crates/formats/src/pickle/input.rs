//! The input as the machine reads it: from a stream, a chunk at a time, never
//! trusting a length it has not read (see the module's doc).

use super::{CHUNK, F};
use memplan::error::Error;
use std::io::Read;

/// The input as a stream, in a buffer that grows only with bytes read.
pub(super) struct Input<R> {
    pub(super) src: R,
    pub(super) buf: Vec<u8>,
    /// The next byte to take, and the end of what was read, in `buf`.
    pub(super) pos: usize,
    pub(super) len: usize,
    /// The input's offset of `buf[0]`.
    pub(super) offset: u64,
}

impl<R: Read> Input<R> {
    pub(super) fn new(src: R) -> Self {
        Input {
            src,
            buf: Vec::new(),
            pos: 0,
            len: 0,
            offset: 0,
        }
    }

    /// The input's offset of the next byte.
    pub(super) fn at(&self) -> u64 {
        self.offset + self.pos as u64
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if self.len - self.pos < n {
            self.fill(n)?;
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads until `n` bytes are buffered after `pos`, or fails at the end.
    pub(super) fn fill(&mut self, n: usize) -> Result<(), Error> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.offset += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        while self.len < n {
            let want = (self.len + CHUNK).min(n.max(CHUNK));
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
            let got = loop {
                match self.src.read(&mut self.buf[self.len..]) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            match got {
                Ok(0) => {
                    return Err(Error::parse(
                        F,
                        Some(format!("byte {}", self.at())),
                        format!("truncated: {n} bytes needed, {} left", self.len),
                    ))
                }
                Ok(k) => self.len += k,
                Err(e) => {
                    return Err(Error::parse(
                        F,
                        Some(format!("byte {}", self.at())),
                        e.to_string(),
                    ))
                }
            }
        }
        Ok(())
    }
}
