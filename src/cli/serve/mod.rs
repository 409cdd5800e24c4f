//! `retrograde serve`: the explorer page and its JSON API over HTTP
//! (docs/SERVE-API.md is the contract).
//!
//! Requests are answered by [`Explorer::handle`], a plain function of the
//! method, the request target and the Host header, so that routing and
//! every error can be tested without a socket; hyper (under axum) parses
//! HTTP and tokio holds the connections.

// `play` draws its boards from the same squares and labels.
pub(super) mod board;

use super::open::named;
use super::output::{header_json, position_json};
use anyhow::{bail, Context, Result};
use board::Board;
use retrograde::{Error, Tablebase};
use serde_json::{json, Value as Json};
use std::borrow::Cow;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Serve the explorer page and the JSON API for tablebases.
#[derive(clap::Args)]
pub struct Args {
    /// Tablebase files (default: every *.rtb in tablebases/).
    files: Vec<PathBuf>,
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
}

/// Longer request targets get 414: a position's notation is at most a few
/// hundred characters, so anything longer is a mistake or an attack.
pub const MAX_TARGET: usize = 4096;

/// The page's files, compiled in: the binary serves them with no network
/// and no files of its own beside the tables.
const ASSETS: [(&str, &str, &str); 4] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../serve/assets/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../serve/assets/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../serve/assets/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../../serve/assets/favicon.svg"),
    ),
];

/// One table being served.
struct Served {
    id: String,
    tb: Tablebase,
    family: String,
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
}

impl Explorer {
    /// Opens every file (positioned reads: a file replaced or truncated
    /// while served gives errors, never a crash).
    pub fn open(files: &[PathBuf], verify: bool, loopback_only: bool) -> Result<Explorer> {
        let mut tables: Vec<Served> = Vec::new();
        for file in files {
            let tb = named(file, Tablebase::open(file))?;
            if verify {
                named(file, tb.verify())?;
            }
            let stem = file
                .file_stem()
                .map_or("table".into(), |s| s.to_string_lossy().into_owned());
            let mut id = stem.clone();
            let mut k = 2;
            while tables.iter().any(|t| t.id == id) {
                id = format!("{stem}-{k}");
                k += 1;
            }
            let start = named(file, tb.probe_text(None, false))?;
            let spec = tb.header().spec.clone();
            let family = spec.split(':').next().unwrap_or_default().to_string();
            let impartial = start.to_move.is_none();
            let players = match family.as_str() {
                _ if impartial => Json::Null,
                "isolation" => json!(["0", "1"]),
                "dodgem" => json!(["blue", "red"]),
                _ => json!(["x", "o"]),
            };
            let notation = retrograde::games::GAMES
                .iter()
                .find(|g| g.name == family)
                .map_or("", |g| g.notation);
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
            });
            let mut info = header_json(tb.header(), file);
            // The server's own paths are nobody's business over HTTP.
            info["file"] = summary["file"].clone();
            tables.push(Served {
                id,
                tb,
                family,
                summary,
                info,
            });
        }
        Ok(Explorer {
            tables,
            loopback_only,
        })
    }

    /// Answers one request. `target` is the request target as sent (path
    /// and query, still percent-encoded).
    pub fn handle(&self, method: &str, target: &str, host: Option<&str>) -> Reply {
        if target.len() > MAX_TARGET {
            return Reply::error(
                414,
                format!(
                    "the request is {} bytes long; at most {MAX_TARGET} are read",
                    target.len()
                ),
            );
        }
        if self.loopback_only && !host.is_some_and(is_loopback_host) {
            return Reply::error(
                421,
                "this server answers only requests addressed to localhost",
            );
        }
        if method != "GET" && method != "HEAD" {
            return Reply::error(405, format!("method {method} is not allowed: use GET"));
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let Some(path) = path.strip_prefix('/') else {
            return Reply::error(400, "the request target must start with '/'");
        };
        let mut segments = Vec::new();
        for raw in path.split('/') {
            match percent_encoding::percent_decode_str(raw).decode_utf8() {
                Ok(s) => segments.push(s.into_owned()),
                Err(_) => return Reply::error(400, "the path is not UTF-8 once decoded"),
            }
        }
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        match segments.as_slice() {
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
                    let mut j = t.summary.clone();
                    j["info"] = t.info.clone();
                    Reply::json(200, &j)
                }),
            },
            ["api", "tables", id, "position"] => match self.table(id) {
                Err(r) => r,
                Ok(t) => match position_param(query) {
                    Err(r) => r,
                    Ok(p) => position(t, p.as_deref()),
                },
            },
            ["api", ..] => Reply::error(
                404,
                "no such API path (see /api/tables and /api/tables/ID/position?p=POSITION)",
            ),
            _ => Reply::error(404, "no such page"),
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

    fn table(&self, id: &str) -> Result<&Served, Reply> {
        self.tables.iter().find(|t| t.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.tables.iter().map(|t| t.id.as_str()).collect();
            Reply::error(
                404,
                format!("no table {id:?} (served: {})", known.join(", ")),
            )
        })
    }

    /// Paths that take no parameters refuse them rather than ignore them.
    fn no_query(&self, query: &str) -> Option<Reply> {
        form_urlencoded::parse(query.as_bytes())
            .next()
            .map(|(k, _)| Reply::error(400, format!("unknown parameter {k:?}")))
    }
}

/// The `p` parameter: `None` when absent (the start).
fn position_param(query: &str) -> Result<Option<String>, Reply> {
    let mut p = None;
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k != "p" {
            return Err(Reply::error(
                400,
                format!("unknown parameter {k:?} (the position is ?p=POSITION)"),
            ));
        }
        if p.replace(v.into_owned()).is_some() {
            return Err(Reply::error(400, "the parameter \"p\" is given twice"));
        }
    }
    Ok(p)
}

/// A position's value, moves and board.
fn position(t: &Served, text: Option<&str>) -> Reply {
    let p = match t.tb.probe_text(text, true) {
        Ok(p) => p,
        Err(e @ Error::BadPosition { .. }) => return Reply::error(400, e),
        // The file changed under the server, or its data is damaged: the
        // table cannot answer, which is the server's trouble, not the
        // request's.
        Err(e) => return Reply::error(500, format!("table {}: {e}", t.id)),
    };
    let board = Board::of(&t.family, &p.position);
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
                    "steps": board.as_ref().map_or(Vec::new(), |b| b.steps(&t.family, &m.mv)),
                })
            })
            .collect(),
    );
    j["board"] = board.map_or(Json::Null, |b| b.to_json());
    Reply::json(200, &j)
}

/// `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The files to serve: those given, each once (a file named twice, by
/// another path or a link, would show as two tables), or every `*.rtb` in
/// `tablebases/`.
fn files_to_serve(files: Vec<PathBuf>) -> Result<Vec<PathBuf>> {
    if !files.is_empty() {
        let mut once: Vec<PathBuf> = Vec::new();
        for f in files {
            if !once
                .iter()
                .any(|g| retrograde::solve::output::same_file(g, &f))
            {
                once.push(f);
            }
        }
        return Ok(once);
    }
    let dir = Path::new("tablebases");
    if !dir.is_dir() {
        bail!("no FILE given and no tablebases/ directory here (make a table: retrograde solve isolation:4x4)");
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("no FILE given and cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rtb") && p.is_file())
        .collect();
    found.sort();
    if found.is_empty() {
        bail!(
            "no FILE given and no *.rtb in tablebases/ (make one: retrograde solve isolation:4x4)"
        );
    }
    Ok(found)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let addr: SocketAddr = args.addr.parse().map_err(|_| {
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
    let files = files_to_serve(args.files)?;
    let loopback = addr.ip().is_loopback();
    let explorer = Arc::new(Explorer::open(&files, args.verify, loopback)?);
    if !loopback {
        eprintln!(
            "retrograde: warning: listening on {addr}, not loopback: anyone who can reach it can read the tables"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        // Probes run on the blocking pool; bounded, so a burst of requests
        // on a cold disk queues instead of starting hundreds of threads.
        .max_blocking_threads(threads * 4)
        .enable_io()
        .enable_time()
        .build()
        .context("cannot start the server's threads")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        let n = explorer.tables.len();
        // One line on stdout, so that a script (the browser test) can read
        // the port chosen for :0.
        println!(
            "retrograde: serving {n} table{} at http://{local}/",
            if n == 1 { "" } else { "s" }
        );
        use std::io::Write;
        std::io::stdout().flush()?;
        let app = axum::Router::new().fallback(answer).with_state(explorer);
        axum::serve(listener, app)
            .await
            .context("the server stopped")?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Every request: [`Explorer::handle`] on a blocking thread, since a probe
/// of a cold table reads the disk.
async fn answer(
    axum::extract::State(explorer): axum::extract::State<Arc<Explorer>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::http::{header, HeaderValue, StatusCode};
    let method = request.method().as_str().to_string();
    let target = request
        .uri()
        .path_and_query()
        .map_or("/".to_string(), |p| p.as_str().to_string());
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let reply =
        tokio::task::spawn_blocking(move || explorer.handle(&method, &target, host.as_deref()))
            .await
            .unwrap_or_else(|e| Reply::error(500, format!("internal error: {e}")));
    if reply.status >= 500 {
        // The operator should see a table failing, not only the client.
        eprintln!("retrograde: {}", String::from_utf8_lossy(&reply.body));
    }
    let mut response = axum::response::Response::new(axum::body::Body::from(reply.body));
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
    response
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn only_loopback_names_pass_the_host_check() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "10.0.0.1:80",
            "[::2]",
            "",
            "localhost.evil.example",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
