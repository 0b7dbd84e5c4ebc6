# model: gppoll.pml
# run: safety
# claim: (3) progress
# poll_cb() clears poll_queued but never re-queues the head: a request
# raised while the head was queued (its requester saw poll_queued set and
# did not arm), for a number above the one the callback's grace period
# completes, is left without a grace period.
s|^\t\t\t:: req > done -> poll_arm()\t/\* \[PO-RE\] re-arm \*/$|\t\t\t:: false -> poll_arm()\t/* MUTATION: poll_cb() never re-arms */|
