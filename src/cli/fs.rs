//! The real file system, for the front end's loader.

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
