/**
 * The bench's `--model`: a GGUF file where the user typed the command, or a catalog model name
 * (`qwen2.5-coder-1.5b`) that the server resolves to its pulled file and adapter pack. A value
 * that is neither is refused at parse time (commander: `error: option '--model <path|name>'
 * argument 'x' is invalid. ...`), before tasks are built or a server starts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { resolveCatalogModel } from '../../server/src/modelStore/catalog.js';

/** npm runs scripts in the package root: user paths resolve against where the command was typed. */
export function userPath(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}

/** An existing file as an absolute path, else a catalog name as given; neither throws. */
export function modelArgument(value: string): string {
  const file = userPath(value);
  if (existsSync(file)) return file;
  if (resolveCatalogModel(value).kind === 'ok') return value;
  throw new InvalidArgumentError(`no such file (${file}), and no catalog model of that name (reposhapley model list)`);
}
