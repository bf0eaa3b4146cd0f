#!/usr/bin/env python3
"""Writes an assessment of N items of every type, for timing `carrel validate` at scale.

Usage: Benchmarks/YAMLItems/generate.py N [FILE]   (FILE defaults to standard output)

Items are written in block style, as teachers write them, about 150 bytes each, so that
50 000 items make a file of about 7.4 MB. Every item is valid: the file must validate.
"""
import sys

# The lines after `id:` of one item of each type, in turn; {n} is the item's number.
KINDS = [
    ["type: choice", "prompt: Which city is number {n}?", "choices: [Toronto, Ottawa, Montreal]",
     "answer: Ottawa"],
    ["type: multiple", "prompt: Which of these are prime ({n})?", 'choices: ["2", "3", "4"]',
     'answer: ["2", "3"]', "points: 2"],
    ["type: true_false", "prompt: Statement {n} is true.", "answer: {truth}"],
    ["type: text", "prompt: Spell word number {n}.", "accept: [schnauzer, Schnauzer]", "case_sensitive: false"],
    ["type: numeric", "prompt: What is pi to two places ({n})?", "answer: 3.14", "tolerance: 0.005"],
    ["type: essay", "prompt: Describe thing {n} in a few sentences.", "min_words: 5", "max_words: 120",
     "points: 3"],
    ["type: order", "prompt: Put these in order of size ({n}).", "items: [mouse, cat, horse, elephant]"],
    ["type: match", "prompt: Match each country to its capital ({n}).",
     "pairs: {{Canada: Ottawa, Italy: Rome, Japan: Tokyo}}", "distractors: [Sydney]"],
]


def item(n):
    lines = [f"      - id: q{n}"]
    lines += ["        " + line.format(n=n, truth="true" if n % 3 else "false") for line in KINDS[n % len(KINDS)]]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    count = int(sys.argv[1])
    out = open(sys.argv[2], "w") if len(sys.argv) == 3 else sys.stdout
    with out:
        out.write(f"carrel: 1\nid: bench-{count}\ntitle: {count} items\nsections:\n  - title: All\n    items:\n")
        for n in range(count):
            out.write(item(n))


if __name__ == "__main__":
    main()
