//! The order a study's runs come in: `repeat` repetitions, each running
//! every configuration once. [`Order::Rotated`], what every study's
//! measured runs use, starts repetition r with configuration r mod n and
//! goes on in grid order (r, r + 1, ..., wrapping): over n repetitions
//! every configuration takes every position once, so none always runs
//! first (on a cold cache, after an idle machine) or always last, and of
//! two configurations (a run and its baseline, pinned and unpinned) each
//! goes first every other repetition, neither always inheriting the caches
//! and clock the other left behind. [`Order::Same`] (grid order every
//! repetition) is left for warm-up runs, which record nothing.
//!
//! [`Schedule::slots`] is the loop every study iterates; it checks Ctrl-C
//! ([`crate::interrupt`]) where the schedule's [`Interrupt`] says and
//! remembers whether it stopped for it.

use crate::interrupt::interrupted;

/// In what order a repetition's configurations run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// 0, 1, ..., n - 1 in every repetition.
    Same,
    /// Repetition r runs r mod n, r + 1 mod n, ...: each configuration
    /// takes its turn first.
    Rotated,
}

/// Where Ctrl-C ends the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// Before any run: the runs made so far stand.
    BeforeEachRun,
    /// Only between whole repetitions, and never before the first one is
    /// complete: every configuration keeps the same number of runs (a run
    /// and its baseline stay paired).
    BetweenRepetitions,
    /// Not at all (warm-up runs, which record nothing).
    Never,
}

/// `repeat` repetitions of `configurations` configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub configurations: usize,
    pub repeat: usize,
    pub order: Order,
    pub interrupt: Interrupt,
}

/// One run of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// 0-based repetition.
    pub repetition: usize,
    /// Index of the configuration in the grid.
    pub configuration: usize,
    /// 0-based position of this run inside its repetition (0: it runs
    /// first in this repetition).
    pub position: usize,
    /// This is the configuration's run of the last repetition.
    pub last: bool,
}

impl Schedule {
    /// Grid order every repetition; Ctrl-C stops before the next run.
    pub fn round_robin(configurations: usize, repeat: usize) -> Self {
        Self {
            configurations,
            repeat,
            order: Order::Same,
            interrupt: Interrupt::BeforeEachRun,
        }
    }

    /// Rotated order ([`Order::Rotated`]); Ctrl-C stops before the next run.
    pub fn rotated(configurations: usize, repeat: usize) -> Self {
        Self {
            order: Order::Rotated,
            ..Self::round_robin(configurations, repeat)
        }
    }

    /// The same schedule with Ctrl-C handled as `interrupt` says.
    pub fn interrupted_at(self, interrupt: Interrupt) -> Self {
        Self { interrupt, ..self }
    }

    /// How many runs the whole schedule has.
    pub fn len(&self) -> usize {
        self.configurations * self.repeat
    }

    /// Whether the schedule has no run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `index`-th run of the schedule.
    fn slot(&self, index: usize) -> Slot {
        let (repetition, position) = (index / self.configurations, index % self.configurations);
        let configuration = match self.order {
            Order::Same => position,
            Order::Rotated => (position + repetition) % self.configurations,
        };
        Slot {
            repetition,
            configuration,
            position,
            last: repetition + 1 == self.repeat,
        }
    }

    /// Every run in order, Ctrl-C aside (for plans and tests).
    pub fn order(&self) -> Vec<Slot> {
        (0..self.len()).map(|index| self.slot(index)).collect()
    }

    /// The runs, in order, ending early on Ctrl-C as [`Schedule::interrupt`] says.
    pub fn slots(&self) -> Slots {
        Slots {
            schedule: *self,
            next: 0,
            interrupted: false,
        }
    }
}

/// The runs of a [`Schedule`] as they are made.
#[derive(Debug)]
pub struct Slots {
    schedule: Schedule,
    next: usize,
    interrupted: bool,
}

impl Slots {
    /// Whether Ctrl-C ended the schedule before its last run.
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }
}

impl Iterator for Slots {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        if self.interrupted || self.next >= self.schedule.len() {
            return None;
        }
        let slot = self.schedule.slot(self.next);
        let check = match self.schedule.interrupt {
            Interrupt::BeforeEachRun => true,
            Interrupt::BetweenRepetitions => slot.position == 0 && slot.repetition > 0,
            Interrupt::Never => false,
        };
        if check && interrupted() {
            self.interrupted = true;
            return None;
        }
        self.next += 1;
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(schedule: Schedule) -> Vec<(usize, usize)> {
        schedule
            .slots()
            .map(|slot| (slot.repetition, slot.configuration))
            .collect()
    }

    #[test]
    fn round_robin_runs_every_configuration_once_per_repetition() {
        assert_eq!(
            pairs(Schedule::round_robin(3, 2)),
            [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
        );
    }

    /// Of two configurations each goes first every other repetition (the
    /// one-node baseline first in odd repetitions counting from 1, second
    /// in even ones; pinned first, then unpinned first); one alone runs
    /// every time; three rotate.
    #[test]
    fn rotated_order_gives_each_configuration_its_turn_first() {
        assert_eq!(
            pairs(Schedule::rotated(2, 4)),
            [
                (0, 0),
                (0, 1),
                (1, 1),
                (1, 0),
                (2, 0),
                (2, 1),
                (3, 1),
                (3, 0)
            ]
        );
        assert_eq!(pairs(Schedule::rotated(1, 3)), [(0, 0), (1, 0), (2, 0)]);
        let firsts: Vec<usize> = Schedule::rotated(3, 3)
            .order()
            .into_iter()
            .filter(|slot| slot.position == 0)
            .map(|slot| slot.configuration)
            .collect();
        assert_eq!(firsts, [0, 1, 2]);
    }

    /// Over n repetitions of a rotated schedule every configuration takes
    /// every position exactly once (a Latin square), for every grid size;
    /// every repetition still runs each configuration once, and `position`
    /// is the place in the repetition. Round robin keeps one order.
    #[test]
    fn rotated_order_puts_every_configuration_in_every_position() {
        for n in 1..=7 {
            let slots = Schedule::rotated(n, n).order();
            let mut seen = vec![vec![0; n]; n];
            for repetition in slots.chunks(n) {
                let mut configurations: Vec<usize> =
                    repetition.iter().map(|slot| slot.configuration).collect();
                for (place, slot) in repetition.iter().enumerate() {
                    assert_eq!(slot.position, place);
                    seen[slot.configuration][slot.position] += 1;
                }
                configurations.sort_unstable();
                assert_eq!(configurations, (0..n).collect::<Vec<_>>());
            }
            assert!(
                seen.iter().flatten().all(|&count| count == 1),
                "n = {n}: {seen:?}"
            );
        }
        let firsts = |schedule: Schedule| -> Vec<usize> {
            schedule
                .order()
                .into_iter()
                .filter(|slot| slot.position == 0)
                .map(|slot| slot.configuration)
                .collect()
        };
        assert_eq!(firsts(Schedule::rotated(4, 6)), [0, 1, 2, 3, 0, 1]);
        assert_eq!(firsts(Schedule::round_robin(4, 3)), [0, 0, 0]);
    }

    #[test]
    fn the_last_repetition_is_marked() {
        let last: Vec<bool> = Schedule::round_robin(2, 2)
            .order()
            .iter()
            .map(|slot| slot.last)
            .collect();
        assert_eq!(last, [false, false, true, true]);
        assert!(Schedule::round_robin(0, 3).slots().next().is_none());
        assert!(Schedule::round_robin(3, 0).is_empty());
    }
}
