#!/usr/bin/env python3
"""sarif.py BPF_INVCHECK SOURCE_ROOT EXAMPLES_BUILD_DIR: --format=sarif.

Renders SARIF for a violation (xdp_fw_bug), unknowns (loop_sum with
--loop-bound=3) and a clean run (xdp_fw), and checks, field by field, what
the SARIF 2.1.0 schema requires of every object the checker writes (the
required properties, their types, enums, minimums and minItems), plus the
exact results: rule, kind, level, message, locations, and a codeFlow equal
to the path of the --format=json report. The checker's own structure check
is tried on damaged documents first, so it cannot pass everything.
"""
import copy
import json
import os
import re
import subprocess
import sys

BIN, SRC, EX = (os.path.abspath(a) for a in sys.argv[1:4])
SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/"
          "schemas/sarif-schema-2.1.0.json")
# RFC 3986 URI reference: no spaces, controls, quotes, or bare '%'
URI_REF = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?([A-Za-z0-9\-._~/!$&'()*+,;=:@]|%[0-9A-F]{2})*$")


class Bad(Exception):
    pass


def need(cond, where, what):
    if not cond:
        raise Bad(f"{where}: {what}")


def typed(obj, key, typ, where, required=True):
    if key not in obj:
        need(not required, where, f"'{key}' is required")
        return None
    need(isinstance(obj[key], typ) and not (typ is int and isinstance(obj[key], bool)),
         where, f"'{key}' must be {typ.__name__}")
    return obj[key]


def message(m, where):
    need(isinstance(m, dict), where, "a message is an object")
    need("text" in m or "id" in m, where, "a message needs 'text' or 'id'")
    typed(m, "text", str, where, required=False)


def location(loc, where):
    need(isinstance(loc, dict), where, "a location is an object")
    if "id" in loc:
        need(isinstance(loc["id"], int) and loc["id"] >= -1, where, "'id' >= -1")
    if "message" in loc:
        message(loc["message"], where + ".message")
    pl = typed(loc, "physicalLocation", dict, where, required=False)
    if pl is None:
        return
    w = where + ".physicalLocation"
    need("artifactLocation" in pl or "address" in pl, w, "needs artifactLocation or address")
    al = typed(pl, "artifactLocation", dict, w)
    uri = typed(al, "uri", str, w + ".artifactLocation")
    need(URI_REF.match(uri), w, f"uri {uri!r} is not a URI reference")
    reg = typed(pl, "region", dict, w, required=False)
    if reg is not None:
        for k in ("startLine", "startColumn", "endLine", "endColumn"):
            v = typed(reg, k, int, w + ".region", required=False)
            need(v is None or v >= 1, w + ".region", f"'{k}' >= 1")


def validate(doc):
    """What the SARIF 2.1.0 schema requires of the objects bpf-invcheck writes."""
    need(isinstance(doc, dict), "log", "an object")
    need(doc.get("version") == "2.1.0", "log", "'version' must be \"2.1.0\"")
    typed(doc, "$schema", str, "log", required=False)
    runs = typed(doc, "runs", list, "log")
    for i, run in enumerate(runs):
        w = f"runs[{i}]"
        need(isinstance(run, dict), w, "a run is an object")
        tool = typed(run, "tool", dict, w)
        driver = typed(tool, "driver", dict, w + ".tool")
        typed(driver, "name", str, w + ".tool.driver")
        typed(driver, "version", str, w + ".tool.driver", required=False)
        rules = typed(driver, "rules", list, w + ".tool.driver", required=False) or []
        ids = []
        for k, r in enumerate(rules):
            rw = f"{w}.tool.driver.rules[{k}]"
            ids.append(typed(r, "id", str, rw))
            if "shortDescription" in r:
                message(r["shortDescription"], rw + ".shortDescription")
            dc = typed(r, "defaultConfiguration", dict, rw, required=False)
            if dc is not None:
                need(dc.get("level", "warning") in ("none", "note", "warning", "error"), rw, "level")
        need(len(set(ids)) == len(ids), w, "rule ids are unique")
        for k, inv in enumerate(typed(run, "invocations", list, w, required=False) or []):
            iw = f"{w}.invocations[{k}]"
            typed(inv, "executionSuccessful", bool, iw)
            for j, n in enumerate(typed(inv, "toolExecutionNotifications", list, iw, False) or []):
                message(n.get("message"), f"{iw}.toolExecutionNotifications[{j}]")
        for k, res in enumerate(typed(run, "results", list, w, required=False) or []):
            rw = f"{w}.results[{k}]"
            need(isinstance(res, dict), rw, "a result is an object")
            need("message" in res, rw, "'message' is required")
            message(res["message"], rw + ".message")
            rid = typed(res, "ruleId", str, rw, required=False)
            ri = typed(res, "ruleIndex", int, rw, required=False)
            if ri is not None:
                need(0 <= ri < len(rules), rw, "ruleIndex in range")
                need(rid is None or rules[ri]["id"] == rid, rw, "ruleIndex names ruleId's rule")
            kind = res.get("kind", "fail")
            need(kind in ("notApplicable", "pass", "fail", "review", "open", "informational"),
                 rw, "kind")
            level = res.get("level", "warning" if kind == "fail" else "none")
            need(level in ("none", "note", "warning", "error"), rw, "level")
            need(kind == "fail" or level == "none", rw, "a kind other than fail has level none")
            for j, loc in enumerate(typed(res, "locations", list, rw, required=False) or []):
                location(loc, f"{rw}.locations[{j}]")
            rel = typed(res, "relatedLocations", list, rw, required=False) or []
            for j, loc in enumerate(rel):
                location(loc, f"{rw}.relatedLocations[{j}]")
            rel_ids = [loc["id"] for loc in rel if "id" in loc]
            need(len(set(rel_ids)) == len(rel_ids), rw, "related location ids are unique")
            for j, cf in enumerate(typed(res, "codeFlows", list, rw, required=False) or []):
                cw = f"{rw}.codeFlows[{j}]"
                tfs = typed(cf, "threadFlows", list, cw)
                need(len(tfs) >= 1, cw, "threadFlows has at least one item")
                for t, tf in enumerate(tfs):
                    locs = typed(tf, "locations", list, f"{cw}.threadFlows[{t}]")
                    need(len(locs) >= 1, f"{cw}.threadFlows[{t}]", "locations has at least one item")
                    for m, tl in enumerate(locs):
                        location(tl.get("location"), f"{cw}.threadFlows[{t}].locations[{m}].location")


def run(args, code):
    p = subprocess.run([BIN] + args, cwd=SRC, capture_output=True, text=True)
    if p.returncode != code:
        raise Bad(f"bpf-invcheck {' '.join(args)}: exit {p.returncode}, expected {code}: {p.stderr}")
    return p.stdout


def phys(loc):
    pl = loc["physicalLocation"]
    return (pl["artifactLocation"]["uri"], pl.get("region", {}).get("startLine"),
            pl.get("region", {}).get("startColumn"))


def main():
    fails = 0
    bug = [f"{EX}/xdp_fw_bug.bpf.o", "examples/xdp_fw.inv"]
    doc = json.loads(run(["--format=sarif"] + bug, 1))
    js = json.loads(run(["--format=json"] + bug, 1))

    # the structure check must reject damaged documents
    damage = [
        lambda d: d.update(version="2.0"),
        lambda d: d.pop("runs"),
        lambda d: d["runs"][0]["tool"]["driver"].pop("name"),
        lambda d: d["runs"][0]["results"][0].pop("message"),
        lambda d: d["runs"][0]["results"][0]["codeFlows"][0].update(threadFlows=[]),
        lambda d: d["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"][0].update(locations=[]),
        lambda d: d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].update(startLine=0),
        lambda d: d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"].update(uri="a b"),
        lambda d: d["runs"][0]["results"][0].update(ruleIndex=99),
        lambda d: d["runs"][0]["results"][0].update(kind="open"),
        lambda d: d["runs"][0]["invocations"][0].pop("executionSuccessful"),
        lambda d: d["runs"][0]["tool"]["driver"]["rules"][0].pop("id"),
    ]
    for k, f in enumerate(damage):
        d = copy.deepcopy(doc)
        f(d)
        try:
            validate(d)
            print(f"FAIL: damaged document {k} passes the structure check")
            fails += 1
        except (Bad, KeyError, IndexError, TypeError):
            pass

    validate(doc)
    need(doc["$schema"] == SCHEMA, "log", "$schema")
    r0 = doc["runs"][0]
    drv = r0["tool"]["driver"]
    need(drv["name"] == "bpf-invcheck" and drv["version"] == js["version"], "driver", "name, version")
    need([r["id"] for r in drv["rules"]] == ["xdp.never_abort", "ipv4_tcp_ssh_passes",
                                             "drop_only_ipv4", "no_user_writes", "bound_insns",
                                             "xdp.drops_only_if"],
         "driver", f"rules: {[r['id'] for r in drv['rules']]}")
    need(r0["invocations"] == [{"executionSuccessful": True}], "invocations", str(r0["invocations"]))
    bad = [x for x in js["results"] if x["verdict"] in ("violated", "unknown")]
    need(len(r0["results"]) == len(bad) == 2, "results", "one per violated/unknown check")
    need([x["ruleId"] for x in r0["results"]] == ["ipv4_tcp_ssh_passes", "xdp.drops_only_if"],
         "results", "the two violations in report order")
    res, ref = r0["results"][0], bad[0]
    need(res["ruleId"] == "ipv4_tcp_ssh_passes" and res["ruleIndex"] == 1, "result", "rule")
    need(res["kind"] == "fail" and res["level"] == "error", "result", "kind, level")
    need(res["message"]["text"] == "invariant xdp_fw.ipv4_tcp_ssh_passes violated: "
         "SSH to this host must always get through", "result", res["message"]["text"])
    loc = ref["location"]
    need([phys(x) for x in res["locations"]] == [(loc["file"], loc["line"], loc["column"])],
         "result.locations", str(res["locations"]))
    need(phys(res["locations"][0])[0] == "examples/xdp_fw.bpf.c", "result.locations", "file")
    al = ref["assert_location"]
    need([phys(x) for x in res["relatedLocations"]] == [("examples/xdp_fw.inv", 23, 9)]
         == [(al["file"], al["line"], al["column"])], "relatedLocations", str(res["relatedLocations"]))
    need(res["relatedLocations"][0]["message"]["text"] == "the assert that fails", "relatedLocations", "message")
    flow = [phys(x["location"]) for x in res["codeFlows"][0]["threadFlows"][0]["locations"]]
    path = []
    for p in ref["counterexample"]["path"]:
        if not path or path[-1][:2] != (p["file"], p["line"]):
            path.append((p["file"], p["line"], p["column"]))
    need(flow == path, "codeFlow", f"{flow} != the JSON path {path}")
    need(flow[-1] == phys(res["locations"][0]), "codeFlow", "ends at the failing event")
    need(res["properties"] == {"check": "xdp_fw.ipv4_tcp_ssh_passes", "program": "xdp_fw",
                               "verdict": "violated"}, "properties", str(res["properties"]))

    # unknowns: kind open, level none, at the invariant in the spec
    doc = json.loads(run(["--format=sarif", "--loop-bound=3", f"{EX}/loop_sum.bpf.o",
                          "examples/loop_sum.inv"], 3))
    validate(doc)
    res = doc["runs"][0]["results"]
    need(len(res) == 5 and all(r["kind"] == "open" and r["level"] == "none" for r in res),
         "unknown results", str(res))
    sb = [r for r in res if r["properties"]["check"] == "loop_sum.sum_bounded"]
    need(len(sb) == 1 and sb[0]["message"]["text"] ==
         "invariant loop_sum.sum_bounded unknown: loop bound 3 reached: a loop may run longer "
         "(try a larger --loop-bound)", "unknown", str(sb))
    need(phys(sb[0]["locations"][0])[0] == "examples/loop_sum.inv" and "codeFlows" not in sb[0],
         "unknown", "located in the spec, no codeFlow")

    # everything holds: no results, but the rules are there
    doc = json.loads(run(["--format=sarif", f"{EX}/xdp_fw.bpf.o", "examples/xdp_fw.inv"], 0))
    validate(doc)
    need(doc["runs"][0]["results"] == [] and len(doc["runs"][0]["tool"]["driver"]["rules"]) == 6,
         "holds", "no results, 6 rules")
    print(f"sarif: {len(damage)} damaged documents rejected, 3 reports checked, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Bad as e:
        print(f"FAIL: {e}")
        sys.exit(1)
