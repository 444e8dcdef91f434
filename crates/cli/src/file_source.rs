//! A file read by ranges ([`Source`]), so that a model of any size is read
//! without holding it.

use memplan::Error;
use memplan_formats::source::Source;
use std::fs::File;
use std::path::Path;

pub struct FileSource {
    file: File,
    size: u64,
    name: String,
}

impl FileSource {
    pub fn open(path: &Path) -> Result<FileSource, Error> {
        let fail = |e: std::io::Error| Error::usage(format!("cannot read {}: {e}", path.display()));
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        if meta.is_dir() {
            return Err(Error::usage(format!(
                "cannot read {}: it is a directory",
                path.display()
            )));
        }
        Ok(FileSource {
            file,
            size: meta.len(),
            name: path.display().to_string(),
        })
    }
}

impl Source for FileSource {
    fn size(&self) -> u64 {
        self.size
    }

    #[cfg(unix)]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        use std::os::unix::fs::FileExt;
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| Error::usage(format!("cannot read {}: {e}", self.name)))
    }

    #[cfg(not(unix))]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = &self.file;
        f.seek(SeekFrom::Start(offset))
            .and_then(|_| f.read_exact(buf))
            .map_err(|e| Error::usage(format!("cannot read {}: {e}", self.name)))
    }
}
