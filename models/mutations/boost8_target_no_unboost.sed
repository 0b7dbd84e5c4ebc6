# model: boost8.pml
# run: safety
# claim: (a) no residual boost
# In RCU_BOOSTED (a state only the task may leave) the task leaves the
# unboosting to the booster, which never sees the task again.
s|:: ub -> boosted = 0; ub = 0 /\* rcu_unboost_prio(current) \*/|:: ub -> ub = 0 /* MUTATION: task does not unboost */|
