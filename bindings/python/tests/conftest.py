"""The binding against the library and the CPU backend built by `swift build`:
WAIHOST_LIBRARY names libwaihost.so, WAIHOST_BIN the waihost CLI (beside it: the unit worker and the CPU plugin);
scripts/test.sh sets both. Plugin folder and probe cache are private to the run."""
import json
import os
import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bindings" / "python"))


def _required(name):
    value = os.environ.get(name)
    if not value or not os.path.exists(value):
        pytest.fail("%s must name a built file (scripts/test.sh sets it); it is %r" % (name, value))
    return value


@pytest.fixture(scope="session")
def samples():
    return ROOT / "samples"


@pytest.fixture(scope="session")
def golden(samples):
    vectors = json.loads((samples / "golden.json").read_text())["vectors"]
    return {v["payload"]: v for v in vectors}


@pytest.fixture(scope="session")
def host_options(tmp_path_factory):
    _required("WAIHOST_LIBRARY")
    worker = _required("WAIHOST_BIN")
    plugin = pathlib.Path(worker).parent / "libWaiCPUBackend.so"
    if not plugin.exists():
        pytest.fail("%s is missing: swift build first" % plugin)
    plugins = tmp_path_factory.mktemp("plugins")
    shutil.copy(plugin, plugins / plugin.name)
    return {"plugin_dirs": [str(plugins)], "cache_dir": str(tmp_path_factory.mktemp("cache")), "worker": str(pathlib.Path(worker).parent / "waihost-unit-worker")}
