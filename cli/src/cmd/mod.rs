//! The subcommands, one file each: its clap `Args` and a `run` that opens,
//! calls the library and prints. Shared here: the worker pool and the move
//! limit; in `open` and `output`: opening files and formatting results.

pub mod analyze;
pub mod cancel;
pub mod chart;
pub mod color;
pub mod compare;
pub mod completions;
pub mod games;
pub mod info;
pub mod line;
pub mod play;
pub mod probe;
pub mod proofdb;
pub mod search;
pub mod serve;
pub mod solve;
pub mod verify;
pub mod watch;

pub(crate) mod open;
pub(crate) mod output;
mod progress;
#[cfg(feature = "mpi")]
mod ranks;
mod resources;

use anyhow::{bail, Result};

/// More worker threads than any machine this runs on has cores: beyond this
/// a thread count is a typo, and starting the threads alone would take
/// minutes.
pub const MAX_THREADS: usize = 1024;

/// Draws can go on for ever; a line or a game stops after this many moves.
const MAX_PLIES: usize = 1000;

/// `solve`: by this process alone, or shared by the ranks of an MPI job
/// (`--mpi`, which uses the single solve's preparation and report).
pub fn solve(args: solve::Args) -> Result<std::process::ExitCode> {
    #[cfg(feature = "mpi")]
    if args.mpi {
        return with_threads(args.threads, || ranks::solve(args));
    }
    solve::run(args)
}

/// Runs `f` on a rayon pool of `threads` threads (default: all cores).
pub fn with_threads<T>(threads: Option<usize>, f: impl FnOnce() -> Result<T> + Send) -> Result<T>
where
    T: Send,
{
    match threads {
        None => f(),
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) if n > MAX_THREADS => bail!(
            "--threads {n} is more than this program runs ({MAX_THREADS} at most; this machine has {} cores)",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        ),
        // rayon's error already carries the OS message; anyhow's chain would
        // print it twice.
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start {n} worker threads: {e}"))?
            .install(f),
    }
}
