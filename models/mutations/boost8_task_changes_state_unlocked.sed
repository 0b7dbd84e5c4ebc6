# model: boost8.pml
# run: safety
# claim: (d) at most one consecutive compare-and-exchange failure
# The task makes its unlock transitions before taking the element lock:
# the booster's BLOCKED -> BOOSTING is no longer excluded, and the task
# can fail three times in a row (UNBOOST_BLOCKED -> BLOCKED -> BOOSTING
# -> BOOSTED), past the bound of one.
s|^#define TASK_LOCK_FIRST 1$|#define TASK_LOCK_FIRST 0 /* MUTATION */|
