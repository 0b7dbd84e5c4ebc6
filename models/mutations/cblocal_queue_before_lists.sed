# model: cblocal.pml
# run: safety
# claim: (3) barrier (the shortest trail); (2) order with no barrier
# form_local_batch() puts what was queued on the worker before the lists
# it took: a marker queued after the take of a list runs before that
# list's callbacks; without barriers, an owner's call that read an on
# mode (appended) and a later one queued directly run in reverse.
s|^\t\tmove(tk, batch); move(Q, batch);\t/\* \[FORM-ORDER\] \*/$|\t\tmove(Q, batch); move(tk, batch);\t/* MUTATION: queue before the lists */|
