//! The process's resident memory, for `--memory-limit` and the bytes-per-state statistic.
//!
//! Read from `VmRSS` in `/proc/self/status` on Linux; elsewhere it is unknown (`None`), the
//! memory limit is not enforced and memory per state is estimated from the explorer's tables.

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`), if the platform
/// says.
pub fn physical_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The share of physical memory an exploration may grow to when no `--memory-limit` is given:
/// past it the search stops with what it covered, rather than being killed by the kernel.
pub const DEFAULT_CEILING_PERCENT: u64 = 80;

/// The automatic ceiling on the process's resident memory ([`DEFAULT_CEILING_PERCENT`] of
/// physical memory), if the platform says how much there is.
pub fn default_ceiling() -> Option<u64> {
    physical_bytes().map(|b| b / 100 * DEFAULT_CEILING_PERCENT)
}

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
