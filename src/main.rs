//! The `retrograde` command: a thin shell over the library. Each subcommand
//! parses its arguments with clap and calls one function in `cli/`.

mod cli;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Generate complete game tablebases by retrograde analysis, and query them.
#[derive(Parser)]
#[command(name = "retrograde", version, about, long_about = None)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game: label every position and write the tablebase file.
    Solve {
        /// Game spec, e.g. `isolation:4x4` or `isolation:4x4:a=1,b=14`.
        game: String,
        /// Output file (default: tablebases/<game>.rtb).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
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
        /// Checkpoint completed tiers to FILE.ckpt at most this often, in
        /// seconds (0: after every tier); a rerun resumes from it.
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
    },
    /// Show a tablebase's header: game, format, counts by value, largest remoteness.
    Info {
        /// Tablebase file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Value and remoteness of positions (default: the start).
    Probe {
        /// Tablebase file.
        file: PathBuf,
        /// Positions in the game's notation; `-` reads one per line from stdin.
        positions: Vec<String>,
        /// List every legal move with its result, best first.
        #[arg(long)]
        moves: bool,
        /// Access advice for the file: `random` (no read-ahead: best
        /// for scattered probes of a cold file larger than memory) or
        /// `willneed` (read the whole file into the page cache first).
        #[arg(long, value_name = "ADVICE")]
        advise: Option<String>,
        /// Check the data CRC (read the whole file) before answering: a
        /// damaged file is then an error, not wrong answers.
        #[arg(long)]
        verify: bool,
        /// Print JSON (one object per line).
        #[arg(long)]
        json: bool,
    },
    /// Statistics of the positions reachable from the start.
    Analyze {
        /// Tablebase file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Check the data CRC and re-derive every entry from the game's rules.
    Verify {
        /// Tablebase file.
        file: PathBuf,
        /// Only check the checksums and the manifest, not the re-derivation.
        #[arg(long)]
        crc_only: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Compare two tablebases of the same game entry by entry (exit 0 only
    /// when every position has the same value and remoteness).
    Compare {
        /// First tablebase.
        a: PathBuf,
        /// Second tablebase.
        b: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Play against the perfect player in the terminal.
    Play {
        /// Tablebase file.
        file: PathBuf,
        /// Start from this position (default: the game's start).
        position: Option<String>,
        /// Your side: `first` (you move first) or `second`.
        #[arg(long, default_value = "first")]
        side: String,
    },
    /// The principal line of perfect play from a position to the end.
    Line {
        /// Tablebase file.
        file: PathBuf,
        /// Start from this position (default: the game's start).
        position: Option<String>,
        /// Print one JSON object per position.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script.
    Completions {
        /// Shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// List the games this build knows, with parameters and notation.
    Games {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    restore_sigpipe();
    clean_up_on_signal();
    let args = Args::parse();
    let result = match args.command {
        Command::Solve {
            game,
            output,
            threads,
            fold,
            dry_run,
            force,
            checkpoint_every,
            no_checkpoint,
            restart,
            nimbers,
            json,
        } => cli::with_threads(threads, || {
            cli::solve(
                &game,
                cli::SolveArgs {
                    output,
                    fold,
                    nimbers,
                    dry_run,
                    force,
                    checkpoint_every: (!no_checkpoint).then_some(checkpoint_every),
                    restart,
                    json,
                },
            )
        }),
        Command::Info { file, json } => cli::info(&file, json),
        Command::Probe {
            file,
            positions,
            moves,
            advise,
            verify,
            json,
        } => cli::probe(&file, &positions, moves, advise.as_deref(), verify, json),
        Command::Analyze {
            file,
            json,
            threads,
        } => cli::with_threads(threads, || cli::analyze(&file, json)),
        Command::Verify {
            file,
            crc_only,
            json,
            threads,
        } => cli::with_threads(threads, || cli::verify(&file, crc_only, json)),
        Command::Compare {
            a,
            b,
            json,
            threads,
        } => cli::with_threads(threads, || cli::compare(&a, &b, json)),
        Command::Play {
            file,
            position,
            side,
        } => cli::play::play(&file, position.as_deref(), &side),
        Command::Line {
            file,
            position,
            json,
        } => cli::play::line(&file, position.as_deref(), json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Args::command(),
                "retrograde",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Games { json } => cli::games(json),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("retrograde: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// On SIGINT, SIGHUP or SIGTERM, remove the temporary file a solve is
/// writing and exit as the signal would (128 + its number). Checkpoints stay:
/// they are what a rerun resumes from.
///
/// The signals are blocked before any other thread starts (so every thread
/// inherits the mask) and taken by one thread with `sigwait`, where any code
/// may run, instead of an async-signal handler, where almost none may.
fn clean_up_on_signal() {
    #[cfg(unix)]
    // Safety: plain libc calls on a local, zero-initialised sigset_t, made
    // first in main before any other thread exists.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let waiter = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut sig: libc::c_int = 0;
                // Safety: `set` is a valid signal set and `sig` writable.
                if libc::sigwait(&set, &mut sig) == 0 {
                    retrograde::solve::remove_temporary_files();
                    if sig == libc::SIGINT {
                        eprintln!();
                    }
                    std::process::exit(128 + sig);
                }
            });
        if waiter.is_err() {
            // No thread to take them: let the signals act as before.
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// Rust ignores SIGPIPE, so writing to a closed pipe (`retrograde ... | head`)
/// would be an error or a panic in `println!`; the default action ends the
/// process quietly as Unix tools do.
fn restore_sigpipe() {
    #[cfg(unix)]
    // Safety: called first in main, before any thread starts; SIG_DFL is a
    // valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
