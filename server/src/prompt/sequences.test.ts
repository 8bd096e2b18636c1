import { describe, expect, test } from 'vitest';
import type { ModelInfo, SpecialTokenIds } from '../model/completionModel.js';
import { FIM_LAYOUTS } from '../model/specialTokens.js';
import type { Candidate } from '../retrieval/types.js';
import { LineTokenizer } from './lineTokenizer.js';
import { chooseLayout, layoutByName, type PromptLayout } from './layouts.js';
import { renderSegments, toTokenIds, countTokens, MissingSpecialTokenError } from './segments.js';
import {
  formatOneSegments, generationSegments, MAX_ECHO_TOKENS, noRetrievalSegments, planPrompt, selectionSegments, shownLinesOf, withTarget,
} from './sequences.js';

/** A deterministic stand-in tokenizer: one token per word or run of spaces, one per newline. */
const wordTokenizer = { tokenize: (text: string) => (text.match(/\s+|[^\s]+/g) ?? []).map((t) => t.length) };

const PREFIX = [
  'import os',
  'from .session import Session',
  '',
  'def fetch(url):',
  '    session = Session()',
  '    return session.',
].join('\n');
const SUFFIX = '\n\n\ndef other():\n    pass\n';

function candidate(relPath: string, startLine: number, text: string, signature?: string): Candidate {
  const endLine = startLine + text.split('\n').length;
  return {
    chunk: { id: `${relPath}:window:${startLine}-${endLine}`, relPath, kind: 'window', startLine, endLine },
    text, sources: ['jaccard'], score: 1, signature,
  };
}

const CANDIDATES = [
  candidate('pkg/session.py', 9, 'class Session:\n    def get(self, url):\n        return self.request("GET", url)'),
  candidate('pkg/adapters.py', 0, 'def send(request):\n    ' + 'x = 1\n    '.repeat(40) + 'return x', 'def send(request):'),
  candidate('pkg/util.py', 3, 'def helper():\n    return 42'),
];

const BUDGETS = { prefixTokens: 1000, suffixTokens: 1000, chunkTokens: 60 };

describe('RepoShapley sequences (golden)', () => {
  const plan = planPrompt(PREFIX, SUFFIX, CANDIDATES, BUDGETS, new LineTokenizer(wordTokenizer));

  test.each([
    ['selection', () => selectionSegments(plan)],
    ['generation-kept-1-3', () => generationSegments(plan, [0, 2])],
    ['no-retrieval', () => noRetrievalSegments(plan)],
    ['format-one', () => formatOneSegments(plan, plan.packed.map((_, i) => i !== 1))],
    ['format-two-target', () => withTarget(generationSegments(plan, [0]), { text: 'get(url)', ids: [3, 5] })],
  ])('%s', async (name, build) => {
    await expect(renderSegments(build())).toMatchFileSnapshot(`golden/reposhapley-${name}.txt`);
  });

  test('a chunk over budget is reduced to its signature before being dropped (Rivet §3.4)', () => {
    expect(plan.packed.map((p) => [p.candidateIndex, p.reduced])).toEqual([[0, false], [1, true], [2, false]]);
  });

  test('plain FIM layout comments chunks out before the prefix', async () => {
    const plain = planWith('plain-fim');
    const kept = plain.packed.map((_, i) => i);
    await expect(renderSegments(layoutByName('plain-fim').generation(plain, kept))).toMatchFileSnapshot('golden/plain-fim-full.txt');
  });
});

/** Qwen2.5-Coder's texts of the repository format's special tokens, for rendering. */
const QWEN_TEXTS: Partial<Record<string, string>> = {
  PFX: '<|fim_prefix|>', SFX: '<|fim_suffix|>', MID: '<|fim_middle|>', REPO: '<|repo_name|>', FILE_SEP: '<|file_sep|>',
};

/** Segments rendered as Qwen2.5-Coder reads them; other specials as `<ROLE>`. */
function renderQwen(segments: Parameters<typeof renderSegments>[0]): string {
  return renderSegments(segments, (role) => QWEN_TEXTS[role] ?? `<${role}>`);
}

/** The fixture's plan under `layout` (in-file context planned, candidates packed), for a given text before the cursor. */
function planAtPrefix(layout: PromptLayout, tokenizer: LineTokenizer) {
  return (prefix: string) => ({
    ...layout.planInFile({ prefix, suffix: SUFFIX, path: 'pkg/fetch.py', repoName: 'requests' }, BUDGETS, tokenizer),
    packed: layout.pack(CANDIDATES, BUDGETS, tokenizer),
  });
}

/** A plan of the fixture as `name` lays it out, cursor after PREFIX. */
function planWith(name: 'plain-fim' | 'repo-fim') {
  return planAtPrefix(layoutByName(name), new LineTokenizer(wordTokenizer))(PREFIX);
}

describe('plain FIM prompt as each model family sees it (golden)', () => {
  const plain = planWith('plain-fim');
  test.each(FIM_LAYOUTS.map((layout) => [layout.name, layout] as const))('%s', async (name, layout) => {
    const texts: Partial<Record<string, string>> = { PFX: layout.prefix[0], SFX: layout.suffix[0], MID: layout.middle[0] };
    const rendered = renderSegments(layoutByName('plain-fim').generation(plain, [0]), (role) => texts[role] ?? `<${role}>`);
    await expect(rendered).toMatchFileSnapshot(`golden/plain-fim-${name}.txt`);
  });
});

describe('repository layout (Qwen2.5-Coder pretraining format, golden)', () => {
  const plan = planWith('repo-fim');
  test.each([
    ['full', plan.packed.map((_, i) => i)],
    ['kept-1-3', [0, 2]],
    ['no-retrieval', []],
  ])('%s', async (name, kept) => {
    const rendered = renderQwen(layoutByName('repo-fim').generation(plan, kept));
    await expect(rendered).toMatchFileSnapshot(`golden/repo-fim-${name}.txt`);
  });

  test('chunks are sections headed by their path only; the best-ranked sits last, next to the current file', () => {
    const segments = layoutByName('repo-fim').generation(plan, [0, 2]);
    const texts = segments.flatMap((s) => (s.kind === 'text' ? [s.text] : []));
    expect(texts[0]).toBe('requests\n');
    expect(texts[1]!.startsWith('pkg/util.py\n')).toBe(true);
    expect(texts[2]!.startsWith('pkg/session.py\nclass Session:')).toBe(true);
    expect(texts[3]).toBe('pkg/fetch.py\n');
  });

  test('the ids of a repo-fim prompt need the model to have the repository markers', () => {
    const segments = layoutByName('repo-fim').generation(plan, []);
    expect(() => toTokenIds(segments, { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3 })).toThrow(MissingSpecialTokenError);
    expect(toTokenIds(segments, { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3, repoName: 4, fileSeparator: 5 })[0]).toBe(4);
  });
});

describe('repo-fim-line: the cursor line after <|fim_middle|> (golden)', () => {
  const layout = layoutByName('repo-fim-line');
  const tokenizer = new LineTokenizer(wordTokenizer);
  const plan = planAtPrefix(layout, tokenizer);

  test('the typed part of the cursor line is the start of the middle', async () => {
    const rendered = renderQwen(layout.generation(plan(PREFIX), [0]));
    expect(rendered.endsWith('<|fim_middle|>    return session.')).toBe(true);
    const split = plan(PREFIX);
    expect(split.prefix.ids).toEqual(tokenizer.text(split.prefix.text));
    expect(split.cursorLine?.ids).toEqual(tokenizer.text('    return session.'));
    await expect(rendered).toMatchFileSnapshot('golden/repo-fim-line-kept-1.txt');
  });

  test('typing on the line changes nothing before <|fim_middle|>, so the cache keeps it all', () => {
    const ids = { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3, repoName: 4, fileSeparator: 5 };
    const before = toTokenIds(layout.generation(plan(PREFIX), [0]), ids);
    const after = toTokenIds(layout.generation(plan(PREFIX + 'get'), [0]), ids);
    const middle = before.indexOf(3);
    expect(after.slice(0, middle + 1)).toEqual(before.slice(0, middle + 1));
    expect(after.slice(middle + 1)).not.toEqual(before.slice(middle + 1));
  });

  test('at the start of a line nothing moves: the prompt is repo-fim\'s', () => {
    const atLineStart = plan('import os\n');
    expect(atLineStart.cursorLine).toBeUndefined();
    expect(renderSegments(layout.generation(atLineStart, []))).toBe(renderSegments(layoutByName('repo-fim').generation(
      { ...layoutByName('repo-fim').planInFile({ prefix: 'import os\n', suffix: SUFFIX, path: 'pkg/fetch.py', repoName: 'requests' }, BUDGETS, tokenizer), packed: [] }, [])));
  });
});

describe('repo-fim-pack-last: the paper\'s order in the repository format (golden)', () => {
  const layout = layoutByName('repo-fim-pack-last');
  const plan = planWith('repo-fim');

  test('the kept chunks follow the suffix, best-ranked last; the file\'s part is repo-fim\'s', async () => {
    const rendered = renderQwen(layout.generation(plan, [0, 2]));
    await expect(rendered).toMatchFileSnapshot('golden/repo-fim-pack-last-kept-1-3.txt');
    const [suffixAt, middleAt] = [rendered.indexOf('<|fim_suffix|>'), rendered.indexOf('<|fim_middle|>')];
    const [third, first] = [rendered.indexOf('pkg/util.py\n'), rendered.indexOf('pkg/session.py\nclass Session:')];
    expect(suffixAt).toBeGreaterThan(0);
    expect([suffixAt < third, third < first, first < middleAt]).toEqual([true, true, true]);
    const sameChunks = (segments: ReturnType<typeof layout.generation>) => renderQwen(segments.filter((s) => s.kind === 'text')).length;
    expect(sameChunks(layout.generation(plan, [0, 2]))).toBe(sameChunks(layoutByName('repo-fim').generation(plan, [0, 2])));
  });

  test('with nothing kept it is repo-fim\'s no-retrieval prompt', () => {
    expect(renderQwen(layout.generation({ ...plan, packed: [] }, []))).toBe(renderQwen(layoutByName('repo-fim').generation({ ...plan, packed: [] }, [])));
  });

  test('on a derived model the preference picks it, with repo-fim\'s control decisions', () => {
    const derived = { hasControlTokens: true, declaredLayout: 'repo-fim', echoLines: 0, special: {} } as unknown as ModelInfo;
    const chosen = chooseLayout(derived, 'repo-fim-pack-last');
    expect(chosen.name).toBe('repo-fim-pack-last');
    expect(renderQwen(chosen.control!.trigger(plan))).toBe(renderQwen(chooseLayout(derived).control!.trigger(plan)));
    expect(renderQwen(chosen.generation(plan, [1]))).toBe(renderQwen(layout.generation(plan, [1])));
  });
});

describe('repository layout with control tokens (a derived Qwen2.5-Coder, golden)', () => {
  const derived = { hasControlTokens: true, declaredLayout: 'repo-fim', echoLines: 0, special: {} } as unknown as ModelInfo;
  const layout = chooseLayout(derived);
  const plan = planWith('repo-fim');

  test('generation stays the repository format; the trigger is the no-retrieval prompt through <|fim_middle|>', () => {
    expect(layout.name).toBe('repo-fim');
    expect(renderQwen(layout.generation(plan, [0, 2]))).toBe(renderQwen(layoutByName('repo-fim').generation(plan, [0, 2])));
    // Where the completion starts: a DONE generation evaluates nothing the trigger did not.
    const noRetrieval = layout.generation({ ...plan, packed: [] }, []);
    expect(renderQwen(layout.control!.trigger(plan))).toBe(renderQwen(noRetrieval));
    expect(renderQwen(noRetrieval).endsWith('<|fim_middle|>')).toBe(true);
  });

  test('selection: <NEED>, then each candidate in <C_i>..</C_i> with its decision right after it', async () => {
    const { prefix, steps } = layout.control!.selection(plan);
    expect(steps).toHaveLength(plan.packed.length);
    const rendered = [renderQwen(prefix), ...steps.map((step, i) => `${renderQwen(step)}[q_${i + 1}]`)].join('');
    await expect(rendered).toMatchFileSnapshot('golden/repo-fim-control-selection.txt');
  });

  test('a model whose control tokens came with the RepoShapley sequences keeps the paper\'s format', () => {
    const small = { ...derived, declaredLayout: undefined } as ModelInfo;
    expect(chooseLayout(small).name).toBe('reposhapley');
    expect(chooseLayout(small).control!.selection(plan).steps.every((step) => step.length === 0)).toBe(true);
  });
});

describe('repo-fim-line with control tokens (the derived Qwen2.5-Coder, golden)', () => {
  const derived = { hasControlTokens: true, declaredLayout: 'repo-fim-line', echoLines: 0, special: {} } as unknown as ModelInfo;
  const layout = chooseLayout(derived);
  const plan = planAtPrefix(layout, new LineTokenizer(wordTokenizer));

  test('the declared layout is kept, and a preference for the other repository layout wins', () => {
    expect(layout.name).toBe('repo-fim-line');
    expect(layout.control).toBeDefined();
    expect(chooseLayout(derived, 'repo-fim').name).toBe('repo-fim');
    expect(chooseLayout(derived, 'repo-fim').control).toBeDefined();
    expect(chooseLayout({ ...derived, declaredLayout: 'repo-fim' } as ModelInfo, 'repo-fim-line').name).toBe('repo-fim-line');
    // plain-fim has no place for the control decisions: the declared layout stays.
    expect(chooseLayout(derived, 'plain-fim').name).toBe('repo-fim-line');
  });

  test('the trigger is the no-retrieval prompt whole, through <|fim_middle|> and the typed text', () => {
    const typed = plan(PREFIX);
    const noRetrieval = layout.generation({ ...typed, packed: [] }, []);
    expect(renderQwen(layout.control!.trigger(typed))).toBe(renderQwen(noRetrieval));
    expect(renderQwen(noRetrieval).endsWith('<|fim_middle|>    return session.')).toBe(true);
    expect(renderQwen(layout.generation(typed, [0]))).toBe(renderQwen(layoutByName('repo-fim-line').generation(typed, [0])));
  });

  test('typing on the line keeps every token of the trigger before the typed text', () => {
    const ids = { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3, repoName: 4, fileSeparator: 5 };
    const before = toTokenIds(layout.control!.trigger(plan(PREFIX)), ids);
    const after = toTokenIds(layout.control!.trigger(plan(PREFIX + 'get')), ids);
    const middle = before.indexOf(3);
    expect(after.slice(0, middle + 1)).toEqual(before.slice(0, middle + 1));
    expect(after.slice(middle + 1)).not.toEqual(before.slice(middle + 1));
  });

  test('selection: the trigger, <NEED>, then each candidate with its decision right after it', async () => {
    const { prefix, steps } = layout.control!.selection(plan(PREFIX));
    expect(renderQwen(prefix)).toBe(`${renderQwen(layout.control!.trigger(plan(PREFIX)))}<NEED>`);
    const rendered = [renderQwen(prefix), ...steps.map((step, i) => `${renderQwen(step)}[q_${i + 1}]`)].join('');
    await expect(rendered).toMatchFileSnapshot('golden/repo-fim-line-control-selection.txt');
  });
});

describe('budgets keep whole lines', () => {
  const tokenizer = new LineTokenizer(wordTokenizer);

  test('prefix is cut from the left, the cursor line always kept', () => {
    const plan = planPrompt('a b\nc d\ne f\ng', '', [], { ...BUDGETS, prefixTokens: 9 }, tokenizer);
    expect(plan.prefix.text).toBe('c d\ne f\ng');
    expect(plan.prefix.ids.length).toBe(9);
  });

  test('suffix is cut from the right', () => {
    const plan = planPrompt('x', ' y\nz w\nq r\n', [], { ...BUDGETS, suffixTokens: 7 }, tokenizer);
    expect(plan.suffix.text).toBe(' y\nz w\n');
  });

  test('a cursor line longer than the budget keeps its tail', () => {
    const long = 'word '.repeat(100);
    const plan = planPrompt(long, '', [], { ...BUDGETS, prefixTokens: 10 }, tokenizer);
    expect(plan.prefix.ids.length).toBe(10);
    expect(long.endsWith(plan.prefix.text)).toBe(true);
  });

  test('ids are the concatenation of per-line ids', () => {
    expect(tokenizer.text('a b\nc')).toEqual([...wordTokenizer.tokenize('a b\n'), ...wordTokenizer.tokenize('c')]);
  });
});

describe('token ids', () => {
  const ids: SpecialTokenIds = {
    fimPrefix: 100, fimSuffix: 101, fimMiddle: 102, endOfText: 103, need: 104, done: 105, keep: 106, drop: 107,
    select: 108, chunkOpen: Array.from({ length: 10 }, (_, i) => 110 + i), chunkClose: Array.from({ length: 10 }, (_, i) => 120 + i),
  };
  const plan = planPrompt('a b', 'c', CANDIDATES.slice(0, 1), BUDGETS, new LineTokenizer(wordTokenizer));

  test('specials map to their ids and text to its ids', () => {
    const segments = noRetrievalSegments(plan);
    expect(toTokenIds(segments, ids)).toEqual([100, 1, 1, 1, 101, 1, 105, 102]);
    expect(countTokens(segments)).toBe(8);
  });

  test('selection uses <C_1> and </C_1> around the first chunk', () => {
    const tokens = toTokenIds(selectionSegments(plan), ids);
    expect(tokens.slice(7, 8)).toEqual([110]);
    expect(tokens.at(-2)).toBe(120);
    expect(tokens.at(-1)).toBe(108);
  });

  test('a layout needing a token the model lacks is a bug, reported clearly', () => {
    expect(() => toTokenIds(selectionSegments(plan), { ...ids, need: undefined })).toThrow(MissingSpecialTokenError);
  });
});

describe('fitBudgetsToContext', () => {
  test('budgets that fit are unchanged; others shrink proportionally to leave room for control and generation', async () => {
    const { fitBudgetsToContext } = await import('./budget.js');
    const budgets = { prefixTokens: 1024, suffixTokens: 256, chunkTokens: 1024 };
    expect(fitBudgetsToContext(budgets, 4096, 64, 10)).toBe(budgets);
    const small = fitBudgetsToContext(budgets, 512, 64, 10);
    expect(small.prefixTokens + small.suffixTokens + small.chunkTokens + 30 + 6 + 64).toBeLessThanOrEqual(512);
    expect(small.prefixTokens).toBeGreaterThan(small.suffixTokens);
  });
});

describe('cursor echo (models trained with reposhapley.echo_lines)', () => {
  const tokenizer = new LineTokenizer(wordTokenizer);
  const plan = planPrompt(PREFIX, SUFFIX, CANDIDATES, BUDGETS, tokenizer, 2);

  test.each([
    ['generation-echo', () => generationSegments(plan, [0])],
    ['no-retrieval-echo', () => noRetrievalSegments(plan)],
  ])('%s', async (name, build) => {
    await expect(renderSegments(build())).toMatchFileSnapshot(`golden/reposhapley-${name}.txt`);
  });

  test('the echo is the last lines of the fitted prefix, the cursor line last, with the same ids', () => {
    expect(plan.echo?.text).toBe('    session = Session()\n    return session.');
    const prefixIds = plan.prefix.ids;
    expect(prefixIds.slice(prefixIds.length - plan.echo!.ids.length)).toEqual(plan.echo!.ids);
  });

  test('generation and no-retrieval end with <MID> and the echo; selection and X are unchanged', () => {
    const tail = (segments: ReturnType<typeof noRetrievalSegments>) => renderSegments(segments.slice(-2));
    expect(tail(noRetrievalSegments(plan))).toBe('<MID>    session = Session()\n    return session.');
    expect(tail(generationSegments(plan, [0, 2]))).toBe('<MID>    session = Session()\n    return session.');
    const plain = planPrompt(PREFIX, SUFFIX, CANDIDATES, BUDGETS, tokenizer);
    expect(plain.echo).toBeUndefined();
    expect(renderSegments(selectionSegments(plan))).toBe(renderSegments(selectionSegments(plain)));
    expect(renderSegments(noRetrievalSegments(plain))).toBe(renderSegments(noRetrievalSegments(plan)).replace(/<MID>[^]*$/, '<MID>'));
  });

  test('an empty cursor line does not count (two lines above it); a long cursor line keeps its tail', () => {
    expect(planPrompt('a = 1\nb = 2\n', '', [], BUDGETS, tokenizer, 2).echo?.text).toBe('a = 1\nb = 2\n');
    expect(planPrompt('a = 1\nb = 2\n    ', '', [], BUDGETS, tokenizer, 2).echo?.text).toBe('b = 2\n    ');
    const long = `x = ${'word '.repeat(100)}`;
    const echo = planPrompt(long, '', [], BUDGETS, tokenizer, 2).echo!;
    expect(echo.ids.length).toBeLessThanOrEqual(MAX_ECHO_TOKENS);
    expect(long.endsWith(echo.text)).toBe(true);
  });
});

describe('shownLinesOf', () => {
  const tokenizer = new LineTokenizer(wordTokenizer);

  test('counts the lines above and below the cursor line that the fitted prefix and suffix keep', () => {
    expect(shownLinesOf(planPrompt(PREFIX, SUFFIX, [], BUDGETS, tokenizer))).toEqual({ above: 5, below: 5 });
    // A prefix budget of a few tokens keeps the cursor line's end and fewer lines above it.
    const tight = shownLinesOf(planPrompt(PREFIX, SUFFIX, [], { ...BUDGETS, prefixTokens: 12, suffixTokens: 3 }, tokenizer));
    expect(tight.above).toBeLessThan(5);
    expect(tight.below).toBeLessThan(5);
  });
});
