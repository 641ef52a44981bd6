"""Vendor the @noble packages the page and the Node client use for sealed openings
(clients/web/seal.mjs): X25519 (@noble/curves), ChaCha20-Poly1305 (@noble/ciphers), HKDF-SHA256
(@noble/hashes); and for signed commands (signing.mjs, fairness-core.mjs):
Ed25519 (@noble/curves' ed25519.js, the same entry point). Run from the directory holding
the unpacked ``npm pack`` tarballs::

    npm pack @noble/curves@2.4.0 @noble/ciphers@2.4.0 @noble/hashes@2.4.0
    for p in curves ciphers hashes; do mkdir -p $p && tar xzf noble-$p-2.4.0.tgz -C $p; done
    python clients/web/vendor_noble.py /that/dir

It copies the ES modules reachable from the entry points below (and each package's LICENSE)
into clients/web/vendor/noble-<name>/, with two changes only: a bare import of another @noble
package becomes a relative path (the page has no import map: CSP script-src 'self' would
refuse an inline one), and the ``//# sourceMappingURL`` line is dropped (the maps are not
vendored). Then it prints the SHA-256 of every file for tests/unit/platform/test_seal.py's pin.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

VENDOR = Path(__file__).parent / "vendor"
ENTRIES = {"curves": ["ed25519.js"], "ciphers": ["chacha.js"],
           "hashes": ["hkdf.js", "sha2.js", "hmac.js", "utils.js"]}
_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(['"])([^'"]+)\2""")


def vendor(src: Path) -> dict[str, str]:
    todo = [(pkg, name) for pkg, names in ENTRIES.items() for name in names]
    done: set[tuple[str, str]] = set()
    while todo:
        pkg, name = todo.pop()
        if (pkg, name) in done:
            continue
        done.add((pkg, name))
        text = (src / pkg / "package" / name).read_text()
        out_rel = Path(f"noble-{pkg}") / name

        def fix(m: re.Match[str], pkg: str = pkg, name: str = name, out_rel: Path = out_rel
                ) -> str:
            spec = m.group(3)
            if spec.startswith("@noble/"):
                other, _, file = spec.removeprefix("@noble/").partition("/")
                todo.append((other, file))
                target = Path(f"noble-{other}") / file
                rel = Path(*[".."] * (len(out_rel.parts) - 1)) / target
                return f"{m.group(1)}{m.group(2)}{rel.as_posix()}{m.group(2)}"
            if spec.startswith("."):
                todo.append((pkg, _norm(Path(name).parent, spec)))
            return m.group(0)

        text = _IMPORT.sub(fix, text)
        text = "\n".join(line for line in text.splitlines()
                         if not line.startswith("//# sourceMappingURL")) + "\n"
        dest = VENDOR / out_rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
    for pkg in ENTRIES:
        (VENDOR / f"noble-{pkg}" / "LICENSE").write_text(
            (src / pkg / "package" / "LICENSE").read_text())
    return {p.relative_to(VENDOR).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(VENDOR.rglob("*")) if p.is_file() and p.name != "README.md"}


def _norm(base: Path, spec: str) -> str:
    parts: list[str] = [p for p in base.as_posix().split("/") if p not in ("", ".")]
    for p in spec.split("/"):
        if p == "..":
            parts.pop()
        elif p not in ("", "."):
            parts.append(p)
    return "/".join(parts)


if __name__ == "__main__":
    for path, digest in vendor(Path(sys.argv[1])).items():
        print(f'    "{path}": "{digest}",')
