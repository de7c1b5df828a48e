//! What to do about it: advice for a bandwidth-bound and a latency-bound
//! code, each resting on findings of the same run (`params.rests_on`
//! names their kinds) and left out when those are missing: on one node,
//! nothing about placing memory.

use super::Sentence;
use crate::output::Unit;
use serde_json::{json, Map, Value};

fn find<'a>(findings: &'a [Sentence], kind: &str) -> Option<&'a Sentence> {
    findings.iter().find(|finding| finding.kind == kind)
}

fn advice(text: String, value: f64, unit: Unit, rests_on: &[&str]) -> Sentence {
    let mut params = Map::new();
    params.insert("rests_on".into(), json!(rests_on));
    Sentence {
        kind: "advice",
        text,
        value,
        unit,
        params,
    }
}

/// The advice the findings support, in a fixed order.
pub(super) fn sentences(findings: &[Sentence]) -> Vec<Sentence> {
    let mut advice_list = Vec::new();
    if let Some(serial) = find(findings, "serial_init").filter(|serial| serial.value > 1.0 + 0.05) {
        let mut text = format!(
            "bandwidth-bound OpenMP code: pin its threads (OMP_PROC_BIND=spread OMP_PLACES=cores, or numabench run --policy pin-scatter -- PROGRAM) and initialise its data in parallel, so each thread's pages land on its own node: that gave {:.2}x the bandwidth of data first touched by one thread",
            serial.value
        );
        let mut rests_on = vec!["serial_init"];
        if let Some(remote) = find(findings, "memory_bandwidth")
            .and_then(|bandwidth| bandwidth.params.get("one_thread_remote_gbs"))
            .and_then(Value::as_array)
            .and_then(|span| span.first()?.as_f64())
        {
            let local = find(findings, "memory_bandwidth")
                .and_then(|bandwidth| bandwidth.params.get("one_thread_local_gbs"))
                .and_then(Value::as_array)
                .and_then(|span| span.last()?.as_f64());
            if let Some(local) = local.filter(|local| *local > 0.0) {
                text.push_str(&format!(
                    "; a remote read gets as little as {:.2}x of local bandwidth",
                    remote / local
                ));
                rests_on.push("memory_bandwidth");
            }
        }
        advice_list.push(advice(text, serial.value, Unit::Ratio, &rests_on));
    }
    if let Some(saturation) = find(findings, "bandwidth_saturation") {
        let measured = saturation
            .params
            .get("threads_measured")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let enough = saturation.value as u64;
        if enough < measured {
            advice_list.push(advice(
                saturation_advice(enough, measured),
                saturation.value,
                Unit::Count,
                &["bandwidth_saturation"],
            ));
        }
    }
    if let Some(latency) =
        find(findings, "memory_latency").filter(|latency| latency.value > 1.0 + 0.05)
    {
        advice_list.push(advice(
            format!(
                "latency-bound code (pointer chasing, small random reads): keep data on the node of the threads that read it (bind:NODE, or first touch by that thread): remote memory costs up to {:.2}x local latency",
                latency.value
            ),
            latency.value,
            Unit::Ratio,
            &["memory_latency"],
        ));
    }
    advice_list
}

/// "N threads per node reach 90% ...", with the verbs and nouns agreeing
/// with the counts (one thread reaches; the other 3 threads).
fn saturation_advice(enough: u64, measured: u64) -> String {
    let (threads, reach) = if enough == 1 {
        ("thread", "reaches")
    } else {
        ("threads", "reach")
    };
    let rest = measured - enough;
    let others = if rest == 1 { "thread" } else { "threads" };
    format!(
        "{enough} {threads} per node {reach} 90% of a node's read bandwidth: a bandwidth-bound code gains little from the other {rest} {others} of the {measured} measured"
    )
}

#[cfg(test)]
mod tests {
    use super::saturation_advice;

    /// One thread reaches, several reach; "the other 1 thread", not "the
    /// other 1 of": the two-CPU machine's screen read "1 threads per node
    /// reach ... the other 1 of the 2 measured".
    #[test]
    fn the_saturation_advice_agrees_with_its_counts() {
        assert_eq!(
            saturation_advice(1, 2),
            "1 thread per node reaches 90% of a node's read bandwidth: a bandwidth-bound code gains little from the other 1 thread of the 2 measured"
        );
        assert_eq!(
            saturation_advice(3, 8),
            "3 threads per node reach 90% of a node's read bandwidth: a bandwidth-bound code gains little from the other 5 threads of the 8 measured"
        );
    }
}
