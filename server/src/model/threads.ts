/**
 * How many CPU threads a model gets from the `threads` setting. Kept apart from the llama.cpp
 * runtime so that code deciding about models (`auto`, the CLI) need not load the native binding.
 */
import os from 'node:os';

/**
 * Threads for a context: the configured count, at most the machine's cores, or
 * {@link defaultThreads} for 0. More threads than cores never helps and badly hurts: llama.cpp's
 * threads spin for cores they cannot get (threads=157 on 2 cores: > 10 s per completion).
 */
export function resolveThreads(configured: number, cores = os.availableParallelism()): number {
  return configured > 0 ? Math.min(Math.floor(configured), cores) : defaultThreads(cores);
}

/**
 * Half the machine's cores, but two where there are two. llama.cpp's threads spin while they
 * wait for each other, so a thread that shares its core with something busy stalls the rest:
 * an editor service leaves room on larger machines. On 2 cores with the 0.5B default model
 * (docs/benchmarks.md, runtime), two threads were 1.9x faster than one on an idle machine
 * (prefill 41 vs 21 tokens/s, generation 17 vs 10) and on par beside one busy process (prefill
 * 22.5 vs 20.2, generation 7.4 vs 8.8), so the second core pays.
 */
export function defaultThreads(cores = os.availableParallelism()): number {
  return Math.min(cores, Math.max(2, Math.floor(cores / 2)));
}
