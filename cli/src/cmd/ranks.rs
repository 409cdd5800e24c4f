//! `retrograde solve --mpi`: one rank of an MPI job (cargo feature `mpi`).
//!
//! Every rank runs the same command. Rank 0 prints (the progress bar, the
//! summary, the dry run, an error); the others print only an error of
//! their own. Each rank checks the arguments (the same on every rank, so
//! only rank 0 says what is wrong), then the ranks agree to go on, then
//! solve together (`retrograde::solve::solve_mpi`).

use super::output::{human_bytes, thousands};
use super::progress;
use super::solve::{prepare_job, print_report, Args};
use anyhow::Result;
use mpi::traits::*;
use retrograde::internal::solve::{estimate, OutputLock};
use retrograde::solve::{solve_mpi, NoProgress, Progress, Streaming};
use retrograde::with_game;
use std::process::ExitCode;
use std::time::Instant;

pub fn solve(args: Args) -> Result<ExitCode> {
    let Some(universe) = mpi::initialize() else {
        anyhow::bail!("--mpi: MPI was initialised already");
    };
    let world = universe.world();
    let rank = world.rank();
    let dry = args.dry_run_flag();
    let job = prepare_job(args, true).map(|mut job| {
        // The ranks share the tiers: always tier by tier.
        job.options.streaming = Streaming::Always;
        job
    });
    // Rank 0 also takes the output's lock before the ranks go on.
    let job = job.and_then(|job| {
        let lock = if rank == 0 && job.done.is_none() {
            Some(OutputLock::acquire(&job.path)?)
        } else {
            None
        };
        Ok((job, lock))
    });
    let mut flags = vec![0u8; world.size() as usize];
    world.all_gather_into(&[u8::from(job.is_ok())][..], &mut flags[..]);
    let (job, lock) = match job {
        // Rank 0 speaks for a failure every rank shares (bad arguments);
        // another rank only for its own.
        Err(e) if rank == 0 || flags[0] == 1 => return Ok(fail(&world, Some(e))),
        Err(_) => return Ok(fail(&world, None)),
        Ok(_) if flags.contains(&0) => return Ok(fail(&world, None)),
        Ok(j) => j,
    };
    if dry {
        if rank == 0 {
            dry_run(&job.game, &job.options, &job.path, world.size() as u64)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let bar = (rank == 0).then(|| progress::Bar::new(job.game.size()));
    let quiet = NoProgress;
    let p: &dyn Progress = match &bar {
        Some(b) => b,
        None => &quiet,
    };
    let started = Instant::now();
    let report =
        with_game!(&job.game, g => solve_mpi(g, lock.as_ref(), &job.path, &job.options, p, &world));
    if let Some(b) = &bar {
        b.finish();
    }
    match report {
        Err(retrograde::Error::PeerFailed { .. }) => Ok(fail(&world, None)),
        Err(e) => {
            let e = anyhow::Error::from(e).context(format!(
                "solving {} (rank {rank} of {})",
                job.game.spec(),
                world.size()
            ));
            Ok(fail(&world, Some(e)))
        }
        Ok(None) => Ok(ExitCode::SUCCESS),
        Ok(Some(report)) => {
            println!(
                "solved by {} MPI rank{}, each a share of every tier",
                world.size(),
                if world.size() == 1 { "" } else { "s" }
            );
            print_report(
                &job.game,
                &report,
                &job.path,
                started,
                job.threads,
                job.as_json,
            )
        }
    }
}

/// Ends this rank after a failure every rank has learnt of: the rank that
/// speaks for it prints its error, then all ranks meet before any exits.
/// Without the meeting a silent rank's non-zero exit makes `mpirun` kill
/// the job before the speaking rank has printed, and the user sees no
/// reason at all.
fn fail(world: &mpi::topology::SimpleCommunicator, error: Option<anyhow::Error>) -> ExitCode {
    if let Some(e) = error {
        eprintln!("retrograde: error: {e:#}");
    }
    world.barrier();
    ExitCode::FAILURE
}

/// `--dry-run --mpi`: what each of `ranks` ranks needs, and the data the
/// ranks exchange per tier.
fn dry_run(
    game: &retrograde::AnyGame,
    options: &retrograde::solve::SolveOptions,
    path: &std::path::Path,
    ranks: u64,
) -> Result<()> {
    let e = with_game!(game, g => estimate(g, options, rayon::current_num_threads()))?;
    let w = u64::from(e.cell_width);
    let tiers: Vec<u64> = with_game!(game, g => (0..retrograde::Game::tier_count(g))
        .map(|t| retrograde::Game::tier_range(g, t).map_or(0, |r| r.end - r.start) * w)
        .collect());
    let Some(streamed) = e.streamed_bytes else {
        anyhow::bail!(
            "{} cannot be solved tier by tier, so not by the ranks of an MPI job; solve it without --mpi",
            game.spec()
        );
    };
    let largest = tiers.iter().copied().max().unwrap_or(0);
    println!("game          {}", game.spec());
    println!(
        "output        {} (on storage every rank reaches)",
        path.display()
    );
    println!(
        "entries       {} ({}-byte cells), file {}",
        thousands(e.entries),
        e.cell_width,
        human_bytes(e.file_bytes)
    );
    println!("ranks         {ranks}");
    println!(
        "memory/rank   about {} (the tier being solved, the tier below mapped, the solver's scratch, and a {} share of the largest tier to receive)",
        human_bytes(streamed + largest.div_ceil(ranks)),
        human_bytes(largest.div_ceil(ranks))
    );
    println!(
        "disk          {} in all, on the shared file; each rank writes about {}",
        human_bytes(e.disk_bytes),
        human_bytes(e.file_bytes.div_ceil(ranks))
    );
    println!("tier  bytes       sent/rank   received/rank");
    for (t, &b) in tiers.iter().enumerate() {
        // Each rank sends the other ranks' shares of its buffer and receives
        // its own share from each other rank.
        let sent = b - b / ranks;
        let received = b.div_ceil(ranks) * (ranks - 1);
        println!(
            "{t:>4}  {:<10}  {:<10}  {}",
            human_bytes(b),
            human_bytes(sent),
            human_bytes(received)
        );
    }
    let total: u64 = tiers.iter().map(|&b| b - b / ranks).sum();
    println!("sent per rank in all: {}", human_bytes(total));
    Ok(())
}
