# model: boost3.pml
# run: safety
# claim: (a) no residual boost
# rcb_read_unlock() loads boost_state before storing ctr = 0 (no compiler
# barrier between them, [RD-W]): even the membarrier cannot help, the
# booster sees the reader still inside when it re-reads ctr.
s|rstore(0); s = state; /\* \[RD-W\] \*/|s = state; rstore(0); /* MUTATION: state loaded before ctr = 0 */|
