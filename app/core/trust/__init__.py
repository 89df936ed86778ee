"""The trust kernel: containment, safe opens, the policy, records and their checks.

Nothing here reads or writes the store: a check is a function of the file now,
the policy and what a record says, and the store hands records to it.
"""
