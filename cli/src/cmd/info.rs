//! `retrograde info`: a tablebase's header.

use super::open::{open, shown};
use super::output::{header_json, human_bytes, print_counts, thousands};
use anyhow::Result;
use retrograde::TableKind;
use std::path::PathBuf;
use std::process::ExitCode;

/// Show a tablebase's header: game, format, counts by value, largest remoteness.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase file, or a game spec (`isolation:4x4`) whose table is
    /// found in --tables by the game in its header. An existing file wins
    /// over a spec of the same spelling.
    #[arg(value_name = "FILE|SPEC")]
    file: PathBuf,
    #[command(flatten)]
    tables: super::open::Tables,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let Args {
        file,
        tables,
        json: as_json,
    } = args;
    let file = tables.resolve(&file)?;
    let file = file.as_path();
    let tb = open(file)?;
    let h = tb.header();
    if as_json {
        println!("{}", header_json(h, file));
        return Ok(ExitCode::SUCCESS);
    }
    println!("file          {}", shown(file));
    println!("game          {}", retrograde::Error::clip(&h.spec));
    println!(
        "format        version {}, index scheme {}{}, {}-byte cells ({})",
        h.version,
        h.index_scheme,
        if h.flags & retrograde::format::FLAG_FOLDED != 0 {
            " (symmetries folded)"
        } else {
            ""
        },
        h.cell_width,
        match h.kind() {
            TableKind::Value => "value in the top 2 bits, remoteness below",
            TableKind::Nimber => "nimber + 1; 0 = not a position",
        }
    );
    println!(
        "entries       {} ({} of data at offset {})",
        thousands(h.entries),
        human_bytes(h.data_len()),
        h.data_offset
    );
    println!("data CRC32    {:08x}", h.data_crc);
    println!("generator     {}", retrograde::Error::clip(&h.generator));
    println!("counts by value:");
    print_counts(h);
    Ok(ExitCode::SUCCESS)
}
