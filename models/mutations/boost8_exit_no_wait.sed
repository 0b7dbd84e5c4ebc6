# model: boost8.pml
# run: safety
# claim: (b) no booster access after exit
# exit() does not wait in RCU_UNBOOST_EXITING for the booster's
# RCU_EXIT_OK: the booster backs the boost out of a task that is gone.
s|exit_wait(); /\* EXITWAIT \*/|skip; /* MUTATION: exit does not wait */|
