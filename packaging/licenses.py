#!/usr/bin/env python3
"""Licence notices for the release, from `cargo metadata` and the vendored crates.

  licenses.py third-party TREE TRIPLE PACKAGE... > THIRD-PARTY-LICENSES.md
      The crates compiled into PACKAGE's binaries for TRIPLE (normal dependencies
      only: no build or dev dependencies, no proc macros, whose code runs in the
      compiler and is not in the binary), each with its licence expression and the
      licence files it ships (vendor/<crate>-<version>/LICENSE*, COPYING*, UNLICENSE*,
      NOTICE*), identical texts printed once. For the binary archives.

  licenses.py debian-copyright TREE < copyright.in > debian/copyright
      copyright.in with one DEP-5 paragraph per vendored crate inserted at the line
      "@VENDORED_CRATES@", and the standalone licence paragraphs their licences need
      at "@LICENSE_PARAGRAPHS@". For the Debian source package.

TREE is an unpacked source release (with vendor/ and Cargo.lock). Uses cargo
(--offline: the vendored sources) and the standard library only.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

LICENSE_FILE = re.compile(r"^(LICEN[CS]E|COPYING|UNLICENSE|NOTICE|COPYRIGHT)", re.I)

# DEP-5 standalone licence paragraphs. Texts that Debian ships in
# /usr/share/common-licenses are referred to; the others are given in full.
MIT = """\
Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:
.
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""
ISC = """\
Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.
.
THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND
FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM
LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR
OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR
PERFORMANCE OF THIS SOFTWARE."""
BSD_2 = """\
Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:
.
1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.
.
2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.
.
THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE."""
UNLICENSE = """\
This is free and unencumbered software released into the public domain.
.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute
this software, either in source code form or as a compiled binary, for any
purpose, commercial or non-commercial, and by any means.
.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
.
For more information, please refer to <http://unlicense.org/>"""
UNICODE_3 = """\
UNICODE LICENSE V3
.
Permission is hereby granted, free of charge, to any person obtaining a copy
of data files and any associated documentation (the "Data Files") or software
and any associated documentation (the "Software") to deal in the Data Files or
Software without restriction, including without limitation the rights to use,
copy, modify, merge, publish, distribute, and/or sell copies of the Data Files
or Software, and to permit persons to whom the Data Files or Software are
furnished to do so, provided that either (a) this copyright and permission
notice appear with all copies of the Data Files or Software, or (b) this
copyright and permission notice appear in associated Documentation.
.
THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT OF THIRD
PARTY RIGHTS.
.
IN NO EVENT SHALL THE COPYRIGHT HOLDER OR HOLDERS INCLUDED IN THIS NOTICE BE
LIABLE FOR ANY CLAIM, OR ANY SPECIAL INDIRECT OR CONSEQUENTIAL DAMAGES, OR ANY
DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN
CONNECTION WITH THE USE OR PERFORMANCE OF THE DATA FILES OR SOFTWARE.
.
Except as contained in this notice, the name of a copyright holder shall not
be used in advertising or otherwise to promote the sale, use or other dealings
in these Data Files or Software without prior written authorization of the
copyright holder."""
LLVM_EXCEPTION = """\
On Debian systems, the full text of the Apache License, Version 2.0 can be
found in the file '/usr/share/common-licenses/Apache-2.0'.
.
---- LLVM Exceptions to the Apache 2.0 License ----
.
As an exception, if, as a result of your compiling your source code, portions
of this Software are embedded into an Object form of such source code, you may
redistribute such embedded portions in such Object form without complying with
the conditions of Sections 4(a), 4(b) and 4(d) of the License.
.
In addition, if you combine or link compiled forms of this Software with
software that is licensed under the GPLv2 ("Combined Software") and if a court
of competent jurisdiction determines that the patent provision (Section 3), the
indemnity provision (Section 9) or other Section of the License conflicts with
the conditions of the GPLv2, you may retroactively and prospectively choose to
deem waived or otherwise exclude such Section(s) of the License, but only in
their entirety and only with respect to the Combined Software."""


def common(name, path):
    return f"On Debian systems, the full text of the {name} can be found in the\nfile '/usr/share/common-licenses/{path}'."


# SPDX identifier -> (DEP-5 short name, paragraph text).
LICENSES = {
    "MIT": ("MIT", MIT),
    "Apache-2.0": ("Apache-2.0", common("Apache License, Version 2.0", "Apache-2.0")),
    "Apache-2.0 WITH LLVM-exception": ("Apache-2.0 with LLVM exception", LLVM_EXCEPTION),
    "ISC": ("ISC", ISC),
    "BSD-2-Clause": ("BSD-2-clause", BSD_2),
    "Unlicense": ("Unlicense", UNLICENSE),
    "Unicode-3.0": ("Unicode-3.0", UNICODE_3),
    "MPL-2.0": ("MPL-2.0", common("Mozilla Public License, Version 2.0", "MPL-2.0")),
    "LGPL-2.1-or-later": ("LGPL-2.1+", common("GNU Lesser General Public License, Version 2.1", "LGPL-2.1")),
}


def metadata(tree, triple=None):
    cmd = ["cargo", "metadata", "--format-version", "1", "--offline", "--locked"]
    if triple:
        cmd += ["--filter-platform", triple]
    out = subprocess.run(cmd, cwd=tree, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def spdx_terms(expr):
    """The SPDX licence expression as a list of (term, operator) tokens, old '/' syntax
    read as OR."""
    expr = expr.replace("/", " OR ")
    return re.findall(r"\(|\)|\bOR\b|\bAND\b|[A-Za-z0-9.+-]+(?: WITH [A-Za-z0-9.+-]+)?", expr)


def dep5_license(expr):
    parts = []
    used = set()
    for tok in spdx_terms(expr):
        if tok in ("OR", "AND"):
            parts.append(tok.lower())
        elif tok in "()":
            parts.append(tok)
        else:
            if tok not in LICENSES:
                sys.exit(f"licenses.py: no DEP-5 paragraph for the licence {tok!r} (in {expr!r}): add it")
            used.add(tok)
            parts.append(LICENSES[tok][0])
    text = " ".join(parts).replace("( ", "(").replace(" )", ")")
    return text, used


def vendored(tree):
    """(name, version, package) of every vendored crate."""
    m = metadata(tree)
    by_dir = {}
    for p in m["packages"]:
        if p["source"]:
            by_dir[f"{p['name']}-{p['version']}"] = p
    crates = []
    for d in sorted(os.listdir(os.path.join(tree, "vendor"))):
        if d not in by_dir:
            sys.exit(f"licenses.py: vendor/{d} is not in Cargo.lock's graph")
        crates.append((d, by_dir[d]))
    return crates


def debian_copyright(tree):
    template = sys.stdin.read()
    paragraphs = []
    used = set()
    for d, p in vendored(tree):
        lic, u = dep5_license(p["license"] or "")
        used |= u
        authors = [re.sub(r"\s*<[^>]*>", "", a).strip() for a in p["authors"]] or [
            f"The {p['name']} authors"
        ]
        copyright_ = "\n           ".join(dict.fromkeys(authors))
        paragraphs.append(
            f"Files: vendor/{d}/*\nCopyright: {copyright_}\nLicense: {lic}\n"
            f"Comment: the Rust crate {p['name']} {p['version']}, vendored by `cargo vendor`.\n"
        )
    # Our own sources are MIT or Apache-2.0 too.
    used |= {"MIT", "Apache-2.0"}
    order = list(LICENSES)
    licence_paragraphs = []
    for spdx in sorted(used, key=order.index):
        name, text = LICENSES[spdx]
        body = "\n".join((" " + line) if line else " ." for line in text.split("\n"))
        licence_paragraphs.append(f"License: {name}\n{body}\n")
    out = template.replace("@VENDORED_CRATES@\n", "\n".join(paragraphs) + "\n")
    out = out.replace("@LICENSE_PARAGRAPHS@\n", "\n".join(licence_paragraphs))
    sys.stdout.write(out)


def third_party(tree, triple, roots):
    m = metadata(tree, triple)
    packages = {p["id"]: p for p in m["packages"]}
    nodes = {n["id"]: n for n in m["resolve"]["nodes"]}
    members = set(m["workspace_members"])
    wanted = [pid for pid, p in packages.items() if p["name"] in roots and pid in members]
    if len(wanted) != len(roots):
        sys.exit(f"licenses.py: not all of {roots} are workspace members")
    seen, stack = set(), list(wanted)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        if all("proc-macro" in t["kind"] for t in packages[pid]["targets"]):
            continue  # runs in the compiler: neither it nor its dependencies are linked
        for dep in nodes[pid]["deps"]:
            if any(k["kind"] is None for k in dep["dep_kinds"]):
                stack.append(dep["pkg"])
    crates = []
    for pid in seen:
        p = packages[pid]
        if pid in members:
            continue
        if all("proc-macro" in t["kind"] for t in p["targets"]):
            continue
        crates.append(p)
    crates.sort(key=lambda p: (p["name"], p["version"]))

    texts = {}  # digest -> (number, text)
    out = [
        f"# Third-party software in these binaries ({triple})",
        "",
        "Besides utf8validate's own code (LICENSE-MIT, LICENSE-APACHE), the programs and",
        "libraries of this archive contain code from the Rust crates below, compiled in",
        "statically, and from the Rust standard library (`core`, and for utf8check `std`:",
        "MIT OR Apache-2.0, copyright the Rust project contributors; see",
        "rust-library-COPYRIGHT.html). Each crate's licence files follow it; texts",
        "that several crates share are printed once.",
        "",
    ]
    for p in crates:
        d = os.path.join(tree, "vendor", f"{p['name']}-{p['version']}")
        files = sorted(f for f in os.listdir(d) if LICENSE_FILE.match(f) and os.path.isfile(os.path.join(d, f)))
        if not files:
            sys.exit(f"licenses.py: {p['name']} {p['version']} ships no licence file")
        out.append(f"## {p['name']} {p['version']}")
        out.append("")
        out.append(f"Licence: {p['license']}" + (f"; {p['repository']}" if p.get("repository") else ""))
        out.append("")
        for f in files:
            with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read().strip("\n")
            digest = hashlib.sha256(re.sub(r"\s+", " ", text).encode()).hexdigest()
            if digest in texts:
                out.append(f"- {f}: text {texts[digest][0]} (above)")
            else:
                n = len(texts) + 1
                texts[digest] = (n, text)
                out.append(f"- {f}: text {n}:")
                out.append("")
                out.append("```")
                out.append(text)
                out.append("```")
            out.append("")
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


def main(argv):
    if len(argv) >= 3 and argv[1] == "debian-copyright":
        debian_copyright(argv[2])
    elif len(argv) >= 5 and argv[1] == "third-party":
        third_party(argv[2], argv[3], argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
