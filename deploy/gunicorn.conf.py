"""How the app server runs: gunicorn's settings for `scripts/serve` (behind nginx, on a unix
socket: deploy/serve.py) and for each replica of `deploy/replicas.py` (behind nginx too), in
one place so the two cannot drift apart.

Two workers forked after `preload_app` has loaded the app, the index and the analysis once
in the master. The workers are `webapp.serving.Worker`, gunicorn's synchronous worker, which
writes a response's head in the same write as the first part of its body (webapp/serving.py);
a static file's too, read and written like any body instead of by `sendfile`, which would
follow the head in a write of its own. Synchronous workers are gunicorn's choice behind a
buffering proxy: nginx hands them only whole requests and takes their answers at once, so a
slow or idle client never holds one (deploy/nginx.conf). Request lines up to 8190 bytes
reach the app, which answers a too-long address (over 4096 characters, decoded) with a 414.

gunicorn's control socket (for `gunicornc`) is off: its default path is one per user
($HOME/.gunicorn/gunicorn.ctl), so every instance on a machine, two replicas included, would
take it over from the one before, and a command meant for one would reach another. Workers are
managed by signals, as deploy/replicas.py and deploy/serve.py do.

The address to bind, and the worker count of a replica, are given on the command line, which
takes precedence over this file.
"""
workers = 2
worker_class = "webapp.serving.Worker"
limit_request_line = 8190
preload_app = True
sendfile = False
control_socket_disable = True


def post_worker_init(worker):
    """A worker warms itself before it serves, and says so (`webapp.wsgi.warm_worker`)."""
    from webapp.wsgi import warm_worker

    warm_worker()


def when_ready(server):
    """The master follows the index's builds (`webapp.wsgi.follow_builds`)."""
    from webapp.wsgi import follow_builds

    follow_builds(server)
