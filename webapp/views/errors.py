"""One error shape for everything: `{"error": {"status": 404, "message": "..."}}` as JSON,
and the same status and message on an HTML page, whichever route and whatever went wrong."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from indexer.search.engine import IndexUnavailable
from indexer.search.query import QueryError

from ..respond import wants_json

bp = Blueprint("errors", __name__)

UNAVAILABLE = "The search index is not available right now; please try again in a moment."
MESSAGES = {
    400: "The request could not be read.",
    404: "No such page.",
    405: "This address does not accept that method.",
    408: "The request did not arrive in time.",
    413: "The request body is too large.",
    414: "The address is too long.",
    431: "The request's headers are too large.",
    500: "Something went wrong on our side.",
}


def error_response(status: int, message: str):
    error = {"status": status, "message": message}
    response = jsonify({"error": error}) if wants_json() else make_response(render_template("error.html", error=error))
    response.status_code = status
    return response


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException):
    status = exc.code or 500
    # Werkzeug's stock descriptions are long and generic; a view's own message is kept.
    default = type(exc).description
    message = exc.description if exc.description and exc.description != default else MESSAGES.get(status, exc.name)
    if status == 413:
        message = _too_large()
    response = error_response(status, message)
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
        response.headers["Allow"] = ", ".join(exc.valid_methods)
    return response


def _too_large() -> str:
    """Why a body was refused as too large: its length, or (a body within the length) the
    parts of its form or the bytes of a field, which Werkzeug counts while reading it."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    length = request.content_length
    if length is not None and length <= limit and request.mimetype == "multipart/form-data":
        return (f"The form has too many parts or too large a field (at most {current_app.config['MAX_FORM_PARTS']} "
                f"parts, {current_app.config['MAX_FORM_MEMORY_SIZE']} bytes a field).")
    return f"The request body is too large (at most {limit} bytes)."


@bp.app_errorhandler(QueryError)
def query_error(exc: QueryError):
    return error_response(exc.status, str(exc))


@bp.app_errorhandler(IndexUnavailable)
def index_unavailable(exc: IndexUnavailable):
    current_app.logger.error("index unavailable: %s", exc)
    response = error_response(503, UNAVAILABLE)
    response.headers["Retry-After"] = "30"
    return response


@bp.app_errorhandler(Exception)
def internal_error(exc: Exception):
    """A 500, unless the request failed on a build whose files are damaged: then the build is
    marked damaged (the next request is served by another one) and the answer is a 503."""
    library = request.__dict__.get("library")  # the request's library, if it asked for one
    if library is not None:
        with current_app.extensions["kb.library.lock"]:
            damage = current_app.extensions["kb.library"].failed(library)
        if damage is not None:
            current_app.logger.error("a request failed on a damaged index (%s: %s): %s",
                                     type(exc).__name__, exc, damage)
            return index_unavailable(IndexUnavailable(damage))
    current_app.logger.exception("unhandled error")
    return error_response(500, MESSAGES[500])
