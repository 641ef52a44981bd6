"""A small kustomize renderer for the subset deploy/k8s uses, so the tests need no kustomize or
kubectl binary: ``resources`` (files and kustomization directories), ``namespace``, ``images``
(newName/newTag) and ``patches`` with ``path`` (strategic-merge patches, matched by kind and
name). Anything else in a kustomization.yaml is refused, so an overlay cannot silently use a
feature this renderer would ignore.

Strategic merge as kustomize does it for the fields the overlays patch: maps merge key by key,
lists of maps with a ``name`` (containers, env, ports, volumes) merge item by item, other lists
are replaced, ``null`` deletes a key. Checked against ``kubectl kustomize`` (kustomize v5.8.1)
on both overlays when the suite was written; tests/deploy/test_k8s.py repeats the comparison
whenever a ``kubectl`` binary is on PATH.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

Doc = dict[str, Any]

SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "images", "patches"}
# kinds kustomize leaves without a namespace
CLUSTER_SCOPED = {
    "Namespace",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PersistentVolume",
    "StorageClass",
    "PriorityClass",
    "IngressClass",
}


def load_docs(path: Path) -> list[Doc]:
    with path.open() as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def render(directory: Path) -> list[Doc]:
    """The resources a ``kubectl apply -k directory`` would send, in kustomize's input order."""
    kfile = directory / "kustomization.yaml"
    spec = yaml.safe_load(kfile.read_text())
    unknown = set(spec) - SUPPORTED
    if unknown:
        raise ValueError(f"{kfile}: unsupported kustomization fields {sorted(unknown)}")
    docs: list[Doc] = []
    for entry in spec.get("resources", []):
        target = (directory / entry).resolve()
        docs.extend(render(target) if target.is_dir() else load_docs(target))
    for patch_entry in spec.get("patches", []):
        if set(patch_entry) != {"path"}:
            raise ValueError(f"{kfile}: only 'path' patches are supported: {patch_entry}")
        for patch in load_docs(directory / patch_entry["path"]):
            _apply_patch(docs, patch, kfile)
    for image in spec.get("images", []):
        _set_image(docs, image)
    if "namespace" in spec:
        for d in docs:
            if d["kind"] not in CLUSTER_SCOPED:
                d.setdefault("metadata", {})["namespace"] = spec["namespace"]
    _check_unique(docs, kfile)
    return docs


def _apply_patch(docs: list[Doc], patch: Doc, kfile: Path) -> None:
    key = (patch["kind"], patch["metadata"]["name"])
    hits = [d for d in docs if (d["kind"], d["metadata"]["name"]) == key]
    if len(hits) != 1:
        raise ValueError(f"{kfile}: patch {key} matches {len(hits)} resources")
    merged = merge(hits[0], patch)
    hits[0].clear()
    hits[0].update(merged)


def merge(base: Any, patch: Any) -> Any:
    """Strategic merge of ``patch`` into ``base`` (a new value; neither argument changes)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = copy.deepcopy(base)
        for k, v in patch.items():
            if v is None:
                out.pop(k, None)
            elif k in out:
                out[k] = merge(out[k], v)
            else:
                out[k] = copy.deepcopy(v)
        return out
    if (
        isinstance(base, list)
        and isinstance(patch, list)
        and patch
        and all(isinstance(x, dict) and "name" in x for x in base + patch)
    ):
        out_list = copy.deepcopy(base)
        index = {x["name"]: i for i, x in enumerate(out_list)}
        for item in patch:
            if item["name"] in index:
                out_list[index[item["name"]]] = merge(out_list[index[item["name"]]], item)
            else:
                out_list.append(copy.deepcopy(item))
        return out_list
    return copy.deepcopy(patch)


def _set_image(docs: list[Doc], image: Doc) -> None:
    name = image["name"]
    for container in containers(docs):
        current = container.get("image", "")
        repo, _, tag = current.rpartition(":") if ":" in current else (current, "", "")
        if repo != name:
            continue
        new_repo = image.get("newName", repo)
        new_tag = image.get("newTag", tag)
        container["image"] = f"{new_repo}:{new_tag}" if new_tag else new_repo


def _check_unique(docs: list[Doc], kfile: Path) -> None:
    seen: set[tuple[str, str]] = set()
    for d in docs:
        key = (d["kind"], d["metadata"]["name"])
        if key in seen:
            raise ValueError(f"{kfile}: {key} defined twice")
        seen.add(key)


def pod_spec(doc: Doc) -> Doc | None:
    if doc["kind"] in {"Deployment", "StatefulSet", "DaemonSet", "Job"}:
        spec: Doc = doc["spec"]["template"]["spec"]
        return spec
    return None


def containers(docs: list[Doc]) -> list[Doc]:
    out: list[Doc] = []
    for d in docs:
        spec = pod_spec(d)
        if spec is not None:
            out.extend(spec.get("initContainers", []))
            out.extend(spec["containers"])
    return out
