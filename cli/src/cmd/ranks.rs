//! `retrograde solve --mpi` and `retrograde search --mpi`: one rank of an
//! MPI job (cargo feature `mpi`). The search's ranks are told below
//! ([`search`]); the rest of this note is the solve's.
//!
//! Every rank runs the same command. Rank 0 prints (the progress bar, the
//! summary, the dry run, an error); the others print only an error of
//! their own. Each rank checks the arguments (the same on every rank, so
//! only rank 0 says what is wrong), without writing anything; then the
//! ranks agree on everything that determines the bytes
//! (`retrograde::solve::agree`: a rank given another game, fold, table
//! kind, output or checkpointing makes rank 0 name the difference in one
//! line and every rank exit non-zero, with nothing written); then rank 0
//! creates the output's directory and takes its lock (which checks the
//! output: a device, `-`, the solve's own input are refused, and every
//! rank exits non-zero), and the ranks solve together
//! (`retrograde::solve::solve_mpi`).

use super::output::{human_bytes, thousands};
use super::progress;
use super::solve::{create_output_dir, prepare_job, print_report, Args, Job};
use anyhow::Result;
use mpi::traits::*;
use retrograde::internal::solve::{estimate, OutputLock};
use retrograde::solve::{
    agree, rank_shares, solve_mpi, table_terms, NoProgress, Progress, Streaming, Term, TierShare,
};
use retrograde::with_game;
use std::process::ExitCode;
use std::time::Instant;

/// MPI, at the funnelled level: every rank has threads beside the one
/// that calls MPI (a solve's workers, a search's engine).
fn initialize() -> Result<mpi::environment::Universe> {
    let Some((universe, level)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        anyhow::bail!("--mpi: MPI was initialised already");
    };
    if level < mpi::Threading::Funneled {
        anyhow::bail!("--mpi: this MPI library allows no threads beside the one that calls it");
    }
    Ok(universe)
}

pub fn solve(args: Args) -> Result<ExitCode> {
    let universe = initialize()?;
    let world = universe.world();
    let rank = world.rank();
    let dry = args.dry_run_flag();
    let json = args.json_flag();
    // Each rank checks its arguments without writing anything (not even the
    // output's directory), and says what it would write.
    let job = prepare_job(args, true).and_then(|mut job| {
        // The ranks share the tiers: always tier by tier.
        job.options.streaming = Streaming::Always;
        let terms = job_terms(&job, dry, json)?;
        Ok((job, terms))
    });
    // Then the ranks agree on everything that determines the bytes, in one
    // exchange of a fixed size, before any rank writes or exchanges
    // anything whose size depends on its settings.
    let agreed = agree(&world, job.as_ref().ok().map(|(_, t)| &t[..]));
    let (job, _) = match agreed_or_fail(&world, rank, job, agreed) {
        Ok(j) => j,
        Err(code) => return Ok(code),
    };
    if dry {
        if rank == 0 {
            dry_run(&job.game, &job.options, &job.path, world.size() as u64)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Agreed: rank 0 alone creates the output's directory and takes its
    // lock (it installs the file); every rank learns whether that worked.
    let lock = if rank == 0 {
        create_output_dir(&job.path)
            .and_then(|()| Ok(Some(OutputLock::acquire(&job.path, &job.options.inputs)?)))
    } else {
        Ok(None)
    };
    let mut flags = vec![0u8; world.size() as usize];
    world.all_gather_into(&[u8::from(lock.is_ok())][..], &mut flags[..]);
    let lock = match lock {
        Err(e) => return Ok(fail(&world, Some(e))),
        Ok(_) if flags.contains(&0) => return Ok(fail(&world, None)),
        Ok(l) => l,
    };
    let bar = (rank == 0).then(|| progress::Bar::drawn(job.game.size(), !job.quiet));
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

/// What this rank would write, for the ranks to agree on: the table's
/// terms (spec, folding, kind, index scheme, cell width, format, output,
/// checkpoints) and the command's own options that change what the job
/// does or prints. `--threads`, `--memory` and `--force` are each rank's.
fn job_terms(job: &Job, dry: bool, json: bool) -> Result<Vec<Term>> {
    let mut terms = with_game!(&job.game, g => table_terms(g, &job.path, &job.options))?;
    terms.push(Term::text(
        "runs",
        if dry {
            "a dry run (--dry-run)"
        } else {
            "the solve (no --dry-run)"
        },
    ));
    terms.push(Term::text(
        "prints",
        if json {
            "JSON (--json)"
        } else {
            "text (no --json)"
        },
    ));
    Ok(terms)
}

/// What this rank prepared, once the ranks have agreed (`agreed`); else
/// the rank ended by [`fail`]. Rank 0 speaks for a failure every rank
/// shares (bad arguments); another rank only for its own.
fn agreed_or_fail<T>(
    world: &mpi::topology::SimpleCommunicator,
    rank: i32,
    prepared: anyhow::Result<T>,
    agreed: retrograde::Result<()>,
) -> Result<T, ExitCode> {
    match prepared {
        Err(e) => {
            let rank0_failed = matches!(agreed, Err(retrograde::Error::PeerFailed { rank: 0 }));
            let speak = rank == 0 || !rank0_failed;
            Err(fail(world, speak.then_some(e)))
        }
        Ok(_) if matches!(agreed, Err(retrograde::Error::PeerFailed { .. })) => {
            Err(fail(world, None))
        }
        Ok(_) if agreed.is_err() => Err(fail(world, agreed.err().map(anyhow::Error::from))),
        Ok(p) => Ok(p),
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

/// `--dry-run --mpi`: what each of `ranks` ranks holds, and what it moves
/// per tier (the largest over the ranks).
fn dry_run(
    game: &retrograde::AnyGame,
    options: &retrograde::solve::SolveOptions,
    path: &std::path::Path,
    ranks: u64,
) -> Result<()> {
    let e = with_game!(game, g => estimate(g, options, rayon::current_num_threads()))?;
    let Some(streamed) = e.streamed_bytes else {
        anyhow::bail!(
            "{} cannot be solved tier by tier, so not by the ranks of an MPI job; solve it without --mpi",
            game.spec()
        );
    };
    let threads = rayon::current_num_threads() as u64;
    let per_rank = (0..ranks)
        .map(|r| {
            with_game!(game, g => {
                let codec = retrograde::solve::codec_for(g, options.kind)?;
                rank_shares(g, codec, ranks, r, threads)
            })
        })
        .collect::<retrograde::Result<Vec<Vec<TierShare>>>>()?;
    let tiers = per_rank.first().map_or(0, Vec::len);
    // Per tier, the largest figure of any rank.
    let most = |f: &dyn Fn(&TierShare) -> u64, t: usize| {
        per_rank.iter().map(|s| f(&s[t])).max().unwrap_or(0)
    };
    let (peak_tier, peak) = (0..tiers)
        .map(|t| (t, most(&TierShare::memory, t)))
        .max_by_key(|&(_, m)| m)
        .unwrap_or((0, 0));
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
        "memory/rank   about {} at most (tier {peak_tier}: the rank's share of the tier and what it reads of the tier below or of the intermediates), against {} for one process tier by tier",
        human_bytes(peak),
        human_bytes(streamed)
    );
    println!(
        "disk          {} in all, on the shared file; each rank writes about {}",
        human_bytes(e.disk_bytes),
        human_bytes(e.file_bytes.div_ceil(ranks))
    );
    println!(
        "per tier, the most of any rank (no tier moves between ranks: each reads the shared file and writes its share there)"
    );
    println!("tier  bytes       share       read below  read inter  written     memory");
    for t in 0..tiers {
        println!(
            "{t:>4}  {:<10}  {:<10}  {:<10}  {:<10}  {:<10}  {}",
            human_bytes(most(&|s| s.tier_bytes, t)),
            human_bytes(most(&|s| s.share, t)),
            human_bytes(most(&|s| s.below, t)),
            human_bytes(most(&|s| s.intermediates, t)),
            human_bytes(most(&|s| s.written, t)),
            human_bytes(most(&TierShare::memory, t)),
        );
    }
    Ok(())
}

/// Whether this process was started by an MPI launcher (Open MPI's
/// `mpirun`, or a PMI launcher such as MPICH's or Slurm's): alone, a
/// "job" of one rank would only look like one.
fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// `retrograde search --mpi`: one rank of a search spread over the ranks
/// (`retrograde::search::ranks`). Every rank checks its arguments, the
/// ranks agree on everything that decides the jobs and the save (a rank
/// given another game, position, engine or budget makes rank 0 name the
/// difference in one line), then rank 0 leads and the others prove jobs.
/// Only rank 0 prints the result; a failure is one line, by the rank that
/// failed or, for a worker's, by rank 0 naming it.
pub fn search(args: super::search::Args) -> Result<ExitCode> {
    use retrograde::search::games::AnySearch;
    use retrograde::search::ranks::{search_mpi, search_terms};
    if !launched() {
        anyhow::bail!(
            "--mpi: not started by mpirun (mpirun -np K retrograde search {} --mpi)",
            args.spec()
        );
    }
    let universe = initialize()?;
    let world = universe.world();
    let rank = world.rank();
    let prepared = (|| -> Result<_> {
        let game = AnySearch::parse(args.spec())?;
        let request = super::search::request(&args)?;
        let budget = args.job_budget()?;
        let terms = retrograde::with_search!(&game, g => search_terms(g, &request, budget));
        Ok((game, request, budget, terms))
    })();
    let agreed = agree(&world, prepared.as_ref().ok().map(|p| &p.3[..]));
    let (game, request, budget, _) = match agreed_or_fail(&world, rank, prepared, agreed) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let report = retrograde::with_search!(&game, g => search_mpi(g, &request, budget, &world));
    match report {
        Err(retrograde::Error::PeerFailed { .. }) => Ok(fail(&world, None)),
        Err(e) => {
            let e = anyhow::Error::from(e).context(format!(
                "searching {} (rank {rank} of {})",
                args.spec(),
                world.size()
            ));
            Ok(fail(&world, Some(e)))
        }
        Ok(None) => Ok(ExitCode::SUCCESS),
        Ok(Some(report)) => {
            print!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
