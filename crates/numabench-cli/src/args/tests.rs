//! Tests of the command line's shape: the top-level help's groups cover
//! every command, and `--plan` is found on every command that has it.

use super::*;

/// Every visible subcommand is in exactly one group of the top-level
/// help, and every grouped name is a subcommand.
#[test]
fn the_groups_cover_every_visible_command_once() {
    use clap::CommandFactory;
    let command = Cli::command();
    let visible: Vec<&str> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(|sub| sub.get_name())
        .collect();
    let grouped: Vec<&str> = command_groups(&command)
        .into_iter()
        .flat_map(|(_, names)| names)
        .collect();
    for name in &visible {
        let count = grouped.iter().filter(|grouped| *grouped == name).count();
        assert_eq!(count, 1, "{name} is in {count} groups");
    }
    for name in &grouped {
        assert!(
            visible.contains(name),
            "{name} is grouped but not a visible command"
        );
    }
}

/// The "Measure" group is built from the registry: characterize, then each
/// registry benchmark's command in registry order (the matrices' one
/// `matrix`, none for per-cpu), then the commands no entry has.
#[test]
fn the_measure_group_follows_the_registry() {
    use clap::CommandFactory;
    let command = Cli::command();
    let groups = command_groups(&command);
    let measure = &groups
        .iter()
        .find(|(group, _)| *group == "Measure")
        .unwrap()
        .1;
    assert_eq!(
        measure,
        &[
            "characterize",
            "latency",
            "bandwidth",
            "matrix",
            "contention",
            "scaling",
            "loaded-latency",
            "mlp",
            "c2c",
            "interference",
            "cache",
            "plugin",
        ]
    );
}

/// `--plan` is found on any command that has it, nested (`matrix
/// bandwidth`) or flattened from shared flags (`latency`, `stream`), and
/// nowhere else.
#[test]
fn a_plan_is_asked_for_by_any_command_with_the_flag() {
    let asks = |line: &[&str]| {
        let matches = command()
            .try_get_matches_from(std::iter::once("numabench").chain(line.iter().copied()))
            .unwrap();
        asks_for_plan(&matches)
    };
    for line in [
        &["latency", "--plan"][..],
        &["matrix", "bandwidth", "--plan"],
        &["stream", "--plan"],
        &["characterize", "--plan"],
        &["placement-study", "--plan", "cg"],
        &["run", "--plan", "--", "true"],
        &["--topology", "x.xml", "cg", "--plan"],
    ] {
        assert!(asks(line), "{line:?}");
    }
    for line in [
        &["latency"][..],
        &["matrix", "bandwidth"],
        &["topo"],
        &["run", "--", "true"],
    ] {
        assert!(!asks(line), "{line:?}");
    }
}

/// Every `plan` argument of every (sub)command is a plain flag, so
/// [`asks_for_plan`] reads it as a bool wherever a new command adds it.
#[test]
fn every_plan_argument_is_a_flag() {
    fn check(command: &clap::Command, found: &mut usize) {
        for argument in command.get_arguments().filter(|a| a.get_id() == "plan") {
            *found += 1;
            assert!(
                matches!(argument.get_action(), clap::ArgAction::SetTrue),
                "{}: --plan is not a flag",
                command.get_name()
            );
        }
        for sub in command.get_subcommands() {
            check(sub, found);
        }
    }
    let mut found = 0;
    check(&command(), &mut found);
    assert!(found >= 18, "only {found} commands have --plan");
}

/// Every `--plan` comes from the one [`PlanArgs`] block; a command whose
/// plan shows other things keeps its own words, the others say what the
/// block says.
#[test]
fn each_plan_help_is_its_commands() {
    let help = |path: &[&str]| {
        let mut command = command();
        for name in path {
            command = command.find_subcommand(name).unwrap().clone();
        }
        let plan = command.get_arguments().find(|a| a.get_id() == "plan");
        plan.and_then(clap::Arg::get_help).unwrap().to_string()
    };
    let measuring = "Print what would run and allocate nothing: each step's benchmark";
    for path in [
        &["latency"][..],
        &["matrix", "bandwidth"],
        &["characterize"],
    ] {
        assert!(help(path).starts_with(measuring), "{path:?}");
    }
    for (name, start) in [
        ("stream", "Print what would run (threads and their CPUs"),
        ("cg", "Print what would run (threads and their CPUs"),
        ("placement-study", "Print the grid that would run"),
        ("run", "Print the policies that would run"),
        ("overdecompose", "Print the configurations"),
        ("check", "Print the plan (each metric"),
        ("cluster", "Say what a run on --hosts N hosts costs"),
    ] {
        assert!(
            help(&[name]).starts_with(start),
            "{name}: {}",
            help(&[name])
        );
    }
}
