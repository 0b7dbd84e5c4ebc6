# model: boost3.pml
# run: safety
# claim: (a) no residual boost
# The booster never reverts an on-behalf queueing whose reader turned out
# to have left its section (rcb__boost_revert() not called).
s|^\([[:space:]]*\)boost_revert(e)$|\1skip /* MUTATION: no revert */|
