"""The request hooks: one before every view and one after every answer, so the order of what
they do is written in one place (Flask runs after-request hooks in the reverse order they
were installed in, and each hook costs its own dispatch on every request)."""
from __future__ import annotations

from flask import Flask, Response

from .caching import compress, not_modified, validate
from .respond import AnswerRequest, check_common_args, current_request, finish


def before() -> Response | None:
    """The arguments every address shares are checked (400, 414), then a client that holds
    the answer already gets its 304 without the view running. (Each hook takes the request
    from Flask's proxy once: every attribute read through the proxy looks it up again.)"""
    req = current_request()
    check_common_args(req)
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
