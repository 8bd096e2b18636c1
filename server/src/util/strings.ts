/**
 * Strings kept by long-lived caches. V8 makes a substring of 13+ characters (a `slice`, a
 * `split` piece) a view into its parent string, so caching one line of a document keeps the whole
 * document alive: a line cache filled while typing in a 100 KB file held one 100 KB text version
 * per keystroke (docs/history/2026-11-29-reliability-issue-7-hardening.md).
 */

/**
 * A copy of `text` that shares no storage with the string it was cut from. Prepending a character
 * makes a two-part string; slicing that flattens it into a new string of the line's own length,
 * which the result then points into, so only `text.length + 1` characters are retained.
 */
export function detachedCopy(text: string): string {
  return (` ${text}`).slice(1);
}
