//! The explorer: its page and its JSON API over HTTP
//! (docs/SERVE-API.md is the contract).
//!
//! Requests are answered by [`Explorer::handle`], a plain function of the
//! method, the request target and the Host headers, so that routing and
//! every error can be tested without a socket; `conn` holds the
//! connections (hyper parses HTTP, tokio runs them).

mod analysis;
mod board;
mod conn;
mod host;
mod search;

use crate::cmd::open::named;
use crate::cmd::output::{header_json, position_json};
use anyhow::{bail, Context, Result};
use retrograde::search::Cancel;
use retrograde::{Error, Tablebase};
use serde_json::{json, Value as Json};
use std::borrow::Cow;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use search::SearchSource;
pub use search::{Budget, Keep};

/// Connections served at once unless `--max-connections` says otherwise.
const DEFAULT_CONNECTIONS: usize = 1024;

/// Longer request targets get 414: a position's notation is at most a few
/// hundred characters, so anything longer is a mistake or an attack.
pub const MAX_TARGET: usize = 4096;

/// The page's files, compiled in: the binary serves them with no network
/// and no files of its own beside the tables.
const ASSETS: [(&str, &str, &str); 4] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("assets/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("assets/favicon.svg"),
    ),
];

/// What answers a served game's positions.
// One per served game: a table's reader is large and a searched game's
// source a pointer, and boxing the table would only add a deref per probe.
#[allow(clippy::large_enum_variant)]
enum Source {
    /// A table.
    Table(Tablebase),
    /// The search, for a game with no table (`--search`).
    Search(SearchSource),
}

/// One table (or searched game) being served.
struct Served {
    id: String,
    source: Source,
    /// Its entry in `/api/tables`.
    summary: Json,
    /// `retrograde info --json` of its header.
    info: Json,
}

/// An answer: status, content type, body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Cow<'static, [u8]>,
    /// Static assets may be cached (revalidated); API answers may not.
    pub cacheable: bool,
}

impl Reply {
    fn json(status: u16, body: &Json) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: Cow::Owned(body.to_string().into_bytes()),
            cacheable: false,
        }
    }

    fn error(status: u16, message: impl std::fmt::Display) -> Reply {
        Reply::json(status, &json!({ "error": message.to_string() }))
    }
}

/// The served tables and the routes over them.
pub struct Explorer {
    tables: Vec<Served>,
    /// When listening on loopback, the Host header must name loopback too:
    /// otherwise a web page elsewhere could read the tables through DNS
    /// rebinding.
    loopback_only: bool,
    /// The search workers and the requests waiting for them.
    gate: Gate,
    /// Each table's `analyze --json`, made when first asked for.
    analyses: analysis::Analyses,
}

/// What bounds the searches: `workers` run at once, and at most `queue`
/// more requests wait for one; past that a request is answered 503 at
/// once, with Retry-After (a search takes its whole budget at most).
struct Gate {
    workers: Arc<tokio::sync::Semaphore>,
    /// Search requests running or waiting.
    admitted: Arc<AtomicUsize>,
    /// The most of them: workers plus queue.
    limit: usize,
    /// Seconds a client is told to wait when the queue is full: a
    /// request's budget, when a worker is next free at the latest (if the
    /// queue is empty by then).
    retry_after: u64,
}

impl Gate {
    fn new(workers: usize, queue: usize, budget: Duration) -> Gate {
        Gate {
            workers: Arc::new(tokio::sync::Semaphore::new(workers)),
            admitted: Arc::new(AtomicUsize::new(0)),
            limit: workers + queue,
            retry_after: budget.as_secs_f64().ceil().max(1.0) as u64,
        }
    }

    /// A place among the requests running or waiting, if one is left.
    fn admit(&self) -> Option<Admitted> {
        self.admitted
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            })
            .ok()?;
        Some(Admitted(self.admitted.clone()))
    }
}

/// A search request's place, given back when it is answered or its
/// search has stopped.
struct Admitted(Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Explorer {
    /// Opens every file (positioned reads: a file replaced or truncated
    /// while served gives errors, never a crash), then the searched games
    /// `searches` (specs), each request's search bounded by `budget`.
    pub fn open(
        files: &[PathBuf],
        searches: &[String],
        budget: Budget,
        keep: &Keep,
        verify: bool,
        loopback_only: bool,
    ) -> Result<Explorer> {
        let mut tables: Vec<Served> = Vec::new();
        let mut analyses = analysis::Analyses::default();
        for file in files {
            let tb = named(file, Tablebase::open(file))?;
            if verify {
                named(file, tb.verify())?;
            }
            let stem = file
                .file_stem()
                .map_or("table".into(), |s| s.to_string_lossy().into_owned());
            let id = unique_id(&tables, &stem);
            let start = named(file, tb.probe_text(None, false))?;
            let spec = tb.header().spec.clone();
            let family = spec.split(':').next().unwrap_or_default().to_string();
            let impartial = start.to_move.is_none();
            // The names the game gives its pieces.
            let players = match tb.game().view(&start.position) {
                Ok(view) if !impartial => json!(view.players()),
                _ => Json::Null,
            };
            let described = retrograde::games::GAMES.iter().find(|g| g.name == family);
            let notation = described.map_or("", |g| g.notation);
            let summary = json!({
                "id": id,
                "file": file.file_name().map(|n| n.to_string_lossy().into_owned()),
                "game": spec,
                "family": family,
                "table": tb.header().kind().name(),
                "entries": tb.header().entries,
                "start": start.position,
                "impartial": impartial,
                "players": players,
                "notation": notation,
                "rules": described.map(|g| g.rules),
            });
            let mut info = header_json(tb.header(), file);
            // The server's own paths are nobody's business over HTTP.
            info["file"] = summary["file"].clone();
            analyses.push(Some((file.clone(), tb.header().data_crc)));
            tables.push(Served {
                id,
                source: Source::Table(tb),
                summary,
                info,
            });
        }
        for spec in searches {
            let (source, start) = SearchSource::open(spec, budget, keep.clone())?;
            let game = source.spec();
            let id = unique_id(&tables, &game.replace(':', "-"));
            let family = game.split(':').next().unwrap_or_default().to_string();
            let described = retrograde::games::GAMES
                .iter()
                .chain(retrograde::games::SEARCH_GAMES)
                .find(|g| g.name == family);
            let notation = described.map_or("", |g| g.notation);
            let summary = json!({
                "id": id,
                "file": null,
                "game": game,
                "family": family,
                "table": "search",
                "entries": null,
                "start": start,
                "impartial": source.impartial(),
                "players": source.players(&start),
                "notation": notation,
                "rules": described.map(|g| g.rules),
            });
            let info = json!({
                "file": null,
                "game": game,
                "table": "search",
                "budget": source.budget_json(),
            });
            analyses.push(None);
            tables.push(Served {
                id,
                source: Source::Search(source),
                summary,
                info,
            });
        }
        Ok(Explorer {
            tables,
            loopback_only,
            gate: Gate::new(1, 0, budget.time),
            analyses,
        })
    }

    /// Answers one request. `target` is the request target as sent (path
    /// and query, still percent-encoded; or absolute-form, `http://HOST/…`)
    /// and `hosts` the values of its Host headers. (The server routes
    /// first, then probes or searches on a blocking thread.)
    #[cfg(test)]
    pub fn handle(&self, method: &str, target: &str, hosts: &[&str]) -> Reply {
        match self.route(method, target, hosts) {
            Err(reply) => reply,
            Ok((table, p)) => self.position(table, p.as_deref(), &Cancel::new()),
        }
    }

    /// Where a request goes: a position of a table (by number) to look up
    /// or search, or an answer at once (`Err`).
    fn route(
        &self,
        method: &str,
        target: &str,
        hosts: &[&str],
    ) -> Result<(usize, Option<String>), Reply> {
        if target.len() > MAX_TARGET {
            return Err(Reply::error(
                414,
                format!(
                    "the request is {} bytes long; at most {MAX_TARGET} are read",
                    target.len()
                ),
            ));
        }
        // The host a browser connected for: every one the request names
        // (RFC 9112 makes an absolute-form target's authority override the
        // Host header; both are checked, so neither can smuggle the other).
        let (authority, target) = match host::split_absolute(target) {
            None => (None, target),
            Some(Ok((authority, rest))) => (Some(authority), rest),
            Some(Err(why)) => return Err(Reply::error(400, why)),
        };
        if hosts.len() > 1 {
            return Err(Reply::error(
                400,
                format!(
                    "the request has {} Host headers; one is allowed",
                    hosts.len()
                ),
            ));
        }
        let named = hosts.iter().map(|h| ("Host header", *h));
        let mut loopback = !hosts.is_empty() || authority.is_some();
        for (what, name) in named.chain(authority.map(|a| ("request target's host", a))) {
            match host::is_loopback(name) {
                Err(why) => {
                    return Err(Reply::error(
                        400,
                        format!("the {what} {} is malformed: {why}", Error::quote(name)),
                    ))
                }
                Ok(l) => loopback &= l,
            }
        }
        if self.loopback_only && !loopback {
            return Err(Reply::error(
                421,
                "this server answers only requests addressed to localhost",
            ));
        }
        // Steering a job's computing branch is the one request that changes
        // something (the order a search visits children in, never a value).
        let steering = target
            .split('?')
            .next()
            .is_some_and(|p| p.ends_with("/steer"));
        match (method, steering) {
            ("GET" | "HEAD", false) | ("POST", true) => {}
            (_, true) => {
                return Err(Reply::error(
                    405,
                    format!("method {} is not allowed: use POST", Error::quote(method)),
                ))
            }
            _ => {
                return Err(Reply::error(
                    405,
                    format!("method {} is not allowed: use GET", Error::quote(method)),
                ))
            }
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let Some(path) = path.strip_prefix('/') else {
            return Err(Reply::error(400, "the request target must start with '/'"));
        };
        let mut segments = Vec::new();
        for raw in path.split('/') {
            match percent_encoding::percent_decode_str(raw).decode_utf8() {
                Ok(s) => segments.push(s.into_owned()),
                Err(_) => return Err(Reply::error(400, "the path is not UTF-8 once decoded")),
            }
        }
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        Err(match segments.as_slice() {
            [""] => self.asset("index.html"),
            [name] if ASSETS.iter().any(|a| a.0 == *name) => self.asset(name),
            ["api", "tables"] | ["api", "tables", ""] => self.no_query(query).unwrap_or_else(|| {
                Reply::json(
                    200,
                    &json!({ "tables": self.tables.iter().map(|t| &t.summary).collect::<Vec<_>>() }),
                )
            }),
            ["api", "tables", id] => match self.table(id) {
                Err(r) => r,
                Ok(t) => self.no_query(query).unwrap_or_else(|| {
                    let mut j = self.tables[t].summary.clone();
                    j["info"] = self.tables[t].info.clone();
                    Reply::json(200, &j)
                }),
            },
            ["api", "tables", id, "analysis"] => match self.table(id) {
                Err(r) => r,
                Ok(t) => self
                    .no_query(query)
                    .unwrap_or_else(|| self.analyses.get(t)),
            },
            ["api", "tables", id, "position"] => {
                let t = self.table(id)?;
                return Ok((t, position_param(query)?));
            }
            ["api", "tables", id, what @ ("branch" | "steer")] => {
                let t = self.table(id)?;
                let Source::Search(s) = &self.tables[t].source else {
                    return Err(Reply::error(
                        404,
                        format!("{} is a table: it has no search jobs", Error::quote(id)),
                    ));
                };
                match *what {
                    "branch" => s.branch(position_param(query)?.as_deref()),
                    _ => s.steer(query),
                }
            }
            ["api", "tables", id, what @ ("jobs" | "stop")] => {
                let t = self.table(id)?;
                let Source::Search(s) = &self.tables[t].source else {
                    return Err(Reply::error(
                        404,
                        format!("{} is a table: it has no search jobs", Error::quote(id)),
                    ));
                };
                if *what == "jobs" {
                    self.no_query(query)
                        .unwrap_or_else(|| Reply::json(200, &s.jobs_json()))
                } else {
                    s.stop(position_param(query)?.as_deref())
                }
            }
            ["api", ..] => Reply::error(
                404,
                "no such API path (see /api/tables and /api/tables/ID/position?p=POSITION)",
            ),
            _ => Reply::error(404, "no such page"),
        })
    }

    /// Whether positions of table `t` are searched (not read from a file).
    fn searched(&self, t: usize) -> bool {
        matches!(self.tables[t].source, Source::Search(_))
    }

    /// A searched position's answer if it needs no search: known, or its
    /// job running.
    fn known(&self, t: usize, text: Option<&str>) -> Option<Reply> {
        let t = &self.tables[t];
        match &t.source {
            Source::Table(_) => None,
            Source::Search(s) => s.known(&t.id, text),
        }
    }

    /// The searched games.
    fn sources(&self) -> impl Iterator<Item = &SearchSource> {
        self.tables.iter().filter_map(|t| match &t.source {
            Source::Search(s) => Some(s),
            Source::Table(_) => None,
        })
    }

    /// A position of table `t`: read, or searched until `cancel` (if not
    /// first the budget).
    fn position(&self, t: usize, text: Option<&str>, cancel: &Cancel) -> Reply {
        let t = &self.tables[t];
        match &t.source {
            Source::Table(tb) => position(t, tb, text),
            Source::Search(s) => s.position(&t.id, text, cancel),
        }
    }

    fn asset(&self, name: &str) -> Reply {
        let (_, content_type, text) = ASSETS
            .iter()
            .find(|a| a.0 == name)
            .expect("routed only for known assets");
        Reply {
            status: 200,
            content_type,
            body: Cow::Borrowed(text.as_bytes()),
            cacheable: true,
        }
    }

    fn table(&self, id: &str) -> Result<usize, Reply> {
        self.tables.iter().position(|t| t.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.tables.iter().map(|t| t.id.as_str()).collect();
            Reply::error(
                404,
                format!(
                    "no table {} (served: {})",
                    Error::quote(id),
                    known.join(", ")
                ),
            )
        })
    }

    /// Paths that take no parameters refuse them rather than ignore them.
    fn no_query(&self, query: &str) -> Option<Reply> {
        form_urlencoded::parse(query.as_bytes())
            .next()
            .map(|(k, _)| Reply::error(400, format!("unknown parameter {}", Error::quote(&k))))
    }
}

/// `stem`, or `stem-2`, `stem-3`... if a served table has that id.
fn unique_id(tables: &[Served], stem: &str) -> String {
    let mut id = stem.to_string();
    let mut k = 2;
    while tables.iter().any(|t| t.id == id) {
        id = format!("{stem}-{k}");
        k += 1;
    }
    id
}

/// The `p` parameter: `None` when absent (the start).
fn position_param(query: &str) -> Result<Option<String>, Reply> {
    let mut p = None;
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k != "p" {
            return Err(Reply::error(
                400,
                format!(
                    "unknown parameter {} (the position is ?p=POSITION)",
                    Error::quote(&k)
                ),
            ));
        }
        if p.replace(v.into_owned()).is_some() {
            return Err(Reply::error(400, "the parameter 'p' is given twice"));
        }
    }
    Ok(p)
}

/// A position's value, moves and board, read from table `tb`.
fn position(t: &Served, tb: &Tablebase, text: Option<&str>) -> Reply {
    let p = match tb.probe_text(text, true) {
        Ok(p) => p,
        Err(e @ Error::BadPosition { .. }) => return Reply::error(400, e),
        // The file changed under the server, or its data is damaged: the
        // table cannot answer, which is the server's trouble, not the
        // request's.
        Err(e) => return Reply::error(500, format!("table {}: {e}", t.id)),
    };
    // The game's own board of the position it just printed: `None` only
    // if the game could not read its own text back.
    let board = tb.game().view(&p.position).ok();
    let mut j = position_json(&p);
    j["table"] = json!(t.id);
    j["moves"] = Json::Array(
        p.moves
            .iter()
            .map(|m| {
                let mover = m.for_mover();
                json!({
                    "move": m.mv,
                    "position": m.position,
                    "value": mover.value.name(),
                    "remoteness": mover.remoteness,
                    "nimber": m.nimber,
                    "best": m.best,
                    "steps": board.as_ref().map_or(&[][..], |b| b.steps(&m.mv)),
                })
            })
            .collect(),
    );
    j["board"] = board.as_ref().map_or(Json::Null, board::to_json);
    Reply::json(200, &j)
}

/// What [`start`] serves, and how: the command's arguments, checked.
pub struct Options {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// Worker threads.
    pub threads: usize,
    /// Check each file's data CRC before serving it.
    pub verify: bool,
    /// How long a client has to send a request's header.
    pub header_timeout: std::time::Duration,
    /// How long a connection may move no byte while no request is answered.
    pub idle_timeout: std::time::Duration,
    /// Connections open at once (default [`DEFAULT_CONNECTIONS`], or fewer if
    /// the open-file limit leaves room for fewer).
    pub max_connections: Option<usize>,
    /// The tables.
    pub files: Vec<PathBuf>,
    /// Games with no table, served by search (specs).
    pub searches: Vec<String>,
    /// Each search request's budget.
    pub budget: Budget,
    /// Searches run at once.
    pub search_workers: usize,
    /// Search requests that may wait for a worker.
    pub search_queue: usize,
    /// The jobs left computing, and what is kept of what they prove.
    pub keep: Keep,
}

/// Opens the tables and serves them until the process is stopped.
pub fn start(options: Options) -> Result<()> {
    let Options {
        addr,
        threads,
        verify,
        header_timeout: header,
        idle_timeout: idle,
        max_connections,
        files,
        searches,
        budget,
        search_workers,
        search_queue,
        keep,
    } = options;
    let loopback = addr.ip().is_loopback();
    let mut explorer = Explorer::open(&files, &searches, budget, &keep, verify, loopback)?;
    explorer.gate = Gate::new(search_workers, search_queue, budget.time);
    let explorer = Arc::new(explorer);
    // With --save, a signal (SIGINT, SIGTERM, SIGHUP) stops the server
    // through this token, and what was proven is saved before it exits;
    // a second signal ends it at once. Without, a signal ends it.
    let shutdown = keep.save.is_some().then(Cancel::new);
    let _listening = shutdown.as_ref().map(|c| {
        crate::cmd::cancel::started(c);
        crate::cmd::cancel::Listening
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        // Probes run on the blocking pool; bounded, so a burst of requests
        // on a cold disk queues instead of starting hundreds of threads.
        // The searches run there too, as many as their workers.
        .max_blocking_threads(threads * 4 + search_workers)
        .enable_io()
        .enable_time()
        .build()
        .context("cannot start the server's threads")?;
    let kept = explorer.clone();
    let stop = shutdown.clone();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        // Counted now that the tables, the runtime and the listener hold
        // their descriptors: a connection beyond the room left would fail
        // to be accepted, or starve a probe of the descriptor it needs.
        let room = conn::fd_room();
        let wanted = max_connections.unwrap_or(DEFAULT_CONNECTIONS);
        let connections = match room {
            Some(0) => bail!(
                "the open-file limit leaves no descriptor for connections (raise it: ulimit -n)"
            ),
            Some(room) if room < wanted => {
                if max_connections.is_some() {
                    eprintln!(
                        "retrograde: warning: --max-connections {wanted} is more than the open-file limit leaves room for; serving at most {room} at once (raise it: ulimit -n)"
                    );
                }
                room
            }
            _ => wanted,
        };
        if !loopback {
            // The address bound, not the one asked for: port 0 means "any".
            eprintln!(
                "retrograde: warning: listening on {local}, not loopback: anyone who can reach it can read the tables"
            );
        }
        let n = explorer.tables.len();
        // One line on stdout, so that a script (the browser test) can read
        // the port chosen for :0.
        println!(
            "retrograde: serving {n} table{} at http://{local}/",
            if n == 1 { "" } else { "s" }
        );
        use std::io::Write;
        std::io::stdout().flush()?;
        let limits = conn::Limits {
            header,
            idle,
            connections,
        };
        match &stop {
            None => conn::accept_loop(listener, explorer.clone(), limits).await,
            Some(stop) => {
                let serving = tokio::spawn(conn::accept_loop(listener, explorer.clone(), limits));
                cancelled(stop).await;
                serving.abort();
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    // Shut down by a signal: what was proven is saved.
    for s in kept.sources() {
        s.stop_all();
        if let Some(saved) = s.save() {
            let path = keep.save.as_deref().unwrap_or(std::path::Path::new(""));
            match saved {
                Ok(n) => eprintln!(
                    "retrograde: saved {n} position{} to {}",
                    if n == 1 { "" } else { "s" },
                    path.display()
                ),
                Err(e) => bail!("cannot save {}: {e}", path.display()),
            }
        }
    }
    Ok(())
}

/// Returns once `stop` is cancelled (looked at every 100 ms).
async fn cancelled(stop: &Cancel) {
    while !stop.is_cancelled() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How often a search's client is looked at, to stop the search when it
/// has gone.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// Every request: routed here, a table's position probed on a blocking
/// thread (a probe of a cold table reads the disk), a searched position
/// searched on one by a search worker, stopped if the client goes.
async fn answer(
    explorer: Arc<Explorer>,
    request: hyper::Request<hyper::body::Incoming>,
    peer: conn::Peer,
) -> hyper::Response<conn::Body> {
    use hyper::header::{self, HeaderValue};
    use hyper::StatusCode;
    let method = request.method().as_str().to_string();
    // Absolute-form keeps its scheme and authority here, for the host check.
    let target = request.uri().to_string();
    // Not UTF-8: kept as text that no host check accepts.
    let hosts: Vec<String> = request
        .headers()
        .get_all(header::HOST)
        .iter()
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .collect();
    // The one request that changes something (a job's steering) is refused
    // when a browser says another site sent it: the Host check stops DNS
    // rebinding, not a page elsewhere posting to 127.0.0.1 (browsers send
    // such a POST, a "simple request", without asking first).
    let origins: Vec<String> = request
        .headers()
        .get_all(header::ORIGIN)
        .iter()
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .collect();
    let route = match host::foreign_origin(&method, &origins, &hosts) {
        Some(origin) => Err(Reply::error(
            403,
            format!(
                "a {method} from another site (Origin {}) is refused",
                Error::quote(&origin)
            ),
        )),
        None => {
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            explorer.route(&method, &target, &hosts)
        }
    };
    let mut retry_after = None;
    // A searched position known already, or left computing: answered at
    // once, with no worker (a page asking again while its job runs).
    let route = match route {
        Ok((t, p)) if explorer.searched(t) => {
            let e = explorer.clone();
            let q = p.clone();
            match tokio::task::spawn_blocking(move || e.known(t, q.as_deref())).await {
                Ok(Some(reply)) => Err(reply),
                _ => Ok((t, p)),
            }
        }
        other => other,
    };
    let reply = match route {
        Err(reply) => reply,
        Ok((t, p)) if !explorer.searched(t) => {
            tokio::task::spawn_blocking(move || explorer.position(t, p.as_deref(), &Cancel::new()))
                .await
                .unwrap_or_else(|e| Reply::error(500, format!("internal error: {e}")))
        }
        Ok((t, p)) => match search(explorer, t, p, peer).await {
            Searched::Answered(reply) => reply,
            Searched::Busy(reply, secs) => {
                retry_after = Some(secs);
                reply
            }
            // Nobody to answer: the connection is closed on the failed
            // write.
            Searched::Gone => Reply::error(503, "the client closed the connection"),
        },
    };
    if reply.status == 500 {
        // The operator should see a table failing, not only the client
        // (a full queue, 503, is said to the client only: a flood of
        // requests must not become a flood of log lines).
        eprintln!("retrograde: {}", String::from_utf8_lossy(&reply.body));
    }
    let body = match reply.body {
        Cow::Borrowed(b) => hyper::body::Bytes::from_static(b),
        Cow::Owned(b) => hyper::body::Bytes::from(b),
    };
    let mut response = hyper::Response::new(conn::Body::new(body));
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if reply.cacheable {
            "no-cache"
        } else {
            "no-store"
        }),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if reply.status == 405 {
        headers.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    if let Some(secs) = retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// What became of a search request.
enum Searched {
    Answered(Reply),
    /// Every worker busy and the queue full: 503, retry after so many
    /// seconds.
    Busy(Reply, u64),
    /// The client closed its connection first: the search was stopped (or
    /// never started).
    Gone,
}

/// A searched position: waits for a search worker (if the queue has room),
/// searches on the blocking pool, and stops the search if the client closes
/// its connection meanwhile (looked at every [`WATCH_EVERY`]): a client
/// that gave up costs at most that long of a worker, not the budget.
async fn search(
    explorer: Arc<Explorer>,
    t: usize,
    p: Option<String>,
    peer: conn::Peer,
) -> Searched {
    let Some(admitted) = explorer.gate.admit() else {
        let gate = &explorer.gate;
        let reply = Reply::error(
            503,
            format!(
                "the server is busy: {} searches are running or waiting, the most it takes; retry in {} s",
                gate.limit, gate.retry_after
            ),
        );
        return Searched::Busy(reply, gate.retry_after);
    };
    let workers = explorer.gate.workers.clone();
    let Some(Ok(worker)) = until_gone(workers.acquire_owned(), &peer).await else {
        return Searched::Gone;
    };
    let cancel = Cancel::new();
    // hyper drops this future when it sees the client go (it reads the
    // connection's end while the answer is pending): the search is stopped
    // then too, or it would run its budget for nobody.
    let _stop = StopOnDrop(cancel.clone());
    let job = {
        let cancel = cancel.clone();
        tokio::task::spawn_blocking(move || {
            // Held until the search has stopped, cancelled or not: no more
            // searches run than workers.
            let _held = (worker, admitted);
            explorer.position(t, p.as_deref(), &cancel)
        })
    };
    match until_gone(job, &peer).await {
        Some(r) => Searched::Answered(
            r.unwrap_or_else(|e| Reply::error(500, format!("internal error: {e}"))),
        ),
        None => Searched::Gone,
    }
}

/// Cancels its token when dropped: a search answered is stopped already,
/// one whose request was dropped (or whose client left) is stopped then.
struct StopOnDrop(Cancel);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// `fut`'s output, or `None` as soon as the client of `peer` is seen to
/// have closed its connection (`fut` is then dropped).
async fn until_gone<F: Future>(fut: F, peer: &conn::Peer) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    let mut watch = tokio::time::interval(WATCH_EVERY);
    watch.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(out) = fut.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        while watch.poll_tick(cx).is_ready() {
            if peer.closed() {
                return Poll::Ready(None);
            }
        }
        Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::{Explorer, Reply};

    /// No tables: enough for every check made before a table is looked up.
    fn explorer(loopback_only: bool) -> Explorer {
        Explorer {
            tables: Vec::new(),
            loopback_only,
            gate: super::Gate::new(1, 0, std::time::Duration::from_secs(1)),
            analyses: Default::default(),
        }
    }

    fn error(r: &Reply) -> String {
        let j: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        j["error"].as_str().unwrap().to_string()
    }

    #[test]
    fn the_host_check_takes_one_well_formed_loopback_authority() {
        let e = explorer(true);
        let status = |target: &str, hosts: &[&str]| e.handle("GET", target, hosts).status;
        for ok in ["localhost", "localhost:8080", "127.0.0.1:1", "[::1]:80"] {
            assert_eq!(status("/api/tables", &[ok]), 200, "{ok}");
            assert_eq!(status(&format!("http://{ok}/api/tables"), &[ok]), 200);
        }
        // Malformed: 400, whatever the server listens on.
        for bad in [
            "[::1]evil",
            "[::1]@evil",
            "[::1",
            "localhost@evil",
            "localhost:x",
        ] {
            assert_eq!(status("/api/tables", &[bad]), 400, "{bad}");
            assert_eq!(explorer(false).handle("GET", "/", &[bad]).status, 400);
        }
        // Two Host headers, even both loopback.
        let r = e.handle("GET", "/api/tables", &["localhost", "localhost"]);
        assert_eq!(
            (r.status, error(&r).contains("2 Host headers")),
            (400, true)
        );
        // Well-formed but elsewhere: 421 on loopback.
        assert_eq!(status("/api/tables", &["evil.example"]), 421);
        assert_eq!(status("/api/tables", &[]), 421);
        // Absolute-form: the target's authority counts as well as Host.
        assert_eq!(
            status("http://evil.example/api/tables", &["localhost"]),
            421
        );
        assert_eq!(
            status("http://localhost/api/tables", &["evil.example"]),
            421
        );
        assert_eq!(
            status("http://localhost@evil/api/tables", &["localhost"]),
            400
        );
        assert_eq!(status("http://[::1]evil/", &["localhost"]), 400);
        assert_eq!(status("https://localhost/", &["localhost"]), 400);
        assert_eq!(status("http://localhost", &["localhost"]), 200);
        // Listening elsewhere: any well-formed host.
        assert_eq!(
            explorer(false).handle("GET", "/", &["evil.example"]).status,
            200
        );
    }

    #[test]
    fn what_the_client_sent_is_quoted_in_errors_not_echoed() {
        let e = explorer(true);
        let long = "m".repeat(3900);
        for (method, target, hosts) in [
            (long.as_str(), "/", vec!["localhost"]),
            ("GET", &*format!("/api/tables/{long}"), vec!["localhost"]),
            ("GET", &*format!("/api/tables?{long}=1"), vec!["localhost"]),
            ("GET", "/", vec![&*format!("{long}:x")]),
        ] {
            let r = e.handle(method, target, &hosts);
            let msg = error(&r);
            assert!(r.status >= 400 && msg.len() < 250, "{} {msg}", r.status);
            assert!(msg.contains("…' (390"), "{msg}");
        }
        let r = e.handle("GE\u{1b}T", "/", &["localhost"]);
        assert_eq!(error(&r), "method 'GE\\u{1b}T' is not allowed: use GET");
    }
}
