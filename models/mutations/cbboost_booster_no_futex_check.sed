# model: cbboost.pml
# run: safety
# claim: (1) no residual boost
# The booster does not look at the worker's futex after it stored
# BOOSTED ([CBB-B]): a worker that read bstate NONE and went to sleep
# just before the boost keeps it while it sleeps.
s|^\t\t\t\t:: futex == 1 -> /\* \[CBB-B\] \*/$|\t\t\t\t:: false -> /* MUTATION: futex not checked */|
