#!/usr/bin/env python3
"""Validates warpwise JSON output against docs/report.schema.json, and checks
what a schema cannot: every applied decision's id is in the comment its code
carries in the written output, and a kernel whose registers come from ptxas
has its occupancy computed from them.

usage: validate_report.py SCHEMA REPORT.json...   (exit 1 on the first problem)
"""
import json
import os
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    problems = []
    for path in sys.argv[2:]:
        report = json.load(open(path))
        # The command's own definition gives errors at the field, where the
        # top-level oneOf would only say that no branch matched.
        kind = report.get("command") if isinstance(report, dict) else None
        own = dict(schema)
        if kind in ("rewrite", "analyze", "occupancy", "offload"):
            own.pop("oneOf")
            own["$ref"] = f"#/$defs/{kind}_report"
        validator = jsonschema.Draft202012Validator(own)
        for error in sorted(validator.iter_errors(report), key=str):
            where = "/".join(str(p) for p in error.absolute_path)
            problems.append(f"{path}: {where}: {error.message}")
        for f in report.get("files", []):
            for k in f.get("kernels", []):
                regs, occ = k["registers"], k["occupancy"]
                if (regs["ptxas"] is None) != (occ["registers_from"] != "ptxas"):
                    problems.append(f"{path}: kernel {k['name']}: registers "
                                    f"{regs} but occupancy from "
                                    f"{occ['registers_from']}")
            out = f.get("output")
            if report.get("command") != "rewrite" or not out or out == "-":
                continue
            text = open(out).read() if os.path.exists(out) else ""
            for d in f.get("decisions", []):
                if d["applied"] and d.get("file") is None:
                    mark = f"warpwise {d['code']} {d['id']}:"
                    if mark not in text:
                        problems.append(f"{path}: {d['id']}: '{mark}' is not "
                                        f"in {out}")
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"{len(sys.argv) - 2} report(s) valid")


if __name__ == "__main__":
    main()
