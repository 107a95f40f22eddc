//! The process's resident memory, for `--memory-limit` and the bytes-per-state statistic.
//!
//! Read from `VmRSS` in `/proc/self/status` on Linux; elsewhere it is unknown (`None`), the
//! memory limit is not enforced and memory per state is estimated from the explorer's tables.

/// Resident memory in bytes, if the platform says.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_plausible_where_known() {
        if let Some(bytes) = super::resident_bytes() {
            assert!(bytes > 1 << 16, "{bytes}");
        }
    }
}
