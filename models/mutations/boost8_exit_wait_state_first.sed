# model: boost8.pml
# run: safety
# claim: (f) no lost exit wake-up
# [BST8-X] as a relaxed load: the exiting task's state load is satisfied
# before its load of rbs_exit_seq; it reads the old state, then the new
# sequence after the booster's wake-up, and sleeps on it forever.
s|^#define EXIT_STATE_FIRST 0|#define EXIT_STATE_FIRST 1 /* MUTATION: relaxed load */|
