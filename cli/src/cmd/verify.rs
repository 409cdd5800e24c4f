//! `retrograde verify`: checksums, statistics, padding, the manifest, and a
//! re-derivation of every entry from the game's rules — or, with `--sample
//! N`, of N random positions' entries, reading only their cells and their
//! children's.

use super::open::{open, open_mapped, shown};
use super::output::{show, thousands};
use super::progress;
use super::with_threads;
use anyhow::{bail, Context, Result};
use retrograde::format::Header;
use retrograde::internal::verify::{manifest_entry, rederive_with, verify_sample};
use retrograde::with_game;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The seed `--sample` draws with unless given another (printed, so a run
/// can be repeated).
const DEFAULT_SEED: u64 = 0x5eed_c0de_2026_0013;

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
    /// No progress bar (it is drawn on stderr only when that is a
    /// terminal).
    #[arg(short, long)]
    quiet: bool,
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
        verify(&args.file, args.crc_only, args.json, args.quiet)
    })
}

/// A seed in decimal or `0x` hexadecimal (as printed).
fn parse_seed(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A verification's report as it goes: each line printed as it comes (text)
/// or each field kept for the JSON object printed at the end, and whether
/// every check so far passed.
struct Report {
    as_json: bool,
    ok: bool,
    fields: serde_json::Map<String, Json>,
}

impl Report {
    /// Starts the report of `file` with what opening it checked: the lines
    /// `verify` and `verify --sample` both begin with.
    fn start(file: &Path, h: &Header, as_json: bool) -> Report {
        let report = Report {
            as_json,
            ok: true,
            fields: serde_json::Map::new(),
        };
        report.say(format!("file        {}", shown(file)));
        report.say(format!("game        {}", retrograde::Error::clip(&h.spec)));
        report.say("header      ok (magic, version, sizes, header CRC32)".to_string());
        report
    }

    /// Prints a line of the text report.
    fn say(&self, line: String) {
        if !self.as_json {
            println!("{line}");
        }
    }

    fn set(&mut self, key: &str, value: Json) {
        self.fields.insert(key.into(), value);
    }

    fn fail(&mut self, line: String) {
        self.ok = false;
        self.say(line);
    }

    /// The checks of the bytes outside the data, which both modes make:
    /// the padding after the header, and the header against the manifest.
    fn padding_and_manifest(&mut self, file: &Path, h: &Header) -> Result<()> {
        let padding = padding_ok(file, h)?;
        if padding {
            self.say("padding     ok (zero between header and data)".into());
        } else {
            self.fail(
                "padding     FAILED: bytes between the header and the data are not zero".into(),
            );
        }
        self.set("padding_ok", json!(padding));
        let manifest_ok = self.check_manifest(h);
        self.ok &= manifest_ok != Some(false);
        self.set("manifest_ok", json!(manifest_ok));
        Ok(())
    }

    /// Compares the header with the embedded manifest: `None` if the
    /// manifest does not know this game and index.
    fn check_manifest(&self, h: &Header) -> Option<bool> {
        match manifest_entry(h) {
            None => {
                self.say(
                    "manifest    no entry for this game and index (nothing to compare)".to_string(),
                );
                None
            }
            Some(m) if m.entries == h.entries && m.data_crc == h.data_crc => {
                self.say(format!(
                    "manifest    ok (entries {}, data CRC32 {:08x})",
                    thousands(m.entries),
                    m.data_crc
                ));
                Some(true)
            }
            Some(m) => {
                self.say(format!(
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

    /// Lists the first mismatches, and puts them in the JSON report.
    fn first_mismatches(&mut self, first: &[retrograde::internal::verify::Mismatch]) {
        for m in first {
            self.say(format!(
                "  index {} {}: stored {}, rules give {}",
                m.index,
                m.position.as_deref().unwrap_or("(not a position)"),
                show(m.stored),
                show(m.expected)
            ));
        }
        self.set(
            "first_mismatches",
            json!(first
                .iter()
                .map(|m| json!({"index": m.index, "position": m.position}))
                .collect::<Vec<_>>()),
        );
    }

    /// Prints the JSON report if asked, and gives the exit status.
    fn conclude(mut self, file: &Path) -> Result<ExitCode> {
        self.set("ok", json!(self.ok));
        if self.as_json {
            println!("{}", Json::Object(self.fields));
        }
        if !self.ok {
            if !self.as_json {
                eprintln!("retrograde: error: {}: verification failed", shown(file));
            }
            return Ok(ExitCode::FAILURE);
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn verify(file: &Path, crc_only: bool, as_json: bool, quiet: bool) -> Result<ExitCode> {
    let tb = open_mapped(file)?;
    let h = tb.header();
    let mut report = Report::start(file, h, as_json);
    let crc = tb.verify();
    match &crc {
        Ok(()) => report.say(format!("data CRC32  ok ({:08x})", h.data_crc)),
        Err(e) => report.fail(format!("data CRC32  FAILED: {e}")),
    }
    report.set("data_crc_ok", json!(crc.is_ok()));
    let stats = retrograde::internal::verify::check_statistics(&tb);
    if stats.is_empty() {
        report.say(
            "statistics  ok (counts by value and largest remoteness recounted from the data)"
                .into(),
        );
    }
    for m in &stats {
        report.fail(format!(
            "statistics  FAILED: the header says {} is {}, the data has {}",
            m.what, m.stored, m.counted
        ));
    }
    report.set("statistics_ok", json!(stats.is_empty()));
    report.padding_and_manifest(file, h)?;
    if !crc_only && crc.is_ok() {
        let started = Instant::now();
        let bar = progress::Bar::task("re-deriving", !quiet);
        let r = with_game!(tb.game(), g => rederive_with(g, &tb, &bar));
        bar.finish();
        let r = r?;
        let secs = started.elapsed().as_secs_f64();
        report.set("checked", json!(r.checked));
        report.set("mismatches", json!(r.mismatches));
        if r.mismatches == 0 {
            report.say(format!(
                "re-derived  ok: {} entries agree with the rules ({secs:.1} s)",
                thousands(r.checked)
            ));
        } else {
            report.fail(format!(
                "re-derived  FAILED: {} of {} entries disagree with the rules; first:",
                thousands(r.mismatches),
                thousands(r.checked)
            ));
            report.first_mismatches(&r.first);
        }
    }
    report.conclude(file)
}

/// Reads the file's bytes up to the data and checks the padding after the
/// header is zero.
fn padding_ok(file: &Path, h: &Header) -> Result<bool> {
    use std::io::Read;
    let mut head = vec![0u8; usize::try_from(h.data_offset)?];
    std::fs::File::open(file)
        .and_then(|mut f| f.read_exact(&mut head))
        .with_context(|| format!("cannot read {}", shown(file)))?;
    Ok(retrograde::internal::verify::padding_is_zero(&head, h))
}

/// `verify --sample N`: the checks that need no pass over the data (header,
/// padding, manifest), then N random positions re-derived. The file is read
/// with positioned reads, so a table larger than memory costs only the cells
/// touched.
fn sample(file: &Path, n: u64, seed: u64, as_json: bool) -> Result<ExitCode> {
    let tb = open(file)?;
    let h = tb.header();
    let mut report = Report::start(file, h, as_json);
    report.say("data CRC32  skipped (--sample: it reads the whole file)".to_string());
    report.say("statistics  skipped (--sample: recounting reads the whole file)".to_string());
    report.set("data_crc_ok", Json::Null);
    report.set("statistics_ok", Json::Null);
    report.set("skipped", json!(["data CRC32", "statistics"]));
    report.padding_and_manifest(file, h)?;
    let started = Instant::now();
    let r = with_game!(tb.game(), g => verify_sample(g, &tb, n, seed))?;
    let secs = started.elapsed().as_secs_f64();
    report.set("seed", json!(seed));
    report.set("exhaustive", json!(r.exhaustive));
    report.set("checked", json!(r.drawn));
    report.set("positions", json!(r.legal));
    report.set("mismatches", json!(r.mismatches));
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
        report.say(format!("sampled     ok: {what}"));
    } else if r.mismatches == 0 {
        report.fail(format!(
            "sampled     FAILED: found only {} of {} positions in {what}: the header's count of non-positions is wrong",
            thousands(r.legal),
            thousands(n)
        ));
    } else {
        report.fail(format!(
            "sampled     FAILED: {} disagree with the rules; {what}; first:",
            thousands(r.mismatches)
        ));
        report.first_mismatches(&r.first);
    }
    report.conclude(file)
}
