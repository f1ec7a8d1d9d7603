#!/usr/bin/env python3
"""README.md's rule reference is exactly what rules.def says (tlsneg-dump --rules)."""
import re
import subprocess
import sys

dump, readme = sys.argv[1], sys.argv[2]
want = subprocess.run([dump, "--rules"], capture_output=True, text=True, check=True).stdout
text = open(readme, encoding="utf-8").read()
m = re.search(r"<!-- rules:begin -->\n(.*?)<!-- rules:end -->", text, re.S)
if not m or m.group(1) != want:
    print("not ok - README.md's rule reference differs from rules.def; regenerate it with:")
    print("#   build/tlsneg-dump --rules  (between <!-- rules:begin --> and <!-- rules:end -->)")
    sys.exit(1)
print(f"ok - README.md lists the {want.count(chr(10)) - 2} rules of rules.def")
