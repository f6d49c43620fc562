"""The request hooks: one before every view and one after every answer, so the order of what
they do is written in one place (Flask runs after-request hooks in the reverse order they
were installed in, and each hook costs its own dispatch on every request)."""
from __future__ import annotations

from flask import Flask, Response, redirect
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response as BaseResponse

from .caching import compress, not_modified, validate
from .respond import AnswerRequest, check_common_args, current_request, finish, local_address, read_chunked_body


def before() -> BaseResponse | None:
    """A chunked body is read whole or refused (413), the arguments every address shares are
    checked (400, 414), a route's canonical address is redirected to, then a client that
    holds the answer already gets its 304 without the view running. (Each hook takes the
    request from Flask's proxy once: every attribute read through the proxy looks it up
    again.)"""
    req = current_request()
    read_chunked_body(req)
    check_common_args(req)
    if isinstance(req.routing_exception, RequestRedirect):
        # Werkzeug's own redirect (`/rules//702.30a` to `/rules/702.30a`) names the request's
        # Host, a header the client chooses, in its Location and its body: this one names
        # only the path.
        return redirect(local_address(req.routing_exception.new_url), req.routing_exception.code)
    return not_modified(req)


def after(response: Response) -> Response:
    """The validator and lifetime, compression, then what every answer carries (its security
    headers, `Vary` and the script cookie)."""
    req = current_request()
    validate(req, response)
    return finish(req, compress(req, response))


def install(app: Flask) -> None:
    app.request_class = AnswerRequest
    app.before_request(before)
    app.after_request(after)
