#!/usr/bin/env python3
"""Counts the catalog messages whose text changed between a base revision
and the work tree, per language (docs/i18n.md, "Glossary"): a plural is
one message; added and removed ids are counted apart.

    scripts/i18n-changed.py [BASE]      # BASE defaults to main
"""
import subprocess
import sys
import tomllib

PLURAL = {"zero", "one", "two", "few", "many", "other"}


def flatten(tree):
    out = {}

    def walk(prefix, node):
        for k, v in node.items():
            i = f"{prefix}.{k}" if prefix else k
            if isinstance(v, str):
                out[i] = v
            elif any(x in PLURAL for x in v):
                out[i] = tuple(sorted(v.items()))
            else:
                walk(i, v)

    walk("", tree)
    return out


base = sys.argv[1] if len(sys.argv) > 1 else "main"
for lang in ("en", "de", "es", "fr"):
    path = f"internal/i18n/locales/active.{lang}.toml"
    old = flatten(tomllib.loads(subprocess.run(["git", "show", f"{base}:{path}"], capture_output=True, text=True, check=True).stdout))
    new = flatten(tomllib.load(open(path, "rb")))
    changed = sum(1 for k in old if k in new and old[k] != new[k])
    added = sum(1 for k in new if k not in old)
    removed = sum(1 for k in old if k not in new)
    print(f"{lang}: {changed} changed, {added} added, {removed} removed (of {len(new)})")
