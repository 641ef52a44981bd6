"""Hatch build hook: a standard wheel ships the repository's packages namespaced under one root
(packaging/namespace.py), the editable install (``uv sync``: the dev environment) runs from the
tree as before. Configured in a pyproject's ``[tool.hatch.build.targets.wheel.hooks.custom]``:

    path = "<this file, relative to the pyproject>"
    root = "empire_hall"                      # the one top-level package the wheel adds
    include = ["shared", "services", ...]     # files or package directories, repository-relative
    scripts = { empire-hall-verify = "empire_hall.shared.fairness.verify:main" }

``scripts`` become the wheel's console scripts (its ``.dist-info/entry_points.txt``). They are not
``[project.scripts]`` because the editable install would get them too, pointing to modules that
only the built wheel has.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).resolve().parent


def _namespace() -> Any:
    spec = importlib.util.spec_from_file_location("_empire_namespace", HERE / "namespace.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class NamespaceBuildHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root: str = self.config["root"]
        self._staging = Path(tempfile.mkdtemp(prefix="empire-namespace-"))
        _namespace().stage(self._staging, root, self.config["include"])
        build_data["force_include"][str(self._staging / root)] = root
        scripts: dict[str, str] = self.config.get("scripts", {})
        if scripts:
            entry = self._staging / "entry_points.txt"
            entry.write_text("[console_scripts]\n" + "".join(
                f"{name} = {target}\n" for name, target in sorted(scripts.items())))
            # into the wheel's own .dist-info (hatch's extra_metadata would be a subdirectory
            # of it, which installers do not read)
            dist = re.sub(r"[-_.]+", "_", self.metadata.name).lower()
            build_data["force_include"][str(entry)] = (
                f"{dist}-{self.metadata.version}.dist-info/entry_points.txt")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staging = getattr(self, "_staging", None)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
