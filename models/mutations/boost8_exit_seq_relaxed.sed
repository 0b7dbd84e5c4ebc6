# model: boost8.pml
# run: safety
# claim: (f) no lost exit wake-up
# [BST8-W] as a relaxed add (issue 11): on a weakly ordered CPU the new
# rbs_exit_seq can be seen before EXIT_OK; the exiting task reads the new
# sequence and the old state, the booster wakes nobody, and the task then
# sleeps on the new value forever.
s|^#define EXIT_SEQ_FIRST 0|#define EXIT_SEQ_FIRST 1 /* MUTATION: relaxed add */|
