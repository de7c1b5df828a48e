//! The migration-cost figure of an app run: the first iteration (which
//! carries serial+migrate's move_pages step, next-touch's faults and any
//! first-touch page faults left) minus a steady iteration, the median of
//! the others.

/// First iteration minus the median of the other iterations (s); `None`
/// with fewer than two iterations.
pub fn migration_cost_seconds(iteration_seconds: &[f64]) -> Option<f64> {
    let (first, rest) = iteration_seconds.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let mut rest = rest.to_vec();
    rest.sort_by(f64::total_cmp);
    let middle = rest.len() / 2;
    let median = match rest.len() % 2 {
        1 => rest[middle],
        _ => (rest[middle - 1] + rest[middle]) / 2.0,
    };
    Some(first - median)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_minus_the_median_of_the_others() {
        assert_eq!(migration_cost_seconds(&[5.0, 1.0, 3.0, 2.0]), Some(3.0));
        assert_eq!(migration_cost_seconds(&[5.0, 1.0, 2.0]), Some(3.5));
        assert_eq!(migration_cost_seconds(&[0.5, 1.0]), Some(-0.5));
    }

    #[test]
    fn one_iteration_has_no_steady_one_to_compare() {
        assert_eq!(migration_cost_seconds(&[5.0]), None);
        assert_eq!(migration_cost_seconds(&[]), None);
    }
}
