import { describe, expect, test } from 'vitest';
import type { PullableModel, StatusParams } from '../../shared/messages.js';
import { DECLINED_KEY, displayName, ModelOffer, OFFER_CHOICES, offerMessage, type OfferMemento } from './modelOffer.js';

const QWEN: PullableModel = { name: 'qwen2.5-coder-0.5b', sizeBytes: 491_400_064, license: 'Apache-2.0' };
const ON_FALLBACK: StatusParams = { state: 'ready', message: 'ready', model: { label: 'reposhapley-small.gguf', fallback: true }, pullable: QWEN };

/** A vscode.Memento in memory. */
function memento(initial: Record<string, unknown> = {}): OfferMemento & { values: Map<string, unknown> } {
  const values = new Map(Object.entries(initial));
  return {
    values,
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key: string, value: unknown) => { values.set(key, value); },
  };
}

/** An offer whose message answers `choice`; records what was asked and downloaded. */
function harness(choice: string | undefined, state = { workspace: memento(), global: memento() }, downloading = false) {
  const asked: { message: string; choices: string[] }[] = [];
  const downloads: PullableModel[] = [];
  const offer = new ModelOffer({
    workspaceState: state.workspace,
    globalState: state.global,
    ask: async (message, ...choices) => { asked.push({ message, choices }); return choice; },
    isDownloading: () => downloading,
    download: (model) => void downloads.push(model),
  });
  return { offer, asked, downloads, state };
}

describe('ModelOffer', () => {
  test('offers once per session, with the size, the license and what happens until then', async () => {
    const { offer, asked, downloads } = harness(OFFER_CHOICES.download);
    await offer.onStatus({ state: 'indexing', message: 'indexing' });
    expect(asked).toEqual([]);
    await offer.onStatus(ON_FALLBACK);
    await offer.onStatus(ON_FALLBACK);
    expect(asked).toEqual([{
      message: 'RepoShapley: download Qwen2.5-Coder 0.5B (491 MB, Apache-2.0) for much better completions? Until then a small fallback model is used.',
      choices: ['Download', 'Not now', 'Never'],
    }]);
    expect(downloads).toEqual([QWEN]);
  });

  test('"Not now" is remembered for the workspace only; a dismissed message is remembered nowhere', async () => {
    const first = harness(OFFER_CHOICES.notNow);
    await first.offer.onStatus(ON_FALLBACK);
    expect(first.state.workspace.values.get(DECLINED_KEY)).toEqual([QWEN.name]);
    expect(first.downloads).toEqual([]);

    const sameWorkspace = harness(OFFER_CHOICES.download, { workspace: first.state.workspace, global: first.state.global });
    await sameWorkspace.offer.onStatus(ON_FALLBACK);
    expect(sameWorkspace.asked).toEqual([]);
    const otherWorkspace = harness(OFFER_CHOICES.download, { workspace: memento(), global: first.state.global });
    await otherWorkspace.offer.onStatus(ON_FALLBACK);
    expect(otherWorkspace.asked).toHaveLength(1);

    const dismissed = harness(undefined);
    await dismissed.offer.onStatus(ON_FALLBACK);
    expect([...dismissed.state.workspace.values, ...dismissed.state.global.values]).toEqual([]);
  });

  test('"Never" is remembered everywhere, for that model only', async () => {
    const first = harness(OFFER_CHOICES.never);
    await first.offer.onStatus(ON_FALLBACK);
    expect(first.state.global.values.get(DECLINED_KEY)).toEqual([QWEN.name]);

    const elsewhere = harness(OFFER_CHOICES.download, { workspace: memento(), global: first.state.global });
    await elsewhere.offer.onStatus(ON_FALLBACK);
    expect(elsewhere.asked).toEqual([]);
    const bigger: PullableModel = { name: 'qwen2.5-coder-1.5b', sizeBytes: 1_117_320_768, license: 'Apache-2.0' };
    await elsewhere.offer.onStatus({ ...ON_FALLBACK, pullable: bigger });
    expect(elsewhere.asked.map((ask) => ask.message)).toEqual([expect.stringContaining('Qwen2.5-Coder 1.5B (1117 MB, Apache-2.0)')]);
  });

  test('no offer while a download runs; a corrupt memento value counts as nothing declined', async () => {
    const busy = harness(OFFER_CHOICES.download, undefined, true);
    await busy.offer.onStatus(ON_FALLBACK);
    expect(busy.asked).toEqual([]);
    const corrupt = harness(OFFER_CHOICES.download, { workspace: memento({ [DECLINED_KEY]: 'qwen2.5-coder-0.5b' }), global: memento() });
    await corrupt.offer.onStatus(ON_FALLBACK);
    expect(corrupt.asked).toHaveLength(1);
  });
});

test('without a fallback model the offer says there are no completions until then', () => {
  expect(offerMessage(QWEN, {})).toMatch(/\? Until then there are no completions\.$/);
});

test.each([
  ['qwen2.5-coder-0.5b', 'Qwen2.5-Coder 0.5B'],
  ['qwen2.5-coder-1.5b', 'Qwen2.5-Coder 1.5B'],
  ['starcoder2-3b', 'Starcoder2 3B'],
  ['tiny', 'Tiny'],
])('displayName(%s) is %s', (name, shown) => {
  expect(displayName(name)).toBe(shown);
});
