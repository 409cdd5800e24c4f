//! `retrograde proofdb`: proof databases (what `search --save` writes) as
//! files: `merge` joins several into one. The merge is the library's
//! ([`retrograde::search::proofdb::merge_files`]); this file chooses the
//! game from the first database's header and prints.

use super::output::{human_bytes, thousands};
use anyhow::{anyhow, Result};
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb;
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
    }
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
