//! The MPI side of `cluster`: who measures, the sequencing (`--sequential`),
//! and rank 0 gathering every record as it arrives.
//!
//! Protocol. At start every rank learns every rank's host name (one
//! all-gather); a host's lowest rank is its leader. Measuring ranks (the
//! leaders, or every rank with `--per rank`) run the parts on their host
//! and send each record to rank 0 the moment it exists, a failed part as a
//! failure message (the rank goes on with the next part), then "done".
//! With `--sequential` a rank starts only when rank 0 sends it "go", after
//! the rank before it is done; else all start at once. Rank 0 measures its
//! own host first, then receives with a polling loop: a rank silent for
//! longer than `timeout` is reported as failed by host name and left
//! behind. Then rank 0 names the suspects (units the outlier rule flags
//! in a host part, hosts outside their `--baseline`) and has each measure
//! those parts again ("retest"; ClusterKit retests before its verdict):
//! the verdict takes each unit's better attempt, so one noisy measurement
//! names no one. Then rank 0 drives the ping-pong, one pair at a time, and
//! finally sends every rank "finish". No rank ever waits in a blocking
//! MPI call after the start ([`super::wait`]): waiting ranks sleep between
//! tests for a message, and every ping-pong exchange has a deadline
//! (`timeout`); the leader of a pair names a partner that does not answer,
//! rank 0 names a leader silent for twice that (a leader says it is alive
//! every quarter of `timeout` while it measures, so a pair slowed by a busy
//! host is not mistaken for a silent one), and the rank named is skipped
//! for the rest of the run. If a rank was left behind, rank 0
//! ends the job with MPI_Abort once the verdict is written (MPI_Finalize
//! would wait for that rank). A rank that dies makes OpenMPI end the whole
//! job: every record rank 0 had received is already flushed to the outputs.

use super::cost::{pingpong_cost, pingpong_rounds, recheck_pairs, Pairing, ROUNDS_RULE};
use super::measure::{measure_part, Measured, Sizing};
use super::outlier::OutlierRule;
use super::parts::{pingpong_pairs, pingpong_rule, Part, Per};
use super::pingpong_summary::{pair_params, pingpong_summaries, PairEnd};
use super::tags::{every_rank_host, labels, Origin};
use super::verdict::{analyze, ClusterVerdict, Failure};
use super::wait::{self, Pace, TimedOut, Wait};
use crate::bench::Context;
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;
use numabench_schema::benchmark;
use numabench_schema::params::PingpongBestPartnerParams;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

const TAG_GO: i32 = 101;
const TAG_RECORD: i32 = 102;
const TAG_FAIL: i32 = 103;
const TAG_DONE: i32 = 104;
const TAG_COMMAND: i32 = 105;
const TAG_PING: i32 = 106;
const TAG_PING_END: i32 = 107;
/// A ping-pong leader still measuring: rank 0 restarts its wait.
const TAG_ALIVE: i32 = 108;

/// How often, as a share of `timeout`, a ping-pong leader tells rank 0 it
/// is still measuring: rank 0 names a leader silent for twice `timeout`,
/// and a pair on a busy host can take longer than that while every one of
/// its exchanges answers in time.
const ALIVE_EVERY_SHARE: u32 = 4;

/// What `cluster` was asked to do (validated by the command line).
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    pub parts: Vec<Part>,
    pub per: Per,
    pub sequential: bool,
    pub rule: OutlierRule,
    /// `--size`: every working set (else each benchmark's default).
    pub size: Option<u64>,
    /// A rank silent for longer is reported failed and left behind.
    pub timeout: Duration,
    /// Message size of the ping-pong bandwidth.
    pub pingpong_bytes: usize,
    /// Round trips per ping-pong latency sample.
    pub latency_round_trips: usize,
    /// Round trips per ping-pong bandwidth sample.
    pub bandwidth_round_trips: usize,
    /// How the ping-pong pairs participants (`--pairing`).
    pub pairing: Pairing,
    /// `--baseline`: the check part measures each host's entry's plan, and
    /// the verdict compares each host with its entry. Read on every rank.
    pub baseline: Option<crate::check::Baseline>,
}

impl ClusterConfig {
    /// Whether the ping-pong among `participants` runs in rounds.
    fn uses_rounds(&self, participants: usize, repeat: usize) -> bool {
        let cost = pingpong_cost(
            participants,
            self.pingpong_bytes,
            repeat,
            self.latency_round_trips,
            self.bandwidth_round_trips,
        );
        self.pairing.uses_rounds(&cost)
    }
}

/// Partners each suspect is measured again with (rounds only).
const RECHECK_PARTNERS: usize = 2;

/// What a run left: rank 0 has the verdict; `abandoned` says a rank was
/// left behind (end the job with [`ClusterSession::abort`]).
#[derive(Debug)]
pub struct ClusterOutcome {
    pub verdict: Option<ClusterVerdict>,
    pub abandoned: bool,
    /// Every tagged record rank 0 gathered (its own included), for the
    /// host table; empty on the other ranks.
    pub records: Vec<Record>,
}

/// The MPI environment of one `cluster` run: MPI_Init on start,
/// MPI_Finalize when dropped.
pub struct ClusterSession {
    // Dropped last: finalizes MPI.
    _universe: Universe,
    world: SimpleCommunicator,
}

impl std::fmt::Debug for ClusterSession {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ClusterSession")
            .field("rank", &self.rank())
            .field("size", &self.world.size())
            .finish()
    }
}

/// A failure message: which part, and why; `silent` names another rank
/// that did not answer (a ping-pong partner), blamed instead of the sender.
#[derive(Debug, Serialize, Deserialize)]
struct FailMessage {
    part: Option<String>,
    error: String,
    #[serde(default)]
    silent: Option<usize>,
}

/// A ping-pong partner did not answer within the exchange timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Silent;

impl From<TimedOut> for Silent {
    fn from(_: TimedOut) -> Self {
        Silent
    }
}

/// The failure text of a rank that did not answer a ping-pong exchange.
fn silent_error(peer: usize, limit: Duration) -> String {
    format!(
        "did not answer the ping-pong with rank {peer} within {} s (stopped, hung or died): skipped for the rest of the run",
        limit.as_secs()
    )
}

/// What rank 0 tells a waiting rank.
#[derive(Debug, Serialize, Deserialize)]
enum Command {
    /// Measure these parts again (their names), then say done.
    Retest { parts: Vec<String> },
    /// Ping-pong with `peer`: `lead` measures and reports, the other echoes.
    Pair { peer: i32, lead: bool },
    /// Nothing more: finalize.
    Finish,
}

/// Every rank's role, the same on every rank.
#[derive(Debug, Clone)]
struct Roles {
    hosts: Vec<String>,
    per: Per,
}

impl Roles {
    fn leader(&self, rank: usize) -> bool {
        self.hosts[..rank]
            .iter()
            .all(|host| *host != self.hosts[rank])
    }
    fn measures(&self, rank: usize) -> bool {
        self.per == Per::Rank || self.leader(rank)
    }
    fn measuring(&self) -> Vec<usize> {
        (0..self.hosts.len())
            .filter(|&r| self.measures(r))
            .collect()
    }
    fn unit(&self, rank: usize, node: Option<u32>) -> String {
        let host = &self.hosts[rank];
        match (self.per, node) {
            (Per::Rank, _) => format!("{host}/rank {rank}"),
            (Per::Numa, Some(node)) => format!("{host}/node {node}"),
            _ => host.clone(),
        }
    }
    /// A ping-pong end's unit: its host, or its rank with `--per rank`.
    fn pair_unit(&self, rank: usize) -> String {
        self.unit(rank, None)
    }
}

fn encode(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// MPI_Init refused: MPI was initialized before in this process.
///
/// Fault: the system's (numabench initializes MPI once).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MPI was already initialized")]
pub struct AlreadyInitialized;

crate::error::all_faulty!(System: AlreadyInitialized);

impl ClusterSession {
    /// MPI_Init (funneled: only the main thread calls MPI, measuring
    /// threads never do).
    pub fn start() -> Result<Self, AlreadyInitialized> {
        let (universe, _) =
            mpi::initialize_with_threading(Threading::Funneled).ok_or(AlreadyInitialized)?;
        let world = universe.world();
        Ok(Self {
            _universe: universe,
            world,
        })
    }

    /// This process's MPI_COMM_WORLD rank.
    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    /// Ends the whole job with `code` (MPI_Abort).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Runs `cluster` on every rank. Rank 0 must pass its output
    /// `pipeline`; every record reaches it as it arrives, then the
    /// verdict records.
    pub fn run(
        &self,
        context: &Context,
        config: &ClusterConfig,
        pipeline: Option<&mut Pipeline>,
    ) -> Result<ClusterOutcome, OutputError> {
        let roles = Roles {
            hosts: every_rank_host(&self.world),
            per: config.per,
        };
        match pipeline {
            Some(pipeline) if self.rank() == 0 => {
                let mut root = Root {
                    session: self,
                    roles,
                    config,
                    context,
                    pipeline,
                    records: Vec::new(),
                    failures: Vec::new(),
                    abandoned: Vec::new(),
                    retested: Vec::new(),
                };
                root.run()
            }
            _ => {
                self.serve(context, config, &roles);
                Ok(ClusterOutcome {
                    verdict: None,
                    abandoned: false,
                    records: Vec::new(),
                })
            }
        }
    }

    /// A rank other than 0: measure when told (or at once), then obey
    /// commands until "finish".
    fn serve(&self, context: &Context, config: &ClusterConfig, roles: &Roles) {
        let rank = self.rank() as usize;
        let root = self.world.process_at_rank(0);
        if roles.measures(rank) {
            if config.sequential {
                // Waiting for its turn without spinning (issue 21, item 17).
                let _ = wait::receive(&root, Some(TAG_GO), Wait::idle());
            }
            self.send_parts(context, config, roles, &config.parts, 1);
        }
        while let Ok((bytes, _)) = wait::receive(&root, Some(TAG_COMMAND), Wait::idle()) {
            match serde_json::from_slice::<Command>(&bytes) {
                Ok(Command::Retest { parts }) => {
                    let parts: Vec<Part> = parts
                        .iter()
                        .filter_map(|name| Part::by_name(name))
                        .collect();
                    self.send_parts(context, config, roles, &parts, RETEST_ATTEMPT);
                }
                Ok(Command::Pair { peer, lead }) => {
                    if lead {
                        let mut send = |record: Record| {
                            root.send_with_tag(&encode(&record)[..], TAG_RECORD);
                        };
                        let led = self.lead_pingpong(context, config, roles, peer, &mut send);
                        if led.is_err() {
                            let message = FailMessage {
                                part: Some("pingpong".to_string()),
                                error: silent_error(rank, config.timeout),
                                silent: Some(peer as usize),
                            };
                            root.send_with_tag(&encode(&message)[..], TAG_FAIL);
                        }
                        root.send_with_tag(&[0u8][..], TAG_DONE);
                    } else {
                        // A leader that stops is named by rank 0 (it goes
                        // silent); this rank waits for the next command.
                        let _ = self.echo(peer, config.pingpong_bytes, config.timeout);
                    }
                }
                Ok(Command::Finish) | Err(_) => break,
            }
        }
    }

    /// A rank other than 0 measures `parts` (attempt `attempt`), sending
    /// rank 0 each record as it is made and each failed part, then "done".
    fn send_parts(
        &self,
        context: &Context,
        config: &ClusterConfig,
        roles: &Roles,
        parts: &[Part],
        attempt: u32,
    ) {
        let rank = self.rank() as usize;
        let root = self.world.process_at_rank(0);
        let origin = Origin {
            host: roles.hosts[rank].clone(),
            rank: rank as i32,
        };
        for &part in parts {
            let mut send = |record: Record| {
                root.send_with_tag(&encode(&record)[..], TAG_RECORD);
            };
            if let Err(error) =
                measure_tagged(context, config, roles, &origin, part, attempt, &mut send)
            {
                let message = FailMessage {
                    part: Some(part.name().to_string()),
                    error: error.to_string(),
                    silent: None,
                };
                root.send_with_tag(&encode(&message)[..], TAG_FAIL);
            }
        }
        root.send_with_tag(&[0u8][..], TAG_DONE);
    }

    /// The echoing end of a ping-pong: send back every message until the
    /// leader says it is over; gives up when the leader is silent for
    /// `limit` (each exchange is timed out, none blocks).
    fn echo(&self, peer: i32, max_bytes: usize, limit: Duration) -> Result<(), Silent> {
        let peer = self.world.process_at_rank(peer);
        let mut buffer = vec![0u8; max_bytes.max(8)];
        loop {
            let (message, status) = wait::probe(&peer, None, Wait::within(limit, Pace::Spin))?;
            let count = (status.count(u8::equivalent_datatype()).max(0) as usize).min(buffer.len());
            let _ = message.matched_receive_into(&mut buffer[..count]);
            if status.tag() == TAG_PING_END {
                return Ok(());
            }
            wait::send_bytes(&peer, count, TAG_PING, Wait::within(limit, Pace::Spin))?;
        }
    }

    /// The measuring end of a ping-pong with `peer`: latency (8-byte
    /// messages) then bandwidth (large messages), one record each.
    /// Every message is timed out after `config.timeout`: a silent
    /// partner ends the pair with [`Silent`] and no record.
    fn lead_pingpong(
        &self,
        context: &Context,
        config: &ClusterConfig,
        roles: &Roles,
        peer_rank: i32,
        send: &mut dyn FnMut(Record),
    ) -> Result<(), Silent> {
        let peer = self.world.process_at_rank(peer_rank);
        let me = self.rank() as usize;
        let other = peer_rank as usize;
        let repeat = context.repeat.max(1);
        let limit = config.timeout;
        let mut incoming = vec![0u8; config.pingpong_bytes.max(8)];
        // A leader other than rank 0 says it is alive at least every
        // quarter of `timeout` while it measures (one 1-byte message,
        // between two round trips): rank 0 hears from it within twice
        // `timeout` however long the pair takes, as long as each exchange
        // answers within `timeout`. The clock is read after every round
        // trip (as each exchange's deadline already reads it): a partner
        // that stalls often would otherwise silence the leader for many
        // round trips between two looks (the slowed-pair test failed with
        // a look every 16).
        let root = self.world.process_at_rank(0);
        let alive_every = limit / ALIVE_EVERY_SHARE;
        let mut said_alive = Instant::now();
        let mut round_trips = |bytes: usize, count: usize| -> Result<f64, Silent> {
            let start = Instant::now();
            for _ in 0..count {
                wait::send_bytes(&peer, bytes, TAG_PING, Wait::within(limit, Pace::Spin))?;
                let (message, _) =
                    wait::probe(&peer, Some(TAG_PING), Wait::within(limit, Pace::Spin))?;
                let _ = message.matched_receive_into(&mut incoming[..bytes]);
                if me != 0 && said_alive.elapsed() >= alive_every {
                    root.send_with_tag(&[0u8][..], TAG_ALIVE);
                    said_alive = Instant::now();
                }
            }
            Ok(start.elapsed().as_secs_f64())
        };
        let small = 8;
        let large = config.pingpong_bytes;
        // Warm-up: connections are set up lazily.
        round_trips(small, 10)?;
        round_trips(large, 1)?;
        let mut latencies = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let n = config.latency_round_trips;
            latencies.push(round_trips(small, n)? / n as f64 / 2.0 * 1e9);
        }
        let mut bandwidths = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let n = config.bandwidth_round_trips;
            bandwidths.push((2 * large * n) as f64 / round_trips(large, n)? / 1e9);
        }
        wait::send_bytes(&peer, 1, TAG_PING_END, Wait::within(limit, Pace::Spin))?;
        let participants = self.pingpong_participants(roles).len();
        for (metric, unit, values, bytes, trips, headline_is_max) in [
            (
                "latency",
                Unit::Nanoseconds,
                latencies,
                small,
                config.latency_round_trips,
                false,
            ),
            (
                "bandwidth",
                Unit::GigabytesPerSecond,
                bandwidths,
                large,
                config.bandwidth_round_trips,
                true,
            ),
        ] {
            let Ok(sample) = Sample::new(values) else {
                continue;
            };
            let value = if headline_is_max {
                sample.max()
            } else {
                sample.median()
            };
            let rule = if config.uses_rounds(participants, repeat) {
                ROUNDS_RULE
            } else {
                pingpong_rule(participants)
            };
            let params = pair_params(
                [
                    PairEnd {
                        unit: roles.pair_unit(me),
                        host: &roles.hosts[me],
                        rank: me,
                    },
                    PairEnd {
                        unit: roles.pair_unit(other),
                        host: &roles.hosts[other],
                        rank: other,
                    },
                ],
                bytes,
                trips,
                rule,
            );
            let mut record = Record {
                benchmark: benchmark::MPI_PINGPONG.into(),
                metric: metric.into(),
                value,
                unit,
                params,
                placement: Placement::default(),
                stats: sample.summary(),
            };
            let origin = Origin {
                host: roles.hosts[me].clone(),
                rank: me as i32,
            };
            origin.tag(&mut record, &roles.pair_unit(me), "pingpong", None);
            send(record);
        }
        Ok(())
    }

    /// The ranks that take part in the ping-pong: one per host (its
    /// leader), or every rank with `--per rank`.
    fn pingpong_participants(&self, roles: &Roles) -> Vec<usize> {
        roles.measuring()
    }
}

/// The attempt a retest's records carry (`params.attempt`; first
/// attempts carry none).
const RETEST_ATTEMPT: u32 = 2;

/// Runs `part` on this host and hands over each record tagged (with
/// `params.attempt` when it is a retest).
fn measure_tagged(
    context: &Context,
    config: &ClusterConfig,
    roles: &Roles,
    origin: &Origin,
    part: Part,
    attempt: u32,
    send: &mut dyn FnMut(Record),
) -> Result<(), crate::bench::BenchError> {
    let sizing = Sizing {
        per: config.per,
        size: config.size,
    };
    let rank = origin.rank as usize;
    measure_part(
        context,
        part,
        sizing,
        config.baseline.as_ref(),
        &mut |measured: Measured| {
            let Measured {
                mut record,
                node,
                key,
            } = measured;
            origin.tag(&mut record, &roles.unit(rank, node), part.name(), key);
            if attempt > 1 {
                super::tags::mark_attempt(&mut record, attempt);
            }
            send(record);
        },
    )
}

/// What rank 0 keeps while it gathers.
struct Root<'a> {
    session: &'a ClusterSession,
    roles: Roles,
    config: &'a ClusterConfig,
    context: &'a Context,
    pipeline: &'a mut Pipeline,
    records: Vec<Record>,
    failures: Vec<Failure>,
    /// Ranks left behind (silent past the timeout).
    abandoned: Vec<usize>,
    /// The units measured again before the verdict, with their parts.
    retested: Vec<String>,
}

impl Root<'_> {
    fn keep(&mut self, record: Record) -> Result<(), OutputError> {
        self.pipeline.emit(&record)?;
        self.records.push(record);
        Ok(())
    }

    fn fail(&mut self, rank: usize, part: Option<String>, error: String) {
        self.failures.push(Failure {
            host: self.roles.hosts[rank].clone(),
            rank: rank as i32,
            part,
            error,
        });
    }

    fn run(&mut self) -> Result<ClusterOutcome, OutputError> {
        let measuring = self.roles.measuring();
        let others: Vec<usize> = measuring.iter().copied().filter(|&r| r != 0).collect();
        if measuring.contains(&0) {
            self.measure_own()?;
        }
        if self.config.sequential {
            for &rank in &others {
                let process = self.session.world.process_at_rank(rank as i32);
                process.send_with_tag(&[0u8][..], TAG_GO);
                self.gather(&[rank], self.config.timeout)?;
            }
        } else {
            self.gather(&others, self.config.timeout)?;
        }
        self.retest_suspects()?;
        if self.config.parts.contains(&Part::Pingpong) {
            self.pingpong()?;
        }
        for rank in 1..self.roles.hosts.len() {
            if !self.abandoned.contains(&rank) {
                let process = self.session.world.process_at_rank(rank as i32);
                process.send_with_tag(&encode(&Command::Finish)[..], TAG_COMMAND);
            }
        }
        let idle: Vec<String> = (0..self.roles.hosts.len())
            .filter(|&rank| !self.roles.measures(rank))
            .map(|rank| format!("{} (rank {rank})", self.roles.hosts[rank]))
            .collect();
        let mut verdict = analyze(
            &self.records,
            std::mem::take(&mut self.failures),
            idle,
            &self.config.rule,
        );
        verdict.retested = std::mem::take(&mut self.retested);
        if let Some(baseline) = &self.config.baseline {
            verdict.baseline = super::check_part::compare_with_baseline(&self.records, baseline);
        }
        for record in verdict.records(&self.config.rule) {
            self.pipeline.emit(&record)?;
        }
        Ok(ClusterOutcome {
            verdict: Some(verdict),
            abandoned: !self.abandoned.is_empty(),
            records: std::mem::take(&mut self.records),
        })
    }

    fn measure_own(&mut self) -> Result<(), OutputError> {
        let parts = self.config.parts.clone();
        self.measure_own_parts(&parts, 1)
    }

    /// Rank 0 measures `parts` on its own host (attempt `attempt`).
    fn measure_own_parts(&mut self, parts: &[Part], attempt: u32) -> Result<(), OutputError> {
        let origin = Origin {
            host: self.roles.hosts[0].clone(),
            rank: 0,
        };
        for &part in parts {
            let mut written: Result<(), OutputError> = Ok(());
            let result = {
                let pipeline = &mut *self.pipeline;
                let records = &mut self.records;
                measure_tagged(
                    self.context,
                    self.config,
                    &self.roles,
                    &origin,
                    part,
                    attempt,
                    &mut |record| {
                        if written.is_ok() {
                            written = pipeline.emit(&record);
                        }
                        records.push(record);
                    },
                )
            };
            written?;
            if let Err(error) = result {
                self.fail(0, Some(part.name().to_string()), error.to_string());
            }
        }
        Ok(())
    }

    /// Receives from `ranks` until each says done; a rank silent for
    /// longer than `limit` is failed and left behind. Rank 0 waits without
    /// spinning (it shares its host with the ranks it waits for).
    fn gather(&mut self, ranks: &[usize], limit: Duration) -> Result<(), OutputError> {
        let mut pending: Vec<usize> = ranks.to_vec();
        while !pending.is_empty() {
            let any = self.session.world.any_process();
            let Ok((bytes, status)) = wait::receive(&any, None, Wait::within(limit, Pace::Idle))
            else {
                for rank in std::mem::take(&mut pending) {
                    let error = format!(
                        "no answer within {} s (stopped, hung or died)",
                        limit.as_secs()
                    );
                    self.fail(rank, None, error);
                    self.abandoned.push(rank);
                }
                break;
            };
            let source = status.source_rank() as usize;
            match status.tag() {
                TAG_RECORD => match serde_json::from_slice::<Record>(&bytes) {
                    Ok(record) => self.keep(record)?,
                    Err(error) => self.fail(source, None, format!("unreadable record: {error}")),
                },
                TAG_FAIL => {
                    let message =
                        serde_json::from_slice::<FailMessage>(&bytes).unwrap_or(FailMessage {
                            part: None,
                            error: "unreadable failure message".into(),
                            silent: None,
                        });
                    match message.silent {
                        Some(silent) if silent < self.roles.hosts.len() => {
                            self.fail(silent, message.part, message.error);
                            if !self.abandoned.contains(&silent) {
                                self.abandoned.push(silent);
                            }
                        }
                        _ => self.fail(source, message.part, message.error),
                    }
                }
                TAG_DONE => pending.retain(|&rank| rank != source),
                // Only restarts the wait: the sender is still measuring.
                TAG_ALIVE => {}
                _ => {}
            }
        }
        Ok(())
    }

    /// The suspects after the host parts, each with the parts to measure
    /// again: units the outlier rule flags (the parts of their flagged
    /// keys) and, with `--baseline`, hosts outside it (the check part); by
    /// rank, ranks left behind not among them.
    fn suspects_of_host_parts(&self) -> Vec<(usize, Vec<Part>)> {
        let mut suspects: Vec<(usize, Vec<Part>)> = Vec::new();
        let mut add = |rank: usize, part: Part| {
            if self.abandoned.contains(&rank) || !self.config.parts.contains(&part) {
                return;
            }
            match suspects.iter_mut().find(|(suspect, _)| *suspect == rank) {
                Some((_, parts)) if parts.contains(&part) => {}
                Some((_, parts)) => parts.push(part),
                None => suspects.push((rank, vec![part])),
            }
        };
        let verdict = analyze(&self.records, Vec::new(), Vec::new(), &self.config.rule);
        for outlier in &verdict.outliers {
            let flagged = self.records.iter().map(labels).find(|labels| {
                labels.unit.as_ref() == Some(&outlier.unit)
                    && labels.cluster_key.as_ref() == Some(&outlier.key)
            });
            let Some(labels) = flagged else { continue };
            let rank = labels.rank.and_then(|rank| u64::try_from(rank).ok());
            let part = labels.part.as_deref().and_then(Part::by_name);
            if let (Some(rank), Some(part)) = (rank, part) {
                if part != Part::Topo && part != Part::Pingpong {
                    add(rank as usize, part);
                }
            }
        }
        if let Some(baseline) = &self.config.baseline {
            for finding in super::check_part::compare_with_baseline(&self.records, baseline) {
                add(finding.rank as usize, Part::Check);
            }
        }
        for (_, parts) in &mut suspects {
            parts.sort_unstable();
        }
        suspects.sort_by_key(|(rank, _)| *rank);
        suspects
    }

    /// Has every suspect of the host parts measure its suspect parts again
    /// (all at once, or one after another with `--sequential`), so that
    /// the verdict can take each unit's better attempt.
    fn retest_suspects(&mut self) -> Result<(), OutputError> {
        let suspects = self.suspects_of_host_parts();
        for (rank, parts) in &suspects {
            let names: Vec<&str> = parts.iter().map(|part| part.name()).collect();
            self.retested.push(format!(
                "{} ({})",
                self.roles.unit(*rank, None),
                names.join(", ")
            ));
        }
        let mut others = Vec::new();
        for (rank, parts) in suspects {
            if rank == 0 {
                self.measure_own_parts(&parts, RETEST_ATTEMPT)?;
                continue;
            }
            let command = Command::Retest {
                parts: parts.iter().map(|part| part.name().to_string()).collect(),
            };
            let process = self.session.world.process_at_rank(rank as i32);
            process.send_with_tag(&encode(&command)[..], TAG_COMMAND);
            if self.config.sequential {
                self.gather(&[rank], self.config.timeout)?;
            } else {
                others.push(rank);
            }
        }
        self.gather(&others, self.config.timeout)
    }

    /// The ping-pong: every pair one at a time (the lower rank measures,
    /// the higher echoes); or in rounds of disjoint pairs at once, then
    /// each suspect (an outlier of the host-to-host figures) measured again
    /// with fresh partners before the summaries name anyone.
    fn pingpong(&mut self) -> Result<(), OutputError> {
        let participants = self.session.pingpong_participants(&self.roles);
        let n = participants.len();
        let mut pair_records = Vec::new();
        let repeat = self.context.repeat.max(1);
        if self.config.uses_rounds(n, repeat) {
            let mut done = Vec::new();
            for round in pingpong_rounds(n) {
                pair_records.extend(self.run_pairs(&participants, &round)?);
                done.extend(round);
            }
            let suspects = self.suspects(&participants, &pair_records);
            let again = recheck_pairs(n, &done, &suspects, RECHECK_PARTNERS);
            for pair in again {
                pair_records.extend(self.run_pairs(&participants, &[pair])?);
            }
        } else {
            for pair in pingpong_pairs(n) {
                pair_records.extend(self.run_pairs(&participants, &[pair])?);
            }
        }
        for summary in pingpong_summaries(&pair_records) {
            self.keep(summary)?;
        }
        Ok(())
    }

    /// The participants (indices) whose host-to-host summaries the
    /// outlier rule flags so far.
    fn suspects(&self, participants: &[usize], pair_records: &[Record]) -> Vec<usize> {
        let summaries = pingpong_summaries(pair_records);
        let mut suspects = Vec::new();
        for key in ["pingpong latency", "pingpong bandwidth"] {
            let of_key: Vec<&Record> = summaries
                .iter()
                .filter(|record| labels(record).cluster_key.as_deref() == Some(key))
                .collect();
            let values: Vec<f64> = of_key.iter().map(|record| record.value).collect();
            for deviation in self.config.rule.outliers(&values) {
                let rank = of_key[deviation.index]
                    .params_or_default::<PingpongBestPartnerParams>()
                    .rank;
                if let Some(index) =
                    rank.and_then(|rank| participants.iter().position(|&p| p as u64 == rank))
                {
                    if !suspects.contains(&index) {
                        suspects.push(index);
                    }
                }
            }
        }
        suspects
    }

    /// Measures `pairs` (indices into `participants`, lower first) at once:
    /// every echo and leader told, rank 0 leading its own pair, then every
    /// other leader's records gathered. Pairs with a rank left behind are
    /// skipped. Returns the pair records made.
    fn run_pairs(
        &mut self,
        participants: &[usize],
        pairs: &[(usize, usize)],
    ) -> Result<Vec<Record>, OutputError> {
        let command = |peer: usize, lead: bool| {
            encode(&Command::Pair {
                peer: peer as i32,
                lead,
            })
        };
        let before = self.records.len();
        let mut leaders = Vec::new();
        let mut own = None;
        for &(a, b) in pairs {
            let (lead, echo) = (participants[a], participants[b]);
            if self.abandoned.contains(&lead) || self.abandoned.contains(&echo) {
                continue;
            }
            let world = &self.session.world;
            world
                .process_at_rank(echo as i32)
                .send_with_tag(&command(lead, false)[..], TAG_COMMAND);
            if lead == 0 {
                own = Some(echo);
            } else {
                world
                    .process_at_rank(lead as i32)
                    .send_with_tag(&command(echo, true)[..], TAG_COMMAND);
                leaders.push(lead);
            }
        }
        if let Some(echo) = own {
            let mut made = Vec::new();
            let led = self.session.lead_pingpong(
                self.context,
                self.config,
                &self.roles,
                echo as i32,
                &mut |record| made.push(record),
            );
            for record in made {
                self.keep(record)?;
            }
            if led.is_err() {
                let error = silent_error(0, self.config.timeout);
                self.fail(echo, Some("pingpong".to_string()), error);
                self.abandoned.push(echo);
            }
        }
        if !leaders.is_empty() {
            // A leader times out each exchange after `timeout` and names a
            // silent echo, and says it is alive every quarter of `timeout`
            // while it measures; twice `timeout` without a word from a
            // leader and the leader itself is named.
            self.gather(&leaders, 2 * self.config.timeout)?;
        }
        Ok(self.records[before..]
            .iter()
            .filter(|record| record.benchmark == benchmark::MPI_PINGPONG)
            .cloned()
            .collect())
    }
}
