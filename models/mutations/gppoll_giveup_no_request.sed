# model: gppoll.pml
# run: safety
# claim: (3) progress
# rcb_start_poll() returns its cookie when rcb__gp_try_now() gave up
# (RCB__GP_NOW_HANDED) without raising poll_req or arming the poll head:
# the grace period numbered by the attempt stays begun and never
# completes, and neither does the caller's cookie (nor that of a caller
# that returned on seeing it begun).
s|^#define HANDED goto request\t/\* \[SP-HANDED\] \*/$|#define HANDED returned(); goto next\t/* MUTATION: no request on giving up */|
