"""Reading a package's imports from its source (every import, also those inside functions)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    module: str


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(root: Path, package: str) -> Iterator[Import]:
    """Every module imported by the ``.py`` files of ``root/package``, with relative imports resolved."""
    for path in sorted((root / package).rglob("*.py")):
        here = _module_name(root, path)
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(path, node.lineno, alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base if is_package else base[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                yield Import(path, node.lineno, target)


def violations(
    root: Path, package: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()
) -> list[str]:
    """``path:line: module`` for each import of a forbidden module (or a submodule of one)."""

    def under(module: str, names: tuple[str, ...]) -> bool:
        return any(module == name or module.startswith(name + ".") for name in names)

    return [
        f"{found.path.relative_to(root)}:{found.line}: {found.module}"
        for found in imports_of(root, package)
        if under(found.module, forbidden) and not under(found.module, allowed)
    ]
