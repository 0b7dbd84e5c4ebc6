# model: boost3.pml
# run: safety
# claim: (a) no residual boost
# The target does not unboost itself in rcb__read_unlock_unboost()
# (leaving it to the booster, which in this machine never unboosts).
s|:: ub -> boosted = 0; ub = 0$|:: ub -> ub = 0 /* MUTATION: target does not unboost */|
