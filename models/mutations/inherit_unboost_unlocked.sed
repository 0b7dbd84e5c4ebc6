# model: inherit.pml
# run: safety
# claim: (1) no residual boost
# The reader restores its attributes before it takes the element lock to
# dequeue: a booster that checked it (still holding the grace period)
# under the lock boosts it after the restore, and the boost stays.
s|:: queued -> lock(); boost = 0; queued = 0; unlock() /\* dequeue, unboost \*/|:: queued -> boost = 0; lock(); queued = 0; unlock() /* MUTATION: unboost unlocked */|
