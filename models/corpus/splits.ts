/**
 * The validation split: whole packages (repositories) held out of tokenizer training and of the
 * training shards, so validation loss and the tokenizer's compression are measured on code
 * from repositories the model never saw (RepoShapley §4.1 splits 95/5; here 6 of 129 packages).
 * Chosen to span domains: git, web framework, DNS, terminal UI, SSH, graph algorithms.
 */
export const VALIDATION_PACKAGES: readonly string[] = [
  'python3-dulwich',
  'python3-pyramid',
  'python3-dnspython',
  'python3-urwid',
  'python3-paramiko',
  'python3-networkx',
];

export function isValidationPackage(name: string): boolean {
  return VALIDATION_PACKAGES.includes(name);
}
