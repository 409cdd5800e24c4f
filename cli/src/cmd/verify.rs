//! `retrograde verify`: checksums, statistics, padding, the manifest, and a
//! re-derivation of every entry from the game's rules — or, with `--sample
//! N`, of N random positions' entries, reading only their cells and their
//! children's.

use super::open::{open, open_mapped, shown};
use super::output::{show, thousands};
use super::with_threads;
use anyhow::{bail, Context, Result};
use retrograde::format::Header;
use retrograde::verify::{manifest_entry, rederive, verify_sample, DEFAULT_SEED};
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
    #[arg(long, conflicts_with = "sample")]
    crc_only: bool,
    /// Re-derive only N entries of legal positions drawn at random (reading
    /// just their cells and their children's; the data CRC and the statistics
    /// recount, which read the whole file, are skipped).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    sample: Option<String>,
    /// The seed that draws the sample (default: a fixed one, printed).
    #[arg(
        long,
        value_name = "S",
        requires = "sample",
        allow_hyphen_values = true
    )]
    seed: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(n) = &args.sample {
        // Parsed here rather than by clap, so a bad value is one line.
        let n = match n.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => bail!(
                "--sample needs a whole number of entries, at least 1 (got {})",
                retrograde::Error::quote(n)
            ),
        };
        let seed = match &args.seed {
            None => DEFAULT_SEED,
            Some(s) => parse_seed(s).with_context(|| {
                format!(
                    "--seed needs a whole number below 2^64 (got {})",
                    retrograde::Error::quote(s)
                )
            })?,
        };
        return with_threads(args.threads, || sample(&args.file, n, seed, args.json));
    }
    with_threads(args.threads, || {
        verify(&args.file, args.crc_only, args.json)
    })
}

/// A seed in decimal or `0x` hexadecimal (as printed).
fn parse_seed(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
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
    say(format!("file        {}", shown(file)));
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
    let manifest_ok = check_manifest(h, &say);
    ok &= manifest_ok != Some(false);
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
            first_mismatches(&r.first, &say, &mut report);
        }
    }
    conclude(report, ok, as_json, file)
}

/// Reads the file's bytes up to the data and checks the padding after the
/// header is zero.
fn padding_ok(file: &Path, h: &Header) -> Result<bool> {
    use std::io::Read;
    let mut head = vec![0u8; usize::try_from(h.data_offset)?];
    std::fs::File::open(file)
        .and_then(|mut f| f.read_exact(&mut head))
        .with_context(|| format!("cannot read {}", shown(file)))?;
    Ok(retrograde::verify::padding_is_zero(&head, h))
}

/// Compares the header with the embedded manifest: `None` if the manifest
/// does not know this game and index.
fn check_manifest(h: &Header, say: &impl Fn(String)) -> Option<bool> {
    match manifest_entry(h) {
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
            say(format!(
                "manifest    MISMATCH: expected entries {} and data CRC32 {:08x}, file has {} and {:08x}",
                thousands(m.entries),
                m.data_crc,
                thousands(h.entries),
                h.data_crc
            ));
            Some(false)
        }
    }
}

/// `verify --sample N`: the checks that need no pass over the data (header,
/// padding, manifest), then N random positions re-derived. The file is read
/// with positioned reads, so a table larger than memory costs only the cells
/// touched.
fn sample(file: &Path, n: u64, seed: u64, as_json: bool) -> Result<ExitCode> {
    let tb = open(file)?;
    let h = tb.header();
    let mut ok = true;
    let mut report = serde_json::Map::new();
    let say = |line: String| {
        if !as_json {
            println!("{line}");
        }
    };
    say(format!("file        {}", shown(file)));
    say(format!("game        {}", retrograde::Error::clip(&h.spec)));
    say("header      ok (magic, version, sizes, header CRC32)".to_string());
    say("data CRC32  skipped (--sample: it reads the whole file)".to_string());
    say("statistics  skipped (--sample: recounting reads the whole file)".to_string());
    report.insert("data_crc_ok".into(), Json::Null);
    report.insert("statistics_ok".into(), Json::Null);
    report.insert("skipped".into(), json!(["data CRC32", "statistics"]));
    let padding = padding_ok(file, h)?;
    if padding {
        say("padding     ok (zero between header and data)".into());
    } else {
        ok = false;
        say("padding     FAILED: bytes between the header and the data are not zero".into());
    }
    report.insert("padding_ok".into(), json!(padding));
    let manifest_ok = check_manifest(h, &say);
    ok &= manifest_ok != Some(false);
    report.insert("manifest_ok".into(), json!(manifest_ok));
    let started = Instant::now();
    let r = with_game!(tb.game(), g => verify_sample(g, &tb, n, seed))?;
    let secs = started.elapsed().as_secs_f64();
    report.insert("seed".into(), json!(seed));
    report.insert("exhaustive".into(), json!(r.exhaustive));
    report.insert("checked".into(), json!(r.drawn));
    report.insert("positions".into(), json!(r.legal));
    report.insert("mismatches".into(), json!(r.mismatches));
    let how = if r.exhaustive {
        format!(
            "every index checked: the table has no more than {} positions",
            thousands(n)
        )
    } else {
        format!("seed {seed:#x}")
    };
    let what = format!(
        "{} entries checked, {} of them positions re-derived from their children ({how}; {secs:.1} s)",
        thousands(r.drawn),
        thousands(r.legal)
    );
    if r.mismatches == 0 && (r.exhaustive || r.legal == n) {
        say(format!("sampled     ok: {what}"));
    } else if r.mismatches == 0 {
        ok = false;
        say(format!(
            "sampled     FAILED: found only {} of {} positions in {what}: the header's count of non-positions is wrong",
            thousands(r.legal),
            thousands(n)
        ));
    } else {
        ok = false;
        say(format!(
            "sampled     FAILED: {} disagree with the rules; {what}; first:",
            thousands(r.mismatches)
        ));
        first_mismatches(&r.first, &say, &mut report);
    }
    conclude(report, ok, as_json, file)
}

/// Lists the first mismatches, and puts them in the JSON report.
fn first_mismatches(
    first: &[retrograde::verify::Mismatch],
    say: &impl Fn(String),
    report: &mut serde_json::Map<String, Json>,
) {
    for m in first {
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
        json!(first
            .iter()
            .map(|m| json!({"index": m.index, "position": m.position}))
            .collect::<Vec<_>>()),
    );
}

/// Prints the JSON report if asked, and the exit status of a verification.
fn conclude(
    mut report: serde_json::Map<String, Json>,
    ok: bool,
    as_json: bool,
    file: &Path,
) -> Result<ExitCode> {
    report.insert("ok".into(), json!(ok));
    if as_json {
        println!("{}", Json::Object(report));
    }
    if !ok {
        if !as_json {
            eprintln!("retrograde: error: {}: verification failed", shown(file));
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
