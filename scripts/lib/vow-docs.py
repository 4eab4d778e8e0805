#!/usr/bin/env python3
"""The JSON and HTML work of scripts/docs.sh (run, not imported).

  vow-docs.py flags MANIFEST MODULE
      Prints, one per line, the arguments swift-symbolgraph-extract needs to load MODULE as
      SwiftPM compiled it: search paths, the module maps of the C modules it imports
      (-Xcc ...), target, SDK, language mode, read from MODULE's compile command in the
      build's llbuild manifest (SCRATCH/debug.yaml or release.yaml). So a module that
      imports C modules (VowNIO: swift-nio's CNIO*) loads from any build, as it compiled.

  vow-docs.py prepare DIR
      Edits the symbol graphs in DIR (one module's) for DocC, then checks them:
      - drops the C entry points: the `@c @implementation public func vow_*` that implement
        vow.h's functions are public Swift symbols only because the implementation of a C
        declaration must be; their identifiers are C's (`c:`). They are the C interface,
        documented once, in the headers' reference; in Vow's Swift documentation they would
        be 137 functions without a word.
      - prints a warning, with file and line, for each public symbol without a doc comment
        (the members the compiler synthesizes, Hashable's hashValue and such, excepted, and
        the extension blocks of another module's types, `swift.extension`: DocC makes them
        the page of the extended type, which lists their members, each checked here), and
        exits 1 if there is one.

  vow-docs.py reached ARCHIVE MODULE SYMBOL...
      Fails unless each SYMBOL (a path under MODULE, e.g. SerialDispatcher) has a page in the
      DocC archive and the text of at least one article of MODULE links to it; prints which.

  vow-docs.py links SITE [BASE-PATH]
      Fails on any reference of an HTML page under SITE (src=, href=) to a file that is not
      there: DocC's pages ask for /BASE-PATH/js/..., /BASE-PATH/css/..., at the site's root,
      the headers' reference for its own pages. Also fails on a DocC page without its data
      (SITE/documentation/X/index.html needs SITE/data/documentation/X.json).
"""
import glob
import html.parser
import json
import os
import re
import sys
import urllib.parse

# The arguments of a compile command that say where modules come from and how to read
# them (each followed by its value).
KEPT_WITH_VALUE = {"-I", "-F", "-Isystem", "-Fsystem", "-Xcc", "-target", "-sdk", "-resource-dir",
                   "-swift-version", "-module-cache-path"}
KEPT_JOINED = ("-cxx-interoperability-mode=",)


def compile_args(manifest, module):
    """The arguments of the Swift compile command of `module` in an llbuild manifest."""
    key = re.compile(r'^\s+"C\.' + re.escape(module) + r'-[^"]*\.module":\s*$')
    found = False
    with open(manifest, encoding="utf-8") as f:
        for line in f:
            if key.match(line):
                found = True
            elif found and line.strip().startswith("args:"):
                return json.loads(line.split("args:", 1)[1])
            elif found and not line.startswith("    "):
                break
    sys.exit(f"vow-docs: no compile command for module {module} in {manifest}")


def flags(manifest, module):
    args = compile_args(manifest, module)
    kept = []
    i = 0
    while i < len(args):
        if args[i] in KEPT_WITH_VALUE and i + 1 < len(args):
            kept += args[i:i + 2]
            i += 2
            continue
        if args[i].startswith(KEPT_JOINED):
            kept.append(args[i])
        i += 1
    print("\n".join(kept))
    return 0


def prepare(directory):
    undocumented = []
    paths = sorted(glob.glob(os.path.join(directory, "*.symbols.json")))
    if not paths:
        sys.exit(f"vow-docs: no symbol graphs in {directory}")
    for path in paths:
        with open(path, encoding="utf-8") as f:
            graph = json.load(f)
        dropped = {s["identifier"]["precise"] for s in graph["symbols"]
                   if s["identifier"]["precise"].startswith("c:")}
        graph["symbols"] = [s for s in graph["symbols"] if s["identifier"]["precise"] not in dropped]
        graph["relationships"] = [r for r in graph["relationships"]
                                  if r["source"] not in dropped and r["target"] not in dropped]
        for symbol in graph["symbols"]:
            if symbol.get("docComment") or "::SYNTHESIZED::" in symbol["identifier"]["precise"] \
                    or symbol["kind"]["identifier"] == "swift.extension":
                continue
            location = symbol.get("location", {})
            where = urllib.parse.unquote(location.get("uri", path).replace("file://", ""))
            line = location.get("position", {}).get("line", -1) + 1
            undocumented.append(f"{where}:{line}: warning: public {symbol['kind']['displayName'].lower()} "
                                f"'{'.'.join(symbol['pathComponents'])}' has no doc comment")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(graph, f)
    for line in undocumented:
        print(line)
    return 1 if undocumented else 0


def links_in(node):
    """The identifiers of the links in a piece of a DocC page's text."""
    if isinstance(node, dict):
        if node.get("type") == "reference" and "identifier" in node:
            yield node["identifier"]
        for value in node.values():
            yield from links_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from links_in(value)


def reached(archive, module, symbols):
    pages = os.path.join(archive, "data", "documentation", module.lower())
    linked_by = {symbol: [] for symbol in symbols}
    for path in sorted(glob.glob(os.path.join(pages, "*.json"))):
        with open(path, encoding="utf-8") as f:
            page = json.load(f)
        if page.get("kind") != "article":
            continue
        title = page.get("metadata", {}).get("title", os.path.basename(path))
        linked = set(links_in(page.get("primaryContentSections", [])))
        for symbol in symbols:
            if any(identifier.endswith(f"/documentation/{module}/{symbol}") for identifier in linked):
                linked_by[symbol].append(title)
    failed = 0
    for symbol, titles in linked_by.items():
        page = os.path.join(pages, symbol.lower() + ".json")
        if not os.path.exists(page):
            print(f"docs: {module}'s documentation has no page for {symbol}")
            failed = 1
        elif not titles:
            print(f"docs: no article of {module} links to {symbol}")
            failed = 1
        else:
            print(f"ok   {module}/{symbol}: a page, linked from the articles {', '.join(titles)}")
    return failed


class References(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.found.append(value)


def links(site, base_path=""):
    base = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"
    missing = []
    checked = 0
    for page in glob.glob(os.path.join(site, "**", "*.html"), recursive=True):
        parser = References()
        with open(page, encoding="utf-8", errors="replace") as f:
            parser.feed(f.read())
        for reference in parser.found:
            parsed = urllib.parse.urlparse(reference)
            if parsed.scheme or parsed.netloc or not parsed.path:
                continue  # another site, mailto:, javascript:, or an anchor on the page
            path = urllib.parse.unquote(parsed.path)
            if path.startswith("/") and not path.startswith(base):
                missing.append(f"{os.path.relpath(page, site)}: {reference} (outside the base path {base})")
                continue
            target = os.path.join(site, path[len(base):]) if path.startswith("/") \
                else os.path.join(os.path.dirname(page), path)
            if target.endswith("/"):
                target = os.path.join(target, "index.html")
            checked += 1
            if not os.path.exists(target):
                missing.append(f"{os.path.relpath(page, site)}: {reference} (no {os.path.relpath(target, site)})")
    documentation = os.path.join(site, "documentation")
    for page in glob.glob(os.path.join(documentation, "**", "index.html"), recursive=True):
        route = os.path.relpath(os.path.dirname(page), documentation)
        data = os.path.join(site, "data", "documentation", route + ".json") if route != "." \
            else os.path.join(site, "data", "documentation.json")
        checked += 1
        if not os.path.exists(data):
            missing.append(f"{os.path.relpath(page, site)}: no data {os.path.relpath(data, site)}")
    for line in sorted(set(missing)):
        print(f"docs: site: {line}")
    if not missing:
        print(f"ok   the site's {checked} references to its own files resolve")
    return 1 if missing else 0


def main():
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "flags" and len(args) == 2:
        return flags(*args)
    if command == "prepare" and len(args) == 1:
        return prepare(args[0])
    if command == "reached" and len(args) >= 3:
        return reached(args[0], args[1], args[2:])
    if command == "links" and len(args) in (1, 2):
        return links(*args)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
