# model: cbboost.pml
# run: safety
# claim: (1) no residual boost
# The worker goes to sleep on its empty queue without lowering itself
# (no rcb__cb_unboost_self()): a boost applied while it was running
# its callbacks, when its futex was not -1, stays while it sleeps.
s|^\t\t\ts = bstate;$|\t\t\ts = NONE; /* MUTATION: no unboost before sleeping */|
