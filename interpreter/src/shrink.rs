//! Shrinking a failing run to a shorter one that still fails: delta debugging over the list of
//! action instances, replaying each candidate (actions no longer enabled are skipped) and
//! keeping it when the failure persists.

use crate::value::Value;

/// An action instance: the machine's action and its arguments.
pub type ActionInstance = (usize, Vec<Value>);

/// Shrinks `failing` with `fails`, which replays a candidate list and returns the steps actually
/// taken up to the failure if the candidate still fails. At most `budget` replays are made.
pub fn shrink(
    failing: Vec<ActionInstance>,
    budget: usize,
    fails: &mut dyn FnMut(&[ActionInstance]) -> Option<Vec<ActionInstance>>,
) -> Vec<ActionInstance> {
    let mut best = failing;
    let mut replays = 0;
    let mut chunk = best.len().div_ceil(2).max(1);
    loop {
        let mut improved = false;
        let mut start = 0;
        while start < best.len() && replays < budget {
            let end = (start + chunk).min(best.len());
            let candidate: Vec<ActionInstance> =
                best[..start].iter().chain(&best[end..]).cloned().collect();
            replays += 1;
            match fails(&candidate) {
                Some(taken) if taken.len() < best.len() => {
                    best = taken;
                    improved = true;
                }
                _ => start += chunk,
            }
        }
        if replays >= budget {
            return best;
        }
        if !improved {
            if chunk == 1 {
                return best;
            }
            chunk = chunk.div_ceil(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A "run" fails when it contains action 7 after action 3; skipped actions are dropped.
    fn fails(list: &[ActionInstance]) -> Option<Vec<ActionInstance>> {
        let three = list.iter().position(|a| a.0 == 3)?;
        let seven = list[three..].iter().position(|a| a.0 == 7)? + three;
        Some(list[..=seven].to_vec())
    }

    #[test]
    fn shrinks_to_the_two_steps_that_matter() {
        let long: Vec<ActionInstance> = [1, 2, 3, 4, 5, 6, 1, 2, 7, 9]
            .iter()
            .map(|a| (*a, vec![]))
            .collect();
        let short = shrink(long, 1000, &mut fails);
        assert_eq!(short.iter().map(|a| a.0).collect::<Vec<_>>(), vec![3, 7]);
    }

    #[test]
    fn respects_the_budget() {
        let long: Vec<ActionInstance> = (0..200).map(|a| (a % 10, vec![])).collect();
        let mut calls = 0;
        let _ = shrink(long, 5, &mut |l| {
            calls += 1;
            fails(l)
        });
        assert!(calls <= 5);
    }
}
