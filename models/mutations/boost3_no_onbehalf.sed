# model: boost3.pml
# run: liveness
# claim: (c) a reader that stays blocked is eventually boosted
# The booster does not queue preempted readers on their behalf: a reader
# preempted in a section without calling rcb_note_block() is never
# boosted.
s|^\([[:space:]]*\)enqueue_preempted_readers()$|\1skip /* MUTATION: no on-behalf queueing */|
