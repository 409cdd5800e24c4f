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
//! The protocol is small messages, blocking sends and receives, one byte
//! saying what each is:
//!
//! - master to worker: `J` a job (its number, its budget's scale, its
//!   position's key, the bounds the tree learnt since the worker's last
//!   job — other ranks' proofs, which its engine takes as settled, each
//!   as a key, the bounds and the position in the game's notation — and
//!   the job's position in the game's notation: the worker parses each
//!   position and checks its key, so a position that does not survive
//!   its notation is an error, never a wrong job or fact); `S` stop
//!   (answer with `D`); `A` abort (a rank failed: stop without
//!   answering);
//! - worker to master: `R` a job's answer (number, bounds, nodes, the
//!   engine's root proof and disproof numbers when undecided, its best
//!   move); `E` a failure (one line); `D` at the end, the
//!   worker's nodes, jobs, busy time and, with `--save`, every entry its
//!   jobs proved as one proof database's bytes.
//!
//! Messages between two ranks keep their order, so after `S` the master
//! reads each worker's remaining answer (a job it gave before the root was
//! proven) and then its `D`. A worker that fails sends `E`; the master then
//! sends `A` to every worker and returns the failure, which the command
//! prints as the job's one line; the others return [`Error::PeerFailed`],
//! which it does not print. A rank killed outright ends the job through
//! `mpirun`; nothing is under the `--save` name then, since the save is
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
            // Rank 0's engine is made on its own thread later: checked here.
            let kit = (rank != 0 || works)
                .then(|| JobKit::new(g, request, budget))
                .transpose()?;
            if rank == 0 {
                jobs::check_save(request)?;
            }
            Ok((root, kit))
        });
    let mut flags = vec![0u8; k];
    world.all_gather_into(&[u8::from(ready.is_ok())][..], &mut flags[..]);
    let (root, kit) = match ready {
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
        let kit = kit.expect("every worker has a kit");
        let runner = JobRunner::new(g, request, &kit, keep);
        return worker(g, runner, world).map(|()| None);
    }
    drop(kit);
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
    // proven: its answer is not needed then, and the end would otherwise
    // wait for the job's whole budget (a Sprouts job of 32,000 nodes takes
    // tens of seconds). The other ranks' jobs run to their end, since a
    // worker's one thread is in its engine.
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
                while let Ok(Some((id, p, scale, facts))) = jobs_in.recv() {
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
        // The end, or a failure: rank 0's engine stops after its job.
        let _ = to_local.send(None);
        let (mut nodes, mut parts) = result?;
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
        if busy.iter().all(Option::is_none) {
            break;
        }
        if let Some((_, _, cancel)) = local.filter(|_| master.done() && busy[0].is_some()) {
            cancel.cancel();
        }
        let (r, id, answer) = next_answer(world, local.map(|(_, from, _)| from))?;
        if busy.get(r).copied().flatten() != Some(id) {
            return Err(Error::GameInvariant(format!(
                "rank {r} answered job {id}, which it was not given"
            )));
        }
        busy[r] = None;
        // Rank 0 idle goes last again (see above).
        if r == 0 {
            idle.insert(0, 0);
        } else {
            idle.push(r);
        }
        master.answer(id, &answer)?;
    }
    // Every worker idle: stop them and gather what they proved.
    let mut nodes = 0u64;
    let mut parts = Vec::new();
    for r in 1..k {
        world.process_at_rank(r as i32).send(&[STOP][..]);
    }
    for r in 1..k {
        let (m, _) = world.process_at_rank(r as i32).receive_vec::<u8>();
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

/// A worker's loop: proves each job it is given and answers, until told
/// to stop (then sends its database) or to abort.
fn worker<G: Engines>(
    g: &G,
    mut runner: JobRunner<'_, G>,
    world: &SimpleCommunicator,
) -> Result<()> {
    let rank = world.rank();
    let master = world.process_at_rank(0);
    loop {
        // Polled, as the master's answers are (see `next_message`).
        while master.immediate_probe().is_none() {
            std::thread::sleep(Duration::from_micros(200));
        }
        let (m, _) = master.receive_vec::<u8>();
        match m.first() {
            Some(&JOB) => {
                crate::format::kill_point(&format!("search-job-rank-{rank}"));
                let reply = match job(g, &mut runner, &m) {
                    Ok((id, a)) => {
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
                    Err(e) => failure(&e),
                };
                master.send(&reply[..]);
            }
            Some(&STOP) => {
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
                let failed = reply[0] == FAILED;
                master.send(&reply[..]);
                return match failed {
                    // The master names this rank's failure.
                    true => Err(Error::PeerFailed { rank: 0 }),
                    false => Ok(()),
                };
            }
            _ => return Err(Error::PeerFailed { rank: 0 }),
        }
    }
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
