# model: cblocal.pml
# run: safety
# claim: (4) L2 (or (5) a grace period after queueing)
# The local cycle invokes and takes without waiting for the grace period
# that follows its flip (no rcb_synchronize() in local_cycle()): the
# worker takes the list of the old parity while an owner that read it,
# in a section begun before the flip, is still about to append to it.
s|^\td_step { gpblk == 0 -> gp_end_invoke() };\t/\* \[LC-GP\] \*/$|\td_step { gp_end_invoke() };\t/* MUTATION: no grace period after the flip */|
