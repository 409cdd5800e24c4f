//! Probes positions and plays out the best line from each, using only the
//! reader, as a program embedding the library would (it builds without the
//! command line's dependencies:
//! `cargo build --release --example probe_line --no-default-features`).
//!
//! ```text
//! probe_line [FILE [POSITION...]]
//! ```
//!
//! FILE defaults to `tablebases/isolation-4x4.rtb`. For the start and every
//! POSITION (in the game's notation), prints the position, then each move of
//! the best line (the first of the ranked moves, repeatedly) with the position
//! it reaches, down to the end of the game. Exit status: 0, 1 if the file or a
//! position cannot be probed, 2 for a usage error.

use retrograde::{PositionInfo, Tablebase, Value};
use std::collections::HashSet;
use std::io::{self, Write};
use std::process::ExitCode;

const DEFAULT_FILE: &str = "tablebases/isolation-4x4.rtb";
const USAGE: &str =
    "usage: probe_line [FILE [POSITION...]]  (FILE defaults to tablebases/isolation-4x4.rtb)";

/// What stops a line early.
enum Failure {
    /// The library refused (bad position, damaged file).
    Probe(retrograde::Error),
    /// Writing the output failed.
    Output(io::Error),
}

impl From<retrograde::Error> for Failure {
    fn from(e: retrograde::Error) -> Self {
        Failure::Probe(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// `player 0 to move, win in 11`, `lose in 0 (game over)`, `draw`.
fn describe(info: &PositionInfo) -> String {
    let mover = match info.to_move {
        Some(p) => format!("player {p} to move, "),
        None => String::new(),
    };
    let end = if info.primitive { " (game over)" } else { "" };
    format!("{mover}{}{end}", info.outcome)
}

/// Prints `position` (None: the start) and the best line from it.
fn walk(tb: &Tablebase, position: Option<&str>, out: &mut impl Write) -> Result<(), Failure> {
    let mut info = tb.probe_text(position, true)?;
    let name = position.map_or("start", |_| "position");
    writeln!(out, "{name} {}: {}", info.position, describe(&info))?;
    let mut seen = HashSet::from([info.position.clone()]);
    let mut ply = 0;
    while let Some(best) = info.moves.first() {
        if info.outcome.value == Value::Draw {
            writeln!(
                out,
                "  (a draw: perfect play never ends, so the line stops here)"
            )?;
            return Ok(());
        }
        ply += 1;
        let (mv, next) = (best.mv.clone(), best.position.clone());
        info = tb.probe_text(Some(&next), true)?;
        writeln!(
            out,
            "  {ply:3}. {mv:<6} {}: {}",
            info.position,
            describe(&info)
        )?;
        if !seen.insert(info.position.clone()) {
            writeln!(out, "  (the line repeats a position; stopping)")?;
            return Ok(());
        }
    }
    Ok(())
}

fn run(args: &[String], out: &mut impl Write) -> Result<bool, Failure> {
    let file = args.first().map_or(DEFAULT_FILE, String::as_str);
    let tb = match Tablebase::open(file) {
        Ok(tb) => tb,
        // An I/O error names the file; the others (a corrupt header) do not.
        Err(e @ retrograde::Error::Io { .. }) => {
            eprintln!("probe_line: {e}");
            return Ok(false);
        }
        Err(e) => {
            eprintln!("probe_line: {file}: {e}");
            return Ok(false);
        }
    };
    writeln!(out, "{file}: {}, {} entries", tb.header().spec, tb.len())?;
    let mut ok = true;
    let positions = std::iter::once(None).chain(args.iter().skip(1).map(|p| Some(p.as_str())));
    for position in positions {
        writeln!(out)?;
        match walk(&tb, position, out) {
            Ok(()) => {}
            Err(Failure::Probe(e)) => {
                out.flush()?;
                eprintln!("probe_line: {e}");
                ok = false;
            }
            Err(e) => return Err(e),
        }
    }
    out.flush()?;
    Ok(ok)
}

fn main() -> ExitCode {
    let args: Vec<String> = match std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect::<Result<_, _>>()
    {
        Ok(args) => args,
        Err(bad) => {
            eprintln!("probe_line: argument {bad:?} is not valid UTF-8\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match run(&args, &mut out) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        // `probe_line | head`: the reader left; nothing more to say.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("probe_line: cannot write the output: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Probe(e)) => {
            eprintln!("probe_line: {e}");
            ExitCode::from(1)
        }
    }
}
