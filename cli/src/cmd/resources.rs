//! How much memory and disk the machine has, so a solve that cannot fit is
//! refused before it starts rather than killed or failed hours later.

use super::output::human_bytes;
use anyhow::{bail, Result};
use retrograde::internal::solve::{cannot_stream, plan, Plan, PROCESS_MEMORY};
use retrograde::solve::{codec_for, SolveOptions};
use retrograde::{with_game, AnyGame};
use std::path::{Path, PathBuf};

/// For a game too large to tabulate here: `retrograde search` proves
/// single positions of it, when it knows the game ("" when it does not).
pub fn search_hint(spec: &str) -> String {
    if retrograde::search::games::AnySearch::parse(spec).is_ok() {
        format!(
            "; `retrograde search {} [POSITION]` proves single positions of it without a table",
            retrograde::Error::quote(spec)
        )
    } else {
        String::new()
    }
}

pub use retrograde::internal::solve::memory_available;

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

/// How the solve will hold its table and the memory that takes (the
/// figure `--memory` is compared with), and why it cannot stream if it
/// cannot: the one computation behind both `--dry-run` and the refusal.
pub fn memory_plan(game: &AnyGame, options: &SolveOptions) -> Result<(Plan, Option<&'static str>)> {
    Ok(with_game!(game, g => {
        let codec = codec_for(g, options.kind)?;
        (plan(g, codec, options)?, cannot_stream(g))
    }))
}

/// The memory a plan needs, as both `--dry-run` and the refusal say it:
/// "1.67 MiB tier by tier (5.36 MiB in one piece)".
pub fn memory_text(plan: &Plan, cannot_stream: Option<&str>) -> String {
    let needs = &plan.needs;
    match needs.streamed {
        Some(_) if plan.streamed => format!(
            "{} tier by tier ({} in one piece)",
            human_bytes(plan.memory),
            human_bytes(needs.in_memory)
        ),
        Some(s) => format!(
            "{} in one piece ({} tier by tier)",
            human_bytes(plan.memory),
            human_bytes(s)
        ),
        None => format!(
            "{} in one piece (it cannot be solved tier by tier: {})",
            human_bytes(plan.memory),
            cannot_stream.unwrap_or("its tiers are not runs of the index")
        ),
    }
}

/// Refuses to start a solve that cannot fit; `--force` skips this.
/// Memory is checked against `options.memory` (`--memory`, or what is
/// available) for the way the solve will hold its table: whole, or tier by
/// tier when the whole does not fit; only with `memory` (an MPI rank checks
/// its own share of each tier instead).
pub fn check_resources(
    game: &AnyGame,
    options: &SolveOptions,
    path: &Path,
    memory: bool,
) -> Result<()> {
    let (plan, why) = memory_plan(game, options)?;
    let file = with_game!(game, g => {
        let codec = codec_for(g, options.kind)?;
        retrograde::Game::size(g) * u64::from(codec.width())
    });
    if memory && !plan.fits(options) {
        bail!(
            "solving {} needs about {} of memory, plus about {} for the process, but {} is allowed; free memory, raise --memory, or pass --force{}",
            game.spec(),
            memory_text(&plan, why),
            human_bytes(PROCESS_MEMORY),
            human_bytes(options.memory.unwrap_or(0)),
            search_hint(&game.spec())
        );
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
