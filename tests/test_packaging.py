"""The distributions carry the licence pyproject.toml declares: the sdist and the wheel are
built with the project's own build backend and opened like an installer would."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import tomllib

CHECKOUT = Path(__file__).resolve().parent.parent
# The first line of the licence text for each SPDX identifier this project could declare.
LICENCE_TITLES = {"MIT": "MIT License"}


def test_license_file_matches_pyproject_and_ships_in_sdist_and_wheel(tmp_path):
    project = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    licence = (CHECKOUT / "LICENSE").read_text(encoding="utf-8")
    assert project["license-files"] == ["LICENSE"]
    assert licence.splitlines()[0] == LICENCE_TITLES[project["license"]]

    built = subprocess.run([sys.executable, "-m", "hatchling", "build", "-d", str(tmp_path)], cwd=CHECKOUT,
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    version = project["version"]
    wheel = tmp_path / f"ctxlint-{version}-py3-none-any.whl"
    sdist = tmp_path / f"ctxlint-{version}.tar.gz"

    with zipfile.ZipFile(wheel) as archive:
        info = f"ctxlint-{version}.dist-info"
        assert archive.read(f"{info}/licenses/LICENSE").decode("utf-8") == licence
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode("utf-8"))
    assert metadata["License-Expression"] == project["license"]
    assert metadata["License-File"] == "LICENSE"

    with tarfile.open(sdist) as archive:
        member = archive.extractfile(f"ctxlint-{version}/LICENSE")
        assert member is not None and member.read().decode("utf-8") == licence
        pkg_info = archive.extractfile(f"ctxlint-{version}/PKG-INFO")
        assert pkg_info is not None
        assert Parser().parsestr(pkg_info.read().decode("utf-8"))["License-Expression"] == project["license"]
