# model: cblocal.pml
# run: safety
# claim: (2) order
# rcb__cb_local_leave() moves both of the thread's lists to the orphans of
# the older parity: the current parity's callbacks are then taken at the
# wrong take, before or after what the thread appends when it registers
# again.
s|^\t\tmove(lst\[2 \* i + (c & 1)\], orph\[c & 1\]);\t/\* \[LV-NEW\] \*/$|\t\tmove(lst[2 * i + (c \& 1)], orph[OLDER]);\t/* MUTATION: one orphan chain */|
