/**
 * GPT-2's byte-level alphabet: byte b is spelled by the printable character BYTE_TO_UNICODE[b]
 * in token texts, as llama.cpp's "gpt2" tokenizer and Hugging Face's ByteLevel expect.
 */

/** Token text of each byte 0..255. */
export const BYTE_TO_UNICODE: readonly string[] = buildByteToUnicode();

const UNICODE_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_UNICODE.map((char, byte) => [char, byte]));

function buildByteToUnicode(): string[] {
  const isPrintable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) table[b] = String.fromCodePoint(isPrintable(b) ? b : 256 + extra++);
  return table;
}

/** Text -> byte-level token text. */
export function toByteLevel(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (b) => BYTE_TO_UNICODE[b]).join('');
}

/** Byte-level token text -> the bytes it stands for; throws on a character outside the alphabet. */
export function fromByteLevel(token: string): Buffer {
  return Buffer.from(Array.from(token, (char) => {
    const byte = UNICODE_TO_BYTE.get(char);
    if (byte === undefined) throw new RangeError(`not a byte-level character: U+${char.codePointAt(0)!.toString(16)}`);
    return byte;
  }));
}
