"""deploy/systemd's watch timer runs a real command: `sleuth watch run` parses, and the timer
starts that unit."""

from __future__ import annotations

import re
import shlex

import click

from sleuth.cli.main import cli
from tests.deploy.test_deploy_files import DEPLOY


def test_the_watch_timer_starts_a_real_watch_run() -> None:
    service = (DEPLOY / "systemd" / "sleuth-watch.service").read_text(encoding="utf-8")
    start = re.search(r"^ExecStart=(.+)$", service, flags=re.M)
    assert start is not None
    argv = shlex.split(start.group(1))
    assert argv[0].endswith("/sleuth") and argv[1:3] == ["watch", "run"]
    group = cli.get_command(click.Context(cli), "watch")
    assert isinstance(group, click.Group)
    run = group.get_command(click.Context(group), "run")
    assert run is not None and run.make_context("run", argv[3:], resilient_parsing=False)
    assert re.search(r"^Type=oneshot$", service, flags=re.M)
    timer = (DEPLOY / "systemd" / "sleuth-watch.timer").read_text(encoding="utf-8")
    assert re.search(r"^OnUnitActiveSec=\S+$", timer, flags=re.M)
