/**
 * Per-task completion metrics: RepoShapley Appendix A.1 (EM, ES) and CrossCodeEval's
 * identifier match (EM, F1). Pure functions over strings.
 *
 * Lengths and edit distances count Unicode CODE POINTS, not UTF-16 code units: the reference
 * implementations are Python (`len(str)` and `fuzz`/`editdistance` work on code points), and a
 * character outside the BMP (an emoji, U+1D49C) is one keystroke for a user, not two. So
 * `editSimilarity('😀', '😁')` is 0 (one substitution over one code point), not 50.
 */
import type { CodeLanguage, LexicalRules } from '../../../server/src/languages/language.js';
import { languageOfPath } from '../../../server/src/languages/registry.js';
import { distance } from 'fastest-levenshtein';

/** EM = 1(Ŷ = Y) on whitespace-trimmed text (RepoShapley A.1). */
export function exactMatch(prediction: string, target: string): boolean {
  return prediction.trim() === target.trim();
}

/**
 * ES = (1 − Lev(Ŷ, Y) / max(|Ŷ|, |Y|)) × 100 on whitespace-trimmed text (RepoShapley A.1),
 * lengths in code points. Two empty strings are identical: ES 100 (the formula is 0/0 there).
 */
export function editSimilarity(prediction: string, target: string): number {
  const a = prediction.trim();
  const b = target.trim();
  const longest = Math.max(codePointLength(a), codePointLength(b));
  if (longest === 0) return 100;
  return (1 - codePointDistance(a, b) / longest) * 100;
}

/** Number of code points (a surrogate pair counts once; a lone surrogate counts once too). */
export function codePointLength(text: string): number {
  if (!hasSurrogates(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Levenshtein distance over code points. */
export function codePointDistance(a: string, b: string): number {
  if (!hasSurrogates(a) && !hasSurrogates(b)) return distance(a, b);
  const remapped = remapToSingleUnits(a, b);
  return remapped ? distance(remapped[0], remapped[1]) : dynamicProgramDistance([...a], [...b]);
}

const SURROGATE = /[\uD800-\uDFFF]/;

function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

/**
 * fastest-levenshtein compares UTF-16 units. Give every distinct code point of the pair its
 * own single unit, so a surrogate pair becomes one symbol; only equality matters to the
 * distance, so the symbols' values are arbitrary. Past 65,536 distinct code points (never seen
 * in code) there are not enough units: a plain dynamic program over code points does it.
 */
function remapToSingleUnits(a: string, b: string): [string, string] | undefined {
  const symbols = new Map<string, number>();
  const remap = (text: string): string => {
    const units: number[] = [];
    for (const char of text) {
      let symbol = symbols.get(char);
      if (symbol === undefined) symbols.set(char, (symbol = symbols.size));
      units.push(symbol);
    }
    return symbols.size > 0x10000 ? '' : units.map((unit) => String.fromCharCode(unit)).join('');
  };
  const left = remap(a);
  const right = remap(b);
  return symbols.size > 0x10000 ? undefined : [left, right];
}

/** Levenshtein distance by the textbook dynamic program, one row at a time (exported for its test). */
export function dynamicProgramDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Python's `keyword.kwlist` without True/False, which CrossCodeEval counts as identifiers. */
const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'None', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del',
  'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is',
  'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);

/** A word: an identifier, or a number literal (matched so `1e5` does not yield `e5`). */
const WORD = /[\p{ID_Start}_][\p{ID_Continue}]*|\d[\p{ID_Continue}.]*/gu;

/**
 * Identifiers in order of appearance, as CrossCodeEval extracts them: comments and string
 * literals removed (f-strings too: their interpolations are not counted), keywords dropped.
 * Works on fragments (a rest-of-line with an unclosed string or bracket). Python's rules by
 * default; another language's comments, strings and keywords when `language` is given.
 */
export function extractIdentifiers(code: string, language?: CodeLanguage): string[] {
  const stripped = language ? stripByRules(code, language.editing.lexical) : stripStringsAndComments(code);
  const keywords = language ? language.symbols.keywords : PYTHON_KEYWORDS;
  return (stripped.match(WORD) ?? []).filter((word) => !/^\d/.test(word) && !keywords.has(word));
}

/**
 * Comments and strings replaced with a space by a language's lexical rules (the server's own);
 * an unterminated string ends at the line break unless its quote spans lines.
 */
export function stripByRules(code: string, lexical: LexicalRules): string {
  let out = '';
  for (let i = 0; i < code.length;) {
    const end = skippedEnd(code, i, lexical);
    if (end === undefined) {
      out += code[i];
      i++;
    } else {
      out += ' ';
      i = end;
    }
  }
  return out;
}

/** Where the comment or string starting at `i` ends; undefined when none starts there. */
function skippedEnd(code: string, i: number, lexical: LexicalRules): number | undefined {
  if (lexical.lineComments.some((mark) => code.startsWith(mark, i))) {
    const end = code.indexOf('\n', i);
    return end < 0 ? code.length : end;
  }
  const block = lexical.blockComment;
  if (block && code.startsWith(block.open, i)) {
    const end = code.indexOf(block.close, i + block.open.length);
    return end < 0 ? code.length : end + block.close.length;
  }
  const quote = lexical.quotes.find((q) => code.startsWith(q, i));
  if (quote === undefined) return undefined;
  const raw = lexical.rawQuotes?.includes(quote) ?? false;
  const multiLine = lexical.multiLineQuotes.includes(quote);
  for (let j = i + quote.length; j < code.length; j++) {
    if (code[j] === '\\' && !raw) j++;
    else if (code[j] === '\n' && !multiLine) return j;
    else if (code.startsWith(quote, j)) return j + quote.length;
  }
  return code.length;
}

/** A string literal opens here: optional prefix (r, b, f, u and pairs), then a quote. */
const STRING_START = /(?:(?<![\p{ID_Continue}])[rRbBfFuU]{1,2})?('''|"""|'|")/uy;

/**
 * Replaces comments and string literals with a space. An unterminated single-quoted string
 * ends at the line break, an unterminated triple-quoted one at the end of the text.
 */
export function stripStringsAndComments(code: string): string {
  let out = '';
  let i = 0;
  while (i < code.length) {
    const char = code[i]!;
    if (char === '#') {
      const end = code.indexOf('\n', i);
      i = end < 0 ? code.length : end;
      out += ' ';
      continue;
    }
    STRING_START.lastIndex = i;
    const open = STRING_START.exec(code);
    if (open) {
      i = stringEnd(code, STRING_START.lastIndex, open[1]!);
      out += ' ';
      continue;
    }
    out += char;
    i++;
  }
  return out;
}

/** Index just after the string whose body starts at `from` and is closed by `quote`. */
function stringEnd(code: string, from: number, quote: string): number {
  const triple = quote.length === 3;
  for (let i = from; i < code.length; i++) {
    const char = code[i]!;
    if (char === '\\') i++;
    else if (!triple && char === '\n') return i;
    else if (code.startsWith(quote, i)) return i + quote.length;
  }
  return code.length;
}

/** Identifier match of one prediction (CrossCodeEval `compute_id_match` and its per-task scores). */
export interface IdentifierMatch {
  /** The identifier sequences are equal (order and repetitions count). */
  exact: boolean;
  precision: number;
  recall: number;
  /** 2·TP / (2·TP + FP + FN) over the identifier SETS. */
  f1: number;
}

/**
 * CrossCodeEval's identifier EM and F1. One deliberate difference: when neither side has an
 * identifier, precision, recall and F1 are 1 (CrossCodeEval reports 0), matching identifier
 * EM (both empty lists are equal) and ES of two empty strings (100).
 */
export function identifierMatch(prediction: string, target: string, language?: CodeLanguage): IdentifierMatch {
  const predicted = extractIdentifiers(prediction, language);
  const expected = extractIdentifiers(target, language);
  const exact = predicted.length === expected.length && predicted.every((id, i) => id === expected[i]);
  const predictedSet = new Set(predicted);
  const expectedSet = new Set(expected);
  if (predictedSet.size === 0 && expectedSet.size === 0) return { exact, precision: 1, recall: 1, f1: 1 };
  let truePositives = 0;
  for (const id of predictedSet) if (expectedSet.has(id)) truePositives++;
  const falsePositives = predictedSet.size - truePositives;
  const falseNegatives = expectedSet.size - truePositives;
  return {
    exact,
    precision: predictedSet.size > 0 ? truePositives / predictedSet.size : 0,
    recall: expectedSet.size > 0 ? truePositives / expectedSet.size : 0,
    f1: (2 * truePositives) / (2 * truePositives + falsePositives + falseNegatives),
  };
}

/** Every per-task quality metric of one completion against its target. */
export interface QualityScores {
  em: number;
  es: number;
  idEm: number;
  idF1: number;
}

/**
 * EM (0/1), ES (0–100), identifier EM (0/1) and identifier F1 (0–1) of one completion in the file
 * at `relPath` (its language's identifiers; Python's when it has none registered).
 */
export function scoreCompletion(prediction: string, target: string, relPath?: string): QualityScores {
  const language = relPath === undefined ? undefined : languageOfPath(relPath);
  const ids = identifierMatch(prediction, target, language?.id === 'python' ? undefined : language);
  return {
    em: exactMatch(prediction, target) ? 1 : 0,
    es: editSimilarity(prediction, target),
    idEm: ids.exact ? 1 : 0,
    idF1: ids.f1,
  };
}
