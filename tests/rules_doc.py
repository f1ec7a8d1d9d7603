#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/rules.md's rule table is exactly what rules.def says (tlsneg-dump --rules).

  python3 -m tests.rules_doc TLSNEG-DUMP docs/rules.md            check (the CTest rules.doc)
  python3 -m tests.rules_doc TLSNEG-DUMP docs/rules.md --write    regenerate the table in place
"""
import re
import subprocess
import sys

if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--write"]):
    sys.exit(__doc__)
dump, doc = sys.argv[1], sys.argv[2]
want = subprocess.run([dump, "--rules"], capture_output=True, text=True, check=True).stdout
text = open(doc, encoding="utf-8").read()
pattern = re.compile(r"(<!-- rules:begin -->\n)(.*?)(<!-- rules:end -->)", re.S)
m = pattern.search(text)
if not m:
    print(f"not ok - {doc} has no <!-- rules:begin --> ... <!-- rules:end --> block")
    sys.exit(1)
if sys.argv[3:] == ["--write"]:
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text[:m.start(2)] + want + text[m.end(2):])
    print(f"wrote the {want.count(chr(10)) - 2} rules of rules.def into {doc}")
    sys.exit(0)
if m.group(2) != want:
    print(f"not ok - {doc}'s rule table differs from rules.def; regenerate it with:")
    print(f"#   python3 -m tests.rules_doc build/tlsneg-dump {doc} --write")
    sys.exit(1)
print(f"ok - {doc} lists the {want.count(chr(10)) - 2} rules of rules.def")
