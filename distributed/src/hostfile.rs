//! The cluster's addresses: a hostfile (one `host:port` per process, in process order, as
//! timely's `-h` reads it) checked line by line, or `127.0.0.1:BASE+p` on one machine.

use std::path::Path;

/// Why a hostfile cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostfileError {
    /// The file cannot be read.
    Unreadable {
        /// The file.
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// A line is not `host:port`.
    BadLine {
        /// The file.
        file: String,
        /// The line number (from 1).
        line: usize,
        /// The line's text.
        text: String,
    },
    /// The file names another number of processes than `--processes`.
    WrongCount {
        /// The file.
        file: String,
        /// Addresses in it.
        found: usize,
        /// `--processes`.
        expected: usize,
    },
}

impl std::fmt::Display for HostfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostfileError::Unreadable { file, reason } => {
                write!(f, "cannot read the hostfile `{file}`: {reason}")
            }
            HostfileError::BadLine { file, line, text } => write!(
                f,
                "{file}:{line}: `{text}` is not an address; each line of a hostfile is `host:port` (say `127.0.0.1:2101`), one per process in process order"
            ),
            HostfileError::WrongCount {
                file,
                found,
                expected,
            } => write!(
                f,
                "{file} has {found} address(es) but --processes is {expected}: give one line per process"
            ),
        }
    }
}

/// Parses a hostfile's text: blank lines and lines starting with `#` are skipped.
pub fn parse(file: &str, text: &str, processes: usize) -> Result<Vec<String>, HostfileError> {
    let mut addresses = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let good = line.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
        });
        if !good || line.contains(char::is_whitespace) {
            return Err(HostfileError::BadLine {
                file: file.to_string(),
                line: k + 1,
                text: line.to_string(),
            });
        }
        addresses.push(line.to_string());
    }
    if addresses.len() != processes {
        return Err(HostfileError::WrongCount {
            file: file.to_string(),
            found: addresses.len(),
            expected: processes,
        });
    }
    Ok(addresses)
}

/// Reads and parses a hostfile.
pub fn read(path: &Path, processes: usize) -> Result<Vec<String>, HostfileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| HostfileError::Unreadable {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    parse(&file, &text, processes)
}

/// The addresses of `processes` processes on this machine, from port `base` up.
pub fn local(processes: usize, base: u16) -> Vec<String> {
    (0..processes)
        .map(|p| format!("127.0.0.1:{}", base as usize + p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostfiles_are_checked_line_by_line() {
        let ok = parse("h", "# two\n127.0.0.1:2101\n\nnode2:2102\n", 2).unwrap();
        assert_eq!(ok, vec!["127.0.0.1:2101", "node2:2102"]);
        assert_eq!(
            parse("h", "127.0.0.1:2101\nnode2\n", 2),
            Err(HostfileError::BadLine {
                file: "h".into(),
                line: 2,
                text: "node2".into()
            })
        );
        assert!(parse("h", "a:99999\n", 1).is_err());
        assert!(matches!(
            parse("h", "a:1\n", 2),
            Err(HostfileError::WrongCount { found: 1, .. })
        ));
    }
}
