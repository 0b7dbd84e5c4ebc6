# model: boost3.pml
# run: safety
# claim: (a) no residual boost
# Drop the booster's membarrier [BST-M] between queueing a preempted
# reader on its behalf and re-reading its ctr (booster.c,
# enqueue_preempted_readers).  Store buffering: the reader's "ctr = 0" is
# still in its store buffer when the booster re-reads ctr, and its load of
# boost_state ran before the booster's compare-and-exchange: it leaves
# the section unqueued-looking, stays queued, and is boosted outside it.
s|^\([[:space:]]*\)membarrier(); /\* \[BST-M\] \*/|\1skip; /* MUTATION: no membarrier */|
