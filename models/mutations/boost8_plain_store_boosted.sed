# model: boost8.pml
# run: safety
# claim: (a) no residual boost
# The booster finishes boosting with a plain store BOOSTING -> BOOSTED:
# it overwrites the task's UNBOOST_IDLE, and no one unboosts.
s|cmpxchg(RCU_BOOSTING, RCU_BOOSTED, ok);|state = RCU_BOOSTED; ok = 1; /* MUTATION: plain store */|
