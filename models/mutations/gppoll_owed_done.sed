# model: gppoll.pml
# run: safety
# claim: (3) progress
# On giving up, rcb__gp_try_now() reports gp_seq_done as owed instead of
# gp_seq_started: the request is never ahead of gp_seq_done, so no poll
# head is re-queued for it and the grace period the attempt numbered
# never completes.  (Requesting the cookie instead of gp_seq_started is
# not a fault: model switch -DREQ_COOKIE, no counterexample; see
# models/README.md.)
s|^\trq = started;\t/\* \[TRY-OWED\] \*owed = gp_seq_started \*/$|\trq = done;\t/* MUTATION: owed = gp_seq_done */|
