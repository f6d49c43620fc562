"""Service endpoints: `/healthz` for the load balancer, `/opensearch.xml` for browsers."""
from __future__ import annotations

import os

from flask import Blueprint, Response, current_app, jsonify, render_template

from ..respond import library

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
def healthz():
    """200 with the open index's folder and size; 503 (error shape) when no index opens. When
    the build CURRENT names is damaged and an older one serves, the status is "degraded" and
    the answer names the damaged build and what is wrong with it. When the build served is
    damaged and none other opens, the status is "damaged", with a 503 so that a load balancer
    sends its traffic elsewhere (it still answers, from what it read when it opened, checked
    then). `pid` is the answering
    process and `opened_in` the one that opened the index (gunicorn's master, before the
    workers forked, unless a worker switched to a newer build since)."""
    lib = library()
    answer = {"status": "ok", "records": len(lib.records), "index": lib.folder.name,
              "pid": os.getpid(), "opened_in": lib.opened_in}
    live = current_app.extensions["kb.library"]
    if live.problem is not None:
        answer |= {"status": "degraded", "current": live.current.name, "problem": live.problem}
    if live.damaged is not None:
        answer |= {"status": "damaged", "problem": live.damaged}
    response = jsonify(answer)
    if live.damaged is not None:
        response.status_code = 503
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/opensearch.xml")
def opensearch():
    xml = render_template("opensearch.xml", base=current_app.config["PUBLIC_URL"])
    return Response(xml, mimetype="application/opensearchdescription+xml")
