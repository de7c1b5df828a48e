//! What to do about it: advice for a bandwidth-bound and a latency-bound
//! code, each resting on findings of the same run (`params.rests_on`
//! names their kinds) and left out when those are missing: on one node,
//! nothing about placing memory.

use super::{FindingKind, Sentence};
use crate::output::Unit;
use numabench_schema::params::findings::{
    AdviceParams, BandwidthSaturationParams, MemoryBandwidthParams, MemoryLatencyParams,
    SerialInitParams,
};
use numabench_schema::params::to_params;

fn find(findings: &[Sentence], kind: FindingKind) -> Option<&Sentence> {
    findings.iter().find(|finding| finding.kind == kind)
}

fn advice(text: String, value: f64, unit: Unit, rests_on: &[FindingKind]) -> Sentence {
    let params = to_params(&AdviceParams {
        rests_on: Some(rests_on.iter().map(FindingKind::to_string).collect()),
    });
    Sentence {
        kind: FindingKind::Advice,
        text,
        value,
        unit,
        params,
    }
}

/// The smallest gain or cost advice rests on (5%).
const MARGIN: f64 = 0.05;

/// Whether a finding's ratio is distinguishable from 1: beyond [`MARGIN`]
/// and beyond twice its 95% interval (`params.ci95_rel`, from its
/// records' repetitions; 0 where unknown).
fn distinguishable(finding: &Sentence) -> bool {
    let ci95 = match finding.kind {
        FindingKind::SerialInit => finding
            .params_as::<SerialInitParams>()
            .and_then(|params| params.ci95_rel),
        FindingKind::MemoryLatency => finding
            .params_as::<MemoryLatencyParams>()
            .and_then(|params| params.ci95_rel),
        _ => None,
    }
    .unwrap_or(0.0);
    let gap = finding.value - 1.0;
    gap > MARGIN && gap > 2.0 * ci95
}

/// The advice the findings support, in a fixed order.
pub(super) fn sentences(findings: &[Sentence]) -> Vec<Sentence> {
    let mut advice_list = Vec::new();
    if let Some(serial) =
        find(findings, FindingKind::SerialInit).filter(|serial| distinguishable(serial))
    {
        let mut text = format!(
            "bandwidth-bound OpenMP code: pin its threads (OMP_PROC_BIND=spread OMP_PLACES=cores, or numabench run --policy pin-scatter -- PROGRAM) and initialise its data in parallel, so each thread's pages land on its own node: that gave {:.2}x the bandwidth of data first touched by one thread",
            serial.value
        );
        let mut rests_on = vec![FindingKind::SerialInit];
        if let Some([ratio, _]) = find(findings, FindingKind::MemoryBandwidth)
            .and_then(Sentence::params_as::<MemoryBandwidthParams>)
            .and_then(|bandwidth| bandwidth.one_thread_remote_ratio)
        {
            text.push_str(&format!(
                "; a remote read gets as little as {ratio:.2}x of its own node's local bandwidth"
            ));
            rests_on.push(FindingKind::MemoryBandwidth);
        }
        advice_list.push(advice(text, serial.value, Unit::Ratio, &rests_on));
    }
    if let Some(saturation) = find(findings, FindingKind::BandwidthSaturation) {
        let params: BandwidthSaturationParams = saturation.params_as().unwrap_or_default();
        let measured = params.threads_measured.unwrap_or(0);
        let enough = saturation.value as u64;
        let node = params.mem_node.unwrap_or(0);
        let counts = params.counts_measured.unwrap_or_default();
        if enough < measured {
            advice_list.push(advice(
                saturation_advice(enough, measured, node, &counts),
                saturation.value,
                Unit::Count,
                &[FindingKind::BandwidthSaturation],
            ));
        }
    }
    if let Some(latency) =
        find(findings, FindingKind::MemoryLatency).filter(|latency| distinguishable(latency))
    {
        advice_list.push(advice(
            format!(
                "latency-bound code (pointer chasing, small random reads): keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to {:.2}x local latency",
                latency.value
            ),
            latency.value,
            Unit::Ratio,
            &[FindingKind::MemoryLatency],
        ));
    }
    advice_list
}

/// "By N threads, node M's memory gives 90% ...", the nouns agreeing
/// with the counts (1 thread; the other 3 threads), naming the curve's node and the counts it measured (a cut
/// budget measures some only: the saturation is "by" the first count that
/// reached it, not "at").
fn saturation_advice(enough: u64, measured: u64, node: u64, counts: &[u64]) -> String {
    let threads = if enough == 1 { "thread" } else { "threads" };
    let rest = measured - enough;
    let others = if rest == 1 { "thread" } else { "threads" };
    let counts_text = match counts {
        [] => String::new(),
        counts => format!(
            " (counts measured: {})",
            counts
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "by {enough} {threads}{counts_text}, node {node}'s memory gives 90% of its read bandwidth: a bandwidth-bound code gains little from the other {rest} {others} of the {measured} measured"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One thread reaches, several reach; "the other 1 thread", not "the
    /// other 1 of": the two-CPU machine's screen read "1 threads per node
    /// reach ... the other 1 of the 2 measured". The node and the counts
    /// measured are named (the advice came from one node's curve and a cut
    /// set of counts, and said "at 8 threads per node").
    #[test]
    fn the_saturation_advice_agrees_with_its_counts() {
        assert_eq!(
            saturation_advice(1, 2, 0, &[1, 2]),
            "by 1 thread (counts measured: 1, 2), node 0's memory gives 90% of its read bandwidth: a bandwidth-bound code gains little from the other 1 thread of the 2 measured"
        );
        assert_eq!(
            saturation_advice(8, 32, 3, &[1, 8, 16, 24, 32]),
            "by 8 threads (counts measured: 1, 8, 16, 24, 32), node 3's memory gives 90% of its read bandwidth: a bandwidth-bound code gains little from the other 24 threads of the 32 measured"
        );
    }

    /// A gain or cost within twice its interval is not distinguishable
    /// from none, whatever the margin says: no advice rests on it.
    #[test]
    fn advice_needs_its_figure_beyond_the_noise() {
        let finding = |value: f64, ci95: f64| Sentence {
            kind: FindingKind::MemoryLatency,
            text: String::new(),
            value,
            unit: Unit::Ratio,
            params: [("ci95_rel".to_string(), json!(ci95))]
                .into_iter()
                .collect(),
        };
        assert!(distinguishable(&finding(1.10, 0.01)));
        assert!(!distinguishable(&finding(1.10, 0.06)));
        assert!(!distinguishable(&finding(1.04, 0.0)));
        assert!(sentences(&[finding(1.08, 0.05)]).is_empty());
        assert_eq!(sentences(&[finding(1.08, 0.01)]).len(), 1);
    }
}
