# model: boost3.pml
# run: safety
# define: -DBOOSTERS=2
# claim: (d) a thread is boosted only after its element has aged
# Two boosters share one rcu_boost_idx and each advances it every pass
# (the article's "special coordination" left out): an element ages twice
# as fast, and a reader queued on CPU 0 is boosted by booster 0 after
# fewer than NELEM - 1 of its passes (the other booster's advance made
# its element the most-aged).
s|^#define IDX(b)      idx\[b\]    /\* per-booster index (the decision) \*/|#define IDX(b)      idx[0]    /* MUTATION: one index, advanced by every booster */|
