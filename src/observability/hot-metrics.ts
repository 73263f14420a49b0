// Counters and histograms for the request path, registered in the same prom-client Registry and
// exposed in the same format as prom-client's own. prom-client's inc()/observe() validate the
// label object and rebuild its hash key on every call (about a third of a microsecond each, and a
// narrowly scoped user's request records several dozen); here each distinct set of label values
// gets its series once, and a call is a map look-up and a few additions on plain numbers.
// Everything else — registration, exposition, default metrics, gauges — stays prom-client's;
// test/observability/hot-metrics.test.ts holds the exposition byte-for-byte to prom-client's.
import type { LabelValues, Metric, Registry } from 'prom-client';

/** One exposed sample: what prom-client's own metrics give the Registry. */
export interface HotSample<L extends string> {
  value: number;
  labels: LabelValues<L> | LabelValues<L | 'le'>;
  metricName?: string;
}

/** What get() gives the Registry, in prom-client's shape. */
export interface HotMetricValues<L extends string> {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: HotSample<L>[];
}

interface HotMetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers: Registry[];
}

/** One level of the series index: a label's value → the next level, or the series at the last. */
type IndexLevel = Map<unknown, unknown>;

const absent = Symbol('label not given');
const noLabels = Symbol('no labels declared');

/** Values as prom-client reads them: 200 and "200" are one series; an absent label is its own. */
function indexValue(value: string | number | undefined): string | symbol {
  if (typeof value === 'string') return value;
  return value === undefined ? absent : String(value);
}

/** The common part: bounded label sets, each bound to its series on first use. */
abstract class HotMetric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  readonly #labelNames: readonly L[];
  /** Every series, in the order first seen (the exposition's order). */
  #series: Array<{ labels: LabelValues<L>; series: S }> = [];
  #index: IndexLevel = new Map();

  constructor(config: HotMetricConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.#labelNames = config.labelNames ?? [];
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract newSeries(): S;

  /**
   * The series for one set of label values, found through one map level per declared label, keyed
   * by the values themselves: label values are nearly always the same few string objects (plugin
   * names, operations, codes), whose hashes V8 keeps, so a look-up builds no string. Only the
   * declared labels are looked at, so a label name that was never declared throws when its set is
   * first bound, as in prom-client, and is not looked at again (call sites are typed against the
   * declared names).
   */
  protected seriesFor(labels: LabelValues<L> | undefined): S {
    const names = this.#labelNames;
    let level = this.#index;
    const last = names.length - 1;
    for (let i = 0; i < last; i++) {
      const value = indexValue(labels?.[names[i]!]);
      let next = level.get(value) as IndexLevel | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    const leaf = last < 0 ? noLabels : indexValue(labels?.[names[last]!]);
    const found = level.get(leaf) as S | undefined;
    if (found !== undefined) return found;
    const series = this.#bind(labels ?? ({} as LabelValues<L>));
    level.set(leaf, series);
    return series;
  }

  #bind(labels: LabelValues<L>): S {
    for (const name of Object.keys(labels)) {
      if (!(this.#labelNames as readonly string[]).includes(name))
        throw new Error(`Added label "${name}" is not included in initial labelset: ${JSON.stringify(this.#labelNames)}`);
    }
    // Kept in the caller's key order, as prom-client keeps them (the exposition lists them so).
    const copy = {} as LabelValues<L>;
    for (const name of Object.keys(labels) as L[]) {
      const value = labels[name];
      if (value !== undefined) copy[name] = value;
    }
    const series = this.newSeries();
    this.#series.push({ labels: copy, series });
    return series;
  }

  protected entries(): Iterable<{ labels: LabelValues<L>; series: S }> {
    return this.#series;
  }

  reset(): void {
    this.#series = [];
    this.#index = new Map();
  }
}

export class HotCounter<L extends string = string> extends HotMetric<L, { value: number }> {
  readonly type = 'counter' as const;

  readonly #unlabelled: boolean;

  constructor(config: HotMetricConfig<L>) {
    super(config);
    this.#unlabelled = (config.labelNames ?? []).length === 0;
    // A counter without labels is exposed at 0 from the start and after a reset, as prom-client's is.
    if (this.#unlabelled) this.seriesFor(undefined);
  }

  override reset(): void {
    super.reset();
    if (this.#unlabelled) this.seriesFor(undefined);
  }

  protected newSeries(): { value: number } {
    return { value: 0 };
  }

  inc(labels?: LabelValues<L>, value = 1): void {
    if (!(value >= 0) || !Number.isFinite(value))
      throw new Error(`It is not possible to decrease a counter or add a non-finite value: ${value}`);
    this.seriesFor(labels).value += value;
  }

  async get(): Promise<HotMetricValues<L>> {
    const values: HotSample<L>[] = [];
    for (const { labels, series } of this.entries()) values.push({ value: series.value, labels });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class HotHistogram<L extends string = string> extends HotMetric<L, HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly #bounds: readonly number[];

  constructor(config: HotMetricConfig<L> & { buckets: readonly number[] }) {
    super(config);
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
  }

  protected newSeries(): HistogramSeries {
    return { counts: new Array<number>(this.#bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  observe(labels: LabelValues<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.seriesFor(labels);
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    series.counts[i]! += 1;
    series.sum += value;
    series.count += 1;
  }

  async get(): Promise<HotMetricValues<L>> {
    const values: HotSample<L>[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, series } of this.entries()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ value: cumulative, metricName: bucket, labels: { le: bound, ...labels } });
      });
      values.push(
        { value: series.count, metricName: bucket, labels: { le: '+Inf', ...labels } },
        { value: series.sum, metricName: `${this.name}_sum`, labels },
        { value: series.count, metricName: `${this.name}_count`, labels },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
