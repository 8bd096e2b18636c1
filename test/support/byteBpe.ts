/**
 * A trivial byte-level BPE learner in the GPT-2 style, so the tiny test model's tokenizer
 * merges common Python pieces ("def", "self", indentation) instead of being bytes only.
 * It is a fixture tool, not the project's tokenizer trainer.
 */

/** GPT-2's printable stand-in for each byte (byte b is token text BYTE_TO_UNICODE[b]). */
export const BYTE_TO_UNICODE: readonly string[] = buildByteToUnicode();

function buildByteToUnicode(): string[] {
  const printable: number[] = [];
  const ranges: Array<[number, number]> = [[33, 126], [161, 172], [174, 255]];
  for (const [from, to] of ranges) for (let b = from; b <= to; b++) printable.push(b);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  }
  return table;
}

/** The regex llama.cpp uses for `tokenizer.ggml.pre = "gpt-2"`. */
const GPT2_PRETOKENIZER = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Text -> byte-level token text (each UTF-8 byte replaced by its stand-in). */
export function toByteLevel(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (b) => BYTE_TO_UNICODE[b]).join('');
}

/**
 * Learn up to `maxMerges` merges from `corpus`. Each step merges the most frequent adjacent
 * pair (ties broken by text, so the result is deterministic); stops when no pair occurs twice.
 * Returns merges as "left right" strings in rank order, as GGUF's `tokenizer.ggml.merges` wants.
 */
export function learnMerges(corpus: string, maxMerges: number): string[] {
  const words = countWords(corpus);
  const merges: string[] = [];
  while (merges.length < maxMerges) {
    const best = mostFrequentPair(words);
    if (!best) break;
    merges.push(`${best[0]} ${best[1]}`);
    for (const word of words.keys()) applyMerge(word, best[0], best[1]);
  }
  return merges;
}

function countWords(corpus: string): Map<string[], number> {
  const counts = new Map<string, number>();
  for (const match of corpus.matchAll(GPT2_PRETOKENIZER)) {
    const piece = toByteLevel(match[0]);
    counts.set(piece, (counts.get(piece) ?? 0) + 1);
  }
  return new Map([...counts].map(([piece, count]) => [Array.from(piece), count]));
}

function mostFrequentPair(words: Map<string[], number>): [string, string] | undefined {
  const pairs = new Map<string, number>();
  for (const [symbols, count] of words) {
    for (let i = 0; i + 1 < symbols.length; i++) {
      const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
      pairs.set(key, (pairs.get(key) ?? 0) + count);
    }
  }
  let best: string | undefined;
  let bestCount = 1;
  for (const [key, count] of pairs) {
    if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
      best = key;
      bestCount = count;
    }
  }
  return best === undefined ? undefined : (best.split('\u0000') as [string, string]);
}

function applyMerge(symbols: string[], left: string, right: string): void {
  for (let i = 0; i + 1 < symbols.length; i++) {
    if (symbols[i] === left && symbols[i + 1] === right) symbols.splice(i, 2, left + right);
  }
}

/** A small Python corpus the tiny model's merges are learned from. */
export const PYTHON_CORPUS = `
import os
import sys
from typing import List, Optional, Dict


class Config(object):
    def __init__(self, name: str, path: Optional[str] = None) -> None:
        self.name = name
        self.path = path
        self.items: List[str] = []

    def add(self, item: str) -> None:
        self.items.append(item)

    def get(self, key: str, default=None):
        return self.values.get(key, default)

    def __repr__(self) -> str:
        return f"Config(name={self.name!r}, path={self.path!r})"


def load_config(path: str) -> Config:
    config = Config(os.path.basename(path), path)
    with open(path, "r", encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            config.add(line)
    return config


def main(argv: List[str]) -> int:
    if len(argv) < 2:
        print("usage: main.py PATH", file=sys.stderr)
        return 1
    config = load_config(argv[1])
    for index, item in enumerate(config.items):
        print(index, item)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

class Node:
    """A node of a binary search tree."""

    def __init__(self, key, value=None):
        self.key = key
        self.value = value
        self.left = None
        self.right = None

    def insert(self, key, value=None):
        if key < self.key:
            if self.left is None:
                self.left = Node(key, value)
            else:
                self.left.insert(key, value)
        elif key > self.key:
            if self.right is None:
                self.right = Node(key, value)
            else:
                self.right.insert(key, value)
        else:
            self.value = value

    def find(self, key):
        node = self
        while node is not None:
            if key == node.key:
                return node.value
            node = node.left if key < node.key else node.right
        return None


def parse_args(args):
    options = {}
    for arg in args:
        if arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            options[name] = value or True
    return options


async def fetch_all(urls, session):
    results = []
    for url in urls:
        try:
            response = await session.get(url)
            results.append(response.json())
        except Exception as error:
            raise RuntimeError(f"failed to fetch {url}") from error
    return results
`;
