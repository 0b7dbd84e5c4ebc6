# model: gppoll.pml
# run: safety
# claim: (1) safety
# rcb__gp_try_now() completes its grace period without the scan
# (do_grace_period(true) publishes gp_seq_done right after the counter
# advance): a section in progress when the cookie was taken is still
# running when rcb_poll_state() reports the cookie elapsed.
s|^\t\t\t\t\t:: lk = 1; started++; advance(); i = 0\t/\* \[TRY-ADV\] \*/$|\t\t\t\t\t:: lk = 1; started++; advance(); i = NRD\t/* MUTATION: no scan */|
