# model: boost8.pml
# run: safety
# claim: (a) no residual boost
# The booster backs a boost out (UNBOOST_* states) without unboosting.
s|boosted = 0; /\* rcu_unboost_prio(taskp) \*/|skip; /* MUTATION: booster does not unboost */|
