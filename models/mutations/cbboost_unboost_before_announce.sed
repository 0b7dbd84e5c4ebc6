# model: cbboost.pml
# run: safety
# claim: (1) no residual boost
# The worker reads bstate before it announces its sleep (futex = -1)
# instead of after ([CBB-S] after [CB-S]): a boost that lands between
# the read and the announcement sees the futex still at 0, and the
# worker, having read NONE, sleeps boosted.
s|^\t\tfutex = 1; /\* \[CB-S\] \*/$|\t\ts = bstate; futex = 1; /* MUTATION: bstate read before the announcement */|
s|^\t\t\ts = bstate;$|\t\t\tskip;|
