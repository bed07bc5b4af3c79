#!/usr/bin/env python3
"""Keeps the layering of lsgl true: no file includes a module of a higher layer.

Layers, top to bottom (docs/design.md, "Code layout"):
    main -> cli -> pipeline -> (learn, dpcd, hash, eval, synth) -> (ann, graph) -> io -> util
A file belongs to the module of its folder (src/<module>/..., include/lsgl/<module>/...;
src/main.cpp is `main`). Every `#include "lsgl/<module>/..."` in src/ and include/ must name a
module of the same layer or a lower one. A module missing from the table fails too, so a new
module has to be given its place.

Usage: check_layers.py SOURCE_DIR. Exit 0 when every include runs down (or sideways); exit 1
naming each offending include (file:line) otherwise.
"""
import os
import re
import sys

LAYERS = [
    ["util"],
    ["io"],
    ["ann", "graph"],
    ["learn", "dpcd", "hash", "eval", "synth"],
    ["pipeline"],
    ["cli"],
    ["main"],
]
LEVEL = {module: level for level, modules in enumerate(LAYERS) for module in modules}
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]lsgl/([A-Za-z0-9_]+)/([^">]+)[">]')
SOURCE_ENDINGS = (".hpp", ".h", ".cpp", ".cc", ".ipp")


def module_of(root, path):
    """The module a file belongs to: its first folder below src/ or include/lsgl/."""
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "include":
        return rel[2] if len(rel) > 3 else "main"
    return rel[1] if len(rel) > 2 else "main"


def files(root):
    for top in (os.path.join(root, "src"), os.path.join(root, "include", "lsgl")):
        for folder, _, names in os.walk(top):
            for name in sorted(names):
                if name.endswith(SOURCE_ENDINGS):
                    yield os.path.join(folder, name)


def offences(root):
    found = []
    for path in files(root):
        rel = os.path.relpath(path, root)
        module = module_of(root, path)
        if module not in LEVEL:
            found.append(f"{rel}: module '{module}' has no layer (add it to {__file__})")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target not in LEVEL:
                    found.append(f"{rel}:{number}: includes lsgl/{target}/{m.group(2)}, a module "
                                 f"with no layer")
                elif LEVEL[target] > LEVEL[module]:
                    found.append(f"{rel}:{number}: includes lsgl/{target}/{m.group(2)}: "
                                 f"{module} (layer {LEVEL[module]}) may not include {target} "
                                 f"(layer {LEVEL[target]})")
    return found


def main():
    if len(sys.argv) != 2:
        print("usage: check_layers.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"check_layers: no src/ in '{root}'", file=sys.stderr)
        return 2
    found = offences(root)
    for line in found:
        print(line)
    checked = sum(1 for _ in files(root))
    if found:
        print(f"check_layers: {len(found)} include(s) run up a layer ({checked} files read)")
        return 1
    print(f"check_layers: every include of {checked} files runs down a layer or stays in one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
