"""One typed configuration, read from the environment in one place, and one command group."""
from __future__ import annotations

import pytest

from indexer.knowledge.settings import CacheSizes, Settings, SettingsError
from indexer.knowledge.weights import Weights
from indexer.search.build import DEFAULT_INDEX_ROOT, current_folder
from mtgrules.commands import cli
from webapp import create_app


def test_defaults_when_the_environment_sets_nothing():
    settings = Settings.from_env({})
    assert settings == Settings()
    assert settings.index_root == DEFAULT_INDEX_ROOT and settings.weights == Weights()
    assert settings.caches == CacheSizes() and settings.check_seconds is None


def test_every_setting_from_the_environment(tmp_path):
    settings = Settings.from_env({"INDEX_ROOT": str(tmp_path), "KB_WEIGHT_TITLE": "0", "KB_WEIGHT_CANDIDATES": "50",
                                  "KB_CACHE_ANSWERS": "10", "KB_CHECK_SECONDS": "0.25",
                                  "PUBLIC_URL": "https://rules.example/"})
    assert settings.index_root == tmp_path
    assert (settings.weights.title == 0.0 and settings.weights.candidates == 50
            and settings.weights.name == Weights().name)
    assert settings.caches.answers == 10 and settings.caches.results == CacheSizes().results
    assert settings.check_seconds == 0.25 and settings.public_url == "https://rules.example"


@pytest.mark.parametrize("name, value", [("KB_WEIGHT_TITLE", "much"), ("KB_CACHE_ANSWERS", "1.5"),
                                         ("KB_CACHE_RESULTS", "-1"), ("KB_CHECK_SECONDS", "nan"),
                                         ("KB_REQUEST_SECONDS", "soon"), ("KB_MAX_BODY_BYTES", "1e5")])
def test_a_bad_value_names_its_variable(name, value):
    with pytest.raises(SettingsError, match=rf"^{name}="):
        Settings.from_env({name: value})


def test_the_app_and_its_libraries_take_the_settings(small_index, monkeypatch):
    monkeypatch.setenv("KB_CHECK_SECONDS", "7")
    monkeypatch.setenv("KB_WEIGHT_NAME", "0")
    monkeypatch.setenv("KB_CACHE_ANSWERS", "3")
    app = create_app({"TESTING": True, "INDEX_ROOT": small_index})
    assert app.extensions["kb.settings"].index_root == small_index
    live = app.extensions["kb.library"]
    assert live.CHECK_SECONDS == 7.0
    library = live.get()
    try:
        assert library.weights.name == 0.0
        for q in ("多重增幅", "persist", "留存", "Murderous Redcap"):
            library.search(q, 10)
        assert len(library._answers.cache) == 0  # no answer fits in 3 bytes
    finally:
        library.close()


def test_the_command_group_run_by_flask_uses_the_applications_settings(tiny_index, tmp_path):
    corpus = tiny_index.parent / "corpus"  # the Worldwake FAQ, which holds 702.30c
    runner = create_app({"TESTING": True, "INDEX_ROOT": tmp_path / "app-index"}).test_cli_runner()
    result = runner.invoke(cli, args=["build", str(corpus)])
    assert result.exit_code == 0, result.output
    assert current_folder(tmp_path / "app-index") is not None  # the application's index root
    again = runner.invoke(cli, args=["build", str(corpus)])
    assert again.output.startswith("index up to date: ")
    answer = runner.invoke(cli, args=["--json", "search", "多重增幅"])
    assert '"worldwake-faq:rule:702.30c"' in answer.output


def test_the_body_cap_and_request_time_from_the_environment(small_index, monkeypatch):
    monkeypatch.setenv("KB_MAX_BODY_BYTES", "2048")
    monkeypatch.setenv("KB_REQUEST_SECONDS", "2.5")
    app = create_app({"TESTING": True, "INDEX_ROOT": small_index})
    assert app.config["MAX_CONTENT_LENGTH"] == 2048 and app.extensions["kb.settings"].request_seconds == 2.5
    assert app.test_client().post("/api/linkify", json={"text": "x" * 3000}).status_code == 413
