# model: proxy.pml
# run: safety
# claim: (3) no slot leaked
# rcb__booster_stop() stops the helpers before joining the boosters: a
# booster hands a slot to a helper that has already left.
s|^\([[:space:]]*\):: stopreq = 1; bdone -> stop = 1$|\1:: stop = 1; stopreq = 1 /* MUTATION: helpers stopped first */|
