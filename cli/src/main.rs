//! The `retrograde` command: a thin shell over the library. Each subcommand
//! is one file in `cmd/` holding its clap `Args` (whose doc comments are the
//! help text) and a `run`; this file parses and dispatches. The explorer's
//! server, its routes and its page are the `serve` module.
#![warn(clippy::undocumented_unsafe_blocks)]

mod cmd;
mod serve;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Generate complete game tablebases by retrograde analysis, and query them.
#[derive(Parser)]
#[command(name = "retrograde", version, about, long_about = None)]
struct Cli {
    /// Colour values (win green, lose red, tie and draw yellow) in text
    /// output: `auto` on a terminal unless NO_COLOR is set.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: cmd::color::When,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Solve(cmd::solve::Args),
    Info(cmd::info::Args),
    Probe(cmd::probe::Args),
    Analyze(cmd::analyze::Args),
    Verify(cmd::verify::Args),
    Compare(cmd::compare::Args),
    Play(cmd::play::Args),
    Line(cmd::line::Args),
    Search(cmd::search::Args),
    Proofdb(cmd::proofdb::Args),
    Serve(cmd::serve::Args),
    Completions(cmd::completions::Args),
    Games(cmd::games::Args),
}

fn main() -> ExitCode {
    restore_sigpipe();
    clean_up_on_signal();
    let cli = Cli::parse();
    cmd::color::init(cli.color);
    let result = match cli.command {
        Command::Solve(args) => cmd::solve(args),
        Command::Info(args) => cmd::info::run(args),
        Command::Probe(args) => cmd::probe::run(args),
        Command::Analyze(args) => cmd::analyze::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Line(args) => cmd::line::run(args),
        Command::Search(args) => cmd::search::run(args),
        Command::Proofdb(args) => cmd::proofdb::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Completions(args) => cmd::completions::run(args, &mut Cli::command()),
        Command::Games(args) => cmd::games::run(args),
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
    // SAFETY: plain libc calls on a local, zero-initialised sigset_t, made
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
                let mut asked = false;
                // SAFETY: `set` is a valid signal set and `sig` writable.
                while libc::sigwait(&set, &mut sig) == 0 {
                    // A running search stops and keeps what it proved (its
                    // --save); a second signal ends the process at once.
                    if !asked && cmd::cancel::request_stop() {
                        asked = true;
                        eprintln!(
                            "\nstopping the search: keeping what is proven (again to quit now)"
                        );
                        continue;
                    }
                    retrograde::internal::format::remove_temporary_files();
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
    // SAFETY: called first in main, before any thread starts; SIG_DFL is a
    // valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
