"""Reading the app's server-rendered pages in tests: a page's HTML through the test client,
with its status and type checked, and its main content."""


def page(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, url
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def main(html):
    return html[html.index('<main id="main"'):html.index("</main>")]
