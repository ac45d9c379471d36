"""Fixtures every converter test shares: the host binary the tests drive and an environment
with the CPU backend beside a private probe cache."""
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def waihost_bin():
    exe = os.environ.get("WAIHOST_BIN") or str(REPO / ".build" / "debug" / "waihost")
    assert Path(exe).is_file(), f"{exe} not built (swift build) and WAIHOST_BIN not set"
    return exe


@pytest.fixture(scope="session")
def waihost():
    return waihost_bin()


@pytest.fixture(scope="session")
def host_env(tmp_path_factory, waihost):
    """The CPU backend plugin beside a private probe cache, so `--unit cpu` is a real unit."""
    d = tmp_path_factory.mktemp("host")
    plugins = d / "plugins"
    plugins.mkdir()
    for so in Path(waihost).parent.glob("libWaiCPUBackend.so"):
        shutil.copy(so, plugins)
    env = dict(os.environ, WAI_PLUGIN_PATH=str(plugins), WAIHOST_PROBER=waihost, WAIHOST_CACHE_DIR=str(d / "cache"))
    return env
