//! `retrograde games`: the registry of games this build knows.

use anyhow::Result;
use retrograde::games::{GAMES, SEARCH_GAMES};
use serde_json::{json, Value as Json};
use std::process::ExitCode;

/// List the games this build knows, with parameters and notation (the
/// search-only games, which have no tables, last).
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let as_json = args.json;
    if as_json {
        let list: Vec<Json> = GAMES
            .iter()
            .map(|g| (g, false))
            .chain(SEARCH_GAMES.iter().map(|g| (g, true)))
            .map(|(g, search_only)| {
                json!({"name": g.name, "parameters": g.params, "notation": g.notation,
                       "example_spec": g.example_spec, "example_position": g.example_position,
                       "rules": g.rules, "search_only": search_only})
            })
            .collect();
        println!("{}", Json::Array(list));
        return Ok(ExitCode::SUCCESS);
    }
    for g in GAMES {
        println!("{}", g.name);
        println!("  parameters  {}", g.params);
        println!("  notation    {}", g.notation);
        println!("  example     {}  {}", g.example_spec, g.example_position);
        println!("  rules       {}", g.rules);
    }
    for g in SEARCH_GAMES {
        println!(
            "{}  (search only: no table; retrograde search proves its positions)",
            g.name
        );
        println!("  parameters  {}", g.params);
        println!("  notation    {}", g.notation);
        println!("  example     {}  {}", g.example_spec, g.example_position);
        println!("  rules       {}", g.rules);
    }
    Ok(ExitCode::SUCCESS)
}
