//! `retrograde verify`: checksums, statistics, padding, the manifest, and a
//! re-derivation of every entry from the game's rules.

use super::open::open_mapped;
use super::output::{show, thousands};
use super::with_threads;
use anyhow::{Context, Result};
use retrograde::format::Header;
use retrograde::verify::{manifest_entry, rederive};
use retrograde::with_game;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Check the data CRC and re-derive every entry from the game's rules.
#[derive(clap::Args)]
pub struct Args {
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
}

pub fn run(args: Args) -> Result<ExitCode> {
    with_threads(args.threads, || {
        verify(&args.file, args.crc_only, args.json)
    })
}

fn verify(file: &Path, crc_only: bool, as_json: bool) -> Result<ExitCode> {
    let tb = open_mapped(file)?;
    let h = tb.header();
    let mut ok = true;
    let mut report = serde_json::Map::new();
    let say = |line: String| {
        if !as_json {
            println!("{line}");
        }
    };
    say(format!("file        {}", file.display()));
    say(format!("game        {}", retrograde::Error::clip(&h.spec)));
    say("header      ok (magic, version, sizes, header CRC32)".to_string());
    let crc = tb.verify();
    match &crc {
        Ok(()) => say(format!("data CRC32  ok ({:08x})", h.data_crc)),
        Err(e) => {
            ok = false;
            say(format!("data CRC32  FAILED: {e}"));
        }
    }
    report.insert("data_crc_ok".into(), json!(crc.is_ok()));
    let stats = retrograde::verify::check_statistics(&tb);
    if stats.is_empty() {
        say(
            "statistics  ok (counts by value and largest remoteness recounted from the data)"
                .into(),
        );
    } else {
        ok = false;
        for m in &stats {
            say(format!(
                "statistics  FAILED: the header says {} is {}, the data has {}",
                m.what, m.stored, m.counted
            ));
        }
    }
    report.insert("statistics_ok".into(), json!(stats.is_empty()));
    let padding = padding_ok(file, h)?;
    if padding {
        say("padding     ok (zero between header and data)".into());
    } else {
        ok = false;
        say("padding     FAILED: bytes between the header and the data are not zero".into());
    }
    report.insert("padding_ok".into(), json!(padding));
    let known = manifest_entry(h);
    let manifest_ok = match &known {
        None => {
            say("manifest    no entry for this game and index (nothing to compare)".to_string());
            None
        }
        Some(m) if m.entries == h.entries && m.data_crc == h.data_crc => {
            say(format!(
                "manifest    ok (entries {}, data CRC32 {:08x})",
                thousands(m.entries),
                m.data_crc
            ));
            Some(true)
        }
        Some(m) => {
            ok = false;
            say(format!(
                "manifest    MISMATCH: expected entries {} and data CRC32 {:08x}, file has {} and {:08x}",
                thousands(m.entries),
                m.data_crc,
                thousands(h.entries),
                h.data_crc
            ));
            Some(false)
        }
    };
    report.insert("manifest_ok".into(), json!(manifest_ok));
    if !crc_only && crc.is_ok() {
        let started = Instant::now();
        let r = with_game!(tb.game(), g => rederive(g, &tb))?;
        let secs = started.elapsed().as_secs_f64();
        report.insert("checked".into(), json!(r.checked));
        report.insert("mismatches".into(), json!(r.mismatches));
        if r.mismatches == 0 {
            say(format!(
                "re-derived  ok: {} entries agree with the rules ({secs:.1} s)",
                thousands(r.checked)
            ));
        } else {
            ok = false;
            say(format!(
                "re-derived  FAILED: {} of {} entries disagree with the rules; first:",
                thousands(r.mismatches),
                thousands(r.checked)
            ));
            for m in &r.first {
                say(format!(
                    "  index {} {}: stored {}, rules give {}",
                    m.index,
                    m.position.as_deref().unwrap_or("(not a position)"),
                    show(m.stored),
                    show(m.expected)
                ));
            }
            report.insert(
                "first_mismatches".into(),
                json!(r
                    .first
                    .iter()
                    .map(|m| json!({"index": m.index, "position": m.position}))
                    .collect::<Vec<_>>()),
            );
        }
    }
    report.insert("ok".into(), json!(ok));
    if as_json {
        println!("{}", Json::Object(report));
    }
    if !ok {
        if !as_json {
            eprintln!("retrograde: error: {}: verification failed", file.display());
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads the file's bytes up to the data and checks the padding after the
/// header is zero.
fn padding_ok(file: &Path, h: &Header) -> Result<bool> {
    use std::io::Read;
    let mut head = vec![0u8; usize::try_from(h.data_offset)?];
    std::fs::File::open(file)
        .and_then(|mut f| f.read_exact(&mut head))
        .with_context(|| format!("cannot read {}", file.display()))?;
    Ok(retrograde::verify::padding_is_zero(&head, h))
}
