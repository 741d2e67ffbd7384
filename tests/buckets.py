"""Which tests `make test` runs and which wait for `make test-all`: the rule, in one place.

`make test` is what a newcomer runs first and what a change is checked with while working, so it
has to finish in minutes on a 2-core machine: it runs `-m "not slow and not soak"`. `make
test-all` (and CI, `.ci/run`) runs those, then `-m "slow and not soak"`; `make soak` runs the
`soak` tests. A plain `pytest` runs everything but `soak`, so naming a slow file runs it.

A test is `slow` when any of these says so (the marker carries the reason; `pytest
--collect-only -q -m slow` lists them):

- it lives under a directory of SLOW_DIRS (the fault matrix and served bursts);
- it carries a mark of SLOW_MARKS (a real Chromium, the local model);
- it uses a fixture of SLOW_FIXTURES (a PostgreSQL cluster, a real `sleuth serve` process), or
  runs on the PostgreSQL `backend`;
- it is named in SLOW_TESTS, with why (it waits out retries, timeouts or many processes).

So a new test that starts PostgreSQL, Chromium or `sleuth serve` through the shared fixtures
lands in `slow` by itself; one that is slow for another reason goes into SLOW_TESTS. The last
test of a whole `make test` run checks that every module of `src/sleuth` was still imported by
a test it ran (`tests/architecture/test_fast_suite_coverage.py`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest
from sitecustomize import IMPORT_LOG  # tests/netguard, on sys.path since tests/conftest.py

FAST = "not slow and not soak"
COVERAGE_TEST = "tests/architecture/test_fast_suite_coverage.py::test_every_module_is_imported"

SLOW_DIRS: Mapping[str, str] = MappingProxyType(
    {
        "tests/faults/": "the fault matrix and served bursts: real processes against hostile pages",
    }
)
SLOW_MARKS: Mapping[str, str] = MappingProxyType(
    {
        "browser": "drives a system Chromium",
        "local_model": "runs the local model in llama.cpp",
    }
)
SLOW_FIXTURES: Mapping[str, str] = MappingProxyType(
    {
        "postgres_url": "starts a throwaway PostgreSQL cluster",
        "postgres_db": "starts a throwaway PostgreSQL cluster",
        "sleuth_serve": "starts a real `sleuth serve` process",
    }
)
# Tests slow for a reason no fixture shows: file -> test name (parameters left out) -> why.
RETRIES = "waits out a model endpoint's retries or timeout"
CHILD_PYTEST = "runs pytest again in a child process"
MANY = "many runs at once, soak-like"
SANDBOX = "waits for the extraction sandbox to kill a hostile document"
SLOW_TESTS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "tests/server/test_schemathesis.py": {
            "test_the_api_conforms_to_its_openapi_document": "fuzzes every route",
        },
        "tests/server/test_sdk.py": {
            "test_serve_with_two_workers": "two uvicorn workers",
            "test_sdk_retries_503_server_busy_until_a_slot_frees": "waits out the SDK's backoff",
            "test_sdk_retries_409_until_the_first_attempt_has_answered": "the SDK's backoff",
        },
        "tests/server/test_keep_alive.py": {
            "test_a_connection_idle_past_uvicorns_default_is_still_served": "waits past idle",
        },
        "tests/server/test_stream.py": {
            "test_a_shared_run_goes_on_for_the_client_that_stays": "follows a run to its end",
        },
        "tests/cli/test_ask_cli.py": {
            "test_llm_endpoint_that_refuses_gives_a_clear_error": RETRIES,
        },
        "tests/cli/test_ask_llm_cli.py": {
            "test_llm_endpoint_that_hangs_times_out_with_a_clear_error": RETRIES,
        },
        "tests/cli/test_first_hour.py": {
            "test_require_llm_makes_an_unreachable_model_an_error": RETRIES,
            "test_unreachable_model_falls_back_to_the_extractive_writer_naming_it": RETRIES,
            "test_deep_run_with_an_unreachable_model_plans_and_writes_without_it": RETRIES,
            "test_extra_dependent_tests_skip_with_a_reason_when_the_extra_is_absent": CHILD_PYTEST,
        },
        "tests/architecture/test_buckets.py": {
            "test_postgres_browser_and_listed_tests_are_slow_and_the_rest_are_not": CHILD_PYTEST,
            "test_a_selection_that_leaves_no_test_is_an_error_not_pytests_exit_5": CHILD_PYTEST,
        },
        "tests/app/test_concurrent_runs.py": {
            "test_twenty_concurrent_asks_keep_their_own_options_meters_and_results": MANY,
        },
        "tests/server/test_sharing.py": {
            "test_fifty_identical_requests_share_one_run_then_the_cache_then_run_again": MANY,
        },
        "tests/store/test_crash.py": {
            "test_sigkill_during_saves_leaves_earlier_sessions_intact": "kills a process mid-save",
        },
        "tests/cli/test_broken_disk_cli.py": {
            "test_parallel_first_runs_all_print_and_all_save": "eight `sleuth` processes at once",
        },
        "tests/store/test_service_store.py": {
            "test_first_use_by_many_processes_at_once_migrates_once": "many processes at once",
        },
        "tests/store/test_broken_disk.py": {
            "test_eight_processes_opening_a_new_home_at_once_all_succeed": "8 processes, 4 trials",
        },
        "tests/search/test_local_files.py": {
            "test_an_included_pdf_bomb_costs_one_file_not_the_run": SANDBOX,
        },
        "tests/fetch/test_sandbox.py": {
            "test_an_extraction_over_its_time_limit_is_killed": SANDBOX,
            "test_a_small_page_is_not_held_behind_a_big_one": SANDBOX,
            "test_a_pdf_inflate_bomb_is_a_typed_error_and_the_next_page_still_reads": SANDBOX,
        },
        "tests/testweb/test_testweb.py": {"test_host_and_page_delays": "waits out page delays"},
        "tests/batch/test_batch_cli.py": {
            "test_a_killed_batch_resumes_and_answers_each_question_once": "kills and resumes",
        },
    }
)


def slow_reason(item: pytest.Item) -> str | None:
    """Why `item` waits for `make test-all`, or None when `make test` runs it."""
    nodeid = item.nodeid
    for prefix, why in SLOW_DIRS.items():
        if nodeid.startswith(prefix):
            return why
    for mark, why in SLOW_MARKS.items():
        if item.get_closest_marker(mark) is not None:
            return why
    fixtures = getattr(item, "fixturenames", ())
    for fixture, why in SLOW_FIXTURES.items():
        if fixture in fixtures:
            return why
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "postgres":
        return SLOW_FIXTURES["postgres_url"]
    path, _, name = nodeid.split("[", 1)[0].partition("::")
    return SLOW_TESTS.get(path, {}).get(name)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        why = slow_reason(item)
        if why is not None:
            item.add_marker(pytest.mark.slow(why))
    # The coverage check looks at what the tests before it imported: it runs last.
    last = [i for i in items if i.nodeid == COVERAGE_TEST]
    items[:] = [i for i in items if i.nodeid != COVERAGE_TEST] + last


def pytest_configure(config: pytest.Config) -> None:
    """Where the session's subprocesses list the modules they imported (see sitecustomize)."""
    if not os.environ.get(IMPORT_LOG):
        os.environ[IMPORT_LOG] = tempfile.mkdtemp(prefix="sleuth-test-imports-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop(IMPORT_LOG), ignore_errors=True))


def imported_by_subprocesses() -> set[str]:
    directory = os.environ.get(IMPORT_LOG)
    if not directory:
        return set()
    return {line for log in Path(directory).glob("*.txt") for line in log.read_text().split()}


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """pytest's "no tests ran" (exit 5) never passes for a run: a selection that leaves
    nothing (every test here is slow, a `-k` that matches none) is an error saying so."""
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            expr = session.config.getoption("markexpr") or "(none)"
            reporter.write_line(
                f"no test was selected (-m {expr!r}); `make test-all` runs the slow ones",
                red=True,
            )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
