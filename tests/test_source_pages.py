"""A long document is read as its contents and numbered pages of PAGE_RECORDS records (a
rules file shown whole was a 3.3 MB page costing over a second of CPU); every record is on
exactly one page, every link to a record opens the page that holds it, and the JSON twin is
the same view."""
from __future__ import annotations

import re

import pytest

from webapp.urls import PAGE_RECORDS


def pages_of(client, source_id: str) -> list[dict]:
    contents = client.get(f"/api/sources/{source_id}").get_json()
    return [client.get(f"/api/sources/{source_id}?page={n}").get_json() for n in range(1, contents["pages"] + 1)]


def test_a_long_document_is_its_contents_and_pages(client, library):
    records = library.records_of_source("shadowmoor-faq")
    assert len(records) > 3 * PAGE_RECORDS  # the FAQ is long enough to be split
    contents = client.get("/api/sources/shadowmoor-faq").get_json()
    assert contents["pages"] == -(-len(records) // PAGE_RECORDS) and contents["records"] == []
    assert [p["url"] for p in contents["contents"]] == [f"/sources/shadowmoor-faq?page={n}"
                                                         for n in range(1, contents["pages"] + 1)]
    pages = pages_of(client, "shadowmoor-faq")
    shown = [r["id"] for page in pages for r in page["records"]]
    assert shown == [r.id for r in records]  # each once, in the document's order
    assert all(len(page["records"]) <= PAGE_RECORDS for page in pages)
    assert pages[0]["previous"] is None and pages[-1]["next"] is None
    assert [p["next"] for p in pages[:-1]] == [p["url"] for p in contents["contents"][1:]]
    # Every section is listed in the contents, on the page that holds it.
    sections = {s["id"]: s["url"] for p in contents["contents"] for s in p["sections"]}
    assert set(sections) == {r.id for r in records if r.kind == "section"}
    for page in pages:
        for r in page["records"]:
            if r["kind"] == "section":
                assert sections[r["id"]] == f"/sources/shadowmoor-faq?page={page['page']}#{r['id']}"


def test_every_link_to_a_record_opens_the_page_holding_it(client):
    for page in pages_of(client, "shadowmoor-faq"):
        for r in page["records"]:
            if r["kind"] != "section":
                assert r["source"]["url"] == f"/sources/shadowmoor-faq?page={page['page']}#{r['id']}"
    card = client.get("/cards/shadowmoor-faq:card:murderous-redcap").get_data(as_text=True)
    url = re.search(r'href="(/sources/shadowmoor-faq\?page=\d+#shadowmoor-faq:card:murderous-redcap)"', card).group(1)
    page = client.get(url.split("#")[0]).get_data(as_text=True)
    assert 'id="shadowmoor-faq:card:murderous-redcap"' in page


def test_a_section_s_own_address_is_its_entry_in_the_contents(client):
    html = client.get("/sources/shadowmoor-faq").get_data(as_text=True)
    entry = re.search(r'<li id="shadowmoor-faq:section:8"><a href="([^"]+)"', html)
    assert entry and entry.group(1).endswith("#shadowmoor-faq:section:8")
    assert 'id="shadowmoor-faq:section:8"' in client.get(entry.group(1).split("#")[0]).get_data(as_text=True)


def test_a_page_links_its_neighbours_and_the_contents(client):
    html = client.get("/sources/shadowmoor-faq?page=2&script=hans").get_data(as_text=True)
    assert 'rel="prev" href="/sources/shadowmoor-faq?page=1"' in html
    assert 'rel="next" href="/sources/shadowmoor-faq?page=3"' in html
    assert 'href="/sources/shadowmoor-faq">' in html


def test_a_short_document_stays_one_page(client):
    view = client.get("/api/sources/worldwake-faq").get_json()
    assert view["pages"] == 1 and "contents" not in view and len(view["records"]) == 19
    assert all(r["source"]["url"] == f"/sources/worldwake-faq#{r['id']}" for r in view["records"])


@pytest.mark.parametrize("page", ["0x", "-1", "5", "99999999"])
def test_a_page_out_of_range_is_a_clear_error(client, page):
    response = client.get(f"/api/sources/shadowmoor-faq?page={page}")
    assert response.status_code in (400, 404)
    assert response.get_json()["error"]["message"]


def test_a_rules_file_is_split_by_its_sections(cr_client, cr_library):
    contents = cr_client.get("/api/sources/cr-2010-02-01").get_json()
    heads = [r.id for r in cr_library.records_of_source("cr-2010-02-01") if r.kind == "rule" and r.parent is None]
    listed = [s["id"] for p in contents["contents"] for s in p["sections"]]
    assert listed[:len(heads)] == heads and len(listed) == len(heads) + 1  # and where the glossary starts
    page = cr_client.get("/sources/cr-2010-02-01?page=3")
    assert page.status_code == 200 and len(page.data) < 200_000
