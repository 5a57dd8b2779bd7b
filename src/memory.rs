//! What this computer can hold: requests are estimated before they are
//! allocated (a size line, a generator's size, the ranks of a machine) and
//! refused with one sentence when they exceed the memory available, rather
//! than ending in an allocation abort or an out-of-memory kill.

/// Bytes of memory available to this process: Linux's `MemAvailable`,
/// capped by a cgroup limit and by `AMGCOMM_MEMORY_LIMIT` (bytes: a shared
/// login node's share, or a fuzzer's bound); `None` where none can be read.
pub fn available() -> Option<u64> {
    let asked = std::env::var("AMGCOMM_MEMORY_LIMIT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    let system = system_available();
    match (asked, system) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable`, capped by a cgroup limit.
fn system_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let free = meminfo.as_deref().and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    match (free, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The text of a file expected to be at most `limit` bytes (a machine
/// description, a partition file): a larger one is refused before it is
/// read, whatever it is (a pipe is read up to the limit).
pub fn read_text(path: &std::path::Path, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let too_large = || {
        std::io::Error::other(format!(
            "larger than the {} such a file can need",
            gb(limit)
        ))
    };
    if file.metadata()?.len() > limit {
        return Err(too_large());
    }
    let mut text = String::new();
    file.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(text)
}

/// A request larger than the memory available.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{what} needs about {}, more than the {} of memory available", gb(*.need), gb(*.have))]
pub struct TooLarge {
    /// What was asked for, in the user's words.
    pub what: String,
    /// Estimated bytes.
    pub need: u64,
    /// Bytes available.
    pub have: u64,
}

/// Refuses `need` bytes when more than is available; `what` names the
/// request. Unknown availability refuses nothing.
pub fn check(need: u64, what: impl FnOnce() -> String) -> Result<(), TooLarge> {
    check_against(need, available(), what)
}

fn check_against(
    need: u64,
    have: Option<u64>,
    what: impl FnOnce() -> String,
) -> Result<(), TooLarge> {
    match have {
        Some(have) if need > have => Err(TooLarge {
            what: what(),
            need,
            have,
        }),
        _ => Ok(()),
    }
}

/// Bytes as "48 GB", "3.2 GB" or "240 MB" (decimal units).
pub fn gb(bytes: u64) -> String {
    let g = bytes as f64 / 1e9;
    if g >= 10.0 {
        format!("{g:.0} GB")
    } else if g >= 1.0 {
        format!("{g:.1} GB")
    } else {
        format!("{:.0} MB", bytes as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_only_beyond_what_is_available() {
        assert!(check_against(10, Some(10), || "x".into()).is_ok());
        assert!(check_against(u64::MAX, None, || "x".into()).is_ok());
        let e = check_against(3_200_000_000, Some(24_000_000_000 / 100), || "gen:x".into())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "gen:x needs about 3.2 GB, more than the 240 MB of memory available"
        );
        assert_eq!(gb(48_000_000_000), "48 GB");
    }

    #[test]
    fn this_computer_reports_some_memory() {
        // Linux only: CI and users run there; elsewhere nothing is refused.
        if cfg!(target_os = "linux") {
            let a = available().unwrap();
            assert!(a > 100_000_000, "{a}");
        }
    }
}
