//! The monitor's profile: what each rank measured ([`RankProfile`], its
//! call types' [`CallProfile`]s, gathered to rank 0 as JSON) and the JSON
//! Lines rank 0 writes from them (the shared record schema,
//! `docs/results.md`): one metadata line, per-rank records, then per-host
//! TLP records. No MPI here.

use numabench_schema::params::{
    to_params, MonitorBufferParams, MonitorCallParams, MonitorHostParams, MonitorRankParams,
    BUFFER_LOCAL_SHARE, CALL_METRICS, TLP_PREFIX,
};
use numabench_schema::{
    benchmark, Line, MachineFacts, Placement, Record, RunMetadata, Summary, Unit,
    TYPED_LINES_SCHEMA_VERSION,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Messages smaller than this many bytes are small.
pub const SMALL_LIMIT: u64 = 1024;
/// Messages larger than this many bytes are large.
pub const LARGE_LIMIT: u64 = 1024 * 1024;

/// How a host's `cores` is obtained (the records' `cores_method`).
pub const CORES_METHOD: &str = "sampled_cpu";

/// A sent message's size class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeClass {
    /// Under 1 KiB.
    Small,
    /// 1 KiB to 1 MiB.
    Medium,
    /// Over 1 MiB.
    Large,
}

impl SizeClass {
    /// The class of a message of `bytes` bytes.
    pub fn of(bytes: u64) -> Self {
        if bytes < SMALL_LIMIT {
            SizeClass::Small
        } else if bytes > LARGE_LIMIT {
            SizeClass::Large
        } else {
            SizeClass::Medium
        }
    }
}

/// TLP_N of a host: the share of `total_ns` during which at least
/// `n * cores` of its ranks were outside blocking MPI calls.
/// `level_ns[k]` is the time during which exactly `k` ranks were outside
/// (one level per count, 0..=ranks on the host: a threshold above the
/// host's ranks is never reached, so its TLP is 0).
pub fn tlp(level_ns: &[u64], total_ns: u64, cores: usize, n: usize) -> Option<f64> {
    if total_ns == 0 {
        return None;
    }
    let threshold = n * cores;
    let time: u64 = level_ns.iter().skip(threshold).sum();
    Some(time as f64 / total_ns as f64)
}

/// The host table's time-at-level accounting, as its first local rank
/// read it at MPI_Finalize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLevels {
    /// Nanoseconds spent with exactly k ranks outside blocking MPI.
    pub level_ns: Vec<u64>,
    /// Monitored wall time of the host, nanoseconds.
    pub total_ns: u64,
}

/// One call type's figures in a rank's profile ([`crate::calls`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CallProfile {
    /// The C name (`MPI_Send`), whichever binding the program called.
    pub call: String,
    pub count: u64,
    /// Seconds inside the calls.
    pub time: f64,
    /// The bytes their count and datatype arguments named.
    pub bytes: u64,
}

/// Everything one rank measured, gathered to rank 0 at MPI_Finalize.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RankProfile {
    pub host: String,
    pub rank: i64,
    pub ranks: i64,
    pub local_rank: i64,
    /// MPI_COMM_WORLD rank of the host's first local rank: which ranks
    /// share a host table.
    pub leader: i64,
    pub cpus_allowed: Vec<u32>,
    pub core_keys: Vec<u64>,
    /// The CPUs the rank was seen running on (sched_getcpu on entering
    /// blocking MPI, one entry in 16, and at the start), and their cores.
    pub cpus_ran: Vec<u32>,
    pub ran_core_keys: Vec<u64>,
    pub program: String,
    pub wall_time: f64,
    pub p2p_time: f64,
    pub wait_time: f64,
    pub collective_time: f64,
    pub small_messages: u64,
    pub medium_messages: u64,
    pub large_messages: u64,
    pub bytes_sent: u64,
    pub user_time: f64,
    pub system_time: f64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    /// Only on a host's first local rank, when the host table worked.
    pub host_levels: Option<HostLevels>,
    /// The call types the rank called while profiled, in [`crate::calls::CALLS`]
    /// order (none in a partial snapshot).
    pub calls: Vec<CallProfile>,
    /// Where its large send and receive buffers were (none in a partial
    /// snapshot).
    pub buffers: crate::buffers::BufferPages,
}

impl RankProfile {
    /// Blocking MPI time, every class.
    pub fn mpi_time(&self) -> f64 {
        self.p2p_time + self.wait_time + self.collective_time
    }

    /// The profile as JSON, for gathering: its fields in order, the
    /// buffers as one array of five counts.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a profile is JSON")
    }

    /// Reads back [`RankProfile::to_json`]; `None` when something is
    /// missing or of another type.
    pub fn from_json(value: &Value) -> Option<Self> {
        Self::deserialize(value).ok()
    }
}

/// The metadata line's fields (numabench's run metadata, tool
/// `numabench-mpi-monitor`).
pub fn metadata_line(command_line: &[String], host: &str, utc_time: &str) -> Value {
    let facts = MachineFacts::read();
    let metadata = RunMetadata {
        tool: "numabench-mpi-monitor".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        // Not recorded: the monitor is built without the library's build
        // script (an empty commit is not written).
        commit: String::new(),
        // Its lines are version 1's: a metadata line, then typed records.
        schema_version: TYPED_LINES_SCHEMA_VERSION,
        command_line: command_line.to_vec(),
        host: host.to_string(),
        kernel: facts.kernel,
        cpu_model: facts.cpu_model,
        topology: String::new(),
        utc_time: utc_time.to_string(),
    };
    serde_json::to_value(Line::Metadata(metadata)).expect("metadata is JSON")
}

/// One `mpi-monitor` record: a single observation, so every statistic is
/// the value itself.
fn record(metric: &str, value: f64, unit: Unit, params: Map<String, Value>) -> Value {
    let record = Record {
        benchmark: benchmark::MPI_MONITOR.to_string(),
        metric: metric.to_string(),
        value,
        unit,
        params,
        placement: Placement::default(),
        stats: Summary::single(value),
    };
    serde_json::to_value(Line::Record { record }).expect("a record is JSON")
}

/// The records of every rank (in rank order), then of every host (in
/// order of their first rank).
pub fn records(profiles: &[RankProfile]) -> Vec<Value> {
    let mut sorted: Vec<&RankProfile> = profiles.iter().collect();
    sorted.sort_by_key(|profile| profile.rank);
    let mut lines = Vec::new();
    for profile in &sorted {
        let rank = MonitorRankParams {
            host: Some(profile.host.clone()),
            rank: Some(profile.rank),
            ranks: Some(profile.ranks),
            local_rank: Some(profile.local_rank),
            cpus_allowed: Some(profile.cpus_allowed.clone()),
            cpus_ran: Some(profile.cpus_ran.clone()),
            program: Some(profile.program.clone()),
        };
        let params = to_params(&rank);
        let share = if profile.wall_time > 0.0 {
            profile.mpi_time() / profile.wall_time
        } else {
            0.0
        };
        let metrics: [(&str, f64, Unit); 14] = [
            ("wall_time", profile.wall_time, Unit::Seconds),
            ("mpi_time", profile.mpi_time(), Unit::Seconds),
            ("p2p_time", profile.p2p_time, Unit::Seconds),
            ("wait_time", profile.wait_time, Unit::Seconds),
            ("collective_time", profile.collective_time, Unit::Seconds),
            ("mpi_share", share, Unit::Ratio),
            ("small_messages", profile.small_messages as f64, Unit::Count),
            (
                "medium_messages",
                profile.medium_messages as f64,
                Unit::Count,
            ),
            ("large_messages", profile.large_messages as f64, Unit::Count),
            ("bytes_sent", profile.bytes_sent as f64, Unit::Count),
            ("user_time", profile.user_time, Unit::Seconds),
            ("system_time", profile.system_time, Unit::Seconds),
            (
                "voluntary_switches",
                profile.voluntary_switches as f64,
                Unit::Count,
            ),
            (
                "involuntary_switches",
                profile.involuntary_switches as f64,
                Unit::Count,
            ),
        ];
        for (metric, value, unit) in metrics {
            lines.push(record(metric, value, unit, params.clone()));
        }
        let buffers = &profile.buffers;
        let answered = buffers.local + buffers.remote;
        if answered > 0 {
            let params = to_params(&MonitorBufferParams {
                rank,
                pages_local: Some(buffers.local),
                pages_remote: Some(buffers.remote),
                pages_absent: Some(buffers.absent),
                large_buffers: Some(buffers.large_buffers),
                sampled_buffers: Some(buffers.sampled_buffers),
                min_buffer_bytes: Some(crate::buffers::SAMPLE_BYTES),
            });
            lines.push(record(
                BUFFER_LOCAL_SHARE,
                buffers.local as f64 / answered as f64,
                Unit::Ratio,
                params,
            ));
        }
    }
    lines.extend(call_records(&sorted));
    let mut leaders: Vec<i64> = sorted.iter().map(|profile| profile.leader).collect();
    leaders.dedup();
    let mut seen = std::collections::BTreeSet::new();
    for leader in leaders.into_iter().filter(|leader| seen.insert(*leader)) {
        let members: Vec<&&RankProfile> = sorted
            .iter()
            .filter(|profile| profile.leader == leader)
            .collect();
        let Some(levels) = members
            .iter()
            .find_map(|profile| profile.host_levels.as_ref())
        else {
            continue;
        };
        let allowed = crate::cores::distinct_cores(
            members
                .iter()
                .flat_map(|profile| profile.core_keys.iter().copied()),
        );
        let sampled = crate::cores::distinct_cores(
            members
                .iter()
                .flat_map(|profile| profile.ran_core_keys.iter().copied()),
        );
        // The cores the ranks ran on: those they were seen on, at most one
        // per rank (a rank that migrated was seen on several, but ran on
        // one at a time).
        let cores = sampled.min(members.len()).max(1);
        let params = to_params(&MonitorHostParams {
            host: Some(members[0].host.clone()),
            ranks_on_host: Some(members.len() as u64),
            cores: Some(cores as u64),
            cores_method: Some(CORES_METHOD.to_string()),
            cores_sampled: Some(sampled as u64),
            cores_allowed: Some(allowed as u64),
        });
        for n in 1..=4 {
            if let Some(value) = tlp(&levels.level_ns, levels.total_ns, cores, n) {
                lines.push(record(
                    &format!("{TLP_PREFIX}{n}"),
                    value,
                    Unit::Ratio,
                    params.clone(),
                ));
            }
        }
    }
    lines
}

/// One figure of a [`CallProfile`].
type CallFigure = fn(&CallProfile) -> f64;

/// The per call type records of a job, as mpiP's aggregate tables give
/// them: for every call type any rank called, `call_time` (seconds),
/// `call_count` and `call_bytes`, each the total over the job's ranks,
/// with `rank_min`, `rank_mean` and `rank_max` over every rank (0 for a
/// rank that never called it), `ranks` and `ranks_calling`; `call_time`
/// also has `mpi_share` (of every call type's time) and `app_share` (of
/// the ranks' wall time added up). Ordered by total time, longest first.
fn call_records(profiles: &[&RankProfile]) -> Vec<Value> {
    let mut names: Vec<&str> = Vec::new();
    for profile in profiles {
        for call in &profile.calls {
            if !names.contains(&call.call.as_str()) {
                names.push(&call.call);
            }
        }
    }
    let per_rank = |name: &str, figure: fn(&CallProfile) -> f64| -> Vec<f64> {
        profiles
            .iter()
            .map(|profile| {
                profile
                    .calls
                    .iter()
                    .find(|call| call.call == name)
                    .map_or(0.0, figure)
            })
            .collect()
    };
    let all_calls: f64 = profiles
        .iter()
        .flat_map(|profile| profile.calls.iter().map(|call| call.time))
        .sum();
    let all_wall: f64 = profiles.iter().map(|profile| profile.wall_time).sum();
    let total_time = |name: &str| per_rank(name, |call| call.time).iter().sum::<f64>();
    names.sort_by(|a, b| total_time(b).total_cmp(&total_time(a)));
    let mut lines = Vec::new();
    for name in names {
        let [time, count, bytes] = CALL_METRICS;
        let figures: [(&str, CallFigure, Unit); 3] = [
            (time, |call| call.time, Unit::Seconds),
            (count, |call| call.count as f64, Unit::Count),
            (bytes, |call| call.bytes as f64, Unit::Count),
        ];
        for (metric, figure, unit) in figures {
            let values = per_rank(name, figure);
            let total: f64 = values.iter().sum();
            let share = |whole: f64| if whole > 0.0 { total / whole } else { 0.0 };
            let is_time = metric == time;
            let params = to_params(&MonitorCallParams {
                call: Some(name.to_string()),
                ranks: Some(values.len() as u64),
                ranks_calling: Some(
                    per_rank(name, |call| call.count as f64)
                        .iter()
                        .filter(|count| **count > 0.0)
                        .count() as u64,
                ),
                rank_min: Some(values.iter().copied().fold(f64::INFINITY, f64::min)),
                rank_mean: Some(total / values.len() as f64),
                rank_max: Some(values.iter().copied().fold(0.0, f64::max)),
                mpi_share: is_time.then(|| share(all_calls)),
                app_share: is_time.then(|| share(all_wall)),
            });
            lines.push(record(metric, total, unit, params));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn size_classes_have_their_documented_edges() {
        assert_eq!(SizeClass::of(0), SizeClass::Small);
        assert_eq!(SizeClass::of(1023), SizeClass::Small);
        assert_eq!(SizeClass::of(1024), SizeClass::Medium);
        assert_eq!(SizeClass::of(1024 * 1024), SizeClass::Medium);
        assert_eq!(SizeClass::of(1024 * 1024 + 1), SizeClass::Large);
    }

    #[test]
    fn tlp_counts_time_with_enough_ranks_outside() {
        // 2 ranks, 1 core: 10 ns with none outside, 30 with one, 60 with two.
        let levels = [10, 30, 60];
        assert_eq!(tlp(&levels, 100, 1, 1), Some(0.9));
        assert_eq!(tlp(&levels, 100, 1, 2), Some(0.6));
        assert_eq!(tlp(&levels, 100, 1, 3), Some(0.0));
        // 2 cores: TLP_1 needs both ranks outside.
        assert_eq!(tlp(&levels, 100, 2, 1), Some(0.6));
        assert_eq!(tlp(&levels, 0, 1, 1), None);
    }

    /// Issue 21 item 7: 192 cores, 400 ranks, all outside for 60 of 100
    /// ns and 300 outside for the rest. TLP_2 (384 outside) is 0.6, and
    /// TLP_3 (576, more ranks than the host has) is 0, where a table
    /// clamped at 256 gave 1.0 for both.
    #[test]
    fn tlp_is_exact_above_256_ranks_outside() {
        let mut levels = vec![0; 401];
        levels[400] = 60;
        levels[300] = 40;
        assert_eq!(tlp(&levels, 100, 192, 1), Some(1.0));
        assert_eq!(tlp(&levels, 100, 192, 2), Some(0.6));
        assert_eq!(tlp(&levels, 100, 192, 3), Some(0.0));
    }

    fn profile(rank: i64, leader: i64, host: &str) -> RankProfile {
        RankProfile {
            host: host.into(),
            rank,
            ranks: 3,
            leader,
            core_keys: vec![rank as u64, 100],
            cpus_ran: vec![rank as u32],
            ran_core_keys: vec![rank as u64],
            wall_time: 2.0,
            p2p_time: 0.5,
            wait_time: 0.25,
            collective_time: 0.25,
            small_messages: 3,
            host_levels: (rank == leader).then(|| HostLevels {
                level_ns: vec![0, 25, 75],
                total_ns: 100,
            }),
            calls: vec![CallProfile {
                call: "MPI_Recv".into(),
                count: 2 + rank as u64,
                time: 0.5,
                bytes: 0,
            }],
            buffers: crate::buffers::BufferPages {
                local: if rank == 0 { 3 } else { 0 },
                remote: if rank == 0 { 1 } else { 0 },
                ..Default::default()
            },
            ..RankProfile::default()
        }
    }

    #[test]
    fn profiles_survive_the_gather_encoding() {
        let original = profile(0, 0, "a");
        assert_eq!(RankProfile::from_json(&original.to_json()), Some(original));
        assert_eq!(RankProfile::from_json(&json!({"host": "a"})), None);
    }

    /// The gather text is what the hand-written encoding wrote: every
    /// field in order, the host levels as an object (null without), each
    /// call as an object, the buffers as one array of five counts.
    #[test]
    fn the_gather_text_keeps_its_keys_in_order() {
        let text = profile(0, 0, "a").to_json().to_string();
        assert_eq!(
            text,
            concat!(
                r#"{"host":"a","rank":0,"ranks":3,"local_rank":0,"leader":0,"cpus_allowed":[],"#,
                r#""core_keys":[0,100],"cpus_ran":[0],"ran_core_keys":[0],"program":"","#,
                r#""wall_time":2.0,"p2p_time":0.5,"wait_time":0.25,"collective_time":0.25,"#,
                r#""small_messages":3,"medium_messages":0,"large_messages":0,"bytes_sent":0,"#,
                r#""user_time":0.0,"system_time":0.0,"voluntary_switches":0,"#,
                r#""involuntary_switches":0,"host_levels":{"level_ns":[0,25,75],"total_ns":100},"#,
                r#""calls":[{"call":"MPI_Recv","count":2,"time":0.5,"bytes":0}],"#,
                r#""buffers":[3,1,0,0,0]}"#
            )
        );
        let text = profile(1, 0, "a").to_json().to_string();
        assert!(text.contains(r#""host_levels":null,"#), "{text}");
    }

    #[test]
    fn the_metadata_line_keeps_its_fields_in_order() {
        let line = metadata_line(&["prog".to_string()], "h", "2026-11-21T23:52:00Z");
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "type",
                "tool",
                "version",
                "schema_version",
                "command_line",
                "host",
                "kernel",
                "cpu_model",
                "topology",
                "utc_time"
            ]
        );
        assert_eq!(line["tool"], "numabench-mpi-monitor");
        assert_eq!(line["schema_version"], 1);
    }

    /// Each kind of record's params, as text: the keys in the order the
    /// monitor always wrote them (a rank's, its buffers', a call type's
    /// and a host's).
    #[test]
    fn each_kind_of_record_keeps_its_params_text() {
        let profiles = [profile(2, 2, "b"), profile(0, 0, "a"), profile(1, 0, "a")];
        let lines = records(&profiles);
        let params_of = |metric: &str| {
            lines
                .iter()
                .find(|line| line["metric"] == metric)
                .map(|line| line["params"].to_string())
                .unwrap()
        };
        let rank = r#""host":"a","rank":0,"ranks":3,"local_rank":0,"cpus_allowed":[],"cpus_ran":[0],"program":"""#;
        assert_eq!(params_of("wall_time"), format!("{{{rank}}}"));
        assert_eq!(
            params_of("buffer_local_share"),
            format!(
                "{{{rank},{}}}",
                r#""pages_local":3,"pages_remote":1,"pages_absent":0,"large_buffers":0,"sampled_buffers":0,"min_buffer_bytes":16384"#
            )
        );
        assert_eq!(
            params_of("call_time"),
            r#"{"call":"MPI_Recv","ranks":3,"ranks_calling":3,"rank_min":0.5,"rank_mean":0.5,"rank_max":0.5,"mpi_share":1.0,"app_share":0.25}"#
        );
        assert_eq!(
            params_of("call_bytes"),
            r#"{"call":"MPI_Recv","ranks":3,"ranks_calling":3,"rank_min":0.0,"rank_mean":0.0,"rank_max":0.0}"#
        );
        assert_eq!(
            params_of("tlp_1"),
            r#"{"host":"a","ranks_on_host":2,"cores":2,"cores_method":"sampled_cpu","cores_sampled":2,"cores_allowed":3}"#
        );
    }

    #[test]
    fn records_follow_the_shared_contract() {
        let profiles = [profile(2, 2, "b"), profile(0, 0, "a"), profile(1, 0, "a")];
        let lines = records(&profiles);
        // 14 per-rank metrics x 3 ranks, rank 0's buffer share (the others
        // sampled no page), 3 for the one call type, then tlp_1..4 for each
        // of 2 hosts.
        assert_eq!(lines.len(), 14 * 3 + 1 + 3 + 8);
        let buffers: Vec<&Value> = lines
            .iter()
            .filter(|line| line["metric"] == "buffer_local_share")
            .collect();
        assert_eq!(buffers.len(), 1);
        assert_eq!(buffers[0]["value"], 0.75);
        assert_eq!(buffers[0]["params"]["rank"], 0);
        assert_eq!(buffers[0]["params"]["pages_remote"], 1);
        assert_eq!(lines[0]["params"]["rank"], 0);
        let share = lines
            .iter()
            .find(|line| line["metric"] == "mpi_share")
            .unwrap();
        assert_eq!(share["value"], 0.5);
        assert_eq!(share["unit"], "ratio");
        assert_eq!(share["stats"]["p99"], 0.5);
        assert_eq!(share["type"], "record");
        assert_eq!(share["benchmark"], "mpi-monitor");
        assert_eq!(
            share["placement"],
            json!({"requested": {}, "verified": null})
        );
        let count = lines
            .iter()
            .find(|line| line["metric"] == "call_count")
            .unwrap();
        assert_eq!(count["params"]["call"], "MPI_Recv");
        assert_eq!(count["value"], 9.0);
        assert_eq!(count["params"]["rank_min"], 2.0);
        assert_eq!(count["params"]["rank_max"], 4.0);
        assert_eq!(count["params"]["ranks_calling"], 3);
        let time = lines
            .iter()
            .find(|line| line["metric"] == "call_time")
            .unwrap();
        assert_eq!(time["params"]["mpi_share"], 1.0);
        assert_eq!(time["params"]["app_share"], 0.25);
        let host_a: Vec<&Value> = lines
            .iter()
            .filter(|line| line["params"]["host"] == "a" && line["params"].get("cores").is_some())
            .collect();
        assert_eq!(host_a.len(), 4);
        assert_eq!(host_a[0]["params"]["ranks_on_host"], 2);
        // Ranks 0 and 1 were seen on one core each; each may run on 2 (its
        // own and core 100): 3 allowed, 2 counted.
        assert_eq!(host_a[0]["params"]["cores"], 2);
        assert_eq!(host_a[0]["params"]["cores_allowed"], 3);
        assert_eq!(host_a[0]["params"]["cores_method"], "sampled_cpu");
        // Two cores: TLP_1 needs both ranks outside (75 of 100 ns).
        assert_eq!(host_a[0]["metric"], "tlp_1");
        assert_eq!(host_a[0]["value"], 0.75);
    }
}
