# model: boost3.pml
# run: safety
# claim: (a)/(b), invariant 2
# rcu_boost_one_reader_list() does not recheck its local list after
# re-taking the element lock (article lines 14-15): it boosts a target
# that removed itself while the lock was dropped.
/LISTCHECK/s|!(lst == e && where == ON_LOCAL)|false|
