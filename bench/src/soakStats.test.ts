import { describe, expect, it } from 'vitest';
import { MemorySampler, type MemoryReading } from './soakStats.js';

/** Takes one sample per reading, `edits` apart, the way the soak's timer would. */
function sampled(readings: MemoryReading[], editsApart: number): MemorySampler {
  let next = 0;
  const sampler = new MemorySampler(() => readings[next++]);
  readings.forEach((_, i) => {
    sampler.edits = i * editsApart;
    sampler.start();
    sampler.stop();
  });
  return sampler;
}

describe('MemorySampler', () => {
  it('reports the server and the model host each on its own windows after warm-up', () => {
    // 100 edits, warm-up 10: start window edits 10..15, end window edits 95..100.
    const readings = Array.from({ length: 21 }, (_, i): MemoryReading => ({ serverKiB: 1000 + i * 10, hostKiB: i < 2 ? 500 : 800 }));
    const initial = { serverKiB: 900, hostKiB: 400 };
    const report = sampled(readings, 5).report(initial, 10, 100, readings[20], readings[20]);

    expect(report.server.startKiB).toBe(1030);
    expect(report.server.endKiB).toBe(1200);
    expect(report.server.growth).toBeCloseTo(1200 / 1030 - 1, 6);
    expect(report.server.initialKiB).toBe(900);
    expect(report.modelHost.startKiB).toBe(800);
    expect(report.modelHost.growth).toBe(0);
    expect(report.modelHost.peakKiB).toBe(800);
    expect(report.samples[3]).toEqual([0, 15, 1030, 800]);
  });

  it('leaves the growth undefined (NaN) when nothing ran in a model host', () => {
    const readings = [0, 1, 2].map((i): MemoryReading => ({ serverKiB: 1000 + i, hostKiB: 0 }));
    const report = sampled(readings, 50).report(readings[0], 10, 100, readings[2], readings[2]);

    expect(report.modelHost.growth).toBeNaN();
    expect(report.server.growth).toBeGreaterThanOrEqual(0);
  });
});
