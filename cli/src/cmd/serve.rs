//! `retrograde serve`: checks the arguments and starts the explorer's
//! server (the `serve` module holds the server, its routes and its page).

use crate::serve::{self, Options};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Serve the explorer page and the JSON API for tablebases.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase files, or game specs whose tables are found in --tables
    /// (default: every *.rtb in --tables; with --search, none is needed
    /// there). An existing file wins over a spec of the same spelling.
    #[arg(value_name = "FILE|SPEC")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    tables: super::open::Tables,
    /// Also serve a game that has no table, e.g. sprouts:5 or
    /// sprouts:4:misere: each position and its children are searched when
    /// asked for, within --search-time and --search-nodes; what the budget
    /// does not reach is shown as unknown.
    #[arg(long = "search", value_name = "SPEC")]
    searches: Vec<String>,
    /// Seconds of search per request to a --search game.
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    search_time: f64,
    /// Nodes of search per request to a --search game (default: no limit
    /// but the time).
    #[arg(long, value_name = "N")]
    search_nodes: Option<u64>,
    /// Searches run at once (default: --threads); each takes one core for
    /// up to --search-time. A search whose client closes its connection is
    /// stopped.
    #[arg(long, value_name = "N")]
    search_workers: Option<usize>,
    /// Search requests that may wait for a worker. Past them a request is
    /// answered at once with 503 and a Retry-After header, not queued.
    #[arg(long, default_value_t = 16, value_name = "N")]
    search_queue: usize,
    /// Positions left computing at once when a request's budget did not
    /// settle their moves (0: none): each a job of --search-job-threads
    /// threads and up to 256 MiB each, stopped when nobody has asked about
    /// it for --search-job-idle.
    #[arg(long, default_value_t = 2, value_name = "N")]
    search_jobs: usize,
    /// Threads of each job: each settles another of the position's moves
    /// (Connect-Four: by its score, so its distance comes too). Two: one
    /// visitor's position fills in on both cores of a small machine.
    #[arg(long, default_value_t = 2, value_name = "N")]
    search_job_threads: usize,
    /// Seconds after which a job nobody has asked about (its page closed)
    /// is stopped.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    search_job_idle: u64,
    /// Seconds a job computes at most.
    #[arg(long, default_value_t = 600.0, value_name = "SECS")]
    search_job_time: f64,
    /// Start from this proof database (of the one --search game),
    /// re-proved entry by entry first as `search --check` does.
    #[arg(long, value_name = "FILE")]
    load: Vec<PathBuf>,
    /// Take --load's entries without re-proving them (a wrong or forged
    /// database then gives wrong answers).
    #[arg(long)]
    trust_load: bool,
    /// Keep what the searches proved in this proof database (of the one
    /// --search game): written on shutdown (SIGINT, SIGTERM) and every
    /// --save-every seconds.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Seconds between two saves while serving.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    save_every: u64,
    /// Address to listen on. The default is loopback only; another address
    /// lets anyone who can reach it read the tables.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "IP:PORT")]
    addr: String,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Check each file's data CRC (read it whole) before serving it.
    #[arg(long)]
    verify: bool,
    /// Seconds a client has to send a request's header, counted from the
    /// connection's opening or the end of the previous answer: a slow
    /// header, or an idle keep-alive connection, is closed after it.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    header_timeout: u64,
    /// Seconds a connection may move no byte while no request is being
    /// answered (a client that stops reading its answer) before it is
    /// closed.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    idle_timeout: u64,
    /// Connections open at once (default 1024, or fewer if the open-file
    /// limit leaves room for fewer); the next one waits until one closes.
    #[arg(long, value_name = "N")]
    max_connections: Option<usize>,
}

/// The longest `--header-timeout` and `--idle-timeout`: a day.
const MAX_TIMEOUT: u64 = 86_400;

/// The most search requests that may wait for a worker.
const MAX_QUEUE: usize = 100_000;

pub fn run(args: Args) -> Result<ExitCode> {
    let addr: std::net::SocketAddr = args.addr.parse().map_err(|_| {
        anyhow::anyhow!(
            "--addr {} is not an IP:PORT address (e.g. 127.0.0.1:8080)",
            retrograde::Error::quote(&args.addr)
        )
    })?;
    let threads = match args.threads {
        None => std::thread::available_parallelism().map_or(2, |n| n.get()),
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) if n > super::MAX_THREADS => {
            bail!(
                "--threads {n} is more than this program runs ({} at most)",
                super::MAX_THREADS
            )
        }
        Some(n) => n,
    };
    let timeout = |name: &str, secs: u64| -> Result<std::time::Duration> {
        if !(1..=MAX_TIMEOUT).contains(&secs) {
            bail!("--{name} {secs} is not from 1 to {MAX_TIMEOUT} seconds");
        }
        Ok(std::time::Duration::from_secs(secs))
    };
    let header = timeout("header-timeout", args.header_timeout)?;
    let idle = timeout("idle-timeout", args.idle_timeout)?;
    if args.max_connections == Some(0) {
        bail!("--max-connections must be at least 1");
    }
    if !(args.search_time > 0.0 && args.search_time <= 3600.0) {
        bail!(
            "--search-time {} is not a number of seconds from more than 0 to 3600",
            args.search_time
        );
    }
    if args.search_nodes == Some(0) {
        bail!("--search-nodes must be at least 1");
    }
    let search_workers = match args.search_workers {
        None => threads,
        Some(n) if (1..=super::MAX_THREADS).contains(&n) => n,
        Some(n) => bail!(
            "--search-workers {n} is not from 1 to {}",
            super::MAX_THREADS
        ),
    };
    if args.search_queue > MAX_QUEUE {
        bail!(
            "--search-queue {} is more than {MAX_QUEUE} (a request waiting that long is better told to retry)",
            args.search_queue
        );
    }
    if !(args.search_job_time > 0.0 && args.search_job_time <= 86_400.0) {
        bail!(
            "--search-job-time {} is not a number of seconds from more than 0 to 86400",
            args.search_job_time
        );
    }
    if args.search_job_threads == 0 || args.search_job_threads > super::MAX_THREADS {
        bail!(
            "--search-job-threads {} is not a number of threads from 1 to {}",
            args.search_job_threads,
            super::MAX_THREADS
        );
    }
    if args.search_jobs > super::MAX_THREADS {
        bail!(
            "--search-jobs {} is more than {}",
            args.search_jobs,
            super::MAX_THREADS
        );
    }
    if (args.save.is_some() || !args.load.is_empty()) && args.searches.len() != 1 {
        bail!(
            "--save and --load keep one searched game's proofs: give exactly one --search (given {})",
            args.searches.len()
        );
    }
    if args.trust_load && args.load.is_empty() {
        bail!("--trust-load takes the entries of --load FILE: give one");
    }
    // Refused now, not at the first save minutes or days later: a device,
    // a FIFO, a directory or a table given to --save (each save checks
    // again before its rename).
    if let Some(path) = &args.save {
        retrograde::internal::solve::check_output(path, &args.files)?;
    }
    let save_every = timeout("save-every", args.save_every)?;
    let files = files_to_serve(args.files, &args.tables, !args.searches.is_empty())?;
    serve::start(Options {
        addr,
        threads,
        verify: args.verify,
        header_timeout: header,
        idle_timeout: idle,
        max_connections: args.max_connections,
        files,
        searches: args.searches,
        budget: serve::Budget {
            time: std::time::Duration::from_secs_f64(args.search_time),
            nodes: args.search_nodes,
        },
        search_workers,
        search_queue: args.search_queue,
        keep: serve::Keep {
            jobs: args.search_jobs,
            job_time: std::time::Duration::from_secs_f64(args.search_job_time),
            job_threads: args.search_job_threads,
            abandoned: timeout("search-job-idle", args.search_job_idle)?,
            load: args.load,
            trust_load: args.trust_load,
            save: args.save,
            save_every,
        },
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The files to serve: those given (a spec by its table in --tables), each
/// once (a file named twice, by another path or a link, would show as two
/// tables), or every `*.rtb` in --tables (none there is fine when a game is
/// `searched`: it is served alone).
fn files_to_serve(
    files: Vec<PathBuf>,
    tables: &super::open::Tables,
    searched: bool,
) -> Result<Vec<PathBuf>> {
    if !files.is_empty() {
        let mut once: Vec<PathBuf> = Vec::new();
        for f in files {
            let f = tables.resolve(&f)?;
            if !once
                .iter()
                .any(|g| retrograde::internal::solve::same_file(g, &f))
            {
                once.push(f);
            }
        }
        return Ok(once);
    }
    let dir = tables.dir();
    let dir = dir.as_path();
    if searched && !dir.is_dir() {
        return Ok(Vec::new());
    }
    if !dir.is_dir() {
        bail!(
            "no FILE given and no {}/ directory here (make a table: retrograde solve isolation:4x4)",
            retrograde::Error::clip(dir.to_string_lossy().trim_end_matches('/'))
        );
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("no FILE given and cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rtb") && p.is_file())
        .collect();
    found.sort();
    if found.is_empty() && !searched {
        bail!(
            "no FILE given and no *.rtb in {}/ (make one: retrograde solve isolation:4x4)",
            retrograde::Error::clip(dir.to_string_lossy().trim_end_matches('/'))
        );
    }
    Ok(found)
}
