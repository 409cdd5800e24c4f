//! How much memory and disk the machine has, so a solve that cannot fit is
//! refused before it starts rather than killed or failed hours later.

use super::output::human_bytes;
use anyhow::{bail, Result};
use retrograde::solve::SolveOptions;
use retrograde::{with_game, AnyGame};
use std::path::{Path, PathBuf};

/// Memory the system can give without swapping (Linux), in bytes.
pub fn memory_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Free space for an unprivileged writer on the filesystem holding `dir`.
pub fn disk_available(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: statvfs is a plain C struct of integers, for which all
        // zero bytes is a valid value.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a valid NUL-terminated path and `st` a writable
        // statvfs the call fills in.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)]
        Some(st.f_bavail as u64 * st.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The nearest existing directory at or above the output's parent.
pub fn existing_dir(path: &Path) -> PathBuf {
    let mut dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    while !dir.exists() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    dir
}

/// Refuses to start a solve that cannot fit; `--force` skips this.
/// Memory is checked against `options.memory` (`--memory`, or what is
/// available) for the way the solve will hold its table: whole, or tier by
/// tier when the whole does not fit.
pub fn check_resources(game: &AnyGame, options: &SolveOptions, path: &Path) -> Result<()> {
    let (plan, counters, file) = with_game!(game, g => {
        let codec = retrograde::solve::codec_for(g, options.kind)?;
        let plan = retrograde::solve::plan(g, codec, options)?;
        // A loopy solve also keeps a child counter per entry.
        let size = retrograde::Game::size(g);
        let counters = if retrograde::Game::acyclic(g) { 0 } else { size };
        (plan, counters, size * u64::from(codec.width()))
    });
    let memory = plan.memory + counters;
    if let Some(limit) = options.memory {
        if memory > limit {
            let tiers = match plan.needs.streamed {
                Some(s) if !plan.streamed => {
                    format!(" (it cannot stream: {} tier by tier)", human_bytes(s))
                }
                Some(_) => format!(
                    " tier by tier ({} in one piece)",
                    human_bytes(plan.needs.in_memory)
                ),
                None => " (its tiers interleave, so it cannot be solved tier by tier)".into(),
            };
            bail!(
                "solving {} needs about {}{tiers} of memory but {} is allowed; free memory, raise --memory, or pass --force",
                game.spec(),
                human_bytes(memory),
                human_bytes(limit)
            );
        }
    }
    // The file, plus a page of header; a streamed solve's progress slots
    // are a few KiB more.
    let disk = file + (64 << 10);
    let dir = existing_dir(path);
    if let Some(avail) = disk_available(&dir) {
        if disk > avail {
            bail!(
                "solving {} needs {} of disk in {} but {} is free; free space, choose another -o, or pass --force",
                game.spec(),
                human_bytes(disk),
                dir.display(),
                human_bytes(avail)
            );
        }
    }
    Ok(())
}
