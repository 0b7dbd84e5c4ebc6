# model: inherit.pml
# run: safety
# claim: (2) no loan outliving its waiter
# The booster lends to every queued reader, not only to those holding the
# request's grace period: a reader whose section began after the grace
# period started (nobody waits for it) runs at the lent priority.
s|inctr \&\& rgp != rg \&\& boost < rl -> /\* LEND \*/|boost < rl -> /* MUTATION: no holds check */|
