"""How the app server runs: gunicorn's settings for `scripts/serve` and for each replica of
`deploy/replicas.py`, in one place so the two cannot drift apart.

Two workers forked after `preload_app` has loaded the app, the index and the analysis once
in the master. The workers are `webapp.serving.Worker`, gunicorn's threaded worker whose
poller reads each request whole before one of its sixteen threads takes it, and which writes
a response's head in the same write as the first part of its body (webapp/serving.py); a
static file's too, read and written like any body instead of by `sendfile`, which would
follow the head in a write of its own. An idle kept-alive connection is closed after 5 s.
Request lines up to 8190 bytes reach the app, which answers a too-long address (over 4096)
with a 414.

gunicorn's control socket (for `gunicornc`) is off: its default path is one per user
($HOME/.gunicorn/gunicorn.ctl), so every instance on a machine, two replicas included, would
take it over from the one before, and a command meant for one would reach another. Workers are
managed by signals, as deploy/replicas.py and scripts/serve do.

The address to bind, and the worker count of a replica, are given on the command line, which
takes precedence over this file.
"""
workers = 2
worker_class = "webapp.serving.Worker"
threads = 16
keepalive = 5
limit_request_line = 8190
preload_app = True
sendfile = False
control_socket_disable = True
