//! The estimate against the time taken, in the two-socket and four-node
//! guests: characterize's node matrices (remote cells included, costed
//! slower than local ones by the SLIT) at full size, with each guest's own
//! calibrated rates. Prints the `run_time` record's estimate, elapsed time
//! and calibration for docs/plan.md's "Error of the estimate". Ignored: a
//! measurement, many minutes under TCG; run it with `--ignored` and
//! NUMABENCH_VM_TIMEOUT_SECS=1800 on an idle host.

use super::placement_checks::with_metric;
use super::records::params_of;
use super::{harness, numabench, topologies};
use numabench_schema::params::findings::RunTimeParams;

const CHARACTERIZE: &str = "numabench characterize --only matrix-latency,matrix-bandwidth \
     --repeat 3 --budget none --jsonl /tmp/e.jsonl > /dev/null";

#[test]
#[ignore = "measurement: the estimate's error in two guests, minutes under TCG"]
fn estimate_against_elapsed_in_two_guests() {
    for topo in [
        topologies::two_sockets(),
        topologies::four_symmetric_nodes(),
    ] {
        let commands = [CHARACTERIZE, "cat /tmp/e.jsonl"];
        let run =
            harness::run_in_vm(&topo, &[numabench()], &commands).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.commands[0].status, 0, "{}", run.transcript());
        let run_time = with_metric(&run, 1, "run_time")
            .into_iter()
            .next()
            .expect("a run_time record");
        let params: RunTimeParams = params_of(&run_time);
        eprintln!(
            "[{}] estimated {:.1} s, took {:.1} s (elapsed/estimate {:.2}), calibration {:.1} s; rates {:?}",
            topo.name,
            params.estimated_seconds.unwrap_or(f64::NAN),
            params.elapsed_seconds.unwrap_or(f64::NAN),
            params.elapsed_over_estimate.unwrap_or(f64::NAN),
            params.calibration_seconds.unwrap_or(f64::NAN),
            params.estimate_rates
        );
    }
}
