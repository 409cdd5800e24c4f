//! `retrograde solve`: label every position of a game and write its table.

use super::output::{describe, header_json, human_bytes, position_json, print_counts, thousands};
use super::resources::{
    check_resources, disk_available, existing_dir, memory_available, memory_plan, memory_text,
};
use super::{open::open, progress, with_threads};
use anyhow::{bail, Context, Result};
use retrograde::internal::solve::{
    estimate, input_files, solve_locked, OutputLock, PROCESS_MEMORY,
};
use retrograde::solve::{SolveOptions, Streaming};
use retrograde::{with_game, AnyGame, TableKind};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Solve a game: label every position and write the tablebase file.
#[derive(clap::Args)]
pub struct Args {
    /// Game spec, e.g. `isolation:4x4` or `isolation:4x4:a=1,b=14`.
    game: String,
    /// Output file (default: tablebases/<game>.rtb).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// Fold the board's symmetries into the index (a smaller file; every
    /// position still probes).
    #[arg(long)]
    fold: bool,
    /// Print entries, file size, memory, disk and a calibrated time
    /// estimate, and stop.
    #[arg(long)]
    dry_run: bool,
    /// Solve even when memory or disk looks too small.
    #[arg(long)]
    force: bool,
    /// Memory the table may take, e.g. `2G` or `512M` (K, M, G, T: powers
    /// of 1024; default: what the machine has available). A table that does
    /// not fit is solved tier by tier: two tiers in memory, finished tiers
    /// written to the file (games whose moves go to the next tier).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    memory: Option<u64>,
    /// Solve tier by tier even when the table fits in memory.
    #[arg(long, conflicts_with = "memory")]
    stream: bool,
    /// Checkpoint completed tiers to FILE.ckpt at most this often, in
    /// seconds (0: after every tier); a rerun resumes from it. Unless 0, the
    /// first checkpoint waits for 10 s of solving (or this interval, if
    /// longer): shorter solves are quicker to run again.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    checkpoint_every: f64,
    /// Write no checkpoint.
    #[arg(long)]
    no_checkpoint: bool,
    /// Discard an existing checkpoint and solve from scratch.
    #[arg(long)]
    restart: bool,
    /// Build a nimber (Sprague-Grundy) table instead of values with
    /// remoteness (impartial games under normal play).
    #[arg(long)]
    nimbers: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar (it is drawn on stderr only when that is a
    /// terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Share the solve among the ranks of an MPI job (`mpirun -np K
    /// retrograde solve SPEC -o FILE --mpi`): tier by tier, each rank a
    /// contiguous share of every tier; the file is the single process's.
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub(super) mpi: bool,
}

impl Args {
    /// Whether `--dry-run` was given.
    #[cfg(feature = "mpi")]
    pub(super) fn dry_run_flag(&self) -> bool {
        self.dry_run
    }

    /// Whether `--json` was given.
    #[cfg(feature = "mpi")]
    pub(super) fn json_flag(&self) -> bool {
        self.json
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    with_threads(args.threads, || solve(args))
}

fn solve(args: Args) -> Result<ExitCode> {
    let job = prepare(args)?;
    if let Some(code) = job.done {
        return Ok(code);
    }
    let Job {
        game,
        options,
        path,
        as_json,
        threads,
        quiet,
        ..
    } = job;
    // Taking the lock checks the output (a device, `-`, the solve's own
    // input are refused here, before the solve). Held until the report is
    // printed: the file read back for the start's value is the one this
    // solve wrote, not another solve's.
    let lock = OutputLock::acquire(&path, &options.inputs)?;
    let bar = progress::Bar::drawn(game.size(), !quiet);
    let started = Instant::now();
    let report = with_game!(&game, g => solve_locked(g, &lock, &options, &bar))
        .with_context(|| format!("solving {}", game.spec()))?;
    bar.finish();
    print_report(&game, &report, &path, started, threads, as_json)
}

/// A solve's arguments checked: the game, options and output, or the
/// finished answer of `--dry-run`.
pub(super) struct Job {
    pub game: AnyGame,
    pub options: SolveOptions,
    pub path: PathBuf,
    pub as_json: bool,
    pub threads: usize,
    /// `-q`: no progress bar.
    pub quiet: bool,
    /// `Some`: nothing to solve (the dry run printed its report).
    pub done: Option<ExitCode>,
}

/// Everything before the solve: the game, options and output name checked,
/// the dry run, and (without `--force`) the memory and disk checks. With
/// `no_dry_run` the dry run is left to the caller. Writes nothing (the
/// dry run prints): the caller creates the output's directory
/// ([`create_output_dir`]) and takes the output's lock, which checks what
/// the output names (a device, `-`, the solve's own input are refused).
/// `no_dry_run` is the MPI ranks' call: the dry run and the memory check
/// are theirs (a rank holds a share of each tier, and `--force` drops the
/// limit).
pub(super) fn prepare_job(args: Args, no_dry_run: bool) -> Result<Job> {
    let Args {
        game: spec,
        output,
        threads: _,
        fold,
        dry_run,
        force,
        memory,
        stream,
        checkpoint_every,
        no_checkpoint,
        restart,
        nimbers,
        json: as_json,
        quiet,
        #[cfg(feature = "mpi")]
            mpi: _,
    } = args;
    let spec = spec.as_str();
    let checkpoint_every = (!no_checkpoint).then_some(checkpoint_every);
    // A game too large for a table may still be one the search proves
    // positions of (connect:7x6, isolation:6x6): say so.
    let mut game = AnyGame::parse(spec)
        .map_err(|e| anyhow::anyhow!("{e}{}", super::resources::search_hint(spec)))?;
    if fold {
        game = game.folded()?;
    }
    let options = SolveOptions::with_kind(if nimbers {
        TableKind::Nimber
    } else {
        TableKind::Value
    });
    let checkpoint_interval = match checkpoint_every {
        None => None,
        Some(secs) if (0.0..=MAX_CHECKPOINT_SECS).contains(&secs) => {
            Some(std::time::Duration::from_secs_f64(secs))
        }
        Some(secs) => bail!(
            "--checkpoint-every must be a number of seconds from 0 to {MAX_CHECKPOINT_SECS:e} (use --no-checkpoint for none), not {secs}"
        ),
    };
    let options = SolveOptions {
        checkpoint_interval,
        restart,
        inputs: input_files(spec),
        memory: memory.or_else(memory_available),
        streaming: if stream {
            Streaming::Always
        } else {
            Streaming::Auto
        },
        ..options
    };
    let suffix = if nimbers { "-nimbers" } else { "" };
    let path = output.unwrap_or_else(|| {
        PathBuf::from("tablebases").join(format!("{}{suffix}.rtb", game.file_stem()))
    });
    if path.is_dir() {
        bail!(
            "{}: is a directory; give a file name with -o",
            path.display()
        );
    }
    let threads = rayon::current_num_threads();
    let mut job = Job {
        game,
        options,
        path,
        as_json,
        threads,
        quiet,
        done: None,
    };
    if dry_run && !no_dry_run {
        job.done = Some(dry_run_report(
            &job.game,
            &job.options,
            memory,
            &job.path,
            threads,
            as_json,
        )?);
        return Ok(job);
    }
    if dry_run {
        job.done = Some(ExitCode::SUCCESS);
        return Ok(job);
    }
    if !force {
        // An MPI rank holds a share of each tier, not the tier: the ranks
        // check their shares against `--memory` (`solve_mpi`), and only the
        // disk here.
        check_resources(&job.game, &job.options, &job.path, !no_dry_run)?;
    } else if no_dry_run {
        job.options.memory = None;
    }
    Ok(job)
}

/// Creates the output's directory: after every check, so a refused solve
/// (or an MPI job whose ranks disagree) leaves nothing behind.
pub(super) fn create_output_dir(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create directory {}", dir.display()))?;
    }
    Ok(())
}

fn prepare(args: Args) -> Result<Job> {
    let job = prepare_job(args, false)?;
    if job.done.is_none() {
        create_output_dir(&job.path)?;
    }
    Ok(job)
}

/// Prints a finished solve's summary (after reading its start back).
pub(super) fn print_report(
    game: &AnyGame,
    report: &retrograde::solve::SolveReport,
    path: &Path,
    started: Instant,
    threads: usize,
    as_json: bool,
) -> Result<ExitCode> {
    let tiers = with_game!(game, g => retrograde::Game::tier_count(g));
    let wall = started.elapsed().as_secs_f64();
    let tb = open(path)?;
    let start = tb.probe_text(None, false)?;
    let h = &report.header;
    if as_json {
        let mut j = header_json(h, path);
        j["seconds"] = json!(wall);
        j["solve_seconds"] = json!(report.solve_time.as_secs_f64());
        j["child_lookups"] = json!(report.child_lookups);
        j["resumed_tiers"] = json!(report.resumed_tiers);
        j["streamed"] = json!(report.streamed);
        j["threads"] = json!(threads);
        j["start"] = position_json(&start);
        println!("{j}");
        return Ok(ExitCode::SUCCESS);
    }
    if report.streamed {
        println!("solved tier by tier: finished tiers went straight to the file");
    }
    if report.resumed_tiers > 0 {
        println!(
            "resumed from checkpoint: tiers 0-{} restored{}",
            report.resumed_tiers - 1,
            if report.resumed_tiers < tiers {
                ", the rest solved"
            } else {
                " (all of them)"
            }
        );
    }
    let solved = h.entries - h.summary.non_positions;
    // A resumed solve labelled only some of the positions: no rate.
    let rate = if report.resumed_tiers == 0 {
        format!(
            ", {:.1} M positions/s",
            solved as f64 / report.solve_time.as_secs_f64().max(1e-9) / 1e6
        )
    } else {
        String::new()
    };
    println!(
        "solved {} in {:.2} s with {} thread{} ({} positions{rate}; labelling {:.2} s, writing and syncing {:.2} s)",
        h.spec,
        wall,
        threads,
        if threads == 1 { "" } else { "s" },
        thousands(solved),
        report.solve_time.as_secs_f64(),
        report.finish_time.as_secs_f64()
    );
    if let Some(n) = report.child_lookups {
        println!(
            "read {} child cells ({:.1} M/s while labelling)",
            thousands(n),
            n as f64 / report.solve_time.as_secs_f64().max(1e-9) / 1e6
        );
    }
    print_counts(h);
    println!(
        "wrote {} ({}, data CRC32 {:08x})",
        path.display(),
        human_bytes(h.file_len()),
        h.data_crc
    );
    println!("start {}", describe(&start));
    Ok(ExitCode::SUCCESS)
}

/// `--checkpoint-every` above this (about 31 years) is a typo, and would
/// overflow a `Duration` soon after.
const MAX_CHECKPOINT_SECS: f64 = 1e9;

/// `--memory`: a size as `solve` reads it, and also 0, so that the
/// minimum check can say what was given and what is needed.
pub(super) fn parse_memory(s: &str) -> std::result::Result<u64, String> {
    parse_size(s).or_else(|e| {
        let t = s.trim();
        let number = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let zero = number.trim().parse::<f64>() == Ok(0.0);
        if zero {
            Ok(0)
        } else {
            Err(e)
        }
    })
}

/// A size such as `2G`, `512M`, `100K` or `4096` (bytes); K, M, G, T are
/// powers of 1024, and a trailing `B` or `iB` is allowed.
pub(super) fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => {
                    return Err(format!(
                        "unknown unit in {}: use K, M, G or T",
                        retrograde::Error::quote(s)
                    ))
                }
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let bad = || {
        format!(
            "{} is not a size (e.g. 2G, 512M, 4096)",
            retrograde::Error::quote(s)
        )
    };
    let x: f64 = num.trim().parse().map_err(|_| bad())?;
    if !x.is_finite() || x <= 0.0 {
        return Err(bad());
    }
    let bytes = x * (1u64 << shift) as f64;
    if bytes >= u64::MAX as f64 {
        return Err(format!("{} is too large", retrograde::Error::quote(s)));
    }
    Ok(bytes as u64)
}

fn dry_run_report(
    game: &AnyGame,
    options: &SolveOptions,
    memory: Option<u64>,
    path: &Path,
    threads: usize,
    as_json: bool,
) -> Result<ExitCode> {
    let e = with_game!(game, g => estimate(g, options, threads))?;
    let mem = memory_available();
    let disk = disk_available(&existing_dir(path));
    if as_json {
        println!(
            "{}",
            json!({
                "game": game.spec(),
                "file": path.display().to_string(),
                "entries": e.entries,
                "cell_width": e.cell_width,
                "file_bytes": e.file_bytes,
                "memory_bytes": e.memory_bytes,
                "streamed": e.streamed,
                "in_memory_bytes": e.in_memory_bytes,
                "streamed_bytes": e.streamed_bytes,
                "disk_bytes": e.disk_bytes,
                "memory_available": mem,
                "disk_available": disk,
                "positions": e.positions.round() as u64,
                "seconds": e.seconds,
                "threads": e.threads,
                "calibration_seconds": e.calibration_seconds,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let avail = |a: Option<u64>| {
        a.map_or(String::new(), |a| {
            format!(" ({} available)", human_bytes(a))
        })
    };
    println!("game          {}", game.spec());
    println!("output        {}", path.display());
    println!(
        "entries       {} ({}-byte cells)",
        thousands(e.entries),
        e.cell_width
    );
    println!("file size     {}", human_bytes(e.file_bytes));
    // The figures the refusal of a solve that does not fit gives.
    let (plan, why) = memory_plan(game, options)?;
    let limit = match (memory, mem) {
        (Some(m), _) => format!(" (--memory {}", human_bytes(m)),
        (None, Some(a)) => format!(" ({} available", human_bytes(a)),
        (None, None) => String::new(),
    };
    let verdict = match (limit.is_empty(), plan.fits(options)) {
        (true, _) => "",
        (false, true) => ")",
        (false, false) => ": too little, the solve would be refused without --force)",
    };
    println!(
        "peak memory   {} for the table and the solver{limit}{verdict}",
        memory_text(&plan, why)
    );
    println!(
        "              about {} with the process's own {}",
        human_bytes(e.memory_bytes),
        human_bytes(PROCESS_MEMORY)
    );
    println!("disk needed   {}{}", human_bytes(e.disk_bytes), avail(disk));
    println!(
        "time          about {:.1} s with {} thread{} (calibrated on {} positions in {:.2} s)",
        e.seconds,
        e.threads,
        if e.threads == 1 { "" } else { "s" },
        thousands(e.sampled_positions),
        e.calibration_seconds
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_zero_reaches_the_minimum_check() {
        assert_eq!(parse_memory("0"), Ok(0));
        assert_eq!(parse_memory("0K"), Ok(0));
        assert_eq!(parse_memory("65535"), Ok(65535));
        assert!(parse_memory("-1").is_err());
        assert!(parse_memory("x").is_err());
    }
}
