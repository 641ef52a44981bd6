"""A small kustomize renderer for the subset deploy/k8s uses, so the tests need no kustomize or
kubectl binary: ``resources`` (files and kustomization directories), ``namespace``, ``images``
(newName/newTag/digest), ``patches`` with ``path`` (strategic-merge patches, matched by kind
and name) and ``configMapGenerator`` (``files``, ``envs``, ``literals``, ``behavior``
create/merge/replace, ``options.labels``), with kustomize's content-hash name suffix and the
generated names substituted wherever pods refer to the ConfigMaps (envFrom, env, volumes).
Anything else in a kustomization.yaml is refused, so an overlay cannot silently use a feature
this renderer would ignore.

Strategic merge as kustomize does it for the fields the overlays patch: maps merge key by key,
lists of maps with a ``name`` (containers, env, ports, volumes) merge item by item, other lists
are replaced, ``null`` deletes a key. tests/deploy/test_k8s.py compares the result with
``kubectl kustomize`` whenever a ``kubectl`` binary is on PATH (checked against kustomize
v5.5.0 when the generators were added).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

Doc = dict[str, Any]

SUPPORTED = {
    "apiVersion",
    "kind",
    "resources",
    "namespace",
    "images",
    "patches",
    "configMapGenerator",
}
GENERATOR_FIELDS = {"name", "behavior", "files", "envs", "literals", "options"}
GENERATED = "__generated__"  # marks a generated ConfigMap until its name gets the hash
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
    """The resources a ``kubectl apply -k directory`` would send, in kustomize's input order
    (generated ConfigMaps after the resources of their kustomization)."""
    docs = _build(directory)
    renames: dict[str, str] = {}
    for d in docs:
        if d.pop(GENERATED, False):
            name = d["metadata"]["name"]
            renames[name] = f"{name}-{config_map_hash(d)}"
            d["metadata"]["name"] = renames[name]
    for spec in pod_specs(docs):
        _rename_config_maps(spec, renames)
    _check_unique(docs, directory / "kustomization.yaml")
    return docs


def _build(directory: Path) -> list[Doc]:
    kfile = directory / "kustomization.yaml"
    spec = yaml.safe_load(kfile.read_text())
    unknown = set(spec) - SUPPORTED
    if unknown:
        raise ValueError(f"{kfile}: unsupported kustomization fields {sorted(unknown)}")
    docs: list[Doc] = []
    for entry in spec.get("resources", []):
        target = (directory / entry).resolve()
        docs.extend(_build(target) if target.is_dir() else load_docs(target))
    for generator in spec.get("configMapGenerator", []):
        _generate(docs, generator, directory, kfile)
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
    return docs


def _generate(docs: list[Doc], gen: Doc, directory: Path, kfile: Path) -> None:
    unknown = set(gen) - GENERATOR_FIELDS
    if unknown or set(gen.get("options", {})) - {"labels"}:
        raise ValueError(f"{kfile}: unsupported configMapGenerator fields in {gen}")
    data: dict[str, str] = {}
    for env in gen.get("envs", []):
        data.update(parse_env_file((directory / env).read_text()))
    for file in gen.get("files", []):
        key, _, path = file.rpartition("=") if "=" in file else ("", "", file)
        data[key or Path(path).name] = (directory / path).read_text()
    for literal in gen.get("literals", []):
        key, _, value = literal.partition("=")
        data[key] = value
    labels = gen.get("options", {}).get("labels", {})
    behavior = gen.get("behavior", "create")
    name = gen["name"]
    if behavior == "create":
        cm: Doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
        if labels:
            cm["metadata"]["labels"] = dict(labels)
        if data:
            cm["data"] = data
        cm[GENERATED] = True
        docs.append(cm)
        return
    hits = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == name]
    if len(hits) != 1 or not hits[0].get(GENERATED):
        raise ValueError(f"{kfile}: {behavior} of {name}: no generated ConfigMap of that name")
    target = hits[0]
    target["data"] = {**target.get("data", {}), **data} if behavior == "merge" else data
    if labels:
        target["metadata"]["labels"] = {**target["metadata"].get("labels", {}), **labels}


def parse_env_file(text: str) -> dict[str, str]:
    """kustomize's env file: leading blanks dropped, blank lines and # comments skipped,
    KEY=VALUE split at the first '=', the value kept as written."""
    out = {}
    for raw in text.splitlines():
        line = raw.lstrip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"env file line without '=': {raw!r}")
        out[key] = value
    return out


def config_map_hash(cm: Doc) -> str:
    """kustomize's name suffix of a generated ConfigMap (api/hasher): SHA-256 of the Go JSON
    encoding of {data, kind, name} with the name left empty, its first 10 hex digits with
    0, 1, 3, a, e replaced so the suffix never reads as a number or a word."""
    encoded = {"data": cm.get("data") or "", "kind": "ConfigMap", "name": ""}
    if cm.get("binaryData"):
        encoded["binaryData"] = cm["binaryData"]
    text = json.dumps(encoded, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)  # Go's json.Marshal escapes them (HTML safety)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


def _rename_config_maps(spec: Doc, renames: dict[str, str]) -> None:
    def fix(ref: Doc | None) -> None:
        if ref is not None and ref.get("name") in renames:
            ref["name"] = renames[ref["name"]]

    for c in spec.get("initContainers", []) + spec.get("containers", []):
        for src in c.get("envFrom", []):
            fix(src.get("configMapRef"))
        for item in c.get("env", []):
            fix(item.get("valueFrom", {}).get("configMapKeyRef"))
    for vol in spec.get("volumes", []):
        fix(vol.get("configMap"))
        for source in vol.get("projected", {}).get("sources", []):
            fix(source.get("configMap"))


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


def split_image(image: str) -> tuple[str, str, str]:
    """(repository, tag, digest) of an image reference; tag and digest may be empty."""
    rest, _, digest = image.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        return rest[:colon], rest[colon + 1 :], digest
    return rest, "", digest


def _set_image(docs: list[Doc], image: Doc) -> None:
    for container in containers(docs):
        repo, tag, digest = split_image(container.get("image", ""))
        if repo != image["name"]:
            continue
        repo = image.get("newName", repo)
        if "digest" in image:
            container["image"] = f"{repo}@{image['digest']}"
            continue
        tag = image.get("newTag", tag)
        ref = f"{repo}:{tag}" if tag else repo
        container["image"] = f"{ref}@{digest}" if digest else ref


def _check_unique(docs: list[Doc], kfile: Path) -> None:
    seen: set[tuple[str, str]] = set()
    for d in docs:
        key = (d["kind"], d["metadata"]["name"])
        if key in seen:
            raise ValueError(f"{kfile}: {key} defined twice")
        seen.add(key)


def pod_spec(doc: Doc) -> Doc | None:
    """The pod spec of a workload (a CronJob's is in its job template), or None."""
    if doc["kind"] in {"Deployment", "StatefulSet", "DaemonSet", "Job"}:
        spec: Doc = doc["spec"]["template"]["spec"]
        return spec
    if doc["kind"] == "CronJob":
        cron: Doc = doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        return cron
    return None


def pod_specs(docs: list[Doc]) -> list[Doc]:
    return [s for s in (pod_spec(d) for d in docs) if s is not None]


def containers(docs: list[Doc]) -> list[Doc]:
    out: list[Doc] = []
    for spec in pod_specs(docs):
        out.extend(spec.get("initContainers", []))
        out.extend(spec["containers"])
    return out
