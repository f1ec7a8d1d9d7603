#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The output contract (docs/output-formats.md): every JSON line both front
ends write on every capture under pcaps/ (tshark -z tlsneg,jsonl with the
fresh plugin, tlsneg-pcap --jsonl) is valid against
docs/tlsneg-jsonl.schema.json, which allows no key it does not list; the
schema and the page's tables name the same keys; every CSV both write
parses with Python's csv module into the documented columns; and the server
names of pcaps/sni-odd-bytes.pcap (a quote, a comma, CR LF, bytes that are
not UTF-8) read back the same from the CSV, the JSON lines and the tree.
TAP output."""
import argparse
import collections
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys

import jsonschema

from tests.captures import tsharkbox
from tests.captures.tsharkbox import TsharkBox
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "docs", "tlsneg-jsonl.schema.json")
DOC = os.path.join(ROOT, "docs", "output-formats.md")
ODD = os.path.join(ROOT, "pcaps", "sni-odd-bytes.pcap")
# The server names of sni-odd-bytes.pcap as every output renders them, read
# off its bytes (pcaps/README-handshakes.md): \xNN for what is not printable ASCII.
ODD_SNIS = ['q"uo"te,comma.example', "cr\\x0d\\x0alf.example", "bad\\xffutf8\\xc3.example"]
INT_COLUMNS = ("port", "client_hellos", "server_hellos", "hello_retry_requests", "alerts",
               "resets", "closes", "fallbacks", "key_exchange_pq", "key_exchange_classical",
               "pq_offered", "classical_while_pq_offered")


def captures():
    return sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap*"), recursive=True))


def doc_sections():
    """The page's level-3 sections under "JSON lines": title -> text."""
    text = open(DOC, encoding="utf-8").read()
    json_part = text.split("## JSON lines", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### ", json_part, flags=re.M)[1:]
    return {p.split("\n", 1)[0]: p for p in parts}, text


def table_keys(section):
    """The first column of the section's tables: `key` rows."""
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.M))


def doc_csv_columns(text):
    csv_part = text.split("## CSV", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", csv_part, re.M)


def check_schema_and_docs(res, schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    res.check(True, "the schema is a valid JSON Schema (draft 2020-12)")
    defs = schema["$defs"]
    sections, text = doc_sections()
    common = next(v for k, v in sections.items() if k.startswith("Keys of every"))
    for kind, title in (("header", "Header"), ("hello", "`hello`"), ("outcome", "`outcome`"),
                        ("probe", "`probe`")):
        sec = next((v for k, v in sections.items() if k.startswith(title)), "")
        props = set(defs[kind]["properties"])
        documented = table_keys(sec)
        if kind in ("hello", "outcome"):
            documented |= table_keys(common)
        if kind == "outcome":
            # its extra keys are named in backquotes in the table and text
            documented |= {k for k in props if f"`{k}`" in sec}
        res.check(props == documented,
                  f"the schema's {kind} keys are exactly those the page documents ({len(props)})",
                  f"schema only: {sorted(props - documented)}; page only: {sorted(documented - props)}")
        res.check(defs[kind].get("additionalProperties") is False,
                  f"the schema allows no undocumented key in a {kind} record")
    return doc_csv_columns(text)


def check_strict(res, validator, sample):
    """The schema refuses what a writer must not write."""
    extra = dict(sample, undocumented=1)
    res.check(not validator.is_valid(extra), "a hello with an undocumented key is refused")
    missing = {k: v for k, v in sample.items() if k != "findings"}
    res.check(not validator.is_valid(missing), "a hello without findings is refused")
    wrong = dict(sample, selected="0x0304")
    res.check(not validator.is_valid(wrong), "a ClientHello with a ServerHello's key is refused")


def validate_lines(validator, lines):
    """(records by kind, problems) for JSON lines."""
    kinds, problems = collections.Counter(), []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError as e:
            problems.append(f"not JSON ({e}): {line[:120]}")
            continue
        errs = sorted(validator.iter_errors(rec), key=lambda e: e.path)
        if errs:
            problems.append(f"{errs[0].message[:160]}: {line[:160]}")
        kinds[rec.get("record")] += 1
    return kinds, problems


def read_csv(text, columns):
    """(rows as dicts, problems) for one CSV output."""
    problems = []
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows or rows[0] != columns:
        return [], [f"header {rows[:1]} is not the documented {columns}"]
    out = []
    for row in rows[1:]:
        if len(row) != len(columns):
            problems.append(f"{len(row)} fields, not {len(columns)}: {row}")
            continue
        r = dict(zip(columns, row))
        bad = [c for c in INT_COLUMNS if not r[c].isdigit()]
        if bad:
            problems.append(f"not an integer in {bad}: {row}")
        out.append(r)
    return out, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True, help="the tlsneg-pcap binary")
    tsharkbox.add_arguments(ap)
    ap.add_argument("captures", nargs="*")
    args = ap.parse_args()
    res = Results()
    schema = json.load(open(SCHEMA, encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    columns = check_schema_and_docs(res, schema)
    paths = args.captures or captures()
    res.check(len(paths) >= 90, f"{len(paths)} captures to check")
    box = TsharkBox.from_args(args)
    totals = collections.Counter()
    try:
        for path in paths:
            rel = os.path.relpath(path, ROOT)
            name = box.add_capture(path)
            plugin = box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                              "tlsneg,jsonl"], share=True).stdout.splitlines()
            pcap = subprocess.run([args.tool, "--jsonl", path], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
            for who, lines in (("tshark", plugin), ("tlsneg-pcap", pcap)):
                kinds, problems = validate_lines(validator, lines)
                totals.update({f"{who} {k}": n for k, n in kinds.items()})
                res.check(not problems and kinds["header"] == 1,
                          f"{rel}: {who}'s {len(lines)} JSON lines are valid", "\n".join(problems[:5]))
            plugin_csv = box.run(["-r", name, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                                  "tlsneg,csv"], share=True).stdout
            pcap_csv = subprocess.run([args.tool, "--csv", path], capture_output=True, text=True,
                                      check=True).stdout
            for who, text in (("tshark", plugin_csv), ("tlsneg-pcap", pcap_csv)):
                rows, problems = read_csv(text, columns)
                res.check(not problems, f"{rel}: {who}'s CSV reads back into {len(rows)} rows of "
                          f"{len(columns)} columns", "\n".join(problems[:5]))
        sample = next(json.loads(l) for l in subprocess.run(
            [args.tool, "--jsonl", ODD], capture_output=True, text=True, check=True).stdout.splitlines()
            if '"msg":"ClientHello"' in l)
        check_strict(res, validator, sample)
        for kind in ("header", "hello", "outcome", "probe"):
            for who in ("tshark", "tlsneg-pcap"):
                res.check(totals[f"{who} {kind}"] > 0,
                          f"{who} wrote {totals[f'{who} {kind}']} {kind} records, all valid")
        check_odd_snis(res, box, args.tool)
    finally:
        box.close()
    return res.summary()


def check_odd_snis(res, box, tool):
    """One rendering of odd server-name bytes, read back by standard parsers."""
    name = box.add_capture(ODD)
    tree = [box.field_text(v) for v in box.run(["-r", name, "-Y", "tlsneg.msg_type == 1", "-T",
                                                 "fields", "-e", "tlsneg.sni"]).stdout.splitlines()]
    res.check(tree == ODD_SNIS, "the tree's tlsneg.sni renders the odd bytes as read off them", tree)
    outputs = {
        "tshark": (box.run(["-r", name, "-q", "-z", "tlsneg,jsonl"]).stdout,
                   box.run(["-r", name, "-q", "-z", "tlsneg,csv"]).stdout),
        "tlsneg-pcap": (subprocess.run([tool, "--jsonl", ODD], capture_output=True, text=True,
                                       check=True).stdout,
                        subprocess.run([tool, "--csv", ODD], capture_output=True, text=True,
                                       check=True).stdout),
    }
    for who, (jsonl, text) in outputs.items():
        snis = [json.loads(l)["sni"] for l in jsonl.splitlines() if '"msg":"ClientHello"' in l]
        res.check(snis == ODD_SNIS, f"{who}'s JSON lines read back the three server names", snis)
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        res.check(sorted(r["sni"] for r in rows) == sorted(ODD_SNIS) and
                  all(len(r) == len(rows[0]) for r in rows),
                  f"{who}'s CSV reads back the three server names, one row each",
                  [r.get("sni") for r in rows])


if __name__ == "__main__":
    sys.exit(main())
