//! The real file system, for the front end's loader, and a view of it with declarations
//! appended to one file (how `ioa infer` checks candidate invariants against the model).

use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};

/// Reads files from disk.
pub struct OsFileSystem;

impl FileSystem for OsFileSystem {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "the file is not valid UTF-8".to_string(),
            _ => e.to_string(),
        })
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| ioa_lang::loader::normalise(path))
    }
}

/// The real file system, except that one file reads with `text` appended after a newline.
pub struct Appended {
    root: PathBuf,
    text: String,
}

impl Appended {
    /// `file` (as given on the command line) reads with `text` appended.
    pub fn new(file: &Path, text: String) -> Appended {
        Appended {
            root: OsFileSystem.canonical(file),
            text,
        }
    }
}

impl FileSystem for Appended {
    fn read(&self, path: &Path) -> Result<String, String> {
        let mut text = OsFileSystem.read(path)?;
        if self.canonical(path) == self.root {
            text.push('\n');
            text.push_str(&self.text);
        }
        Ok(text)
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        OsFileSystem.canonical(path)
    }
}
