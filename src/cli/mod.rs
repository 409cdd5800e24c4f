//! One function per subcommand: open, call the library, print.

pub mod play;
mod progress;

use anyhow::{bail, Context, Result};
use retrograde::analyze::{analyze as analyze_tb, Analysis};
use retrograde::format::Header;
use retrograde::games::GAMES;
use retrograde::solve::output::check_output;
use retrograde::solve::{solve_locked, OutputLock, SolveOptions};
use retrograde::verify::{manifest_entry, rederive};
use retrograde::{with_game, AnyGame, Mmap, Outcome, PositionInfo, TableKind, Tablebase, Value};
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// More worker threads than any machine this runs on has cores: beyond this
/// a thread count is a typo, and starting the threads alone would take
/// minutes.
pub const MAX_THREADS: usize = 1024;

/// Runs `f` on a rayon pool of `threads` threads (default: all cores).
pub fn with_threads<T>(threads: Option<usize>, f: impl FnOnce() -> Result<T> + Send) -> Result<T>
where
    T: Send,
{
    match threads {
        None => f(),
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) if n > MAX_THREADS => bail!(
            "--threads {n} is more than this program runs ({MAX_THREADS} at most; this machine has {} cores)",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        ),
        // rayon's error already carries the OS message; anyhow's chain would
        // print it twice.
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start {n} worker threads: {e}"))?
            .install(f),
    }
}

/// Opens for probing: positioned reads, so a file truncated under a long
/// `probe -` run is an error message, not a crash.
pub(crate) fn open(file: &Path) -> Result<Tablebase> {
    named(file, Tablebase::open(file))
}

/// Opens for the batch commands (`verify`, `analyze`, `compare`), which read
/// every cell: a memory map, whose probes cost nanoseconds instead of a
/// system call. Truncating the file while they run kills them (SIGBUS).
pub(crate) fn open_mapped(file: &Path) -> Result<Tablebase<Mmap>> {
    named(file, Tablebase::open_mmap(file))
}

fn named<T>(file: &Path, opened: retrograde::Result<T>) -> Result<T> {
    opened.map_err(|e| match e {
        // I/O errors already name the path.
        retrograde::Error::Io { .. } => anyhow::Error::new(e),
        e => anyhow::Error::new(e).context(file.display().to_string()),
    })
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

pub(crate) fn outcome_json(o: Outcome) -> (Json, Json) {
    (json!(o.value.name()), json!(o.remoteness))
}

/// Options of `retrograde solve`.
pub struct SolveArgs {
    pub output: Option<PathBuf>,
    pub fold: bool,
    pub nimbers: bool,
    pub dry_run: bool,
    pub force: bool,
    pub checkpoint_every: Option<f64>,
    pub restart: bool,
    pub json: bool,
}

pub fn solve(spec: &str, args: SolveArgs) -> Result<ExitCode> {
    let SolveArgs {
        output,
        fold,
        nimbers,
        dry_run,
        force,
        checkpoint_every,
        restart,
        json: as_json,
    } = args;
    let mut game = AnyGame::parse(spec)?;
    if fold {
        game = game
            .folded()
            .map_err(|e| anyhow::anyhow!("cannot fold {}: {e}", game.spec()))?;
    }
    let options = SolveOptions::with_kind(if nimbers {
        TableKind::Nimber
    } else {
        TableKind::Value
    });
    let checkpoint_interval = match checkpoint_every {
        None => None,
        Some(secs) if (0.0..=MAX_CHECKPOINT_SECS).contains(&secs) => {
            Some(std::time::Duration::from_secs_f64(secs))
        }
        Some(secs) => bail!(
            "--checkpoint-every must be a number of seconds from 0 to {MAX_CHECKPOINT_SECS:e} (use --no-checkpoint for none), not {secs}"
        ),
    };
    let options = SolveOptions {
        checkpoint_interval,
        restart,
        inputs: input_files(spec),
        ..options
    };
    let suffix = if nimbers { "-nimbers" } else { "" };
    let path = output.unwrap_or_else(|| {
        PathBuf::from("tablebases").join(format!("{}{suffix}.rtb", game.file_stem()))
    });
    if path.is_dir() {
        bail!(
            "{}: is a directory; give a file name with -o",
            path.display()
        );
    }
    check_output(&path, &options.inputs)?;
    let threads = rayon::current_num_threads();
    if dry_run {
        return dry_run_report(&game, &options, &path, threads, as_json);
    }
    if !force {
        check_resources(&game, &options, &path)?;
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create directory {}", dir.display()))?;
    }
    // Held until the report is printed: the file read back for the start's
    // value is the one this solve wrote, not another solve's.
    let lock = OutputLock::acquire(&path)?;
    let bar = progress::Bar::new(game.size());
    let started = Instant::now();
    let report = with_game!(&game, g => solve_locked(g, &lock, &options, &bar))
        .with_context(|| format!("solving {}", game.spec()))?;
    bar.finish();
    let wall = started.elapsed().as_secs_f64();
    let tb = open(&path)?;
    let start = tb.probe_text(None, false)?;
    let h = &report.header;
    if as_json {
        let mut j = header_json(h, &path);
        j["seconds"] = json!(wall);
        j["solve_seconds"] = json!(report.solve_time.as_secs_f64());
        j["child_lookups"] = json!(report.child_lookups);
        j["resumed_tiers"] = json!(report.resumed_tiers);
        j["threads"] = json!(threads);
        j["start"] = position_json(&start);
        println!("{j}");
        return Ok(ExitCode::SUCCESS);
    }
    if report.resumed_tiers > 0 {
        println!(
            "resumed from checkpoint: tiers 0-{} restored, the rest solved",
            report.resumed_tiers - 1
        );
    }
    let solved = h.entries - h.summary.non_positions;
    println!(
        "solved {} in {:.2} s with {} thread{} ({} positions, {:.1} M positions/s; labelling {:.2} s, writing and syncing {:.2} s)",
        h.spec,
        wall,
        threads,
        if threads == 1 { "" } else { "s" },
        thousands(solved),
        solved as f64 / report.solve_time.as_secs_f64().max(1e-9) / 1e6,
        report.solve_time.as_secs_f64(),
        report.finish_time.as_secs_f64()
    );
    if let Some(n) = report.child_lookups {
        println!(
            "read {} child cells ({:.1} M/s while labelling)",
            thousands(n),
            n as f64 / report.solve_time.as_secs_f64().max(1e-9) / 1e6
        );
    }
    print_counts(h);
    println!(
        "wrote {} ({:.2} MiB, data CRC32 {:08x})",
        path.display(),
        h.file_len() as f64 / (1 << 20) as f64,
        h.data_crc
    );
    println!("start {}", describe(&start));
    Ok(ExitCode::SUCCESS)
}

/// `--checkpoint-every` above this (about 31 years) is a typo, and would
/// overflow a `Duration` soon after.
const MAX_CHECKPOINT_SECS: f64 = 1e9;

/// The files a spec reads: a `pattern:PATH` spec's pattern file (the inline
/// form `pattern:NAME:squares=...:lines=...` reads none).
fn input_files(spec: &str) -> Vec<PathBuf> {
    match spec.trim().strip_prefix("pattern:") {
        Some(rest) if !rest.contains(":lines=") && Path::new(rest).exists() => {
            vec![PathBuf::from(rest)]
        }
        _ => Vec::new(),
    }
}

/// A size in the largest binary unit that keeps it at least 1 (bytes, KiB,
/// MiB, GiB, TiB), so a 2 MiB disk does not read "0.00 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut x = bytes as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    format!("{x:.2} {}", UNITS[unit])
}

/// Memory the system can give without swapping (Linux), in bytes.
fn memory_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Free space for an unprivileged writer on the filesystem holding `dir`.
fn disk_available(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // Safety: `c` is a valid NUL-terminated path and `st` a writable
        // statvfs the call fills in.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)]
        Some(st.f_bavail as u64 * st.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The nearest existing directory at or above the output's parent.
fn existing_dir(path: &Path) -> PathBuf {
    let mut dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    while !dir.exists() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    dir
}

/// Refuses to start a solve that cannot fit; `--force` skips this.
fn check_resources(game: &AnyGame, options: &SolveOptions, path: &Path) -> Result<()> {
    let (memory, disk) = with_game!(game, g => {
        let width = retrograde::solve::codec_for(g, options.kind)?.width();
        let size = retrograde::Game::size(g);
        let data = size * u64::from(width);
        // A loopy solve also keeps a child counter per entry.
        let counters = if retrograde::Game::acyclic(g) { 0 } else { size };
        (data + counters + (32 << 20), data + 4096)
    });
    if let Some(avail) = memory_available() {
        if memory > avail {
            bail!(
                "solving {} needs about {} of memory but {} is available; free memory or pass --force",
                game.spec(),
                human_bytes(memory),
                human_bytes(avail)
            );
        }
    }
    let dir = existing_dir(path);
    if let Some(avail) = disk_available(&dir) {
        if disk > avail {
            bail!(
                "solving {} needs {} of disk in {} but {} is free; free space, choose another -o, or pass --force",
                game.spec(),
                human_bytes(disk),
                dir.display(),
                human_bytes(avail)
            );
        }
    }
    Ok(())
}

fn dry_run_report(
    game: &AnyGame,
    options: &SolveOptions,
    path: &Path,
    threads: usize,
    as_json: bool,
) -> Result<ExitCode> {
    let e = with_game!(game, g => retrograde::solve::estimate(g, options, threads))?;
    let mem = memory_available();
    let disk = disk_available(&existing_dir(path));
    if as_json {
        println!(
            "{}",
            json!({
                "game": game.spec(),
                "file": path.display().to_string(),
                "entries": e.entries,
                "cell_width": e.cell_width,
                "file_bytes": e.file_bytes,
                "memory_bytes": e.memory_bytes,
                "disk_bytes": e.disk_bytes,
                "memory_available": mem,
                "disk_available": disk,
                "positions": e.positions.round() as u64,
                "seconds": e.seconds,
                "threads": e.threads,
                "calibration_seconds": e.calibration_seconds,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let avail = |a: Option<u64>| {
        a.map_or(String::new(), |a| {
            format!(" ({} available)", human_bytes(a))
        })
    };
    println!("game          {}", game.spec());
    println!("output        {}", path.display());
    println!(
        "entries       {} ({}-byte cells)",
        thousands(e.entries),
        e.cell_width
    );
    println!("file size     {}", human_bytes(e.file_bytes));
    println!(
        "peak memory   {}{}",
        human_bytes(e.memory_bytes),
        avail(mem)
    );
    println!("disk needed   {}{}", human_bytes(e.disk_bytes), avail(disk));
    println!(
        "time          about {:.1} s with {} thread{} (calibrated on {} positions in {:.2} s)",
        e.seconds,
        e.threads,
        if e.threads == 1 { "" } else { "s" },
        thousands(e.sampled_positions),
        e.calibration_seconds
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn describe(p: &PositionInfo) -> String {
    format!(
        "{}: {}, {}{}{}",
        p.position,
        p.to_move
            .map_or("to move".to_string(), |m| format!("player {m} to move")),
        p.outcome,
        p.nimber.map_or(String::new(), |k| format!(" (nimber {k})")),
        if p.primitive { " (game over)" } else { "" }
    )
}

fn print_counts(h: &Header) {
    let s = &h.summary;
    for v in Value::ALL {
        let c = s.counts[v.ordinal()];
        let max = match v {
            Value::Draw => String::new(),
            _ if c == 0 || h.kind() == TableKind::Nimber => String::new(),
            _ => format!(" (largest remoteness {})", s.max_remoteness[v.ordinal()]),
        };
        println!("  {:<13} {:>16}{}", v.name(), thousands(c), max);
    }
    if s.non_positions > 0 {
        println!(
            "  {:<13} {:>16}",
            "non-positions",
            thousands(s.non_positions)
        );
    }
}

fn header_json(h: &Header, path: &Path) -> Json {
    let s = &h.summary;
    json!({
        "file": path.display().to_string(),
        "game": h.spec,
        "format_version": h.version,
        "index_scheme": h.index_scheme,
        "folded": h.flags & retrograde::format::FLAG_FOLDED != 0,
        "cell_width": h.cell_width,
        "table": h.kind().name(),
        "entries": h.entries,
        "data_offset": h.data_offset,
        "file_size": h.file_len(),
        "data_crc32": format!("{:08x}", h.data_crc),
        "generator": h.generator,
        "counts": {
            "win": s.counts[0], "lose": s.counts[1], "tie": s.counts[2], "draw": s.counts[3],
            "non_positions": s.non_positions,
        },
        "max_remoteness": {
            "win": s.max_remoteness[0], "lose": s.max_remoteness[1], "tie": s.max_remoteness[2],
        },
        "max_nimber": (h.kind() == TableKind::Nimber).then_some(s.max_nimber),
    })
}

pub fn info(file: &Path, as_json: bool) -> Result<ExitCode> {
    let tb = open(file)?;
    let h = tb.header();
    if as_json {
        println!("{}", header_json(h, file));
        return Ok(ExitCode::SUCCESS);
    }
    println!("file          {}", file.display());
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
        "entries       {} ({:.2} MiB of data at offset {})",
        thousands(h.entries),
        h.data_len() as f64 / (1 << 20) as f64,
        h.data_offset
    );
    println!("data CRC32    {:08x}", h.data_crc);
    println!("generator     {}", retrograde::Error::clip(&h.generator));
    println!("counts by value:");
    print_counts(h);
    Ok(ExitCode::SUCCESS)
}

fn position_json(p: &PositionInfo) -> Json {
    let (value, remoteness) = outcome_json(p.outcome);
    json!({
        "position": p.position,
        "index": p.index,
        "to_move": p.to_move,
        "value": value,
        "remoteness": remoteness,
        "nimber": p.nimber,
        "primitive": p.primitive,
    })
}

fn moves_json(p: &PositionInfo) -> Json {
    Json::Array(
        p.moves
            .iter()
            .map(|m| {
                let (value, remoteness) = outcome_json(m.for_mover());
                json!({
                    "move": m.mv,
                    "position": m.position,
                    "value": value,
                    "remoteness": remoteness,
                    "nimber": m.nimber,
                    "best": m.best,
                })
            })
            .collect(),
    )
}

pub fn probe(
    file: &Path,
    positions: &[String],
    with_moves: bool,
    advise: Option<&str>,
    verify: bool,
    as_json: bool,
) -> Result<ExitCode> {
    let tb = open(file)?;
    if verify {
        named(file, tb.verify())?;
    }
    match advise {
        None => {}
        Some("random") => tb.advise_random()?,
        Some("willneed") => tb.advise_willneed()?,
        Some(other) => bail!("--advise must be 'random' or 'willneed', not '{other}'"),
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failures = 0usize;
    let mut one = |text: Option<&str>, out: &mut dyn Write| -> Result<()> {
        match tb.probe_text(text, with_moves) {
            Ok(p) => {
                if as_json {
                    let mut j = position_json(&p);
                    if with_moves {
                        j["moves"] = moves_json(&p);
                    }
                    writeln!(out, "{j}")?;
                } else {
                    writeln!(out, "{}", describe(&p))?;
                    if with_moves {
                        print_moves(&p, out)?;
                    }
                }
            }
            Err(e) => {
                failures += 1;
                if as_json {
                    writeln!(out, "{}", json!({"position": text, "error": e.to_string()}))?;
                } else {
                    eprintln!("retrograde: error: {e}");
                }
            }
        }
        Ok(())
    };
    if positions.is_empty() {
        one(None, &mut out)?;
    }
    for p in positions {
        if p == "-" {
            for line in std::io::stdin().lock().lines() {
                let line = line.context("reading positions from stdin")?;
                let line = line.trim();
                if !line.is_empty() {
                    one(Some(line), &mut out)?;
                }
            }
        } else {
            one(Some(p), &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn print_moves(p: &PositionInfo, out: &mut dyn Write) -> Result<()> {
    if p.moves.is_empty() {
        writeln!(out, "  no moves")?;
        return Ok(());
    }
    let w = p.moves.iter().map(|m| m.mv.len()).max().unwrap_or(4).max(4);
    let pw = p.moves[0].position.len().max(8);
    writeln!(out, "  {:<w$}  {:<pw$}  for the mover", "move", "position")?;
    for m in &p.moves {
        writeln!(
            out,
            "  {:<w$}  {:<pw$}  {}{}",
            m.mv,
            m.position,
            m.for_mover(),
            if m.best { "  best" } else { "" }
        )?;
    }
    Ok(())
}

fn analysis_json(a: &Analysis, tb: &Tablebase<Mmap>) -> Json {
    let start = a.start.map(|o| {
        let (value, remoteness) = outcome_json(o);
        json!({"value": value, "remoteness": remoteness})
    });
    let hist = |v: Value| json!(a.histograms[v.ordinal()]);
    json!({
        "game": tb.header().spec,
        "reachable": a.reachable,
        "win": a.counts[0],
        "lose": a.counts[1],
        "tie": a.counts[2],
        "draw": a.counts[3],
        "primitive": a.primitive,
        "win_not_primitive": retrograde::analyze::non_primitive(a, Value::Win),
        "lose_not_primitive": retrograde::analyze::non_primitive(a, Value::Lose),
        "total_moves": a.total_moves,
        "average_moves": a.average_moves(),
        "remoteness": {
            "win": hist(Value::Win), "lose": hist(Value::Lose), "tie": hist(Value::Tie),
        },
        "nimbers": (!a.nimbers.is_empty()).then(|| json!(a.nimbers)),
        "tiers": a.tiers.iter().map(|(t, c)| (t.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
        "start": start,
    })
}

pub fn analyze(file: &Path, as_json: bool) -> Result<ExitCode> {
    let tb = open_mapped(file)?;
    let a = with_game!(tb.game(), g => analyze_tb(g, &tb))
        .with_context(|| format!("analyzing {}", file.display()))?;
    if as_json {
        println!("{}", analysis_json(&a, &tb));
        return Ok(ExitCode::SUCCESS);
    }
    println!("game              {}", tb.header().spec);
    println!("reachable         {}", thousands(a.reachable));
    println!("primitive         {}", thousands(a.primitive));
    for v in Value::ALL {
        let c = a.counts[v.ordinal()];
        let np = retrograde::analyze::non_primitive(&a, v);
        println!(
            "{:<17} {} ({} not primitive)",
            v.name(),
            thousands(c),
            thousands(np)
        );
    }
    println!("average moves     {:.3}", a.average_moves());
    if let Some(o) = a.start {
        println!("start             {o}");
    }
    let longest = a.histograms.iter().map(Vec::len).max().unwrap_or(0);
    if longest > 0 {
        println!("remoteness histogram (reachable positions):");
        println!("  {:>4}  {:>14}  {:>14}  {:>14}", "r", "win", "lose", "tie");
    }
    for r in 0..longest {
        let at = |v: Value| a.histograms[v.ordinal()].get(r).copied().unwrap_or(0);
        println!(
            "  {:>4}  {:>14}  {:>14}  {:>14}",
            r,
            thousands(at(Value::Win)),
            thousands(at(Value::Lose)),
            thousands(at(Value::Tie))
        );
    }
    if !a.nimbers.is_empty() {
        println!("nimber histogram (reachable positions):");
        for (k, c) in a.nimbers.iter().enumerate() {
            println!("  {k:>4}  {:>14}", thousands(*c));
        }
    }
    println!("positions per tier:");
    for (t, c) in &a.tiers {
        println!("  tier {t:>3}  {:>14}", thousands(*c));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verify(file: &Path, crc_only: bool, as_json: bool) -> Result<ExitCode> {
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
                let show = |o: Option<Outcome>| o.map_or("nothing".to_string(), |o| o.to_string());
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

pub fn compare(a: &Path, b: &Path, as_json: bool) -> Result<ExitCode> {
    let (ta, tb) = (open_mapped(a)?, open_mapped(b)?);
    let c = retrograde::compare::compare(&ta, &tb)
        .with_context(|| format!("comparing {} and {}", a.display(), b.display()))?;
    let show = |o: Option<Outcome>| o.map_or("nothing".to_string(), |o| o.to_string());
    if as_json {
        println!(
            "{}",
            json!({
                "game": ta.header().spec,
                "positions": c.positions,
                "identical": c.identical(),
                "differ": {"value": c.value, "remoteness": c.remoteness, "nimber": c.nimber, "missing": c.missing},
                "first": c.first.iter().map(|(p, x, y)| json!({"position": p, "a": show(*x), "b": show(*y)})).collect::<Vec<_>>(),
            })
        );
    } else {
        println!("game        {}", ta.header().spec);
        println!("positions   {}", thousands(c.positions));
        if c.identical() {
            println!("identical   every position has the same value and remoteness");
        } else {
            println!(
                "differ      value {}, remoteness {}, nimber {}, answered by one file only {}",
                thousands(c.value),
                thousands(c.remoteness),
                thousands(c.nimber),
                thousands(c.missing)
            );
            for (p, x, y) in &c.first {
                println!("  {p}: {} vs {}", show(*x), show(*y));
            }
        }
    }
    Ok(if c.identical() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub fn games(as_json: bool) -> Result<ExitCode> {
    if as_json {
        let list: Vec<Json> = GAMES
            .iter()
            .map(|g| {
                json!({"name": g.name, "parameters": g.params, "notation": g.notation,
                       "example_spec": g.example_spec, "example_position": g.example_position})
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
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn sizes_are_printed_in_a_unit_that_shows_them() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1023), "1023 bytes");
        assert_eq!(human_bytes(10_142), "9.90 KiB");
        assert_eq!(human_bytes(2 << 20), "2.00 MiB");
        assert_eq!(human_bytes(5_033_164_800 + 4096), "4.69 GiB");
        assert_eq!(human_bytes(3 << 40), "3.00 TiB");
    }
}
