"""JSON answers encoded by orjson.

A search answer is ten results with their texts, snippets and addresses; the standard
library's encoder took about a tenth of a request's time to write one. orjson writes the
same bytes (keys in the order the library builds them, Chinese as UTF-8, compact) several
times faster (docs/decisions/0014-cold-round-4-snippets-ranking-arrays-answer-memo.md). What
it cannot encode itself goes to Flask's own conversions (dates, dataclasses, objects with
`__html__`); a caller asking for other options (indentation, sorted keys) gets Flask's encoder.
"""
from __future__ import annotations

from typing import Any, cast

import orjson
from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider


def _dumps(obj: Any, default: Any, option: int = 0) -> bytes:
    """orjson's bytes for `obj`, keys that are not strings (numbers, which the standard
    library's encoder also takes) included: orjson writes a search answer about a sixth
    faster without OPT_NON_STR_KEYS, so that option is only asked for when a key needs it."""
    try:
        return orjson.dumps(obj, default=default, option=option)
    except orjson.JSONEncodeError:
        return orjson.dumps(obj, default=default, option=option | orjson.OPT_NON_STR_KEYS)


class OrjsonProvider(DefaultJSONProvider):
    _app: Flask  # (Flask's own app, whose responses have a body; the base class names any app)
    ensure_ascii = False
    sort_keys = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:
            return super().dumps(obj, **kwargs)
        return _dumps(obj, self.default).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.compact is False or (self.compact is None and self._app.debug):
            return cast(Response, super().response(*args, **kwargs))  # made by the app's response_class
        body = _dumps(self._prepare_response_obj(args, kwargs), self.default, orjson.OPT_APPEND_NEWLINE)
        return self._app.response_class(body, mimetype=self.mimetype)
