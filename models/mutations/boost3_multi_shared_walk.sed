# model: boost3.pml
# run: safety
# define: -DBOOSTERS=2
# claim: (e) only the booster owning the element acts on the thread
# Every booster walks every CPU's most-aged element (no rcb__cpu_booster
# test in booster_pass(), no coordination): booster 0 boosts a reader
# queued on CPU 1's element, which booster 1 owns.
s|^#define SHARED_WALK 0 /\* 1: also walk the other CPUs' elements \*/|#define SHARED_WALK 1 /* MUTATION: walk every CPU's elements */|
