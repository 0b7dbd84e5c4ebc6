# model: boost3.pml
# run: safety
# claim: invariant 1/2 (never on two lists)
# rcb__boost_enqueue() leaves IDLE with a plain store instead of a
# compare-and-exchange [BST-E]: the reader and the booster both queue the
# thread, on two elements.
s|:: state == RCU_BOOST_IDLE -> state = RCU_BOOST_BLOCKED; ok = 1|:: true -> state = RCU_BOOST_BLOCKED; ok = 1 /* MUTATION: plain store */|
