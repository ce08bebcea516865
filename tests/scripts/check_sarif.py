#!/usr/bin/env python3
"""Checks a SARIF log against the shape SARIF 2.1.0 requires (the parts of
the OASIS schema that code-review tools rely on; the schema itself is not
vendored): version, one run with tool.driver name/version/rules, results
with ruleId, ruleIndex pointing at that rule, level, message.text, and
physical locations with an artifact URI and a 1-based region.

usage: check_sarif.py LOG.sarif...   (prints "N log(s) valid"; exit 1 with
the problems otherwise)
"""
import json
import re
import sys

LEVELS = {"none", "note", "warning", "error"}
SUPPRESSION_KINDS = {"inSource", "external"}


def check(log):
    problems = []

    def need(cond, what):
        if not cond:
            problems.append(what)
        return cond

    if not need(isinstance(log, dict), "the log is not an object"):
        return problems
    need(log.get("version") == "2.1.0", "version is not '2.1.0'")
    need(isinstance(log.get("$schema", ""), str), "$schema is not a string")
    runs = log.get("runs")
    if not need(isinstance(runs, list) and len(runs) == 1, "runs is not one run"):
        return problems
    run = runs[0]
    driver = run.get("tool", {}).get("driver")
    if not need(isinstance(driver, dict), "runs[0].tool.driver is missing"):
        return problems
    need(isinstance(driver.get("name"), str) and driver["name"], "driver.name")
    need(isinstance(driver.get("version"), str), "driver.version")
    rules = driver.get("rules", [])
    need(isinstance(rules, list), "driver.rules is not an array")
    ids = []
    for i, rule in enumerate(rules):
        where = f"rules[{i}]"
        need(isinstance(rule.get("id"), str) and re.fullmatch(r"WW\d{4}", rule["id"]),
             f"{where}.id is not a WW id")
        for key in ("shortDescription", "fullDescription", "help"):
            if key in rule:
                need(isinstance(rule[key].get("text"), str) and rule[key]["text"],
                     f"{where}.{key}.text")
        level = rule.get("defaultConfiguration", {}).get("level", "warning")
        need(level in LEVELS, f"{where}.defaultConfiguration.level '{level}'")
        ids.append(rule.get("id"))
    need(len(ids) == len(set(ids)), "two rules share an id")
    bases = run.get("originalUriBaseIds", {})
    results = run.get("results")
    if not need(isinstance(results, list), "runs[0].results is not an array"):
        return problems
    for i, res in enumerate(results):
        where = f"results[{i}]"
        need(isinstance(res.get("message", {}).get("text"), str), f"{where}.message.text")
        need("\n" not in res.get("message", {}).get("text", ""), f"{where}.message has a newline")
        need(res.get("level", "warning") in LEVELS, f"{where}.level")
        rule_id = res.get("ruleId")
        need(isinstance(rule_id, str), f"{where}.ruleId")
        if "ruleIndex" in res:
            idx = res["ruleIndex"]
            need(isinstance(idx, int) and 0 <= idx < len(ids) and ids[idx] == rule_id,
                 f"{where}.ruleIndex does not point at rule {rule_id}")
        for j, loc in enumerate(res.get("locations", [])):
            phys = loc.get("physicalLocation", {})
            art = phys.get("artifactLocation", {})
            uri = art.get("uri")
            need(isinstance(uri, str) and uri and not re.search(r"[ \\]", uri),
                 f"{where}.locations[{j}] artifact uri '{uri}'")
            if "uriBaseId" in art:
                need(art["uriBaseId"] in bases, f"{where}.locations[{j}] uriBaseId not in originalUriBaseIds")
                need(not uri.startswith("/") and "://" not in uri,
                     f"{where}.locations[{j}] relative uri '{uri}'")
            region = phys.get("region")
            if region is not None:
                need(isinstance(region.get("startLine"), int) and region["startLine"] >= 1,
                     f"{where}.locations[{j}].region.startLine")
                if "startColumn" in region:
                    need(isinstance(region["startColumn"], int) and region["startColumn"] >= 1,
                         f"{where}.locations[{j}].region.startColumn")
        for j, sup in enumerate(res.get("suppressions", [])):
            need(sup.get("kind") in SUPPRESSION_KINDS, f"{where}.suppressions[{j}].kind")
    for name, base in bases.items():
        need(isinstance(base.get("uri"), str) and base["uri"].endswith("/"),
             f"originalUriBaseIds.{name}.uri must end in '/'")
    return problems


def main():
    bad = False
    for path in sys.argv[1:]:
        for p in check(json.load(open(path))):
            print(f"{path}: {p}")
            bad = True
    if bad:
        return 1
    print(f"{len(sys.argv) - 1} log(s) valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
