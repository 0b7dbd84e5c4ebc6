# model: proxy.pml
# run: safety
# claim: (2) the word is 0 or the helper's whenever the reader is OUT
# The reader counts as out of its section (unlock returned) before it
# releases the slot's word: its TID stays in the word, so a helper would
# boost a thread outside its section, or a thread that reused its TID.
s|^\([[:space:]]*\)rphase = UNLOCKING; /\* leave \*/$|\1rphase = OUT; /* MUTATION: leave reported before the release */|
