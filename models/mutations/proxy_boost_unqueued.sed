# model: proxy.pml
# run: safety
# claim: (1) never boost a thread outside its critical section
# The booster writes the reader's TID into the word without checking,
# under the element lock, that the reader is still queued (in its
# section): a reader that already left gets proxy-locked.
s|^\([[:space:]]*\):: queued && !rslot && refs == 0 && !job ->$|\1:: !rslot \&\& refs == 0 \&\& !job -> /* MUTATION: no queued check */|
