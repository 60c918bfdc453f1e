"""Rewrite the generated code pasted in README.md and docs/*.md from the code, in place.

    python tests/regen_docs.py            # every page
    python tests/regen_docs.py docs/arrays.md

Each block marked ``<!-- output -->`` or ``<!-- generated: ... -->`` (tests/docs_blocks.py says
how) is made again; a block whose library is not installed is left as it is, and named. Running it
twice changes nothing the second time. The disk cache is not used, so every gradient is built by
the code of this checkout.
"""
import os
import sys

os.environ["SYMGRAD_CACHE_DIR"] = ""
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import docs_blocks  # noqa: E402


def main(argv):
    paths = argv or docs_blocks.pages()
    for path in paths:
        page = docs_blocks.Page(path)
        text, reasons = page.regenerate()
        for reason in reasons:
            print("left as it is:", reason)
        if text != page.text:
            with open(os.path.join(docs_blocks.ROOT, path), "w", encoding="utf-8") as handle:
                handle.write(text)
            print("rewrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
