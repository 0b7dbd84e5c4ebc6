# model: inherit.pml
# run: safety
# claim: (2) no loan outliving its waiter
# The booster acts on the request it read before taking the lock and
# checks the reader against the current grace period: a request left
# over from the previous leader (level 2) reaches a reader of the next
# grace period, whose leader lends only level 1.
s|queued \&\& reqgp == rg \&\& reqlvl == rl \&\& inctr \&\& rgp != rg \&\& boost < rl -> /\* LEND \*/|queued \&\& inctr \&\& rgp != gp \&\& boost < rl -> /* MUTATION: stale request */|
