#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Every relative link of README.md and docs/*.md leads somewhere: the file or directory exists,
# and a #anchor names a heading of the target page (GitHub's slugs). Links inside code are not
# links. Prints FILE:LINE: error: ... for each broken one and exits 1; 2 for usage errors.
# usage: links.py SOURCE_DIR
import functools
import glob
import os
import re
import sys

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(path, blank_code=True):
    """(line number, text) of the lines outside fenced code, inline code spans blanked."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                line = line.rstrip("\n")
                yield n, re.sub(r"(`+).*?\1", "", line) if blank_code else line


def slug(text):
    """The anchor GitHub gives a heading: inline markup dropped, lower case, punctuation out."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)    # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors of a page: its headings' slugs (a repeated one gets -1, -2, ...) and HTML ids."""
    seen, found = {}, set()
    for _, line in prose_lines(path, blank_code=False):
        found.update(HTML_ID.findall(line))
        m = HEADING.match(line)
        if m:
            base = slug(m.group(1))
            k = seen.get(base, 0)
            seen[base] = k + 1
            found.add(base if k == 0 else "%s-%d" % (base, k))
    return found


def check(page, top):
    """The broken links of one page, as error lines."""
    errors = []
    rel = os.path.relpath(page, top)
    for n, line in prose_lines(page):
        targets = LINK.findall(line)
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if SCHEME.match(target) or target.startswith("/"):
                continue                         # a URL or an absolute path: not ours to check
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                errors.append("%s:%d: error: %s: no such file %s" % (rel, n, target, os.path.relpath(dest, top)))
            elif anchor and not dest.endswith(".md"):
                errors.append("%s:%d: error: %s: an anchor into a file that is not Markdown" % (rel, n, target))
            elif anchor and anchor not in anchors(dest):
                errors.append("%s:%d: error: %s: no heading #%s in %s" % (rel, n, target, anchor, os.path.relpath(dest, top)))
    return errors


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: links.py SOURCE_DIR", file=sys.stderr)
        return 2
    top = os.path.abspath(sys.argv[1])
    pages = [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))
    errors, links = [], 0
    for page in pages:
        errors += check(page, top)
        links += sum(len(LINK.findall(t)) for _, t in prose_lines(page))
    for e in errors:
        print(e)
    if errors:
        return 1
    print("%d pages, %d links: every relative link and anchor resolves" % (len(pages), links))
    return 0


if __name__ == "__main__":
    sys.exit(main())
