// Reads one sample back from a Registry as a scrape would see it (histograms as _bucket, _sum and
// _count), so tests assert on the exposition rather than on prom-client internals.
import type { Registry } from 'prom-client';

/** The value of the sample with exactly these labels, or undefined when there is none. */
export async function sampleValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const family = name.replace(/_(bucket|sum|count)$/, '');
  const metric = registry.getSingleMetric(family) ?? registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric family for ${name} in the registry`);
  const { name: familyName, values } = await metric.get();
  const wanted = Object.entries(labels);
  const found = values.find((v) => {
    const sampleName = (v as { metricName?: string }).metricName ?? familyName;
    const have = Object.entries(v.labels);
    return sampleName === name && have.length === wanted.length && wanted.every(([k, want]) => String(v.labels[k]) === want);
  });
  return found?.value;
}
