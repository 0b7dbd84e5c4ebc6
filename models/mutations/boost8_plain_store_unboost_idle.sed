# model: boost8.pml
# run: safety
# claim: (a) no residual boost
# The task leaves RCU_BOOSTING (a double-walled state) with a plain store
# instead of a compare-and-exchange: it overwrites the booster's
# BOOSTING -> BOOSTED, so the booster believes the boost stands and the
# task believes the booster will back it out.
s|cmpxchg(RCU_BOOSTING, RCU_UNBOOST_IDLE, ok)|atomic { state = RCU_UNBOOST_IDLE; ok = 1 } /* MUTATION: plain store */|
