//! Fairness classes: the task of every action instance (Lynch's fairness: in a fair execution
//! every task that stays enabled from some point on is eventually taken).
//!
//! Tasks come from the `tasks` section of the primitive automaton that *controls* an
//! instance (the participant for which it is an output or internal action), one set of tasks
//! per primitive instance of the machine, so `P[0]` and `P[1]` of a family have separate tasks.
//! A task names actions; every instance of a named action controlled by that primitive
//! instance belongs to it (argument patterns in a task are checked by the front end but do not
//! split the class). An action that an automaton's tasks do not name, and every action of an
//! automaton that declares no tasks, is its own task: the documented default, which makes each
//! locally controlled action of each component instance one fairness class. Inputs of the
//! whole system (no controller) belong to no task: the environment need not provide them.

use crate::model::ActionInstance;
use interpreter::error::EvalResult;
use interpreter::machine::Machine;
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::AutomatonBody;
use rustc_hash::FxHashMap;

/// The fairness classes of a machine's action instances.
#[derive(Debug, Clone)]
pub struct Tasks {
    /// A readable name per task (`P[0] {send}`).
    pub names: Vec<String>,
    /// For every action instance (in the explorer's order), its task; `None` for inputs from
    /// the environment.
    pub of_instance: Vec<Option<u32>>,
}

/// Where a task comes from: a declared task of a primitive instance, or one action's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Declared { instance: usize, task: usize },
    Own { instance: usize, action: u32 },
}

impl Tasks {
    /// The tasks of `instances` (as [`crate::model::action_instances`] lists them).
    pub fn new(machine: &Machine, instances: &[ActionInstance]) -> EvalResult<Tasks> {
        let mut ids: FxHashMap<Key, u32> = FxHashMap::default();
        let mut names = Vec::new();
        let mut of_instance = Vec::with_capacity(instances.len());
        for inst in instances {
            let controller = machine
                .participants(inst.action, &inst.args)?
                .into_iter()
                .find(|(_, kind)| *kind != ActionKind::Input)
                .map(|(i, _)| i);
            let Some(prim_inst) = controller else {
                of_instance.push(None);
                continue;
            };
            let Some(&(_, aid)) = machine.actions[inst.action]
                .members
                .iter()
                .find(|(i, _)| *i == prim_inst)
            else {
                of_instance.push(None);
                continue;
            };
            let instance = &machine.instances[prim_inst];
            let automaton = &machine.spec.automata[instance.automaton.0 as usize];
            let declared = match &automaton.body {
                AutomatonBody::Primitive(p) => {
                    p.tasks.iter().position(|t| t.actions.contains(&aid))
                }
                AutomatonBody::Composite(_) => None,
            };
            let key = match declared {
                Some(task) => Key::Declared {
                    instance: prim_inst,
                    task,
                },
                None => Key::Own {
                    instance: prim_inst,
                    action: aid.0,
                },
            };
            let next = ids.len() as u32;
            let id = *ids.entry(key).or_insert_with(|| {
                let actions: Vec<&str> = match (key, &automaton.body) {
                    (Key::Declared { task, .. }, AutomatonBody::Primitive(p)) => p.tasks[task]
                        .actions
                        .iter()
                        .map(|a| automaton.actions[a.0 as usize].name.as_str())
                        .collect(),
                    _ => vec![automaton.actions[aid.0 as usize].name.as_str()],
                };
                names.push(format!("{} {{{}}}", instance.name, actions.join(", ")));
                next
            });
            of_instance.push(Some(id));
        }
        Ok(Tasks { names, of_instance })
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the machine has no locally controlled action.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
