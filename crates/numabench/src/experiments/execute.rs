//! Runs an application kernel under a placement scheme and a thread
//! scheme, repeatedly, and turns the runs into records.

use super::migration_cost::migration_cost_seconds;
use crate::bench::HUGE_PAGE_THRESHOLD;
use crate::clock::Stopwatch;
use crate::counters::{usage_now, Usage};
use crate::interrupt::interrupted;
use crate::memory::HugePageCheck;
use crate::output::{
    OutputError, Pipeline, Placement, PlacementCheck, PlacementStatus, Record, Unit,
};
use crate::runtime::{
    observation_params, plan_cpus, Observer, PageReport, PlacementScheme, RunObservation, Team,
    TeamError, ThreadScheme,
};
use crate::stats::Sample;
use crate::topology::Machine;
use crate::workloads::{AppKernel, Verification};
use numabench_schema::params::{
    to_params, AppConfiguration, AppRunParams, AppThreads, AppVerification, PagesParams,
};
use numabench_schema::{RequestedMemory, RequestedPlacement};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How to run a kernel.
#[derive(Debug, Clone)]
pub struct AppRunConfig {
    pub threads: usize,
    pub thread_scheme: ThreadScheme,
    pub placement: PlacementScheme,
    /// Workers per CPU (over-decomposition); 1 normally.
    pub threads_per_cpu: usize,
    pub repeat: usize,
    /// Fraction of pages that must sit where the scheme asks for the
    /// placement to count as achieved (the context's threshold).
    pub placement_threshold: f64,
    /// Explicit worker CPUs (`--cpus`, a node split), overriding the
    /// thread scheme's choice; each takes `threads_per_cpu` workers.
    pub cpus: Option<Vec<u32>>,
    /// The one-node baseline's outcome (`--baseline one-node`), reported
    /// in every record; `None`: not asked.
    pub one_node_baseline: Option<OneNodeBaseline>,
    /// Back the arrays with 2 MiB huge pages (hugetlbfs pools, else THP),
    /// as `--hugepages` does for the micro-benchmarks.
    pub hugepages: bool,
}

/// The one-node baseline of a configuration: the median time of the same
/// thread count with all threads and data on one node, or why it did not run.
#[derive(Debug, Clone, PartialEq)]
pub enum OneNodeBaseline {
    Ran {
        /// Median run time of the baseline (s).
        seconds: f64,
        /// The node it ran on and its workers' CPUs.
        node: u32,
        cpus: Vec<u32>,
    },
    NotRun(BaselineNotRun),
}

/// Why a configuration's one-node baseline does not run (its records say
/// so, and the configuration runs without it).
///
/// Fault: the user's (the thread count asked for).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaselineNotRun {
    /// No CPU is allowed to put the baseline's first worker on.
    #[error("not run: no allowed CPU")]
    NoCpu,
    /// The threads do not fit on one node.
    #[error("not run: {threads} threads do not fit on one node (max {max})")]
    DoesNotFit { threads: usize, max: usize },
}

crate::error::all_faulty!(Usage: BaselineNotRun);

/// The CPU of each worker: [`AppRunConfig::worker_cpus`].
pub fn worker_cpus(topology: &Machine, config: &AppRunConfig) -> Vec<Option<u32>> {
    config.worker_cpus(topology)
}

impl AppRunConfig {
    /// `threads` workers placed by `thread_scheme` with data placed by
    /// `placement`, one worker per CPU, one run, the usual 95% placement
    /// threshold, no explicit CPUs, no baseline, normal pages: set the rest
    /// with struct update syntax (`AppRunConfig { repeat: 3, ..new(..) }`).
    pub fn new(threads: usize, thread_scheme: ThreadScheme, placement: PlacementScheme) -> Self {
        AppRunConfig {
            threads,
            thread_scheme,
            placement,
            threads_per_cpu: 1,
            repeat: 1,
            placement_threshold: 0.95,
            cpus: None,
            one_node_baseline: None,
            hugepages: false,
        }
    }

    /// The CPU of each worker: the explicit [`AppRunConfig::cpus`], or the
    /// thread scheme's ([`plan_cpus`]).
    pub fn worker_cpus(&self, topology: &Machine) -> Vec<Option<u32>> {
        match &self.cpus {
            Some(cpus) if !cpus.is_empty() => (0..self.threads)
                .map(|worker| Some(cpus[(worker / self.threads_per_cpu.max(1)) % cpus.len()]))
                .collect(),
            _ => plan_cpus(
                topology,
                self.thread_scheme,
                self.threads,
                self.threads_per_cpu,
            ),
        }
    }
}

/// One run of a kernel.
#[derive(Debug, Clone)]
pub struct AppRun {
    pub iteration_seconds: Vec<f64>,
    pub total_seconds: f64,
    /// The first iteration's one-off work timed again after the run
    /// ([`AppKernel::repeat_prologue`]); `None` for kernels without any.
    pub prologue_seconds: Option<f64>,
    pub verification: Verification,
    pub pages_after_placement: PageReport,
    pub pages_after_run: PageReport,
    pub migrated_pages: u64,
    /// Pages next-touch left in place because it gave up on their array
    /// (a page could not be unprotected: `vm.max_map_count`).
    pub next_touch_unprotected_pages: u64,
    pub usage: Usage,
    pub extra_metrics: Vec<(String, f64, Unit)>,
    /// Parameters the kernel adds to its records.
    pub extra_params: Map<String, Value>,
    pub operations: f64,
    /// The CPU each worker was pinned to (`None`: unpinned).
    pub pinned_cpus: Vec<Option<u32>>,
    /// The CPU each worker ran on when the iterations ended.
    pub worker_cpus_after_run: Vec<u32>,
    /// Per-thread usage, TLP, numastat and perf counts of the run.
    pub observation: RunObservation,
    /// How much of the arrays got huge pages after the run (`None`: not
    /// asked for).
    pub huge_pages: Option<HugePageCheck>,
    /// Huge pages serial+migrate or next-touch moved to another node as
    /// huge pages (`None`: huge pages not asked for, or page flags not
    /// readable).
    pub huge_pages_migrated: Option<u64>,
}

impl AppRun {
    /// True when every pinned worker was still on its CPU after the run;
    /// `None` when no worker was pinned.
    pub fn workers_stayed_pinned(&self) -> Option<bool> {
        let pinned: Vec<(u32, u32)> = self
            .pinned_cpus
            .iter()
            .zip(&self.worker_cpus_after_run)
            .filter_map(|(pinned, &actual)| pinned.map(|cpu| (cpu, actual)))
            .collect();
        (!pinned.is_empty()).then(|| pinned.iter().all(|(cpu, actual)| cpu == actual))
    }
}

/// A note about a scheme that could not be applied as asked.
pub fn placement_note(placement: &PlacementScheme) -> Option<String> {
    if *placement != PlacementScheme::AutoNuma {
        return None;
    }
    match std::fs::read_to_string("/proc/sys/kernel/numa_balancing").map(|text| text.trim().to_string()) {
        // A bit mask: bit 0 is the balancing that moves pages to the tasks that use them (bit 1,
        // memory tiering, alone only promotes pages from slow to fast nodes).
        Ok(value) if value.parse::<u32>().is_ok_and(|mask| mask & 1 == 1) => None,
        Ok(value) => Some(format!(
            "automatic NUMA balancing is off (kernel.numa_balancing = {value}): the autonuma scheme ran as a plain serial initialisation"
        )),
        Err(_) => Some("this kernel has no automatic NUMA balancing: the autonuma scheme ran as a plain serial initialisation".into()),
    }
}

/// A note when next-touch gave up on some arrays, leaving `unprotected`
/// pages where the serial initialisation put them.
fn next_touch_note(unprotected: u64) -> Option<String> {
    (unprotected > 0).then(|| format!(
        "next-touch ran out of memory mappings (vm.max_map_count): {unprotected} pages were left where the serial initialisation put them"
    ))
}

/// Runs `kernel` once.
pub fn run_once(
    topology: &Machine,
    config: &AppRunConfig,
    kernel: &mut dyn AppKernel,
) -> Result<AppRun, TeamError> {
    let cpus = config.worker_cpus(topology);
    let mut team = Team::new(topology, cpus, config.placement.clone())?;
    if config.hugepages {
        team.use_huge_pages();
    }
    let mut observer = Observer::start(&team);
    kernel.setup(&team)?;
    let pages_after_placement = team.page_report()?;
    let huge_before = team.huge_snapshot();
    observer.start_timed();
    let before = usage_now();
    let total = Stopwatch::start();
    // The first iteration's time includes the start of the compute phase:
    // serial+migrate's move_pages calls happen there, so its migration cost
    // shows in the first iteration as next-touch's page faults do.
    let mut stopwatch = Stopwatch::start();
    let mut migrated_pages = team.start_compute()?;
    let mut iteration_seconds = Vec::with_capacity(kernel.iterations());
    for iteration in 0..kernel.iterations() {
        if iteration > 0 {
            stopwatch = Stopwatch::start();
        }
        kernel.iterate(&team, iteration);
        iteration_seconds.push(stopwatch.seconds());
    }
    let total_seconds = total.seconds();
    let usage = usage_now().since(&before);
    let observation = observer.finish();
    let worker_cpus_after_run = team.current_cpus();
    let next_touch = team.finish_compute();
    let prologue = Stopwatch::start();
    let prologue_seconds = kernel.repeat_prologue(&team).then(|| prologue.seconds());
    migrated_pages += next_touch.migrated_pages;
    let pages_after_run = team.page_report()?;
    let huge_pages = team.huge_page_check()?;
    let huge_pages_migrated = huge_before.and_then(|snapshot| snapshot.moved_as_huge());
    let verification = kernel.verify(&team);
    Ok(AppRun {
        iteration_seconds,
        total_seconds,
        prologue_seconds,
        verification,
        pages_after_placement,
        pages_after_run,
        migrated_pages,
        next_touch_unprotected_pages: next_touch.unprotected_pages,
        usage,
        extra_metrics: kernel.extra_metrics(),
        extra_params: kernel.extra_params(),
        operations: kernel.operations(),
        pinned_cpus: team.cpus().to_vec(),
        worker_cpus_after_run,
        observation,
        huge_pages,
        huge_pages_migrated,
    })
}

/// Repeats `run_once` with fresh kernels from `make` (stops early on
/// Ctrl-C).
pub fn run_repeated(
    topology: &Machine,
    config: &AppRunConfig,
    make: &dyn Fn() -> Box<dyn AppKernel>,
) -> Result<Vec<AppRun>, TeamError> {
    let mut runs = Vec::new();
    for _ in 0..config.repeat.max(1) {
        if interrupted() && !runs.is_empty() {
            break;
        }
        runs.push(run_once(topology, config, make().as_mut())?);
    }
    Ok(runs)
}

fn pages_params(report: &PageReport) -> PagesParams {
    PagesParams {
        pages_per_node: report.pages_per_node.clone(),
        not_present: report.not_present,
        remote_share: report.remote_share,
    }
}

/// A configuration's class, threads, data placement and thread scheme, as
/// its run records and its scaling ratios begin.
pub(super) fn app_configuration(
    topology: &Machine,
    class: Option<&str>,
    config: &AppRunConfig,
) -> AppConfiguration {
    AppConfiguration {
        threads: AppThreads {
            class: class.map(str::to_string),
            threads: Some(config.threads as u64),
            threads_per_cpu: Some(config.threads_per_cpu as u64),
            nodes_used: super::scaling::nodes_used(topology, &config.worker_cpus(topology))
                .map(|nodes| nodes as u64),
        },
        scheme: config.placement.scheme_params(),
        threads_placement: Some(config.thread_scheme.name().to_string()),
    }
}

/// The share of pages placed as the scheme asks: on the workers' own
/// nodes, on the home or bound node, or split evenly over the interleave
/// set ([`interleave_fraction`]). When every page read back as not present
/// the check is kept, with nothing on any node, so that its status says
/// `unverifiable` ([`PlacementCheck::status`]) rather than the record
/// losing its check (first touch has no remote share then) or calling the
/// pages misplaced.
fn placement_check(
    topology: &Machine,
    config: &AppRunConfig,
    pages: &PageReport,
    huge_pages: Option<&HugePageCheck>,
) -> Option<PlacementCheck> {
    let resident: u64 = pages.pages_per_node.values().sum();
    let total: u64 = resident + pages.not_present;
    if total == 0 {
        return None;
    }
    if resident == 0 {
        return Some(PlacementCheck {
            moved: None,
            pages: total,
            pages_per_node: pages.pages_per_node.clone(),
            fraction_as_requested: 0.0,
            achieved: false,
            huge_pages: huge_pages.cloned(),
        });
    }
    let fraction = match &config.placement {
        PlacementScheme::FirstTouch
        | PlacementScheme::SerialMigrate
        | PlacementScheme::NextTouch => 1.0 - pages.remote_share?,
        PlacementScheme::Serial | PlacementScheme::AutoNuma => {
            let cpus = config.worker_cpus(topology);
            let home = topology.node_of_cpu(cpus[0]?)?;
            pages.pages_per_node.get(&home).copied().unwrap_or(0) as f64 / total as f64
        }
        // An empty list is every allowed node with memory, as the team places it.
        PlacementScheme::Policy(policy) => policy
            .or_nodes(&crate::topology::memory_nodes(topology))
            .fraction_placed(&pages.pages_per_node, total, 1),
    };
    Some(PlacementCheck {
        moved: None,
        pages: total,
        pages_per_node: pages.pages_per_node.clone(),
        fraction_as_requested: fraction,
        // Huge pages asked for but granted on too little of the arrays: not achieved, as
        // for the micro-benchmarks' buffers.
        achieved: fraction >= config.placement_threshold
            && huge_pages.is_none_or(|huge| huge.fraction >= HUGE_PAGE_THRESHOLD),
        huge_pages: huge_pages.cloned(),
    })
}

/// What a repeated run's records say, for tables and studies.
#[derive(Debug, Clone)]
pub struct AppSummary {
    pub time: Sample,
    pub all_verified: bool,
    pub system_seconds: f64,
    pub context_switches: f64,
    /// `placement.status` of the records: whether the pages sat where the
    /// scheme asks, were found elsewhere, or could not be seen (`None`: no
    /// check applies).
    pub placement: Option<PlacementStatus>,
}

impl AppSummary {
    /// Whether the placement was achieved: `None` when no check applies or
    /// the check could not see the pages (`unverifiable` refutes nothing).
    pub fn placement_achieved(&self) -> Option<bool> {
        match self.placement.as_ref()? {
            PlacementStatus::Verified => Some(true),
            PlacementStatus::Misplaced(_) => Some(false),
            PlacementStatus::Unverifiable(_) => None,
        }
    }
}

/// Emits the records of repeated runs of one kernel/configuration: `time`
/// (s, headline median), `mops` (Mop/s at the median time), STREAM's
/// per-kernel bandwidths, `first_iteration_time` (s), and returns a summary.
pub fn emit_app_records(
    topology: &Machine,
    kernel: &str,
    class: Option<&str>,
    config: &AppRunConfig,
    runs: &[AppRun],
    pipeline: &mut Pipeline,
) -> Result<Option<AppSummary>, OutputError> {
    let Ok(time) = Sample::new(runs.iter().map(|run| run.total_seconds)) else {
        return Ok(None);
    };
    let median_run = runs
        .iter()
        .min_by(|a, b| {
            (a.total_seconds - time.median())
                .abs()
                .total_cmp(&(b.total_seconds - time.median()).abs())
        })
        .expect("non-empty");
    let all_verified = runs.iter().all(|run| run.verification.passed);
    let count = runs.len() as f64;
    let mean = |value: &dyn Fn(&AppRun) -> f64| runs.iter().map(value).sum::<f64>() / count;
    let system_seconds = mean(&|run| run.usage.system_seconds);
    let context_switches =
        mean(&|run| (run.usage.voluntary_switches + run.usage.involuntary_switches) as f64);
    let verification = &median_run.verification;
    let stayed: Vec<Option<bool>> = runs.iter().map(AppRun::workers_stayed_pinned).collect();
    let mut note = placement_note(&config.placement);
    let next_touch_unprotected_pages = (config.placement == PlacementScheme::NextTouch)
        .then_some(median_run.next_touch_unprotected_pages);
    if let Some(unprotected) = next_touch_unprotected_pages {
        note = note.or_else(|| next_touch_note(unprotected));
    }
    let typed = AppRunParams {
        configuration: super::execute::app_configuration(topology, class, config),
        // Explicit CPUs are not the scheme's order (a scaling run names its own).
        cpu_order: config
            .thread_scheme
            .cpu_order()
            .filter(|_| config.cpus.is_none())
            .map(|order| order.name().to_string()),
        verification: Some(AppVerification {
            quantity: verification.quantity.to_string(),
            computed: verification.computed,
            reference: verification.reference,
            epsilon: verification.epsilon,
            passed: all_verified,
        }),
        iteration_seconds: Some(median_run.iteration_seconds.clone()),
        // Every repetition's run time, in run order (the `time` stats are
        // over these): the report plots each one.
        run_seconds: Some(runs.iter().map(|run| run.total_seconds).collect()),
        user_seconds: Some(mean(&|run| run.usage.user_seconds)),
        system_seconds: Some(system_seconds),
        voluntary_switches: Some(mean(&|run| run.usage.voluntary_switches as f64)),
        involuntary_switches: Some(mean(&|run| run.usage.involuntary_switches as f64)),
        migrated_pages: Some(median_run.migrated_pages),
        hugepages: Some(config.hugepages),
        huge_pages_migrated: median_run.huge_pages_migrated,
        migration_cost_seconds: migration_cost_seconds(&median_run.iteration_seconds)
            .map(|cost| cost - median_run.prologue_seconds.unwrap_or(0.0)),
        prologue_seconds: median_run.prologue_seconds,
        worker_cpus_after_run: Some(median_run.worker_cpus_after_run.clone()),
        workers_stayed_pinned: (!stayed.iter().all(Option::is_none))
            .then(|| stayed.iter().all(|stayed| *stayed != Some(false))),
        pages_after_placement: Some(pages_params(&median_run.pages_after_placement)),
        pages_after_run: Some(pages_params(&median_run.pages_after_run)),
        next_touch_unprotected_pages,
        note,
    };
    // The kernel's keys, the observation's, then the workers' CPUs and
    // the baseline (`AppParams` reads them back).
    let mut params = to_params(&typed);
    params.extend(median_run.extra_params.clone());
    params.extend(observation_params(&median_run.observation));
    let cpus = config.worker_cpus(topology);
    params.extend(to_params(&super::baseline::split_params(
        topology, config, &cpus,
    )));
    if let Some(baseline) = &config.one_node_baseline {
        params.extend(to_params(&super::baseline::one_node_params(
            baseline,
            time.median(),
        )));
    }
    let requested = to_params(&RequestedPlacement {
        cpus: Some(cpus),
        memory: Some(RequestedMemory::Label(config.placement.to_string())),
        ..RequestedPlacement::default()
    });
    let placement = Placement {
        requested,
        verified: placement_check(
            topology,
            config,
            &median_run.pages_after_run,
            median_run.huge_pages.as_ref(),
        ),
    };
    let record = |metric: &str, value: f64, unit: Unit, stats: Sample| Record {
        benchmark: kernel.to_string(),
        metric: metric.to_string(),
        value,
        unit,
        params: params.clone(),
        placement: placement.clone(),
        stats: stats.summary(),
    };
    pipeline.emit(&record("time", time.median(), Unit::Seconds, time.clone()))?;
    let mops = Sample::new(
        runs.iter()
            .map(|run| run.operations / run.total_seconds / 1e6),
    )
    .expect("finite");
    pipeline.emit(&record(
        "mops",
        median_run.operations / time.median() / 1e6,
        Unit::MegaOpsPerSecond,
        mops,
    ))?;
    let first = Sample::new(
        runs.iter()
            .filter_map(|run| run.iteration_seconds.first().copied()),
    )
    .expect("iterations");
    pipeline.emit(&record(
        "first_iteration_time",
        first.median(),
        Unit::Seconds,
        first,
    ))?;
    let mut extra: BTreeMap<String, (Vec<f64>, Unit)> = BTreeMap::new();
    for run in runs {
        for (metric, value, unit) in &run.extra_metrics {
            extra
                .entry(metric.clone())
                .or_insert_with(|| (Vec::new(), *unit))
                .0
                .push(*value);
        }
    }
    for (metric, (values, unit)) in extra {
        let sample = Sample::new(values).expect("finite");
        pipeline.emit(&record(&metric, sample.max(), unit, sample))?;
    }
    Ok(Some(AppSummary {
        time,
        all_verified,
        system_seconds,
        context_switches,
        placement: placement.status(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(pinned: Vec<Option<u32>>, after: Vec<u32>) -> AppRun {
        AppRun {
            iteration_seconds: vec![1.0],
            total_seconds: 1.0,
            prologue_seconds: None,
            verification: Verification {
                quantity: "x",
                computed: 1.0,
                reference: None,
                epsilon: 0.0,
                passed: true,
            },
            pages_after_placement: PageReport::default(),
            pages_after_run: PageReport::default(),
            migrated_pages: 0,
            next_touch_unprotected_pages: 0,
            usage: Usage::default(),
            extra_metrics: Vec::new(),
            extra_params: Map::new(),
            operations: 1.0,
            pinned_cpus: pinned,
            worker_cpus_after_run: after,
            observation: RunObservation::default(),
            huge_pages: None,
            huge_pages_migrated: None,
        }
    }

    #[test]
    fn pinned_workers_stay_or_not_and_unpinned_ones_are_not_judged() {
        assert_eq!(
            run_with(vec![Some(0), Some(2)], vec![0, 2]).workers_stayed_pinned(),
            Some(true)
        );
        assert_eq!(
            run_with(vec![Some(0), Some(2)], vec![0, 3]).workers_stayed_pinned(),
            Some(false)
        );
        assert_eq!(
            run_with(vec![None, None], vec![1, 1]).workers_stayed_pinned(),
            None
        );
    }

    fn two_node_config(placement: PlacementScheme) -> (Machine, AppRunConfig) {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let config = AppRunConfig::new(2, ThreadScheme::Scatter, placement);
        (topology, config)
    }

    fn pages(per_node: &[(u32, u64)]) -> PageReport {
        PageReport {
            pages_per_node: per_node.iter().copied().collect(),
            not_present: 0,
            remote_share: None,
        }
    }

    /// Structural: with first touch, a run whose pages all read back as not
    /// present (what NUMA balancing's hinting PTEs look like to move_pages on
    /// some kernels) keeps a check whose status is `unverifiable`, naming the
    /// pages; before, the check was dropped (`verified: null`) and the VM
    /// tests panicked on it. Pages found on the wrong node stay `misplaced`.
    #[test]
    fn all_pages_not_present_are_unverifiable_not_misplaced_nor_unchecked() {
        use crate::memory::PlacementStatus;
        for scheme in [
            PlacementScheme::FirstTouch,
            PlacementScheme::NextTouch,
            PlacementScheme::Serial,
            PlacementScheme::bind(1),
        ] {
            let (topology, config) = two_node_config(scheme.clone());
            let unseen = PageReport {
                pages_per_node: Default::default(),
                not_present: 96,
                remote_share: None,
            };
            let check = placement_check(&topology, &config, &unseen, None)
                .unwrap_or_else(|| panic!("{scheme}: no check"));
            assert_eq!(
                check.status(),
                PlacementStatus::Unverifiable("all 96 pages not present when read".into()),
                "{scheme}"
            );
        }
        let (topology, config) = two_node_config(PlacementScheme::FirstTouch);
        let remote = PageReport {
            pages_per_node: [(0, 50), (1, 50)].into_iter().collect(),
            not_present: 0,
            remote_share: Some(1.0),
        };
        let check = placement_check(&topology, &config, &remote, None).unwrap();
        assert_eq!(check.status().state(), "misplaced");
    }

    /// The configured threshold decides, not a fixed 95%.
    #[test]
    fn the_configured_threshold_decides_whether_placement_is_achieved() {
        let (topology, mut config) = two_node_config(PlacementScheme::bind(1));
        let mostly_on_1 = pages(&[(0, 10), (1, 90)]);
        config.placement_threshold = 0.8;
        assert!(
            placement_check(&topology, &config, &mostly_on_1, None)
                .unwrap()
                .achieved
        );
        config.placement_threshold = 0.99;
        assert!(
            !placement_check(&topology, &config, &mostly_on_1, None)
                .unwrap()
                .achieved
        );
    }

    /// Every page on node 0 is not an interleave over nodes 0 and 1, named
    /// or implied (all nodes).
    #[test]
    fn an_interleave_with_every_page_on_one_node_is_not_achieved() {
        for nodes in [vec![0, 1], vec![]] {
            let (topology, config) = two_node_config(PlacementScheme::interleave(nodes));
            let lopsided = placement_check(&topology, &config, &pages(&[(0, 100)]), None).unwrap();
            assert_eq!(lopsided.fraction_as_requested, 0.5);
            assert!(!lopsided.achieved);
            let even =
                placement_check(&topology, &config, &pages(&[(0, 50), (1, 50)]), None).unwrap();
            assert!(even.achieved);
        }
    }

    /// When next-touch gave up on an array, the records say so and how
    /// many pages it left in place.
    #[test]
    fn next_touch_records_say_how_many_pages_it_left_in_place() {
        let metadata = crate::output::RunMetadata::example();
        let collected = crate::output::CollectSink::default();
        let mut pipeline =
            Pipeline::with_sinks(vec![Box::new(collected.clone())], &metadata).unwrap();
        let (topology, config) = two_node_config(PlacementScheme::NextTouch);
        let mut run = run_with(vec![Some(0), Some(2)], vec![0, 2]);
        run.next_touch_unprotected_pages = 7;
        emit_app_records(&topology, "stream", None, &config, &[run], &mut pipeline).unwrap();
        let records = collected.records();
        let params = &records[0].params;
        assert_eq!(params["next_touch_unprotected_pages"], 7);
        let note = params["note"].as_str().unwrap();
        assert!(note.contains("7 pages were left"), "{note}");
        assert!(note.contains("vm.max_map_count"), "{note}");
    }
}
