import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';

/** Families by name; runs of the same name (a histogram's series, label set by label set) are joined. */
function byName(families: PrometheusFamily[]): Map<string, PrometheusFamily> {
  const named = new Map<string, PrometheusFamily>();
  for (const f of families) {
    const seen = named.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else named.set(f.name, f);
  }
  return named;
}

/** A /metrics answer read as Prometheus reads it, by metric name. */
export class Scrape {
  private readonly families: Map<string, PrometheusFamily>;
  /**
   * The same text with histograms read as plain series (name_bucket, name_sum, name_count): the
   * parser folds a histogram's labelled series into one and loses their labels and counts.
   */
  private readonly series: Map<string, PrometheusFamily>;

  constructor(text: string) {
    this.families = byName(parsePrometheusTextFormat(text));
    this.series = byName(parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped')));
  }

  family(name: string): PrometheusFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`no metric ${name} in the scrape (has ${[...this.families.keys()].join(', ')})`);
    return family;
  }

  /** The sample of `name` whose labels include `labels`, or undefined. */
  sample(name: string, labels: Record<string, string> = {}): PrometheusSample | undefined {
    const series = this.series.get(name);
    if (!series) throw new Error(`no series ${name} in the scrape`);
    return series.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** A counter's or gauge's value; 0 for a labelled sample not (yet) reported. */
  value(name: string, labels: Record<string, string> = {}): number {
    const s = this.sample(name, labels);
    return s ? Number(s.value) : 0;
  }

  /** How many observations a histogram holds (0 for a labelled one never observed). */
  count(name: string, labels: Record<string, string> = {}): number {
    this.family(name);
    return this.series.has(`${name}_count`) ? this.value(`${name}_count`, labels) : 0;
  }

  /** The sum of a histogram's observations. */
  sum(name: string, labels: Record<string, string> = {}): number {
    this.family(name);
    return this.series.has(`${name}_sum`) ? this.value(`${name}_sum`, labels) : 0;
  }
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${await res.text()}`);
  return new Scrape(await res.text());
}
