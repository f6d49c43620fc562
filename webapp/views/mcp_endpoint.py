"""`/mcp`: the rules as tools for AI assistants over MCP's streamable HTTP (`webapp.mcp_http`).

The view reads the request's body within the site's limit (a larger one is the app's 413)
and hands the request to the worker's transport; the answer goes out through the same hooks
as every other (security headers, compression)."""
from __future__ import annotations

import io

from flask import Blueprint, Response, current_app, request

from .errors import error_response

bp = Blueprint("mcp", __name__)
# The most of a transport's own message an error repeats.
MESSAGE_CHARS = 200


@bp.post("/mcp")
def endpoint():
    """A call, answered whole. A stateless server has no stream to open with GET and no session
    to end with DELETE: both are the site's 405, as the protocol allows."""
    body = request.get_data()
    environ = {**request.environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))}
    environ.pop("HTTP_TRANSFER_ENCODING", None)  # read whole above
    response = Response.from_app(current_app.extensions["kb.mcp"].wsgi(), environ, buffered=True)
    if response.status_code >= 400 and not response.is_json:
        # The transport's refusals in plain text (a Host or Origin not the site's): the site's error shape.
        return error_response(response.status_code, response.get_data(as_text=True)[:MESSAGE_CHARS])
    return response
