//! Amounts as users write and read them: durations (`90s`, `5m`), amounts of memory (`64MiB`),
//! counts with thousands separators and their nouns (`1,234 states`). Every report of the
//! toolkit spells numbers through these, so the CLI, the web explorer and the tests agree.

use std::time::Duration;

/// Parses `30`, `30s`, `5m`, `2h` (seconds by default).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (say 90, 90s, 5m or 2h)"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    if !(value >= 0.0 && value.is_finite()) {
        return Err(format!("`{text}` is not a duration"));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

/// Parses an amount of memory as `bytesize` reads it (`64MiB`, `1.5GiB`, `500MB`, `2G`; `K`,
/// `M`, `G` are powers of 1000, `KiB`, `MiB`, `GiB` of 1024); a number without a unit is MiB.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bytes = match t.parse::<f64>() {
        Ok(mib) => (mib * (1u64 << 20) as f64) as u64,
        Err(_) => t
            .parse::<bytesize::ByteSize>()
            .map_err(|_| format!("`{text}` is not an amount of memory (say 64MiB, 512MB or 2GiB)"))?
            .as_u64(),
    };
    if bytes == 0 {
        return Err(format!("`{text}` is no memory at all"));
    }
    Ok(bytes)
}

/// An amount of memory, `1.5 MiB`.
pub fn bytes(n: u64) -> String {
    bytesize::ByteSize::b(n).display().iec().to_string()
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 invariant`, `3 invariants`: a count with its noun, thousands separated.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

/// An amount of memory in whole MiB, `512 MiB`.
pub fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1u64 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_memory_amounts_parse() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("5 weeks").is_err());
        assert_eq!(parse_memory("512").unwrap(), 512 << 20);
        assert_eq!(parse_memory("2G").unwrap(), 2_000_000_000);
        assert_eq!(parse_memory("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_memory("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_memory("1K").unwrap(), 1000);
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("0").is_err());
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
