"""The fast fault matrix (issue 12): one run per family of hostile page; see matrix.py."""

from __future__ import annotations

import pytest

from tests.faults.matrix import CASES, check, child_env, run_case
from tests.testweb.server import TestWeb


@pytest.mark.timeout(150)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_page_costs_itself_only(name: str, testweb_env: TestWeb) -> None:
    check(run_case(CASES[name], testweb_env, child_env()))
