# model: cblocal.pml
# run: safety
# claim: (3) barrier
# rcb_barrier() enqueues its marker on the worker's queue even while
# lists_live: the marker is taken before the lists that hold earlier
# callbacks.
s|^\t\t:: lists_live -> M ! b, c; bs = 2\t/\* \[BAR-HAND\] L6 \*/$|\t\t:: false -> M ! b, c; bs = 2\t/* MUTATION: marker always queued */|
