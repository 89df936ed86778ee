"""SSH plumbing: addresses, connections through jump hosts, host keys, prompts.

It knows nothing of the app's records or checks: ``app.remote`` builds the
remote workspace on top of it.
"""
