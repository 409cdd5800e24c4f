//! A proof search spread over the ranks of an MPI job (cargo feature
//! `mpi`): `mpirun -np K retrograde search SPEC [POSITION] --mpi`.
//!
//! Rank 0 is the master: it keeps the proof-number tree near the root
//! ([`Master`]) and hands its most-proving leaves as jobs to the idle
//! workers (ranks 1 to K−1), each of which proves its job with the game's
//! own engine within the job budget ([`JobRunner`]: one engine per rank,
//! kept from job to job) and answers with the bounds it proved. With one
//! rank the master proves its jobs itself; with up to eight, rank 0 also
//! proves jobs on a thread of its own beside the master's loop. The
//! value is the tree's, backed up by negamax from what the jobs proved: it
//! does not depend on K, nor on the order the answers come in.
//!
//! The protocol is small messages, blocking sends and polled receives,
//! one byte saying what each is:
//!
//! - master to worker: `J` a job (its number, its budget's scale, its
//!   position's key, the bounds the tree learnt since the worker's last
//!   job — other ranks' proofs, which its engine takes as settled, each
//!   as a key, the bounds and the position in the game's notation — and
//!   the job's position in the game's notation: the worker parses each
//!   position and checks its key, so a position that does not survive
//!   its notation is an error, never a wrong job or fact); `S` stop (a
//!   running job stops at once and answers with `R`, then the worker
//!   sends `D`); `A` abort (a rank failed: stop the running job, without
//!   answering);
//! - worker to master: `R` a job's answer (number, bounds, nodes, the
//!   engine's root proof and disproof numbers when undecided, its best
//!   move); `E` a failure (one line); `D` at the end, the worker's nodes
//!   and, with `--save`, every entry its jobs proved (a stopped job's as
//!   one whose budget ran out) as one proof database's bytes.
//!
//! A worker proves its jobs on a thread of its own (as rank 0's own engine
//! runs beside the master's loop), its engine's cancel token held by its
//! main thread, the only one that calls MPI: that thread polls the master,
//! hands each job to the job thread and sends each answer back as it
//! comes, so a worker in the middle of a job still reads `S` and `A`.
//! Once the root is proven the master stops every job still running at
//! once, its own engine's by the token and the workers' by `S` to every
//! worker, busy or not, rather than wait for the rest of their budgets (a
//! Sprouts job of 32,000 couples takes seconds). Messages between two
//! ranks keep their order, so after `S` the master reads each busy
//! worker's answer to the job it gave before the root was proven (what
//! the job proved until it stopped: true, so kept in the tree and the
//! save, though the value no longer needs it; the report counts these
//! jobs as stopped at the end) and then its `D`. A worker that fails sends
//! `E`; the master then sends `A` to every worker and returns the failure,
//! which the command prints as the job's one line; the others return
//! [`Error::PeerFailed`], which it does not print. A rank killed outright
//! ends the job through `mpirun`; nothing is under the `--save` name then, since the save is
//! written only after every rank's database has come in.

use super::engine::SearchOptions;
use super::jobs::{self, JobAnswer, JobBudget, JobKit, JobRunner, JobsReport, Learnt, Master};
use super::prover::Engines;
use super::{Bounds, Key, SearchGame};
use crate::error::{Error, Result};
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::*;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::time::{Duration, Instant};

const JOB: u8 = b'J';
const STOP: u8 = b'S';
const ABORT: u8 = b'A';
const ANSWER: u8 = b'R';
const FAILED: u8 = b'E';
const DATABASE: u8 = b'D';

/// Proves `request`'s position as one rank of `world`: every rank calls
/// this with the same game, request and budget (the caller has had the
/// ranks agree on them). Rank 0 returns the report; the others `Ok(None)`.
/// A rank that fails returns its error (rank 0 also a worker's, naming
/// it); the others return [`Error::PeerFailed`].
pub fn search_mpi<G: Engines>(
    g: &G,
    request: &SearchOptions,
    budget: JobBudget,
    world: &SimpleCommunicator,
) -> Result<Option<JobsReport>> {
    let rank = world.rank() as usize;
    let k = world.size() as usize;
    let started = Instant::now();
    // Every rank checks what it can before any job: the same checks on
    // the same arguments, so a bad one fails everywhere and rank 0 says it.
    let keep = request.save.is_some();
    let works = master_works(k);
    let ready = jobs::refuse(request)
        .and_then(|()| jobs::root(g, request))
        .and_then(|root| {
            // Every engine is made on its job thread later: checked here.
            if rank != 0 || works {
                JobKit::new(g, request, budget)?;
            }
            if rank == 0 {
                jobs::check_save(request)?;
            }
            Ok(root)
        });
    let mut flags = vec![0u8; k];
    world.all_gather_into(&[u8::from(ready.is_ok())][..], &mut flags[..]);
    let root = match ready {
        Err(e) => {
            // The lowest failing rank speaks.
            return match flags.iter().position(|&f| f == 0) {
                Some(first) if first < rank => Err(Error::PeerFailed { rank: first }),
                _ => Err(e),
            };
        }
        Ok(_) if flags.contains(&0) => {
            let first = flags.iter().position(|&f| f == 0).unwrap_or(0);
            return Err(Error::PeerFailed { rank: first });
        }
        Ok(r) => r,
    };
    if rank != 0 {
        return worker(g, request, budget, world).map(|()| None);
    }
    let mut master = Master::new(g, root.clone()).with_workers(k);
    let (nodes, parts) = if k == 1 {
        let kit = JobKit::new(g, request, budget)?;
        let mut runner = JobRunner::new(g, request, &kit, keep);
        while let Some((id, p, scale)) = master.next_job(0, true) {
            let p = p.clone();
            let a = runner.run(&p, scale)?;
            master.answer(id, &a)?;
        }
        let nodes = runner.nodes;
        (nodes, runner.database()?.into_iter().collect())
    } else {
        match lead(g, request, budget, works, &mut master, world) {
            Ok(done) => done,
            Err(e) => {
                for r in 1..k {
                    world.process_at_rank(r as i32).send(&[ABORT][..]);
                }
                return Err(e);
            }
        }
    };
    jobs::unproven(&master)?;
    let saved = jobs::save(g, request, jobs::tree_records(g, request, &master), &parts)?;
    Ok(Some(jobs::report(
        g, &master, &root, k, nodes, started, saved,
    )))
}

/// Whether rank 0 proves jobs too, on a thread of its own beside the
/// master's loop: with few ranks, where the master's own work (a path of
/// the tree per job, a message each way) leaves its core nearly idle and
/// one more engine is a large share of the job's (K = 2: two engines, not
/// one). With many it only leads, so that answers never wait on it.
pub fn master_works(ranks: usize) -> bool {
    ranks <= MASTER_WORKS_UP_TO
}

/// The most ranks with which rank 0 also proves jobs.
const MASTER_WORKS_UP_TO: usize = 8;

/// Rank 0's own engine as the master's loop reaches it: its jobs' channel,
/// its answers' and the token that stops its job.
type LocalLink<'c, G> = (
    &'c std::sync::mpsc::Sender<LocalJob<G>>,
    &'c std::sync::mpsc::Receiver<Local>,
    &'c super::Cancel,
);

/// A job for rank 0's own engine (its number, position, scale and what
/// the tree learnt since its last), or the end (`None`).
type LocalJob<G> = Option<(usize, <G as SearchGame>::Pos, u32, Vec<Learnt<G>>)>;

/// What rank 0's own engine sends back: an answer, or at the end its
/// nodes and database.
enum Local {
    Answer(Result<(usize, JobAnswer)>),
    Done(Result<(u64, Option<Vec<u8>>)>),
}

/// The master's loop with workers: hands out jobs while some worker is
/// idle and some leaf is free, takes the answers, and once the root is
/// proven stops every worker and gathers its nodes and database. With
/// `works`, rank 0's own engine (on a thread of its own) is one of the
/// workers.
fn lead<G: Engines>(
    g: &G,
    request: &SearchOptions,
    budget: JobBudget,
    works: bool,
    master: &mut Master<'_, G>,
    world: &SimpleCommunicator,
) -> Result<(u64, Vec<Vec<u8>>)> {
    let keep = request.save.is_some();
    // Stops rank 0's own engine in the middle of a job once the root is
    // proven (as `S` stops the workers'): the rest of its job is not
    // needed then, and the end would otherwise wait for the job's whole
    // budget (a Sprouts job of 32,000 nodes takes tens of seconds).
    let cancel = super::Cancel::new();
    std::thread::scope(|s| {
        let (to_local, jobs_in) = std::sync::mpsc::channel::<LocalJob<G>>();
        let (local_out, from_local) = std::sync::mpsc::channel::<Local>();
        let stop = cancel.clone();
        let local = works.then(|| {
            s.spawn(move || {
                let kit = match JobKit::new(g, request, budget).map(|k| k.cancelled_by(stop)) {
                    Ok(kit) => kit,
                    Err(e) => {
                        let _ = local_out.send(Local::Answer(Err(e)));
                        return;
                    }
                };
                let mut runner = JobRunner::new(g, request, &kit, keep);
                loop {
                    let (id, p, scale, facts) = match jobs_in.recv() {
                        Ok(Some(job)) => job,
                        Ok(None) => break,
                        // A failure: no database.
                        Err(_) => return,
                    };
                    runner.learn(&facts);
                    let a = runner.run(&p, scale).map(|a| (id, a));
                    let failed = a.is_err();
                    let _ = local_out.send(Local::Answer(a));
                    if failed {
                        return;
                    }
                }
                let nodes = runner.nodes;
                let _ = local_out.send(Local::Done(runner.database().map(|db| (nodes, db))));
            })
        });
        let result = lead_with(
            g,
            master,
            world,
            local.is_some().then_some((&to_local, &from_local, &cancel)),
        );
        let (mut nodes, mut parts) = match result {
            Ok(done) => done,
            Err(e) => {
                // Its job stopped, and the thread ends without its database
                // once `to_local` is dropped.
                cancel.cancel();
                return Err(e);
            }
        };
        // The end: rank 0's engine (its last answer taken) sends its
        // database.
        let _ = to_local.send(None);
        if local.is_some() {
            loop {
                match from_local.recv() {
                    Ok(Local::Done(done)) => {
                        let (n, db) = done?;
                        nodes += n;
                        parts.extend(db);
                        break;
                    }
                    Ok(Local::Answer(a)) => {
                        a?;
                    }
                    Err(_) => {
                        return Err(Error::GameInvariant(
                            "rank 0's own engine ended without its database".into(),
                        ))
                    }
                }
            }
        }
        Ok((nodes, parts))
    })
}

/// [`lead`]'s loop, rank 0's own engine reached through `local` (its jobs'
/// channel and its answers'); the busy worker `0` is that engine.
fn lead_with<G: Engines>(
    g: &G,
    master: &mut Master<'_, G>,
    world: &SimpleCommunicator,
    local: Option<LocalLink<'_, G>>,
) -> Result<(u64, Vec<Vec<u8>>)> {
    let k = world.size() as usize;
    let mut idle: Vec<usize> = (1..k).rev().collect();
    if local.is_some() {
        // Last: the other ranks' jobs go out first, since their answers
        // do not share this rank's cores with the master.
        idle.insert(0, 0);
    }
    // The job each busy worker proves.
    let mut busy: Vec<Option<usize>> = vec![None; k];
    let mut message = Vec::new();
    loop {
        while let Some(&r) = idle.last() {
            let Some((id, p, scale)) = master.next_job(r, idle.len() == 1) else {
                break;
            };
            let p = p.clone();
            let facts = master.news(r);
            if r == 0 {
                let (to, _, _) = local.expect("rank 0 is idle only when it works");
                to.send(Some((id, p, scale, facts)))
                    .map_err(|_| Error::GameInvariant("rank 0's own engine ended early".into()))?;
            } else {
                message.clear();
                message.push(JOB);
                message.extend_from_slice(&(id as u64).to_le_bytes());
                message.push(scale as u8);
                let mut key = Vec::new();
                g.key(&p).write(&mut key);
                message.extend_from_slice(&(key.len() as u32).to_le_bytes());
                message.extend_from_slice(&key);
                message.extend_from_slice(&(facts.len() as u32).to_le_bytes());
                for (key, pos, b) in &facts {
                    key.write(&mut message);
                    message.extend_from_slice(&[b.lo as u8, b.hi as u8]);
                    let text = g.format_position(pos);
                    message.extend_from_slice(&(text.len() as u32).to_le_bytes());
                    message.extend_from_slice(text.as_bytes());
                }
                message.extend_from_slice(g.format_position(&p).as_bytes());
                world.process_at_rank(r as i32).send(&message[..]);
            }
            busy[r] = Some(id);
            idle.pop();
        }
        if master.done() || busy.iter().all(Option::is_none) {
            break;
        }
        let (r, id, answer) = next_answer(world, local.map(|(_, from, _)| from))?;
        expected(&busy, r, id)?;
        busy[r] = None;
        // Rank 0 idle goes last again (see above).
        if r == 0 {
            idle.insert(0, 0);
        } else {
            idle.push(r);
        }
        master.answer(id, &answer)?;
    }
    // The root proven (or no job left: `unproven` says so): stop every
    // job still running at once, rank 0's own by its token and the
    // workers' by `S`, rather than wait for the rest of their budgets;
    // then take each one's answer (what it proved until it stopped: true,
    // so kept, though the value no longer needs it) and gather what every
    // worker proved.
    if let Some((_, _, cancel)) = local {
        cancel.cancel();
    }
    for r in 1..k {
        world.process_at_rank(r as i32).send(&[STOP][..]);
    }
    if let (Some(id), Some((_, from, _))) = (busy[0], local) {
        let (got, answer) = match from.recv() {
            Ok(Local::Answer(a)) => a?,
            _ => {
                return Err(Error::GameInvariant(
                    "rank 0's own engine ended early".into(),
                ))
            }
        };
        expected(&busy, 0, got)?;
        master.answer(id, &answer)?;
    }
    let mut nodes = 0u64;
    let mut parts = Vec::new();
    for r in 1..k {
        if let Some(id) = busy[r] {
            let (got, answer) = answer_of(&receive(world, r), r)?;
            expected(&busy, r, got)?;
            master.answer(id, &answer)?;
        }
        let m = receive(world, r);
        match m.first() {
            Some(&DATABASE) if m.len() >= 9 => {
                nodes += LE::read_u64(&m[1..9]);
                if m.len() > 9 {
                    parts.push(m[9..].to_vec());
                }
            }
            _ => {
                answer_of(&m, r)?;
                return Err(garbled(r));
            }
        }
    }
    Ok((nodes, parts))
}

/// The next answer from any worker: its rank, the job's number and the
/// answer (rank 0's own engine's among them). Waited for by polling with
/// short sleeps, not a blocking receive: Open MPI's blocking receive
/// spins, and a master spinning on a core its workers need (one machine,
/// oversubscribed) slowed a search of 2,400 jobs from 1.9 s to 16 s. A job
/// takes from milliseconds to seconds, so 200 µs more per answer is noise.
fn next_answer(
    world: &SimpleCommunicator,
    local: Option<&std::sync::mpsc::Receiver<Local>>,
) -> Result<(usize, usize, JobAnswer)> {
    use std::sync::mpsc::TryRecvError;
    let ended = || Error::GameInvariant("rank 0's own engine ended early".into());
    loop {
        if let Some(from) = local {
            match from.try_recv() {
                Ok(Local::Answer(a)) => {
                    let (id, a) = a?;
                    return Ok((0, id, a));
                }
                Ok(Local::Done(_)) | Err(TryRecvError::Disconnected) => return Err(ended()),
                Err(TryRecvError::Empty) => {}
            }
        }
        if let Some(status) = world.any_process().immediate_probe() {
            let r = status.source_rank();
            let (m, _) = world.process_at_rank(r).receive_vec::<u8>();
            let (id, a) = answer_of(&m, r as usize)?;
            return Ok((r as usize, id, a));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Rank `r`'s next message, waited for by polling (see `next_answer`).
fn receive(world: &SimpleCommunicator, r: usize) -> Vec<u8> {
    let from = world.process_at_rank(r as i32);
    while from.immediate_probe().is_none() {
        std::thread::sleep(Duration::from_micros(200));
    }
    from.receive_vec::<u8>().0
}

/// An answer from rank `r` to job `id`: an error unless that is the job
/// it proves.
fn expected(busy: &[Option<usize>], r: usize, id: usize) -> Result<()> {
    match busy.get(r).copied().flatten() == Some(id) {
        true => Ok(()),
        false => Err(Error::GameInvariant(format!(
            "rank {r} answered job {id}, which it was not given"
        ))),
    }
}

fn garbled(r: usize) -> Error {
    Error::GameInvariant(format!("rank {r} sent a message the master cannot read"))
}

/// A worker's answer `m` (from rank `r`): the job's number and answer, or
/// the worker's failure as the job's error.
fn answer_of(m: &[u8], r: usize) -> Result<(usize, JobAnswer)> {
    match m.first() {
        Some(&FAILED) => Err(Error::Output(format!(
            "rank {r}: {}",
            String::from_utf8_lossy(&m[1..])
        ))),
        Some(&ANSWER) if m.len() >= 28 => Ok((
            LE::read_u64(&m[1..9]) as usize,
            JobAnswer {
                bounds: Bounds {
                    lo: m[9] as i8,
                    hi: m[10] as i8,
                },
                nodes: LE::read_u64(&m[11..19]),
                numbers: match (LE::read_u32(&m[19..23]), LE::read_u32(&m[23..27])) {
                    (0, _) | (_, 0) => None,
                    (pn, dn) => Some((pn, dn, m[27] as i8)),
                },
                best_move: (m.len() > 28).then(|| String::from_utf8_lossy(&m[28..]).into_owned()),
            },
        )),
        _ => Err(garbled(r)),
    }
}

/// What a worker's job thread sends its MPI thread: a job's reply (`R`,
/// or `E` when it failed), or at the end its `D` (or `E`).
enum Reply {
    Answer(Vec<u8>),
    Done(Vec<u8>),
}

/// A worker: its main thread (the only one that calls MPI) polls the
/// master and relays each job to the job thread, which proves it with the
/// rank's engine and replies; the answers go back to the master as they
/// come. `S` while a job runs stops it (its engine's cancel token: the
/// root is proven, nothing needs the rest of that job), sends what it
/// proved, then the rank's `D`; `A` stops it and ends without a word.
/// Before, the worker's one thread was in its engine, and the end waited
/// for every running job's whole budget.
fn worker<G: Engines>(
    g: &G,
    request: &SearchOptions,
    budget: JobBudget,
    world: &SimpleCommunicator,
) -> Result<()> {
    use std::sync::mpsc::{channel, TryRecvError};
    let rank = world.rank();
    let master = world.process_at_rank(0);
    let keep = request.save.is_some();
    let cancel = super::Cancel::new();
    std::thread::scope(|s| {
        // `Some`: a job message; `None`: the end, send the database.
        let (to_jobs, jobs_in) = channel::<Option<Vec<u8>>>();
        let (replies, from_jobs) = channel::<Reply>();
        let stop = cancel.clone();
        s.spawn(move || {
            // Made here, since an engine stays on the thread that made it
            // (checked once already, with every rank, before any job).
            let kit = match JobKit::new(g, request, budget) {
                Ok(kit) => kit.cancelled_by(stop.clone()),
                Err(e) => {
                    let _ = replies.send(Reply::Answer(failure(&e)));
                    return;
                }
            };
            let mut runner = JobRunner::new(g, request, &kit, keep);
            loop {
                match jobs_in.recv() {
                    Ok(Some(m)) => {
                        let reply = hold_point(&format!("search-job-rank-{rank}"), &stop)
                            .and_then(|()| job(g, &mut runner, &m));
                        let (reply, failed) = match reply {
                            Ok((id, a)) => (answer_message(id, &a), false),
                            Err(e) => (failure(&e), true),
                        };
                        if replies.send(Reply::Answer(reply)).is_err() || failed {
                            return;
                        }
                    }
                    Ok(None) => break,
                    // Aborted: nothing more is sent.
                    Err(_) => return,
                }
            }
            let nodes = runner.nodes;
            let reply = match runner.database() {
                Ok(db) => {
                    let mut reply = vec![DATABASE];
                    reply.extend_from_slice(&nodes.to_le_bytes());
                    reply.extend_from_slice(&db.unwrap_or_default());
                    reply
                }
                Err(e) => failure(&e),
            };
            let _ = replies.send(Reply::Done(reply));
        });
        let ended = || {
            failure(&Error::GameInvariant(
                "the worker's job thread ended".into(),
            ))
        };
        // Waits for the job thread's reply to the running job.
        let answer = || match from_jobs.recv() {
            Ok(Reply::Answer(reply)) => reply,
            _ => ended(),
        };
        let mut busy = false;
        loop {
            match from_jobs.try_recv() {
                Ok(Reply::Answer(reply)) => {
                    busy = false;
                    master.send(&reply[..]);
                    continue;
                }
                // The thread ended: after a failure (its `E` went out, the
                // master aborts), or in the middle of a job, which then
                // fails here rather than leave the master waiting.
                Ok(Reply::Done(_)) | Err(TryRecvError::Disconnected) => {
                    if busy {
                        busy = false;
                        master.send(&ended()[..]);
                    }
                }
                Err(TryRecvError::Empty) => {}
            }
            // Polled, as the master's answers are (see `next_answer`).
            if master.immediate_probe().is_none() {
                std::thread::sleep(Duration::from_micros(200));
                continue;
            }
            let (m, _) = master.receive_vec::<u8>();
            match m.first() {
                Some(&JOB) if !busy => {
                    crate::format::kill_point(&format!("search-job-rank-{rank}"));
                    busy = true;
                    if to_jobs.send(Some(m)).is_err() {
                        busy = false;
                        master.send(&ended()[..]);
                    }
                }
                Some(&STOP) => {
                    if busy {
                        cancel.cancel();
                        master.send(&answer()[..]);
                    }
                    let reply = match to_jobs.send(None).map(|()| from_jobs.recv()) {
                        Ok(Ok(Reply::Done(reply))) => reply,
                        _ => ended(),
                    };
                    master.send(&reply[..]);
                    // A failure is the master's to name.
                    return match reply[0] {
                        FAILED => Err(Error::PeerFailed { rank: 0 }),
                        _ => Ok(()),
                    };
                }
                // `A`, or a message out of turn: stop the job; dropping
                // the job channel ends the thread without its database.
                _ => {
                    cancel.cancel();
                    return Err(Error::PeerFailed { rank: 0 });
                }
            }
        }
    })
}

/// A job's answer as the message `R` that carries it.
fn answer_message(id: usize, a: &JobAnswer) -> Vec<u8> {
    let mut reply = vec![ANSWER];
    reply.extend_from_slice(&(id as u64).to_le_bytes());
    reply.extend_from_slice(&[a.bounds.lo as u8, a.bounds.hi as u8]);
    reply.extend_from_slice(&a.nodes.to_le_bytes());
    let (pn, dn, q) = a.numbers.unwrap_or((0, 0, 0));
    reply.extend_from_slice(&pn.to_le_bytes());
    reply.extend_from_slice(&dn.to_le_bytes());
    reply.push(q as u8);
    if let Some(mv) = &a.best_move {
        reply.extend_from_slice(mv.as_bytes());
    }
    reply
}

/// A test hook: when the environment variable `RETROGRADE_TEST_HOLD_AT`
/// equals `point`, the job there waits until `cancel` is cancelled before
/// its engine starts (which then stops at once), as a job far too long to
/// end before the root is proven would: the tests' way to have a worker
/// certainly in the middle of a job at the end. A job held a minute fails
/// (nothing stopped it). Unset (always, in use), one cached lookup.
fn hold_point(point: &str, cancel: &super::Cancel) -> Result<()> {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if AT
        .get_or_init(|| std::env::var("RETROGRADE_TEST_HOLD_AT").ok())
        .as_deref()
        != Some(point)
    {
        return Ok(());
    }
    let held = Instant::now();
    while !cancel.is_cancelled() {
        if held.elapsed() > Duration::from_secs(60) {
            return Err(Error::GameInvariant(format!(
                "the job held at {point} was never stopped"
            )));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// A failure as the message that carries it.
fn failure(e: &Error) -> Vec<u8> {
    let mut reply = vec![FAILED];
    reply.extend_from_slice(e.to_string().as_bytes());
    reply
}

/// Proves the job of message `m`.
fn job<G: Engines>(g: &G, runner: &mut JobRunner<'_, G>, m: &[u8]) -> Result<(usize, JobAnswer)> {
    let bad = || Error::GameInvariant("a job message the worker cannot read".into());
    if m.len() < 14 {
        return Err(bad());
    }
    let id = LE::read_u64(&m[1..9]) as usize;
    let scale = u32::from(m[9]);
    let key_len = LE::read_u32(&m[10..14]) as usize;
    let key = m.get(14..14 + key_len).ok_or_else(bad)?;
    let mut at = 14 + key_len;
    let count = m.get(at..at + 4).map(LE::read_u32).ok_or_else(bad)? as usize;
    at += 4;
    // A count no message could hold is refused before anything is kept.
    if count > m.len() {
        return Err(bad());
    }
    let mut facts: Vec<Learnt<G>> = Vec::with_capacity(count);
    for _ in 0..count {
        let k = m.get(at..at + G::Key::BYTES).ok_or_else(bad)?;
        let b = m
            .get(at + G::Key::BYTES..at + G::Key::BYTES + 6)
            .ok_or_else(bad)?;
        at += G::Key::BYTES + 6;
        let len = LE::read_u32(&b[2..6]) as usize;
        let text = m.get(at..at + len).ok_or_else(bad)?;
        at += len;
        let pos = read_position(g, text, k)?;
        let bounds = Bounds {
            lo: b[0] as i8,
            hi: b[1] as i8,
        };
        facts.push((G::Key::read(k), pos, bounds));
    }
    let p = read_position(g, m.get(at..).ok_or_else(bad)?, key)?;
    runner.learn(&facts);
    Ok((id, runner.run(&p, scale)?))
}

/// The position written as `text` in the master's message, which must
/// have the key `key` there: a position that does not survive its
/// notation is an error, never a wrong job or fact.
fn read_position<G: SearchGame>(g: &G, text: &[u8], key: &[u8]) -> Result<G::Pos> {
    let text = std::str::from_utf8(text)
        .map_err(|_| Error::GameInvariant("a job message the worker cannot read".into()))?;
    let p = g
        .parse_position(text)
        .map_err(|reason| Error::BadPosition {
            input: text.to_string(),
            reason,
        })?;
    let mut mine = Vec::new();
    g.key(&p).write(&mut mine);
    if mine != key {
        return Err(Error::GameInvariant(format!(
            "{}: the position {text} read back from its notation is another position",
            g.spec()
        )));
    }
    Ok(p)
}

/// The terms the ranks agree on before a search: the game, the position,
/// the engine, the budget and the save (what decides the jobs and what is
/// written; threads and memory are each rank's).
pub fn search_terms<G: SearchGame>(
    g: &G,
    request: &SearchOptions,
    budget: JobBudget,
) -> Vec<crate::solve::Term> {
    use crate::solve::Term;
    let mut terms = vec![
        Term::text("searches", g.spec()),
        Term::text(
            "searches from",
            request
                .position
                .clone()
                .unwrap_or_else(|| "the start".into()),
        ),
        Term::text("proves with the engine", request.engine.name()),
        Term::text(
            "gives each job",
            format!(
                "{:?} nodes and {:?} s",
                budget.nodes,
                budget.time.map(|t| t.as_secs_f64())
            ),
        ),
        Term::text(
            "takes the tables",
            request
                .tablebases
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ];
    terms.push(Term::text(
        "saves",
        match request.save.is_some() {
            true => "what it proves (--save)",
            false => "nothing (no --save)",
        },
    ));
    terms
}
