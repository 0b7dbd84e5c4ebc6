# model: cblocal.pml
# run: safety
# claim: (3) barrier
# rcb__cb_local_steal() takes the markers tagged with the current flip
# count too (tag <= count instead of tag < count): a marker handed over
# after an append of the same flip runs before that append's list is
# taken.
s|^\t\t\t:: on && (c + CMOD - t) % CMOD < 1 -> break\t/\* \[MK-DUE\] tag >= count \*/$|\t\t\t:: on \&\& (c + CMOD - t) % CMOD < 0 -> break\t/* MUTATION: tag <= count taken */|
