//! `retrograde proofdb`: proof databases (what `search --save` writes) as
//! files: `merge` joins several into one, `shrink` keeps the fewest entries
//! that prove the position, `check` re-proves one with no search. The work
//! is the library's ([`retrograde::search::proofdb::merge_files`],
//! [`retrograde::search::proofdb::shrink_file`],
//! [`retrograde::search::run::check`]); this file chooses the game from the
//! database's header and prints.

use super::output::{human_bytes, thousands};
use anyhow::{anyhow, bail, Result};
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Kind};
use retrograde::search::run::{self, SearchOptions};
use retrograde::search::SearchGame;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Work on proof databases (the files `search --save` writes).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Merge(MergeArgs),
    Shrink(ShrinkArgs),
    Check(CheckArgs),
}

/// Keep the fewest entries of a proof database from which the check
/// re-proves its position with no search (Glop's "check computation"): a
/// proof chosen to be small — for a win one losing child, the one already
/// kept or of smallest proof; for a loss every child, their needs shared —
/// then every entry the others do without dropped. Sprouts in normal play
/// keeps the losses (the nimbers) alone, and the position's own win: the
/// check shows every other win by a child the losses kept show lost; it may
/// also keep nimbers the database lacks, of its lands' children and
/// grandchildren, found by a bounded search (re-proven by the check as any
/// entry), and a local search over the choice keeps the smallest. Nimber
/// databases keep the closure of the position's components (a nimber needs
/// all its moves). The output may not be the input. Check the result with
/// `retrograde proofdb check OUTPUT`.
#[derive(clap::Args)]
struct ShrinkArgs {
    /// The database to shrink (what `search --save` wrote).
    #[arg(value_name = "FILE")]
    input: PathBuf,
    /// The shrunk database.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// The position it proves, in the game's notation (default: the start).
    #[arg(long)]
    position: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Re-prove every entry of a proof database from its children, as
/// `search GAME --check FILE` does, but with no search: each entry from the
/// rules and the entries before it alone, as Glop's check databases are
/// meant to be. A database that needs a search, or says nothing of the
/// position, is refused (exit 1).
#[derive(clap::Args)]
struct CheckArgs {
    /// The database.
    #[arg(value_name = "FILE")]
    input: PathBuf,
    /// The position it proves, in the game's notation (default: the start).
    #[arg(long)]
    position: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Merge proof databases of one game into one, as Glop does: key by key,
/// each position's bounds from every file met; a position two files
/// disagree on (a win and a loss, two nimbers) refuses the merge, naming the
/// position and both files, and nothing is written. The output may not be
/// one of the inputs. Check the result with `retrograde search GAME --check
/// OUTPUT`.
#[derive(clap::Args)]
struct MergeArgs {
    /// The databases to merge, all of one game and kind.
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// The merged database.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Merge(m) => merge(m),
        Command::Shrink(s) => shrink(s),
        Command::Check(c) => check(c),
    }
}

/// The game of the database at `path`, from its header.
fn game_of(path: &std::path::Path) -> Result<(AnySearch, Kind)> {
    let (spec, kind) = proofdb::header_of(path)?;
    let game = AnySearch::parse(&spec)
        .map_err(|e| anyhow!("{}: {e}", retrograde::Error::quote_path(path)))?;
    Ok((game, kind))
}

fn shrink(args: ShrinkArgs) -> Result<ExitCode> {
    let (game, _) = game_of(&args.input)?;
    let r = retrograde::with_search!(&game, g => {
        let root = match &args.position {
            Some(s) => g.parse_position(s).map_err(|reason| retrograde::Error::BadPosition {
                input: s.clone(),
                reason,
            })?,
            None => g.start(),
        };
        proofdb::shrink_file(g, &args.input, &args.output, &root)
    })?;
    if args.json {
        println!(
            "{}",
            json!({
                "game": r.game,
                "position": r.position,
                "kind": r.kind.name(),
                "read": r.read,
                "output": args.output,
                "entries": r.entries,
                "bytes": r.bytes,
            })
        );
    } else {
        println!("game        {}", r.game);
        println!("position    {}", r.position);
        println!(
            "shrunk      {} entries ({}) to {} in {} ({})",
            thousands(r.read as u64),
            r.kind.name(),
            thousands(r.entries as u64),
            args.output.display(),
            human_bytes(r.bytes)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs) -> Result<ExitCode> {
    let (game, kind) = game_of(&args.input)?;
    let options = SearchOptions {
        position: args.position.clone(),
        nimber: kind == Kind::Nimbers,
        // One node: the first search the check starts stops it, so a
        // database that needs one is refused at once, however long that
        // search would be.
        node_limit: Some(1),
        ..SearchOptions::default()
    };
    let c = run::check(&game, &args.input, &options, &run::Quiet)?;
    let path = retrograde::Error::quote_path(&args.input);
    if c.stopped.is_some() || c.report.searched > 0 {
        bail!(
            "{path}: the database does not prove the position by itself: re-proving its entries needs a search ({} of {} entries re-proven without one)",
            thousands(c.report.checked),
            thousands(c.entries)
        );
    }
    if c.entry.is_none() {
        bail!(
            "{path}: the database does not prove {}: nothing in it settles that position",
            c.position
        );
    }
    match args.json {
        true => println!("{}", super::output::check_json(&c)),
        false => print!("{}", c.text(&options)),
    }
    Ok(ExitCode::SUCCESS)
}

fn merge(args: MergeArgs) -> Result<ExitCode> {
    let (spec, _) = proofdb::header_of(&args.inputs[0])?;
    let game = AnySearch::parse(&spec)
        .map_err(|e| anyhow!("{}: {e}", retrograde::Error::quote_path(&args.inputs[0])))?;
    let r =
        retrograde::with_search!(&game, g => proofdb::merge_files(g, &args.inputs, &args.output))?;
    if args.json {
        println!(
            "{}",
            json!({
                "game": r.game,
                "kind": r.kind.name(),
                "inputs": r.inputs.iter().map(|(p, n)| json!({"file": p, "entries": n})).collect::<Vec<_>>(),
                "output": args.output,
                "entries": r.entries,
                "bytes": r.bytes,
            })
        );
    } else {
        for (p, n) in &r.inputs {
            println!("read        {} entries from {}", thousands(*n), p.display());
        }
        println!(
            "merged      {} distinct positions ({}) into {} ({})",
            thousands(r.entries as u64),
            r.kind.name(),
            args.output.display(),
            human_bytes(r.bytes)
        );
    }
    Ok(ExitCode::SUCCESS)
}
