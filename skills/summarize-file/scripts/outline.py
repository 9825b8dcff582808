"""Outline of a text file: line count, headings with line numbers, the most repeated lines.

Usage: python outline.py PATH  (part of the summarize-file skill; read-only)
"""
import collections
import re
import sys

HEADING = re.compile(r"^(#{1,6}\s+\S.*|\d+(\.\d+)*[.)]?\s+[A-Z].{2,80}|[A-Z][A-Z0-9 _-]{3,60}:?)$")
LEVEL = re.compile(r"\b(ERROR|WARN(ING)?|FATAL|CRITICAL|Traceback)\b")


def main(path: str) -> None:
    counts: collections.Counter[str] = collections.Counter()
    headings: list[tuple[int, str]] = []
    levels: collections.Counter[str] = collections.Counter()
    total = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            total = number
            text = line.rstrip("\n")
            stripped = text.strip()
            if stripped and len(headings) < 200 and HEADING.match(stripped):
                headings.append((number, stripped[:100]))
            found = LEVEL.search(text)
            if found:
                levels[found.group(1)] += 1
            if stripped:
                counts[re.sub(r"\d+", "N", stripped)[:120]] += 1
    print(f"{path}: {total} lines")
    if levels:
        print("levels: " + ", ".join(f"{name} {count}" for name, count in levels.most_common()))
    print("headings:" if headings else "headings: none found")
    for number, text in headings:
        print(f"  {number:>7}  {text}")
    repeated = [(line, count) for line, count in counts.most_common(5) if count > 2]
    if repeated:
        print("most repeated lines (digits as N):")
        for line, count in repeated:
            print(f"  {count:>7}x {line}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python outline.py PATH")
    main(sys.argv[1])
