//! The server's connections: accepted under a limit, each closed when its
//! client is too slow to send a request's header or stops making progress,
//! so that slow or idle clients cannot hold the descriptors that new ones
//! need. hyper parses HTTP/1.1; tokio holds the connections.

use super::Explorer;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// What bounds the connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From a connection's opening, or the end of its previous answer, its
    /// next request's header must arrive whole within this (hyper's header
    /// read timeout): a partial header and an idle keep-alive connection
    /// alike are closed after it.
    pub header: Duration,
    /// A connection on which no byte moves either way and no request is
    /// being answered for this long is closed: a client that stops reading
    /// its answer.
    pub idle: Duration,
    /// Connections open at once; the next waits (in the kernel's queue)
    /// until one closes.
    pub connections: usize,
}

/// The shortest time between two warnings that accepting fails.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// Descriptors kept free beyond those open when the limit is computed.
const SPARE_FDS: usize = 8;

/// The most connections the open-file limit leaves room for, now that the
/// tables, the listener and the runtime hold theirs; `None` when unknown or
/// unlimited.
pub fn fd_room() -> Option<usize> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given and nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0
            || lim.rlim_cur == libc::RLIM_INFINITY
        {
            return None;
        }
        let open = std::fs::read_dir("/proc/self/fd")
            .or_else(|_| std::fs::read_dir("/dev/fd"))
            .map_or(32, |d| d.count());
        Some((lim.rlim_cur as usize).saturating_sub(open + SPARE_FDS))
    }
    #[cfg(not(unix))]
    None
}

/// Accepts connections for ever. An accept that fails for want of
/// descriptors or memory is retried after a pause (and said on stderr, once
/// a minute at most): the server waits for connections to close rather than
/// stop.
pub async fn accept_loop(listener: TcpListener, explorer: Arc<Explorer>, limits: Limits) {
    let slots = Arc::new(Semaphore::new(limits.connections));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .keep_alive(true);
    let mut pause = Duration::from_millis(10);
    let mut warned: Option<Instant> = None;
    loop {
        let slot = slots
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) if gone_before_accepted(&e) => continue,
            Err(e) => {
                // Once a minute at most: a flood of clients must not become
                // a flood of log lines.
                if warned.is_none_or(|t| t.elapsed() >= WARN_EVERY) {
                    eprintln!(
                        "retrograde: warning: cannot accept a connection ({e}); retrying as connections close"
                    );
                    warned = Some(Instant::now());
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        pause = Duration::from_millis(10);
        let _ = stream.set_nodelay(true);
        let http = http.clone();
        let explorer = explorer.clone();
        tokio::spawn(async move {
            serve_connection(stream, http, explorer, limits.idle).await;
            drop(slot);
        });
    }
}

/// Accept errors that concern one connection the client already gave up
/// on, not the server.
fn gone_before_accepted(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// Serves one connection until the client closes it, hyper closes it (a
/// header too slow, an error), or it is idle for `idle`: dropping hyper's
/// connection closes the socket.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    http: http1::Builder,
    explorer: Arc<Explorer>,
    idle: Duration,
) {
    let progress = Arc::new(Progress::new());
    let peer = Peer::of(&stream);
    let io = TokioIo::new(Watched {
        inner: stream,
        progress: progress.clone(),
    });
    let watch = progress.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let explorer = explorer.clone();
        let progress = progress.clone();
        async move {
            let _answering = progress.answering();
            Ok::<_, Infallible>(super::answer(explorer, request, peer).await)
        }
    });
    let connection = http.serve_connection(io, service);
    tokio::pin!(connection);
    loop {
        let mut deadline = watch.last() + idle;
        if deadline <= Instant::now() {
            // Idle that long, but answering: look again a period later.
            deadline = Instant::now() + idle;
        }
        // Errors are the client's (gone, malformed, too slow): hyper has
        // answered what it could.
        if tokio::time::timeout_at(deadline, &mut connection)
            .await
            .is_ok()
            || (watch.busy() == 0 && watch.last().elapsed() >= idle)
        {
            return;
        }
    }
}

/// A connection's client, to tell whether it has closed the connection
/// while its request is answered (hyper reads nothing then, so it does not
/// notice): a search whose client left is stopped. Valid while the
/// connection is open, which is while its requests are answered.
#[derive(Clone, Copy, Debug)]
pub struct Peer {
    #[cfg(unix)]
    fd: std::os::fd::RawFd,
}

impl Peer {
    fn of(stream: &tokio::net::TcpStream) -> Peer {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            Peer {
                fd: stream.as_raw_fd(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = stream;
            Peer {}
        }
    }

    /// Whether the client has closed (or reset) the connection: a peek at
    /// the socket that consumes nothing finds its end. A client that only
    /// shuts down its sending side counts as gone too (as in other servers:
    /// HTTP clients do not, and one that did would read an answer that
    /// comes after it gave up). A request sent behind this one (pipelined)
    /// hides the end until it is read: such a search runs its budget.
    pub fn closed(&self) -> bool {
        #[cfg(unix)]
        {
            let mut byte = 0u8;
            // SAFETY: the descriptor is the connection's, open while its
            // request is answered (the connection owns the service that
            // asks); recv writes at most one byte into `byte`.
            let n = unsafe {
                libc::recv(
                    self.fd,
                    (&mut byte as *mut u8).cast(),
                    1,
                    libc::MSG_PEEK | libc::MSG_DONTWAIT,
                )
            };
            match n {
                0 => true,
                1.. => false,
                _ => matches!(
                    io::Error::last_os_error().kind(),
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::BrokenPipe
                        | io::ErrorKind::NotConnected
                ),
            }
        }
        #[cfg(not(unix))]
        false
    }
}

/// When a connection last moved a byte, and how many of its requests are
/// being answered.
struct Progress {
    start: Instant,
    /// Milliseconds from `start`.
    last: AtomicU64,
    busy: AtomicUsize,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            start: Instant::now(),
            last: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last.fetch_max(ms, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.start + Duration::from_millis(self.last.load(Ordering::Relaxed))
    }

    fn busy(&self) -> usize {
        self.busy.load(Ordering::Relaxed)
    }

    /// Marks a request as being answered until the guard drops: a probe
    /// that reads a cold disk for a while is not idleness.
    fn answering(self: &Arc<Self>) -> Answering {
        self.busy.fetch_add(1, Ordering::Relaxed);
        Answering(self.clone())
    }
}

struct Answering(Arc<Progress>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A stream that records when bytes move through it.
struct Watched {
    inner: tokio::net::TcpStream,
    progress: Arc<Progress>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.progress.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.progress.touch();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.progress.touch();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The answer's body: the whole of it, in memory (the largest is the page's
/// script).
pub type Body = Full<Bytes>;
