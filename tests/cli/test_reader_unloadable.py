"""The `reader` extra installed but its cross-encoder not loadable here (onnxruntime's library
missing on this machine, a damaged model file): runs read with the lexical head instead of
failing, and `sleuth doctor` warns and says why. It used to raise from every run and from
doctor itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sleuth.pipeline import crossenc, reader
from tests.cli.helpers import run
from tests.cli.test_reader_lead import PAGES, ask
from tests.testweb.server import TestWeb


@pytest.fixture
def unloadable(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def broken(self: crossenc.CrossEncoder, *args: object, **kwargs: object) -> None:
        raise ImportError("libonnxruntime.so.1: cannot open shared object file")

    monkeypatch.setattr(crossenc.CrossEncoder, "__init__", broken)
    monkeypatch.setattr(crossenc, "_PROBLEMS", [], raising=False)
    crossenc.shipped_encoder.cache_clear()
    reader._load_shipped.cache_clear()
    yield
    crossenc.shipped_encoder.cache_clear()  # the next test loads the real one again
    reader._load_shipped.cache_clear()


def test_doctor_warns_and_says_why(unloadable: None, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, err = run(["doctor", "--search=none"], capsys)
    assert "Traceback" not in out + err
    assert "cross-encoder did not load: ImportError: libonnxruntime.so.1" in out + err


def test_a_run_reads_with_the_lexical_head(
    unloadable: None, testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]
) -> None:
    lead = ask(testweb_env, capsys, PAGES, "what is the capital of veridia", "veridia")
    assert "Port Amsel" in lead
    assert reader.reader().encoder is None
